"""Message types of protocol v1 and the validation of client requests.

``parse_request`` turns a decoded map into one of the request dataclasses below, or raises
a :class:`~sidecar.protocol.errors.ProtocolError` naming the missing or ill-typed field. Unknown
fields are ignored, as the contract requires. What the server sends back is built by
:mod:`sidecar.protocol.replies`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sidecar.protocol.errors import MUST_BE_BOOL, ProtocolError, bad_field
from sidecar.protocol.text import control_problem, folded, normalized

PROTOCOL_VERSION = 1
ROLES = ("player", "gm", "observer")
MODES = ("public", "gm", "blind", "self")
LOCALES = ("fr", "en")
KINDS = ("botch", "failure", "narrow", "success", "critical")

#: Bounds on the sizes of request fields (the frame limit bounds the rest).
MAX_ID_CHARS = 64
MAX_NAME_CHARS = 64
MAX_LABEL_CHARS = 200
MAX_MANUAL_DICE = 100
MAX_TOKEN_CHARS = 256
#: Largest event number a request may name (``after``, ``resume``): the journal stores
#: ``seq`` as a signed 64-bit integer, so larger values cannot be compared with it.
MAX_SEQ = 2**63 - 1

RequestId = str | int | None


@dataclass(frozen=True)
class Hello:
    """A client's ``hello``: which table to join, as whom."""

    table: str
    name: str
    role: str
    token: str | None = None
    locale: str = "fr"
    resume: int | None = None
    protocol: int = PROTOCOL_VERSION
    id: RequestId = None
    #: The member's own seed for verifiable dice (``None``: the server makes one).
    client_seed: str | None = None
    #: The ``welcome.catalogue`` the client holds the descriptions of (not sent again).
    catalogue: str | None = None


@dataclass(frozen=True)
class RollRequest:
    """A ``roll`` request: resolve one roll of a ruleset and stream its outcome."""

    ruleset: str
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    mode: str = "public"
    options: dict[str, Any] = field(default_factory=dict)
    dice: list[int] | None = None
    id: RequestId = None
    character: str | None = None
    #: The GM's ``ask`` this roll answers (its ruleset, params, label and mode apply).
    answers: str | None = None
    #: The characters the action is aimed at (contract §8), in the order named.
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class OddsRequest:
    """An ``odds`` request: exact probabilities of a roll, nothing rolled."""

    ruleset: str
    params: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    id: RequestId = None
    character: str | None = None
    targets: tuple[str, ...] = ()


#: Most seats or characters one ``ask`` may name.
MAX_ASKED = 50


@dataclass(frozen=True)
class AskRequest:
    """An ``ask`` request (GM only): ask seats or characters for a roll, or cancel one."""

    op: str
    to: tuple[str, ...] = ()
    ruleset: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    mode: str = "public"
    options: dict[str, Any] = field(default_factory=dict)
    ask: str | None = None
    id: RequestId = None
    #: An opposed roll: the answers are compared when all are in.
    opposed: bool = False
    #: A cooperative roll: only the best answer counts.
    cooperative: bool = False
    #: Per seat or character of ``to``: params that differ from ``params`` (each side's
    #: own difficulty…).
    each: dict[str, Any] = field(default_factory=dict)
    #: ``list``: the page of asks opened after this ``seq``, of at most ``limit`` asks.
    after: int = 0
    limit: int = 100
    #: The characters every answer is aimed at (contract §8).
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class InitiativeRequest:
    """An ``initiative`` request (GM only): order characters for a scene."""

    characters: tuple[dict[str, Any], ...]
    id: RequestId = None


@dataclass(frozen=True)
class SessionRequest:
    """A ``session`` request (GM only): start a new game session at the table."""

    op: str
    id: RequestId = None


@dataclass(frozen=True)
class ReactRequest:
    """A ``react`` request: decide on an open roll (the roller, a GM, or the seat that
    plays the character of a public roll: :mod:`sidecar.protocol.deciding`)."""

    roll: str
    choice: str
    dice: list[int] | None = None
    id: RequestId = None


