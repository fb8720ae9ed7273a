"""A test extension: an ``effort`` counter on every ruleset's sheet, and one point of it
spent by a roll made as a character with the option ``effort`` on (``{"effort": {}}``).

It gives a spend to the rulesets whose own rules never spend (Seuil, plain ``dice``), so
that every built-in ruleset can be rolled as a character both spending and not. Loaded
under the name ``effort`` (the option's key): copy it as ``effort.py`` into a
``--plugins-dir``.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import label


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any]:
    return {"effort": {"type": "int", "min": 0, "max": 3, "default": 3, "resource": True,
                       "refill": "rest", "label": label("Effort", "Effort"),
                       "description": label("Points d'effort (extension de test)",
                                            "Effort points (test extension)")}}


@hookimpl
def sidecar_modify_outcome(roll: Any, outcome: Any) -> None:
    if roll.sheet is not None and "effort" in (roll.options or {}):
        outcome.spend = {**outcome.spend, "effort": outcome.spend.get("effort", 0) + 1}
