"""What a user types as values, read into what the protocol wants: ``key=value`` params
typed by a ruleset's description, a sheet's values and adjustments, physical dice faces,
``ask open``'s names and params, the choice an answer names. Pure functions: no I/O."""

from __future__ import annotations

import re
from typing import Any

from sidecar.host.typed import coerce_value


def parse_pairs(pairs: list[str], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """``["pool=5", "willpower=oui"]`` → ``{"pool": 5, "willpower": True}``."""
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            required = [k for k, spec in (schema or {}).items()
                        if isinstance(spec, dict) and spec.get("required")]
            hint, hint_en = ((f" (« {required[0]}={pair} » ?)", f" ('{required[0]}={pair}'?)")
                             if len(required) == 1 else ("", ""))
            # (« français / English »: the command prints the run's language alone.)
            raise ValueError(f"attendu clé=valeur, reçu « {pair} »{hint} / expected "
                             f"key=value, got '{pair}'{hint_en}")
        key, value = pair.split("=", 1)
        params[key.strip()] = coerce_value(value, (schema or {}).get(key.strip()))
    return params


def _map_values_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The description of a ``map`` field's values (``values: "int"`` or a description)."""
    values = spec.get("values", "int")
    return values if isinstance(values, dict) else {"type": values}


def parse_sheet_values(pairs: list[str], sheet: dict[str, Any] | None,
                       current: dict[str, Any] | None = None) -> dict[str, Any]:
    """``sheet set`` values: ``["pep=3", "skills.Escalade=5", 'skills={"Nager": 2}']`` →
    ``{"pep": 3, "skills": {…}}``, typed by the sheet description (``welcome.rulesets[].
    sheet``). ``field.key=value`` sets one entry of a ``map`` field and keeps the others
    the character already has (``current``: its values)."""
    sheet = sheet or {}
    current = current or {}
    values: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"expected field=value, got '{pair}'")
        key, text = (part.strip() for part in pair.split("=", 1))
        field, dot, entry = key.partition(".")
        spec = sheet.get(field) or {}
        if dot and spec.get("type") == "map" and entry:
            if not isinstance(values.get(field), dict):
                known = current.get(field)
                values[field] = dict(known) if isinstance(known, dict) else {}
            values[field][entry] = coerce_value(text, _map_values_spec(spec))
        else:
            values[key] = coerce_value(text, sheet.get(key))
    return values


def parse_delta(pairs: list[str]) -> dict[str, int]:
    """``sheet adjust`` changes: ``["bonbonus=+2", "wounds=-1"]`` →
    ``{"bonbonus": 2, "wounds": -1}``."""
    delta: dict[str, int] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            delta[key.strip()] = int(text.strip())
        except ValueError:
            raise ValueError(f"expected field=+N or field=-N, got '{pair}'") from None
    return delta


def parse_dice(text: str | None) -> list[int] | None:
    """``--dice 3,5,6`` (or spaces) → ``[3, 5, 6]``; ``None`` when not given."""
    if text is None:
        return None
    faces = [x for x in re.split(r"[\s,;]+", text) if x]
    if not all(x.isdigit() for x in faces):
        raise ValueError(f"--dice {text!r} : des faces séparées par des virgules, ex. 3,5,6 "
                         f"/ --dice {text!r}: faces separated by commas, e.g. 3,5,6")
    return [int(x) for x in faces]


def pick_choice(answer: str, choices: list[dict[str, Any]],
                default: str | None) -> dict[str, Any] | None:
    """The choice an answer names: its number, its name, or Enter for the default;
    ``None`` for what names none."""
    answer = answer.strip()
    if not answer:
        answer = default or ""
    if answer.isdigit() and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    return next((c for c in choices if c["name"].lower() == answer.lower()), None)


def split_targets(items: list[str]) -> tuple[list[str], list[str]]:
    """``ask open``'s words: names (seats or characters) and ``key=value`` params."""
    names = [item for item in items if "=" not in item]
    return names, [item for item in items if "=" in item]