SEAT_OPS = ("add", "remove", "rotate", "list")
SHEET_OPS = ("set", "adjust", "refill", "remove", "list")
REFILLS = ("turn", "rest")
MAX_REASON_CHARS = 200


@dataclass(frozen=True)
class SeatRequest:
    """A ``seat`` request (GM only): add, remove, rotate or list the table's seats."""

    op: str
    name: str | None = None
    id: RequestId = None
    #: ``list``: the page of seats after this name, of at most ``limit`` seats.
    after: str = ""
    limit: int = 100


@dataclass(frozen=True)
class SheetRequest:
    """A ``sheet`` request: change a character (GM only) or list the characters."""

    op: str
    character: str | None = None
    ruleset: str | None = None
    #: ``owner`` was given (``None`` then means the GM's own character).
    has_owner: bool = False
    owner: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    delta: dict[str, Any] = field(default_factory=dict)
    what: str | None = None
    reason: str = ""
    id: RequestId = None
    #: ``list``: the page after this character name, of at most ``limit`` characters.
    after: str = ""
    limit: int = 100


@dataclass(frozen=True)
class HistoryRequest:
    """A ``history`` request: a page of the table's past events, as visibility allows."""

    after: int = 0
    limit: int = 100
    id: RequestId = None


@dataclass(frozen=True)
class PluginsRequest:
    """A ``plugins`` request: the server's plugins and their health (failures, disabled)."""

    id: RequestId = None


@dataclass(frozen=True)
class EpochRequest:
    """An ``epoch`` request (GM): ``end`` reveals the current epoch's seed and starts a
    new one (verifiable dice)."""

    op: str = "end"
    id: RequestId = None


#: Most events one ``history`` page returns.
MAX_HISTORY_PAGE = 500

Request = (Hello | RollRequest | OddsRequest | HistoryRequest | PluginsRequest | SeatRequest
           | SheetRequest | ReactRequest | SessionRequest | AskRequest
           | InitiativeRequest | EpochRequest)


def request_id(message: dict[str, Any] | None) -> RequestId:
    """The message's ``id`` if it is a valid one, else ``None`` (used to echo it): one an
    answer can carry back (not a lone surrogate, not past 64 bits)."""
    value = message.get("id") if message else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else None
    if isinstance(value, str) and len(value) <= MAX_ID_CHARS:
        try:
            value.encode()
        except UnicodeEncodeError:
            return None
        return value
    return None


def _id(message: dict[str, Any]) -> RequestId:
    if "id" not in message or message["id"] is None:
        return None
    value = message["id"]
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise bad_field("id", "must be a string or an integer",
                        fr="doit être une chaîne ou un entier")
    if isinstance(value, str):
        if len(value) > MAX_ID_CHARS:
            raise bad_field("id", f"at most {MAX_ID_CHARS} characters",
                            fr=f"au plus {MAX_ID_CHARS} caractères")
        _no_controls("id", value)
    return value


def _string(message: dict[str, Any], name: str, *, required: bool = True,
            default: str = "", max_chars: int = MAX_NAME_CHARS,
            allow_empty: bool = False) -> str:
    if name not in message or message[name] is None:
        if required:
            raise bad_field(name, "is required", fr="est obligatoire")
        return default
    value = message[name]
    if not isinstance(value, str):
        raise bad_field(name, "must be a string", fr="doit être une chaîne")
    if not allow_empty and not value.strip():
        raise bad_field(name, "must not be empty", fr="ne doit pas être vide")
    if len(value) > max_chars:
        raise bad_field(name, f"at most {max_chars} characters",
                        fr=f"au plus {max_chars} caractères")
    _no_controls(name, value)
    return value


def _no_controls(field: str, value: str) -> None:
    """Refuse text that would act on a display (``"Eve\x1b[8m"``, a ``\r``, an OSC)."""
    if value.isascii() and value.isprintable():
        return
    problem = control_problem(value)
    if problem is not None:
        raise bad_field(field, f"must not hold control characters ({problem})",
                        fr=f"ne doit pas contenir de caractères de contrôle ({problem})")


