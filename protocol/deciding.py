"""Who may decide an open roll — the one rule the server, the verifier and the clients
apply (PROTOCOL.md §7.6): a GM; the roll's roller; and, for a roll made as a character,
the seat that plays that character when the roll's mode shows it to that seat (a
``public`` roll). A ``blind`` roll is a GM's to decide: its roller does not even know it
is open (contract §7 clarified); a ``gm`` or ``self`` roll is not shown to the seat
unless that seat rolled it. Each caller says who is deciding in its own terms (the
server knows the seats' ids, a client its own name)."""

from __future__ import annotations


def may_decide(*, role: str, mode: str, roller: bool, plays: bool) -> bool:
    """Whether a member of ``role`` may decide an open roll of ``mode``: ``roller``, it
    made the roll; ``plays``, it is the seat that plays the character the roll was made
    as (``False`` for a roll made as no character)."""
    if role == "gm":
        return True
    if role != "player" or mode == "blind":
        return False
    return roller or (plays and mode == "public")
