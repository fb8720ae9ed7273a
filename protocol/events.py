"""The journal's events: every event a table records is built here, one builder per kind.

The table core (:mod:`sidecar.table`) numbers them (``seq``: the table's next) and the
journal stores them as they are; :mod:`sidecar.protocol.messages` turns each into what
its readers get (``outcome_message``, ``seat_event_message``…). Every event has ``type``,
``seq``, ``table``, ``by`` (its author, as the journal keeps it), ``mode`` and
``request_id``; a ``gm`` event names in ``audience`` the one identity role besides the
GMs that sees it whole (``""``: none). PROTOCOL.md §7 describes them.
"""

from __future__ import annotations

from typing import Any

RequestId = str | int | None
Event = dict[str, Any]


def _event(kind: str, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
           fields: dict[str, Any], *, mode: str = "public",
           audience: str | None = None) -> Event:
    event = {"type": kind, "seq": seq, "table": table, **fields, "by": by, "mode": mode}
    if audience is not None:
        event["audience"] = audience
    event["request_id"] = request_id
    return event


def outcome_event(seq: int, roll: str, table: str, by: dict[str, Any], ruleset: str,
                  params: dict[str, Any], label: str, mode: str, dice: list[Any],
                  result: dict[str, Any], applied: list[str], notes: list[str],
                  text: dict[str, str], request_id: RequestId,
                  unreadable: bool = False) -> Event:
    """A resolved roll (or a decision on an open one): what every outcome has;
    :func:`outcome_details` adds what some have. ``unreadable``: the journal's placeholder
    for an event it cannot read back.

    (Two builders, not one with every field: a call passing more than 15 keyword
    arguments is compiled to build a dict and unpack it again, a few µs on every roll.
    Its arguments may be given by position, in this order: the table core does, on every
    roll — matching 14 keywords to their parameters costs ~1k instructions.)"""
    event: Event = {
        "type": "outcome", "seq": seq, "roll": roll, "table": table, "by": by,
        "ruleset": ruleset, "params": params, "label": label, "mode": mode, "dice": dice,
        "result": result, "applied": applied, "notes": notes, "text": text,
        "request_id": request_id,
    }
    if unreadable:
        event["unreadable"] = True
    return event


def outcome_details(event: Event, options: dict[str, Any] | None = None,
                    asked_params: dict[str, Any] | None = None,
                    answers: str | None = None,
                    opposition: dict[str, Any] | None = None,
                    cooperation: dict[str, Any] | None = None,
                    character: tuple[str, dict[str, int], Any] | None = None,
                    proof: dict[str, Any] | None = None,
                    reaction: tuple[int, str | None, dict[str, Any] | None] | None = None,
                    audience: str | None = None,
                    opened: tuple[list[dict[str, Any]], str | None, float, bool] | None = None
                    ) -> Event:
    """An :func:`outcome_event` with what some outcomes have besides (``event`` itself,
    completed): ``options`` the extensions' (kept when there are some, and by an open
    roll); ``asked_params`` the params as requested when extensions changed them;
    ``answers`` the ask it answers, with its ``opposition`` or ``cooperation`` once
    judged; ``character`` (name, spent, sheet after); ``proof`` its verifiable dice (or
    the physical dice's author); ``reaction`` (the open roll's seq, the choice taken or
    ``None`` when its time ran out without a default, who decided — ``None``: the
    server); ``audience`` ``""`` for a blind roll's decision (the GMs' alone); ``opened``
    (choices, default, expiry, manual) for a roll left open for a decision.

    (Its arguments may be given by position, in this order: the table core does, on every
    roll — ten keywords matched to their parameters cost ~700 instructions.)"""
    if options or opened is not None:  # (what a verifier re-runs the extensions with)
        event["options"] = options or {}
    if asked_params is not None:
        event["asked_params"] = asked_params
    if answers is not None:
        event["answers"] = answers
        if opposition is not None:
            event["opposition"] = opposition
        if cooperation is not None:
            event["cooperation"] = cooperation
    if character is not None:
        event["character"], event["spent"], event["sheet"] = character
    if proof is not None:
        event["proof"] = proof
    if reaction is not None:
        event["reacts_to"], event["choice"], event["reacted_by"] = reaction
    if audience is not None:
        event["audience"] = audience
    if opened is not None:
        choices, default, expires, manual = opened
        event.update(open=True, choices=choices, default=default, expires=expires,
                     manual=manual)
    return event


