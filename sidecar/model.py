"""The two objects that travel through the roll pipeline: :class:`Roll` and :class:`Outcome`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Roll:
    """One roll as hooks see it.

    ``params`` are validated with defaults filled in; extensions may change them in
    ``sidecar_modify_roll``. ``options`` are the request's per-extension settings, keyed by
    extension name. ``state`` is the calling plugin's own per-table memory (the host swaps
    it in before each call).
    """

    ruleset: str
    params: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    table: str = ""
    by: dict[str, str] = field(default_factory=dict)
    label: str = ""
    mode: str = "public"
    manual: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    character: str | None = None
    sheet: Mapping[str, Any] | None = None
    #: The table's game session (0 until a GM starts one): what lasts "for the session"
    #: (Bloodlust's blank botch) is kept per session number.
    session: int = 0
    #: The table's turn: how many table-wide ``refill turn`` (the GM's "next turn") so
    #: far; what lasts "this turn and the next" (O'Ween's Surprendre) counts on it.
    turn: int = 0
    #: The characters the action is aimed at (contract §8), each
    #: ``{"<character>": {"ruleset": str, "values": {...}}}``: copies read at the roll's
    #: turn, like ``sheet``; ``{}`` without targets. A rule that reads an opponent's value
    #: reads it here when a target is named; a value typed in ``params``/``options``
    #: still overrides it (an NPC without a sheet) when a GM typed it — a GM's roll or an
    #: answer to a GM's ask (:attr:`asked`); a player's typed value that would replace one
    #: the target's sheet holds is refused (see :func:`typed_by_gm`).
    targets: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: An answer to a GM's ask: its params and options are the GM's (the answering player
    #: adds only physical dice), though ``by`` is the player.
    asked: bool = False
    #: A decision on an open roll: the characters of the roll (its roller's, its targets)
    #: removed from the table since it was rolled. They are left out of ``character``/
    #: ``sheet`` and ``targets``; a rule that needed one decides on what is left (no
    #: effect on a gone target, no value required of it): else the roll could never be
    #: decided. ``()`` on a roll.
    removed: tuple[str, ...] = ()
    #: Re-resolved from a journal (``sidecar verify``): what a player typed was accepted
    #: then (a journal written before a rule refused it is the journal's word), so rules
    #: that refuse a player's typed value (:func:`sheet_override_allowed`) let it pass.
    journaled: bool = False


def typed_by_gm(roll: Roll) -> bool:
    """Whether the roll's params and options were typed by a GM: a GM's roll, or an answer
    to a GM's ask. A rule that reads a target's value lets a GM's typed value replace it
    (an NPC without a sheet, the GM's call) and refuses a player's (contract §8: a player
    does not rewrite another character's sheet by typing)."""
    return roll.by.get("role") == "gm" or roll.asked


def sheet_override_allowed(roll: Roll) -> bool:
    """Whether a value typed in the roll's params may differ from the one its character's
    sheet supplies (O'Ween's ``dice``, d6code's ``code``, the ladder's ``level``…): typed
    by a GM (:func:`typed_by_gm`: an NPC, a situation), or re-resolved from a journal
    (:attr:`Roll.journaled`). A player's is refused before any die (docs/RULESETS.md)."""
    return typed_by_gm(roll) or roll.journaled


@dataclass
class Outcome:
    """The resolution of a roll.

    ``result`` holds the common fields (``success``, ``margin``, ``kind``, ``label``) and
    the ruleset's own; ``dice`` every die drawn, in consumption order, as maps with at least
    ``sides`` and ``face``; ``notes`` human-readable remarks, each ``label(fr, en)`` (every
    member reads the note in its own language) or a plain string (read as it is by all);
    ``applied`` the extensions that changed this roll (filled by the host); ``spend`` what
    the roll takes from the character's sheet, ``{field: amount}`` (negative gives back),
    applied by the server in the same journal write as the outcome (ignored for a roll
    without a character); ``effects`` what the dice did to the targets,
    ``{"<character>": {"<int field>": <delta>}}`` (wounds, a drained reserve): applied in
    that same write, never refused, each field taken as far as its ``min``/``max`` allow
    (contract §8).
    """

    result: dict[str, Any]
    dice: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str | dict[str, str]] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    spend: dict[str, int] = field(default_factory=dict)
    #: An open roll: what the roller (or a GM) may decide after seeing the dice, each
    #: ``{"name", "label": {"fr", "en"}, "dice": <faces it draws>}``; ``None`` when closed.
    choices: list[dict[str, Any]] | None = None
    #: The choice taken when nobody decides in time (``None``: the roll closes as it is).
    default: str | None = None
    #: What the dice did to the targets (contract §8): ``{"<character>": {field: delta}}``.
    effects: dict[str, dict[str, int]] = field(default_factory=dict)


def label(fr: str, en: str) -> dict[str, str]:
    """A bilingual label, French first."""
    return {"fr": fr, "en": en}