def _checked_name(field: str, value: str) -> str:
    """A name (of a member, a seat, a character, a table) in one Unicode form (NFC), and
    showing at least one character: a name of nothing but marks or fillers is refused."""
    value = normalized(value)
    if len(value) > MAX_NAME_CHARS:
        raise bad_field(field, f"at most {MAX_NAME_CHARS} characters",
                        fr=f"au plus {MAX_NAME_CHARS} caractères")
    if not folded(value):
        raise bad_field(field, "must show at least one visible character",
                        fr="doit montrer au moins un caractère visible")
    return value


def _name(message: dict[str, Any], field: str) -> str:
    return _checked_name(field, _string(message, field))


def _choice(message: dict[str, Any], name: str, choices: tuple[str, ...],
            default: str | None = None) -> str:
    if default is not None and message.get(name) is None:
        return default
    value = _string(message, name)
    if value not in choices:
        allowed = ", ".join(choices)
        raise bad_field(name, f"must be one of {allowed}", fr=f"doit être l'un de {allowed}")
    return value


#: Values with no string inside, passed over by :func:`_map`'s check of strings.
_NO_TEXT = frozenset({int, float, bool, type(None)})


def _map(message: dict[str, Any], name: str) -> dict[str, Any]:
    value = message.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad_field(name, "must be a map", fr="doit être une table (map)")
    if value.__class__ is not dict:
        _no_controls_within(name, value)
        return value
    # (:func:`_no_controls_within`, its first level written out: the usual params, names
    # to numbers and short texts, are checked without a call — this runs on every roll)
    for key, item in value.items():
        if key.__class__ is not str or not (key.isascii() and key.isprintable()):
            if isinstance(key, str):
                _no_controls(name, key)
        kind = item.__class__
        if kind is str:
            if not (item.isascii() and item.isprintable()):
                _no_controls(name, item)
        elif kind not in _NO_TEXT:
            _no_controls_within(name, item)
    return value