def seat_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId, op: str,
               name: str, token_sha256: str | None = None,
               seat_id: str | None = None) -> Event:
    """A GM's seat change (``add``, ``rotate``: the new token's hash and the seat's id;
    ``remove``); the GMs' alone."""
    fields: dict[str, Any] = {"op": op, "name": name}
    if op != "remove":
        fields.update(token_sha256=token_sha256, seat_id=seat_id)
    return _event("seat", seq, table, by, request_id, fields, mode="gm", audience="")


def sheet_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId, op: str,
                character: str, ruleset: str, owner: str | None, values: dict[str, Any],
                changed: dict[str, Any], reason: str, audience: str,
                what: str | None = None, whole: bool = False) -> Event:
    """A GM's change to a character (``set``, ``adjust``, ``refill`` of ``what``,
    ``remove``): the GMs' and its owner's seat's (``audience``); ``whole``: one of the
    events of a refill of every character."""
    fields: dict[str, Any] = {"op": op, "character": character, "ruleset": ruleset,
                              "owner": owner, "values": values, "changed": changed,
                              "reason": reason}
    if op == "refill":
        fields["what"] = what
    if op == "remove":
        fields["removed"] = True
    if whole:
        fields["whole"] = True
    return _event("sheet", seq, table, by, request_id, fields, mode="gm", audience=audience)


def ask_open_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
                   ask: str, to: list[dict[str, Any]], ruleset: str, params: dict[str, Any],
                   label: str, roll_mode: str, options: dict[str, Any], opposed: bool,
                   cooperative: bool) -> Event:
    """The GM asks seats (``to``) for a roll: public, everyone sees that the GM asked
    (``roll_mode``: how the answers are seen)."""
    return _event("ask", seq, table, by, request_id, {
        "op": "open", "ask": ask, "to": to, "ruleset": ruleset, "params": params,
        "label": label, "roll_mode": roll_mode, "options": options, "opposed": opposed,
        "cooperative": cooperative})


def ask_cancel_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
                     ask: str) -> Event:
    """The GM cancels an open ask: public."""
    return _event("ask", seq, table, by, request_id, {"op": "cancel", "ask": ask})


def initiative_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
                     ruleset: str, order: list[list[str]], claims: list[str],
                     spent: dict[str, Any], entries: list[dict[str, Any]]) -> Event:
    """An initiative's order, what the claims spent, and the entries asked: public."""
    return _event("initiative", seq, table, by, request_id, {
        "ruleset": ruleset, "order": order, "claims": claims, "spent": spent,
        "entries": entries})


def session_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
                  number: int) -> Event:
    """A new game session, numbered: public."""
    return _event("session", seq, table, by, request_id, {"number": number})


def turn_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
               number: int, turn: int) -> Event:
    """A new turn of session ``number`` (a table-wide ``refill turn``, one of its
    ``whole`` events): public."""
    return _event("session", seq, table, by, request_id,
                  {"op": "turn", "number": number, "turn": turn, "whole": True})


def epoch_start_event(*, seq: int, table: str, by: dict[str, Any],
                      epoch: dict[str, Any]) -> Event:
    """A table's epoch of verifiable dice starts: its number and commitment, public."""
    return _event("epoch", seq, table, by, None, {"op": "start", "epoch": epoch})


def epoch_reveal_event(*, seq: int, table: str, by: dict[str, Any], request_id: RequestId,
                       epoch: dict[str, Any], seed: str, events: int,
                       next: dict[str, Any] | None, nonce: str | None = None) -> Event:
    """An epoch ends: its seed revealed (the GMs' view shows it) with the nonce it was
    derived from with the epoch's settings (``None``: not derived), how many events it
    numbered, and the next one's commitment (``None``: started at the next welcome)."""
    fields = {"op": "reveal", "epoch": epoch, "seed": seed, "events": events, "next": next}
    if nonce is not None:
        fields["nonce"] = nonce
    return _event("epoch", seq, table, by, request_id, fields)
