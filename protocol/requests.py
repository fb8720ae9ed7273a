"""The client's requests: every request a Python client sends is built here, one builder per
request (and per ``op`` where a request has several).

Each returns the plain map that goes on the wire, exactly as
:func:`sidecar.protocol.messages.parse_request` reads it (PROTOCOL.md §4–§7). An optional
field left ``None`` is not written at all, so the server applies its own default; ``id``
too (the client then gives the request its own before sending it).
"""

from __future__ import annotations

from typing import Any, Literal

from sidecar.protocol.messages import PROTOCOL_VERSION, RequestId

Message = dict[str, Any]


def _given(message: Message, **fields: Any) -> Message:
    """``message`` with each of ``fields`` that is not ``None`` (in the order given)."""
    message.update((key, value) for key, value in fields.items() if value is not None)
    return message


def hello_request(*, table: str, name: str, role: str, locale: str | None = None,
                  client_seed: str | None = None, token: str | None = None,
                  resume: int | None = None, id: RequestId = None,
                  catalogue: str | None = None) -> Message:
    """Join ``table`` as ``name`` in ``role`` (a ``gm`` or a ``player`` with ``token``);
    ``resume``: the last ``seq`` seen, to be sent what was missed since; ``catalogue``:
    the ``welcome.catalogue`` whose descriptions the client holds (not sent again)."""
    return _given({"type": "hello", "protocol": PROTOCOL_VERSION, "table": table,
                   "name": name, "role": role}, locale=locale, client_seed=client_seed,
                  token=token, resume=resume, id=id, catalogue=catalogue)


def roll_request(*, ruleset: str, params: dict[str, Any] | None = None,
                 label: str | None = None, mode: str | None = None,
                 options: dict[str, Any] | None = None, dice: list[int] | None = None,
                 character: str | None = None, answers: str | None = None,
                 targets: list[str] | None = None, id: RequestId = None) -> Message:
    """Roll ``ruleset`` with ``params`` (``dice``: physical faces; ``character``: as that
    character; ``answers``: the GM's ask it answers, whose params, label and mode apply;
    ``targets``: the characters the action is aimed at, PROTOCOL.md §8)."""
    return _given({"type": "roll", "ruleset": ruleset, "params": params or {}},
                  label=label, mode=mode, options=options, dice=dice, id=id,
                  character=character, answers=answers,
                  targets=list(targets) if targets else None)


def react_request(*, roll: str, choice: str, dice: list[int] | None = None,
                  id: RequestId = None) -> Message:
    """Decide the open roll ``roll`` with one of its choices (``dice``: the faces it draws)."""
    return _given({"type": "react", "roll": roll, "choice": choice}, dice=dice, id=id)


def odds_request(*, ruleset: str, params: dict[str, Any] | None = None,
                 options: dict[str, Any] | None = None, character: str | None = None,
                 targets: list[str] | None = None, id: RequestId = None) -> Message:
    """The exact odds of a roll, as ``character`` if given (aimed at ``targets``);
    nothing is rolled."""
    return _given({"type": "odds", "ruleset": ruleset, "params": params or {},
                   "options": options or {}}, character=character, id=id,
                  targets=list(targets) if targets else None)


def ask_request(*, to: list[str], ruleset: str, params: dict[str, Any] | None = None,
                label: str = "", mode: str = "public", options: dict[str, Any] | None = None,
                opposed: bool = False, cooperative: bool = False,
                each: dict[str, dict[str, Any]] | None = None,
                targets: list[str] | None = None, id: RequestId = None) -> Message:
    """Ask seats or characters (``to``) for a roll (GM only); ``opposed`` or
    ``cooperative``: the answers are compared or the best one counts; ``each``: a side's own
    params over ``params``; ``targets``: the characters every answer is aimed at."""
    return _given({"type": "ask", "op": "open", "to": list(to), "ruleset": ruleset,
                   "params": params or {}, "label": label, "mode": mode,
                   "options": options or {}},
                  opposed=opposed or None, cooperative=cooperative or None,
                  each=each or None, targets=list(targets) if targets else None, id=id)


