"""What the server sends: every message it writes is built here, so each is spelt one way
whoever sends it (the table server, a test, a future store).

The builders take plain values, never server objects; the requests they answer are
:mod:`sidecar.protocol.messages`'s, the journal events they copy are
:mod:`sidecar.protocol.events`'s.
"""

from __future__ import annotations

from typing import Any

from sidecar.protocol.manual import manual_mark
from sidecar.protocol.messages import PROTOCOL_VERSION, RequestId
from sidecar.protocol.text import heading, localized

#: The server's name in ``welcome.server``.
SERVER_NAME = "vtt-sidecar"


def _with_id(message: dict[str, Any], request_id: RequestId, *,
             duplicate: bool = False) -> dict[str, Any]:
    """``message`` with the request's ``id`` (its requester's copy), marked ``duplicate``
    when it answers a repeated id."""
    if request_id is not None:
        message["id"] = request_id
    if duplicate:
        message["duplicate"] = True
    return message


def welcome_message(*, table: str, role: str, seq: int, version: str,
                    rulesets: list[dict[str, Any]], extensions: list[dict[str, Any]],
                    manual_dice: bool, replayed: int | None = None,
                    request_id: RequestId = None, seat: bool | str = False,
                    characters: list[dict[str, Any]] | None = None,
                    characters_more: bool = False,
                    asks: list[dict[str, Any]] | None = None,
                    asks_more: bool = False,
                    options: list[dict[str, Any]] | None = None,
                    epoch: dict[str, Any] | None = None,
                    hooks: str | None = None, catalogue: str | None = None,
                    cached: bool = False) -> dict[str, Any]:
    """The ``welcome`` answering a ``hello``; ``replayed`` only when it asked to resume;
    ``hooks`` the version of the plugin hooks (``server.hooks``); ``catalogue`` the
    digest of ``rulesets``, ``extensions`` and ``options``, which are left out when
    ``cached`` (the hello echoed that digest);
    ``seat`` when the member sits on a seat; ``characters`` those it may see;
    ``options`` the extensions' option descriptions; ``epoch`` the current epoch's number,
    commitment and the member's client seed (verifiable dice)."""
    message: dict[str, Any] = {
        "type": "welcome",
        "protocol": PROTOCOL_VERSION,
        "table": table,
        "role": role,
        "seq": seq,
        "server": ({"name": SERVER_NAME, "version": version} if hooks is None else
                   {"name": SERVER_NAME, "version": version, "hooks": hooks}),
        "rulesets": rulesets,
        "extensions": extensions,
        "options": options or [],
        "manual_dice": manual_dice,
        "characters": characters or [],
    }
    if catalogue is not None:
        message["catalogue"] = catalogue
        if cached:
            del message["rulesets"], message["extensions"], message["options"]
    if seat:
        message["seat"] = True
    if characters_more:
        message["characters_more"] = True
    if asks:
        message["asks"] = asks
    if asks_more:
        message["asks_more"] = True
    if epoch is not None:
        message["epoch"] = epoch
    if replayed is not None:
        message["replayed"] = replayed
    return _with_id(message, request_id)


def presence_message(table: str, members: list[dict[str, str]]) -> dict[str, Any]:
    """A live-only ``presence`` message: who is at the table now."""
    return {"type": "presence", "table": table, "members": members}


#: One-line text of a blind roll as its roller sees it (after the heading).
HIDDEN_TEXT = {"fr": "jet à l'aveugle, résultat caché", "en": "blind roll, result hidden"}


def public_by(by: dict[str, Any]) -> dict[str, Any]:
    """An event's author as messages show it: a seat's id stays in the journal (``seat:
    true`` says the author sat on a seat)."""
    seat = by.get("seat")
    if seat is None or seat is True:
        return by
    return {**by, "seat": True}


