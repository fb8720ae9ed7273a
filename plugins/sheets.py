"""What the built-in rulesets share to describe character sheets and read them in a roll.

A sheet field is described like a parameter (PROTOCOL.md §7.2); a roll made as a character
sees the character's values as ``roll.sheet`` (``None`` without a character). A parameter
the sheet can supply is optional in the params description (the host validates params
before any character is known), so each ruleset asks here for the value: the request's
own first, then the sheet's, else an ``invalid_params`` error naming the parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidecar.model import Roll, label, sheet_override_allowed
from sidecar.protocol.errors import ProtocolError, invalid_param
from sidecar.protocol.text import elide, heading
from sidecar.rules import heading as roll_heading
from sidecar.rules import who


def field(kind: str, fr: str, en: str, fr_text: str, en_text: str,
          **spec: Any) -> dict[str, Any]:
    """One sheet field: its type, short label and description (French first), and the
    rest of its description (``min``, ``max``, ``default``, ``resource``, ``refill``…)."""
    return {"type": kind, "label": label(fr, en), "description": label(fr_text, en_text),
            **spec}


def counter(fr: str, en: str, fr_text: str, en_text: str, *, default: int, high: int,
            low: int = 0, resource: bool = True, **spec: Any) -> dict[str, Any]:
    """An integer counter of the sheet (a resource rolls may spend, by default)."""
    described = field("int", fr, en, fr_text, en_text, min=low, max=high, default=default,
                      **spec)
    if resource:
        described["resource"] = True
    return described


def required_without_sheet(param: str) -> ProtocolError:
    """The error for a parameter neither the request nor a character gave."""
    return invalid_param(param, "is required (or roll as a character whose sheet gives it)",
                         fr="est obligatoire (ou lancez en tant que personnage dont la "
                            "fiche le donne)")


def refuse_sheet_override(roll: Roll, param: str, names: dict[str, str],
                          sheet_value: Any) -> None:
    """``forbidden`` (``details.field``: ``param``) when a player rolling as a character
    typed ``param`` with a value other than ``sheet_value``, the one the sheet supplies
    (``None``: the sheet would supply it, but the request leaves out what picks it — a
    characteristic, a skill —, so any typed value replaces the sheet's). ``names``: the
    param's label ``{fr, en}``. A GM's value, or a journal's, passes
    (:func:`sidecar.model.sheet_override_allowed`); called before any die, never for odds."""
    typed = roll.params.get(param)
    if (typed is None or roll.sheet is None or typed == sheet_value
            or sheet_override_allowed(roll)):
        return
    who = (roll.character or "?")[:64]
    shown = "" if sheet_value is None else f" ({sheet_value})"
    raise ProtocolError(
        "forbidden", f"\"{names['en']}\" comes from {who}'s sheet{shown}: only the GM may "
        "change it", fr=f"« {names['fr']} » vient de la fiche {elide('de', who)}{shown} : "
        "seul le MJ peut le changer", details={"field": param})


def refuse_sheet_param(roll: Roll, param: str, names: dict[str, str], picked_by: str,
                       from_sheet: Callable[[dict[str, Any]], Any], offered: str) -> None:
    """:func:`refuse_sheet_override` for a param the sheet supplies once ``picked_by`` (a
    skill, a characteristic) names which: ``from_sheet(params)`` is the value the ruleset
    fills in when the request leaves ``param`` out (its own filling function). Nothing
    picked, the typed value replaces the sheet's only when the sheet's map ``offered``
    has entries: an empty one supplies nothing (a sheet the GM left blank)."""
    if roll.params.get(param) is None or roll.sheet is None or sheet_override_allowed(roll):
        return
    picked = roll.params.get(picked_by)
    if not picked and not roll.sheet.get(offered):
        return
    own = from_sheet({**roll.params, param: None}) if picked else None
    refuse_sheet_override(roll, param, names, own)


def pick(sheet: dict[str, Any], field_name: str, key: str, param: str, *,
         whose: str | None = None, listed: bool = True) -> Any:
    """The value of ``key`` in the sheet's map ``field_name``, else ``invalid_params`` on
    ``param`` listing what the sheet has. ``whose``: the character's name when the sheet
    is not the roller's (a target's); ``listed=False`` names nothing of the sheet — a
    target's sheet read for a roller who may not see it (contract §8: naming a target
    reveals nothing of its sheet beyond the outcome)."""
    entries = sheet.get(field_name) or {}
    if key in entries:
        return entries[key]
    folded = {name.casefold(): value for name, value in entries.items()}
    if key.casefold() in folded:
        return folded[key.casefold()]
    # What the sheet has, said without the field's key (« groupements »: a program's
    # word, not the player's): the entries alone.
    known = ", ".join(entries) or "—"
    if whose is not None:
        whose = whose[:64]
        listing = f", which has: {known}" if listed else ""
        listing_fr = f", qui a : {known}" if listed else ""
        raise invalid_param(param, f"'{key[:40]}' is not on the sheet of {whose}{listing}",
                            fr=f"« {key[:40]} » n'est pas sur la fiche {elide('de', whose)}"
                               f"{listing_fr}")
    raise invalid_param(param, f"'{key[:40]}' is not on the character's sheet, which has: "
                        f"{known}",
                        fr=f"« {key[:40]} » n'est pas sur la fiche du personnage, qui a : "
                           f"{known}")


def add_spend(spend: dict[str, int], field_name: str, amount: int) -> None:
    """Add ``amount`` to what the roll spends of ``field_name`` (nothing when it nets 0)."""
    total = spend.get(field_name, 0) + amount
    if total:
        spend[field_name] = total
    else:
        spend.pop(field_name, None)


def entry_heading(roll: Roll, field_name: str, param: str, locale: str) -> str:
    """A roll's heading (:func:`sidecar.rules.heading`) that names, when the roll has no
    label, the sheet entry its ``param`` picks — as the sheet writes it, else as typed:
    « Aengus — Pilotage : » for ``skill=pilotage`` (the line said only « Aengus — »)."""
    key = roll.params.get(param)
    if roll.label or not isinstance(key, str) or not key:
        return roll_heading(roll, locale=locale)
    entries = (roll.sheet or {}).get(field_name) or {}
    named = next((name for name in entries if name.casefold() == key.casefold()), key)
    return heading(who(roll), named, locale=locale)