def _no_controls_within(field: str, value: Any) -> None:
    """:func:`_no_controls` on every string of a map's keys and values, at any depth (a
    param's text, an option's, a sheet's list items and map keys): the request's other
    strings, as PROTOCOL.md §1 says. The field named is the map's (``params``)."""
    if isinstance(value, str):
        _no_controls(field, value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                _no_controls(field, key)
            _no_controls_within(field, item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _no_controls_within(field, item)


def _int(message: dict[str, Any], name: str, *, required: bool) -> int | None:
    value = message.get(name)
    if value is None:
        if required:
            raise bad_field(name, "is required", fr="est obligatoire")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_field(name, "must be an integer", fr="doit être un entier")
    return value


def _seq(message: dict[str, Any], name: str) -> int | None:
    """An optional event number: 0 to :data:`MAX_SEQ`."""
    value = _int(message, name, required=False)
    if value is not None and not 0 <= value <= MAX_SEQ:
        raise bad_field(name, f"must be 0 to {MAX_SEQ}", fr=f"doit être entre 0 et {MAX_SEQ}")
    return value


def parse_hello(message: dict[str, Any]) -> Hello:
    """Validate a ``hello``; an unknown protocol number is ``unsupported_protocol``."""
    rid = _id(message)
    protocol = _int(message, "protocol", required=True)
    if protocol != PROTOCOL_VERSION:
        raise ProtocolError(
            "unsupported_protocol",
            f"this server speaks protocol {PROTOCOL_VERSION}, not {protocol}",
            fr=f"ce serveur parle le protocole {PROTOCOL_VERSION}, pas {protocol}",
            details={"supported": [PROTOCOL_VERSION]},
            close=1002,
        )
    table = _name(message, "table")
    name = _name(message, "name")
    role = _choice(message, "role", ROLES)
    token = None
    if message.get("token") is not None:
        token = _string(message, "token", max_chars=MAX_TOKEN_CHARS, allow_empty=True)
    if role in ("gm", "player") and token is None:
        raise bad_field("token", f"is required for the role '{role}'",
                        fr=f"est obligatoire pour le rôle '{role}'")
    locale = "fr"
    if message.get("locale") is not None:
        raw = _string(message, "locale", max_chars=16).lower()
        # Regional variants ("fr-CA") map to their language; other languages get English.
        locale = "fr" if raw.startswith("fr") else "en"
    resume = _seq(message, "resume")
    client_seed = None
    if message.get("client_seed") is not None:
        client_seed = _string(message, "client_seed", max_chars=64)
        if not CLIENT_SEED.fullmatch(client_seed):
            raise bad_field("client_seed", "1 to 64 letters, digits, '-', '_' or '.'",
                            fr="1 à 64 lettres, chiffres, « - », « _ » ou « . »")
    catalogue = None
    if message.get("catalogue") is not None:
        catalogue = _string(message, "catalogue", max_chars=64, allow_empty=True)
    return Hello(table=table, name=name, role=role, token=token, locale=locale,
                 resume=resume, protocol=protocol, id=rid, client_seed=client_seed,
                 catalogue=catalogue)


#: What a client seed may hold (no separator byte of the derivation, no spaces).
CLIENT_SEED = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def parse_epoch(message: dict[str, Any]) -> EpochRequest:
    """Validate an ``epoch`` request (``op``: ``end``)."""
    return EpochRequest(id=_id(message), op=_choice(message, "op", ("end",)))


def _dice(message: dict[str, Any]) -> list[int] | None:
    value = message.get("dice")
    if value is None:
        return None
    if not isinstance(value, list):
        raise bad_field("dice", "must be a list of integers", fr="doit être une liste d'entiers")
    if len(value) > MAX_MANUAL_DICE:
        raise ProtocolError(
            "too_large",
            f"at most {MAX_MANUAL_DICE} manual dice",
            fr=f"au plus {MAX_MANUAL_DICE} dés manuels",
            details={"field": "dice"},
        )
    for face in value:
        if isinstance(face, bool) or not isinstance(face, int):
            raise bad_field("dice", "must be a list of integers",
                            fr="doit être une liste d'entiers")
    return list(value)


def parse_roll(message: dict[str, Any]) -> RollRequest:
    """Validate a ``roll`` request (the ruleset validates ``params`` later)."""
    # (Checked in this order — the first bad field is the one refused — then given by
    # position: ten keywords matched to their fields cost ~1k instructions a roll.)
    rid = _id(message)
    ruleset = _string(message, "ruleset")
    params = _map(message, "params")
    label = _string(message, "label", required=False, max_chars=MAX_LABEL_CHARS,
                    allow_empty=True)
    mode = _choice(message, "mode", MODES, default="public")
    options = _map(message, "options")
    dice = _dice(message)
    character = _optional_name(message, "character")
    answers = _optional_name(message, "answers")
    targets = () if message.get("targets") is None else _targets(message)
    return RollRequest(ruleset, params, label, mode, options, dice, rid, character, answers,
                       targets)


#: Most characters one action may be aimed at (contract §8).
MAX_TARGETS = 8


def _targets(message: dict[str, Any]) -> tuple[str, ...]:
    """``targets``: at most :data:`MAX_TARGETS` character names, none twice (``()``
    when absent)."""
    given = message.get("targets")
    if given is None:
        return ()
    if (not isinstance(given, list) or len(given) > MAX_TARGETS
            or not all(isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS
                       for name in given)):
        raise bad_field("targets", f"must be a list of at most {MAX_TARGETS} character names",
                        fr=f"doit être une liste d'au plus {MAX_TARGETS} noms de personnages")
    for name in given:
        _no_controls("targets", name)
    names = tuple(_checked_name("targets", name) for name in given)
    if len(set(names)) != len(names):
        raise bad_field("targets", "names a character twice",
                        fr="nomme deux fois le même personnage")
    return names


def _optional_name(message: dict[str, Any], name: str) -> str | None:
    if message.get(name) is None:
        return None
    return _name(message, name)


def parse_odds(message: dict[str, Any]) -> OddsRequest:
    """Validate an ``odds`` request."""
    return OddsRequest(
        id=_id(message),
        ruleset=_string(message, "ruleset"),
        params=_map(message, "params"),
        options=_map(message, "options"),
        character=_optional_name(message, "character"),
        targets=_targets(message),
    )


def parse_ask(message: dict[str, Any]) -> AskRequest:
    """Validate an ``ask`` request (``open``: ``to``, ``ruleset``…; ``cancel``: ``ask``)."""
    rid = _id(message)
    op = _choice(message, "op", ("open", "cancel", "list"))
    if op == "cancel":
        return AskRequest(op=op, ask=_string(message, "ask"), id=rid)
    if op == "list":
        return AskRequest(op=op, id=rid, after=_seq(message, "after") or 0,
                          limit=_page_limit(message))
    to = message.get("to")
    if (not isinstance(to, list) or not 1 <= len(to) <= MAX_ASKED
            or not all(isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS
                       for name in to)):
        raise bad_field("to", f"must be a list of 1 to {MAX_ASKED} seat or character names",
                        fr=f"doit être une liste de 1 à {MAX_ASKED} noms de places ou de "
                           "personnages")
    for name in to:
        _no_controls("to", name)
    to = [_checked_name("to", name) for name in to]
    return AskRequest(
        op=op, to=tuple(dict.fromkeys(to)), ruleset=_string(message, "ruleset"),
        params=_map(message, "params"),
        label=_string(message, "label", required=False, max_chars=MAX_LABEL_CHARS,
                      allow_empty=True),
        mode=_choice(message, "mode", MODES, default="public"),
        options=_map(message, "options"), id=rid, opposed=_bool(message, "opposed"),
        cooperative=_bool(message, "cooperative"), each=_map(message, "each"),
        targets=_targets(message))


def _bool(message: dict[str, Any], name: str) -> bool:
    value = message.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise bad_field(name, MUST_BE_BOOL["en"], fr=MUST_BE_BOOL["fr"])
    return value


def parse_initiative(message: dict[str, Any]) -> InitiativeRequest:
    """Validate an ``initiative`` request: ``characters``, each a name or ``{character,
    claim?, bagage?}``."""
    rid = _id(message)
    given = message.get("characters")
    if not isinstance(given, list) or not 1 <= len(given) <= MAX_ASKED:
        raise bad_field("characters", f"must be a list of 1 to {MAX_ASKED} characters",
                        fr=f"doit être une liste de 1 à {MAX_ASKED} personnages")
    entries = []
    for item in given:
        if isinstance(item, str):
            item = {"character": item}
        if (not isinstance(item, dict) or not isinstance(item.get("character"), str)
                or not 0 < len(item["character"]) <= MAX_NAME_CHARS):
            raise bad_field("characters", "each is a character's name or {character, claim, "
                            "bagage}", fr="chacun est un nom de personnage ou {character, "
                            "claim, bagage}")
        _no_controls("characters", item["character"])
        entries.append({"character": _checked_name("characters", item["character"]),
                        "claim": _bool(item, "claim"), "bagage": _bool(item, "bagage")})
    names = [entry["character"] for entry in entries]
    if len(set(names)) != len(names):
        raise bad_field("characters", "names a character twice",
                        fr="nomme deux fois un personnage")
    return InitiativeRequest(characters=tuple(entries), id=rid)


def parse_session(message: dict[str, Any]) -> SessionRequest:
    """Validate a ``session`` request (``op``: ``start``)."""
    return SessionRequest(id=_id(message), op=_choice(message, "op", ("start",)))


def parse_react(message: dict[str, Any]) -> ReactRequest:
    """Validate a ``react`` request (the roll's own checks come later)."""
    return ReactRequest(id=_id(message), roll=_string(message, "roll"),
                        choice=_string(message, "choice"), dice=_dice(message))


def parse_seat(message: dict[str, Any]) -> SeatRequest:
    """Validate a ``seat`` request (``name`` is required but for ``list``, which takes
    ``after`` and ``limit`` instead)."""
    rid = _id(message)
    op = _choice(message, "op", SEAT_OPS)
    if op == "list":
        after = ("" if message.get("after") is None
                 else _string(message, "after", allow_empty=True))
        return SeatRequest(op=op, id=rid, after=after, limit=_page_limit(message))
    return SeatRequest(op=op, name=_name(message, "name"), id=rid)


def _page_limit(message: dict[str, Any]) -> int:
    """A list request's ``limit``: 1 to 500, 100 when not given."""
    given = _int(message, "limit", required=False)
    if given is None:
        return 100
    if not 1 <= given <= MAX_HISTORY_PAGE:
        raise bad_field("limit", f"must be 1 to {MAX_HISTORY_PAGE}",
                        fr=f"doit être entre 1 et {MAX_HISTORY_PAGE}")
    return given


def parse_sheet(message: dict[str, Any]) -> SheetRequest:
    """Validate a ``sheet`` request's shape (the sheet's own checks come later)."""
    rid = _id(message)
    op = _choice(message, "op", SHEET_OPS)
    character = None
    if op in ("set", "adjust", "remove") or (op == "refill" and message.get("character")
                                             is not None):
        character = _name(message, "character")
    ruleset = _string(message, "ruleset") if op == "set" else None
    has_owner = op == "set" and "owner" in message
    owner = _optional_name(message, "owner") if has_owner else None
    values = _map(message, "values") if op == "set" else {}
    delta = _map(message, "delta") if op == "adjust" else {}
    if op == "adjust" and not delta:
        raise bad_field("delta", "must name at least one field",
                        fr="doit nommer au moins un champ")
    what = _choice(message, "what", REFILLS) if op == "refill" else None
    reason = _string(message, "reason", required=False, max_chars=MAX_REASON_CHARS,
                     allow_empty=True)
    after = ""
    limit = 100
    if op in ("list", "refill"):
        if message.get("after") is not None:
            after = normalized(_string(message, "after", allow_empty=True))
        given = _int(message, "limit", required=False)
        if given is not None:
            if not 1 <= given <= MAX_HISTORY_PAGE:
                raise bad_field("limit", f"must be 1 to {MAX_HISTORY_PAGE}",
                                fr=f"doit être entre 1 et {MAX_HISTORY_PAGE}")
            limit = given
    return SheetRequest(op=op, character=character, ruleset=ruleset, has_owner=has_owner,
                        owner=owner, values=values, delta=delta, what=what, reason=reason,
                        id=rid, after=after, limit=limit)


def parse_history(message: dict[str, Any]) -> HistoryRequest:
    """Validate a ``history`` request (``after`` ≥ 0, ``limit`` 1 to 500)."""
    rid = _id(message)
    after = _seq(message, "after") or 0
    limit = _int(message, "limit", required=False)
    if limit is None:
        limit = 100
    if not 1 <= limit <= MAX_HISTORY_PAGE:
        raise bad_field("limit", f"must be 1 to {MAX_HISTORY_PAGE}",
                        fr=f"doit être entre 1 et {MAX_HISTORY_PAGE}")
    return HistoryRequest(after=after, limit=limit, id=rid)


def parse_plugins(message: dict[str, Any]) -> PluginsRequest:
    """Validate a ``plugins`` request."""
    return PluginsRequest(id=_id(message))


PARSERS = {"hello": parse_hello, "roll": parse_roll, "odds": parse_odds,
           "history": parse_history, "plugins": parse_plugins, "seat": parse_seat,
           "sheet": parse_sheet, "react": parse_react, "session": parse_session,
           "ask": parse_ask, "initiative": parse_initiative, "epoch": parse_epoch}


def parse_request(message: dict[str, Any]) -> Request:
    """Validate any client message and return its request object."""
    kind = message.get("type")
    if not isinstance(kind, str):
        raise bad_field("type", "must be a string", fr="doit être une chaîne")
    parser = PARSERS.get(kind)
    if parser is None:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type '{kind[:40]}'",
            fr=f"type de message inconnu '{kind[:40]}'",
            details={"type": kind[:40], "known": sorted(PARSERS)},
        )
    return parser(message)