def outcome_message(event: dict[str, Any], locale: str, *, hidden: bool = False,
                    request_id: RequestId = None, duplicate: bool = False) -> dict[str, Any]:
    """The ``outcome`` one reader gets for a journaled outcome ``event``.

    ``event`` holds every field of the full outcome with ``text`` as ``{"fr", "en"}``.
    ``hidden``: the blind roll's roller, who sees that it happened, not how it went.
    ``request_id``: only the requester's copy echoes it; ``duplicate``: the answer to a
    request id that was already resolved.
    """
    message: dict[str, Any] = {
        "type": "outcome",
        "seq": event["seq"],
        "roll": event["roll"],
        "table": event["table"],
        "by": public_by(event["by"]),
        "ruleset": event["ruleset"],
        "params": event["params"],
        "label": event["label"],
        "mode": event["mode"],
    }
    _with_id(message, request_id)
    character = event.get("character")
    if character is not None:
        message["character"] = character
    if "targets" in event:  # (what the dice did to them: not for a blind roll's roller)
        message["targets"] = event["targets"]
        if not hidden:
            message["effects"] = event["effects"]
    if "answers" in event:
        message["answers"] = event["answers"]
        if "opposition" in event and not hidden:
            message["opposition"] = event["opposition"]
        if "cooperation" in event and not hidden:
            message["cooperation"] = event["cooperation"]
    # A blind roll's roller learns nothing of a decision after the dice, not even that one
    # is pending: whether the roll is open tells how the dice went (the ladder opens a
    # failed pair). Its copy has one shape whatever the dice show (contract §7, 1.2); the
    # decisions themselves reach the GMs only (their events' audience).
    if "reacts_to" in event and not hidden:
        message["reacts_to"] = event["reacts_to"]
        message["choice"] = event["choice"]
        # Who decided, as ``by`` shows an author: a seat's id stays in the journal.
        reactor = event["reacted_by"]
        message["reacted_by"] = None if reactor is None else public_by(reactor)
    if event.get("open") and not hidden:
        message["open"] = True
        message["expires"] = event["expires"]
        message["choices"] = event["choices"]
        if event.get("default") is not None:
            message["default"] = event["default"]
    if hidden:
        message.update(
            dice=[],
            result={"hidden": True},
            applied=[],
            notes=[],
            # Named as its full text is (sidecar.rules.who): the character it is made as.
            text=heading(character or event["by"]["name"], event["label"], locale=locale)
            + HIDDEN_TEXT[locale],
        )
    else:
        message.update(
            dice=event["dice"],
            result=event["result"],
            applied=event["applied"],
            # A note is a ``{fr, en}`` value picked here like ``text`` (a plain string,
            # from an older plugin or journal, passes through).
            notes=[localized(note, locale) for note in event["notes"]],
            text=event["text"].get(locale) or event["text"]["fr"],
        )
        if character is not None and "sheet" in event:
            message["spent"] = event["spent"]
            message["sheet"] = event["sheet"]
        # What a verifier re-runs the roll from, beside its params: the extensions'
        # settings, and the params as asked when an extension changed them.
        for key in ("options", "asked_params"):
            if key in event:
                message[key] = event[key]
        proof = event.get("proof")
        if proof is not None:
            # Only those who see the faces get what checks them (a blind roll's roller
            # does not even learn its position).
            message["proof"] = proof
        # Faces a person typed, marked for whoever sees them: which, and who (a provable
        # table keeps who in the proof, a secure one in ``entered_by``; a decision its
        # open roll's typed faces too, in ``manual_dice``).
        if "entered_by" in event or "manual_dice" in event or (
                proof is not None and proof.get("manual")):
            mark = manual_mark(event)
            if mark is not None:
                message["manual"] = mark
    if duplicate:
        message["duplicate"] = True
    return message


def epoch_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                  request_id: RequestId = None, duplicate: bool = False) -> dict[str, Any]:
    """The ``epoch`` message of a journaled epoch event: a new commitment (``start``), or
    an epoch ended (``reveal``) with the next one's commitment. The revealed seed goes to
    the GMs only (``hidden`` for everyone else): players get each roll's key with the
    rolls they saw (``history``), never the seed, which would give away every secret
    roll. ``next`` is ``None`` when the server stopped (the next epoch starts with the
    table's next welcome)."""
    message: dict[str, Any] = {"type": "epoch", "op": event["op"], "seq": event["seq"],
                               "table": event["table"], "by": public_by(event["by"]),
                               "epoch": event["epoch"]}
    _with_id(message, request_id)
    if event["op"] == "reveal":
        message["events"] = event["events"]
        message["next"] = event["next"]
        if not hidden:
            message["seed"] = event["seed"]
            if "nonce" in event:
                message["nonce"] = event["nonce"]
    if duplicate:
        message["duplicate"] = True
    return message


def sheet_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                  request_id: RequestId = None, duplicate: bool = False) -> dict[str, Any]:
    """A journaled ``sheet`` event (a character made, changed or removed) as its readers
    (the GMs and the owner's seat) get it."""
    message = {key: event[key] for key in SHEET_EVENT_FIELDS if key in event}
    message["type"] = "sheet"
    message["by"] = public_by(event["by"])
    return _with_id(message, request_id, duplicate=duplicate)


#: What a ``sheet`` event shows (never its audience or stored request id).
SHEET_EVENT_FIELDS = ("seq", "table", "op", "character", "ruleset", "owner", "values",
                      "changed", "reason", "by", "removed")


def seat_event_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                       request_id: RequestId = None, duplicate: bool = False
                       ) -> dict[str, Any]:
    """A journaled ``seat`` event as the GMs get it: never the token's hash (the
    requester's live copy adds the token, the link and the QR code)."""
    message: dict[str, Any] = {"type": "seat", "seq": event["seq"], "table": event["table"],
                               "op": event["op"], "name": event["name"],
                               "by": public_by(event["by"])}
    if event["op"] == "remove":
        message["removed"] = True
    return _with_id(message, request_id, duplicate=duplicate)


