"""The table core, without I/O: members, seats, characters, asks, open rolls, and who
may see what.

:class:`~sidecar.table.core.TableCore` assembles the features, one module each:
``joining`` (tokens, welcome, presence), ``rolling`` (a roll to its numbered event),
``decisions`` (open rolls), ``asks`` (the GM asks seats for rolls), ``characters``
(sheets), ``seating`` (the GM's seats), ``sessions`` (sessions, turns, initiative),
``epochs`` (verifiable dice), ``commits`` (events in and out of the journal) and
``history`` (a page of it), on ``basis`` (what they share). They return ``effects``
(events to journal, messages to deliver) that the server's runner performs.
"""