def cancel_ask_request(*, ask: str, id: RequestId = None) -> Message:
    """Cancel the open ask ``ask`` (GM only)."""
    return _given({"type": "ask", "op": "cancel", "ask": ask}, id=id)


def list_asks_request(*, after: int = 0, limit: int | None = None,
                      id: RequestId = None) -> Message:
    """One page of the open asks, those opened after the event ``after``."""
    return _given({"type": "ask", "op": "list", "after": after}, limit=limit, id=id)


def session_request(*, id: RequestId = None) -> Message:
    """Start a new game session (GM only)."""
    return _given({"type": "session", "op": "start"}, id=id)


def initiative_request(*, characters: list[str | dict[str, Any]],
                       id: RequestId = None) -> Message:
    """Order ``characters`` for a scene (GM only): each a name or ``{character, claim,
    bagage}``."""
    return _given({"type": "initiative", "characters": list(characters)}, id=id)


def seat_request(*, op: Literal["add", "remove", "rotate"], name: str,
                 id: RequestId = None) -> Message:
    """Add, remove or rotate (a new token) the seat ``name`` (GM only)."""
    return _given({"type": "seat", "op": op, "name": name}, id=id)


def list_seats_request(*, after: str = "", limit: int | None = None,
                       id: RequestId = None) -> Message:
    """One page of the table's seats, those named after ``after`` (GM only)."""
    return _given({"type": "seat", "op": "list", "after": after}, limit=limit, id=id)


def set_sheet_request(*, character: str, ruleset: str, values: dict[str, Any] | None = None,
                      owner: str | None = None, keep_owner: bool = True,
                      reason: str | None = None, id: RequestId = None) -> Message:
    """Create ``character`` or change the ``values`` given (GM only). Its owner is left as
    it is unless ``keep_owner=False``: then ``owner`` (a seat's name, ``None`` for the GM's
    own character)."""
    message: Message = {"type": "sheet", "op": "set", "character": character,
                        "ruleset": ruleset, "values": values or {}}
    if not keep_owner:
        message["owner"] = owner
    return _given(message, reason=reason, id=id)


def adjust_sheet_request(*, character: str, delta: dict[str, int], reason: str | None = None,
                         id: RequestId = None) -> Message:
    """Add ``delta`` to integer fields of ``character`` (GM only)."""
    return _given({"type": "sheet", "op": "adjust", "character": character, "delta": delta},
                  reason=reason, id=id)


def refill_request(*, what: Literal["turn", "rest"] = "turn", character: str | None = None,
                   reason: str | None = None, id: RequestId = None) -> Message:
    """A new ``turn`` or a ``rest`` for ``character``, or for every character when
    ``None`` (GM only)."""
    return _given({"type": "sheet", "op": "refill", "what": what}, character=character,
                  reason=reason, id=id)


def remove_sheet_request(*, character: str, reason: str | None = None,
                         id: RequestId = None) -> Message:
    """Delete ``character`` (GM only; its events stay in the journal)."""
    return _given({"type": "sheet", "op": "remove", "character": character},
                  reason=reason, id=id)


def list_sheets_request(*, after: str = "", limit: int | None = None,
                        id: RequestId = None) -> Message:
    """One page of the characters this member may see, those named after ``after``."""
    return _given({"type": "sheet", "op": "list", "after": after}, limit=limit, id=id)


def history_request(*, after: int = 0, limit: int = 100, id: RequestId = None) -> Message:
    """One page of the table's journal after the event ``after``, as this member may see it."""
    return _given({"type": "history", "after": after, "limit": limit}, id=id)


def plugins_request(*, id: RequestId = None) -> Message:
    """The server's plugins and their health."""
    return _given({"type": "plugins"}, id=id)


def epoch_request(*, id: RequestId = None) -> Message:
    """End the epoch of verifiable dice: its seed revealed, a new one started (GM)."""
    return _given({"type": "epoch", "op": "end"}, id=id)