def session_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                    request_id: RequestId = None, duplicate: bool = False
                    ) -> dict[str, Any]:
    """A journaled ``session`` event: a GM started game session ``number`` — or, with
    ``op: "turn"``, the table's turn ``turn`` began (a table-wide ``refill turn``)."""
    message = {"type": "session", "seq": event["seq"], "table": event["table"],
               "number": event["number"], "by": public_by(event["by"])}
    if event.get("op") == "turn":
        message["op"], message["turn"] = "turn", event["turn"]
    return _with_id(message, request_id, duplicate=duplicate)


#: What an ``ask`` event shows.
ASK_EVENT_FIELDS = ("seq", "table", "op", "ask", "to", "ruleset", "params", "label",
                    "options", "opposed", "cooperative", "targets")


def ask_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                request_id: RequestId = None, duplicate: bool = False) -> dict[str, Any]:
    """A journaled ``ask`` event: a GM asked seats (or characters) for a roll, or
    cancelled such a request."""
    message = {key: event[key] for key in ASK_EVENT_FIELDS if key in event}
    message["type"] = "ask"
    if "roll_mode" in event:
        message["mode"] = event["roll_mode"]
    message["by"] = public_by(event["by"])
    return _with_id(message, request_id, duplicate=duplicate)


def asks_message(table: str, asks: list[dict[str, Any]],
                 request_id: RequestId = None, *, more: bool = False,
                 next: int = 0) -> dict[str, Any]:
    """The answer to ``ask`` ``list``: a page of the open asks (each with who answered;
    ``next``: the ``after`` of the following page, when ``more``)."""
    return _with_id({"type": "asks", "table": table, "asks": asks, "more": more,
                     "next": next}, request_id)


def initiative_message(event: dict[str, Any], locale: str = "fr", *, hidden: bool = False,
                       request_id: RequestId = None, duplicate: bool = False
                       ) -> dict[str, Any]:
    """A journaled ``initiative`` event: the acting order of a scene."""
    message = {"type": "initiative", "seq": event["seq"], "table": event["table"],
               "ruleset": event["ruleset"], "order": event["order"],
               "claims": event["claims"], "spent": event["spent"],
               "by": public_by(event["by"])}
    if "entries" in event:  # (what a verifier orders again)
        message["entries"] = event["entries"]
    if "acted" in event:  # (the GMs': who already acted this turn, removed for others)
        message["acted"] = event["acted"]
    return _with_id(message, request_id, duplicate=duplicate)


def seats_message(table: str, seats: list[dict[str, Any]],
                  request_id: RequestId = None, *, more: bool = False,
                  next: str = "") -> dict[str, Any]:
    """The answer to ``seat`` ``list``: a page of seats, each with its open connections
    and its characters (``next``: the ``after`` of the following page, when ``more``)."""
    return _with_id({"type": "seats", "table": table, "seats": seats, "more": more,
                     "next": next}, request_id)


def sheets_message(table: str, characters: list[dict[str, Any]],
                   request_id: RequestId = None, *, more: bool = False,
                   next: str = "") -> dict[str, Any]:
    """The answer to ``sheet`` ``list``: a page of the characters the requester may see
    (``next``: the ``after`` of the following page, when ``more``)."""
    return _with_id({"type": "sheets", "table": table, "characters": characters,
                     "more": more, "next": next}, request_id)


def history_message(table: str, events: list[dict[str, Any]], *, more: bool, next: int,
                    request_id: RequestId = None,
                    hidden_notes: list[int] | None = None) -> dict[str, Any]:
    """A page of past events (already as the reader may see them); ``next`` is the
    ``after`` of the following page; ``hidden_notes``, the seqs of events the reader may
    not see that are no roll (sent when there are some)."""
    message = {"type": "history", "table": table, "events": events, "more": more,
               "next": next}
    if hidden_notes:
        message["hidden_notes"] = hidden_notes
    return _with_id(message, request_id)


def odds_message(ruleset: str, params: dict[str, Any], odds: dict[str, Any],
                 request_id: RequestId = None) -> dict[str, Any]:
    """The answer to ``odds``: ``p_success`` and ``kinds`` (and whatever else the ruleset
    computed) for the params as resolved."""
    return _with_id({"type": "odds", "ruleset": ruleset, "params": params, **odds},
                    request_id)


def plugins_message(plugins: list[dict[str, Any]],
                    request_id: RequestId = None) -> dict[str, Any]:
    """The answer to ``plugins``: each plugin's name, version, hooks and health."""
    return _with_id({"type": "plugins", "plugins": plugins}, request_id)
