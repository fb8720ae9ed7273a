"""A reserve kept as its gap to a score (O'Ween's ``reserve_ecl``: 0 = full, −1 = one
point lost) and what is left of it, « 1 / 3 »: the rule the page (``web/static/reserves.js``),
the CLI (:mod:`sidecar.cli.reserves`) and the server's own words (``insufficient``) share. A
field is such a reserve when it is an int whose most is 0 and least below 0, named after an
int field of the sheet (``reserve_ecl`` → ``ecl``), and that score is known."""

from __future__ import annotations

import re
from typing import Any

#: A label's trailing hint in parentheses, « (0 = pleine) », « (0 = full) ».
_HINT = re.compile(r"\s*\([^()]*\)$")


def reserve_score(sheet: dict[str, Any], field: str, values: dict[str, Any]) -> str | None:
    """The score ``field`` is the reserve of, when it is one counted down from full and
    ``values`` know that score; else ``None``."""
    spec = sheet.get(field)
    if not isinstance(spec, dict) or spec.get("type") != "int" or spec.get("max") != 0:
        return None
    low = spec.get("min", 0)
    if not isinstance(low, int) or low >= 0:
        return None
    score = next((part for part in field.split("_") if part != field
                  and isinstance(sheet.get(part), dict) and sheet[part].get("type") == "int"),
                 None)
    known = values.get(score) if score else None
    return score if isinstance(known, int) and not isinstance(known, bool) else None


def reserve_label(label: str) -> str:
    """A reserve's label without the « (0 = pleine) » that explained its gap."""
    return _HINT.sub("", label) or label


def reserve_left(base: int, gap: Any) -> int:
    """What is left of a reserve whose gap is ``gap``, out of ``base``."""
    return max(0, base + (gap if isinstance(gap, int) else 0))

