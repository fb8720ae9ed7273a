"""A reserve kept as its gap to a score (O'Ween's ``reserve_ecl``: 0 = full, −1 = one
point lost), shown as the page shows it (``web/static/reserves.js``): what is left of the
score, « Réserve ECL 2 / 3 », « Réserve ECL 3 → 2 / 3 », not the gap a reader had to
decode (« Réserve ECL (0 = pleine) 0 → -1 »). The rule is the page's: a field is such a
reserve when it is an int whose most is 0 and least below 0, named after an int field of
the sheet (``reserve_ecl`` → ``ecl``), and that score is known."""

from __future__ import annotations

from typing import Any

from sidecar.host.reserves import reserve_label, reserve_left, reserve_score

__all__ = ["reserve_label", "reserve_left", "reserve_score", "reserve_text"]


def reserve_text(base: int, gap: Any, before: Any = None) -> str:
    """« 2 / 3 », or « 3 → 2 / 3 » with the gap ``before`` (an int) too."""
    now = f"{reserve_left(base, gap)} / {base}"
    return f"{reserve_left(base, before)} → {now}" if isinstance(before, int) else now
