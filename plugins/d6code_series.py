"""d6code SurCompétence in series: « Un doublement des jets (modificateur de type
multiplicateur x2) sur trois actions successives de courte durée … utilisant la même
Compétence » (seed 003).

One SC point doubles three successive actions of one skill. As a character the sheet's
``sc_serie`` counts the actions left, and the table's state (the plugin's own memory,
committed with the outcome) remembers, per character, the skill of the running series.
A ``serie`` roll continues the series only in that skill and only when nothing came
between; any other roll as the character ends it (``sc_serie`` back to 0), so the next
``serie`` roll spends a new point (declared before the dice: ``insufficient`` without).
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Roll
from sidecar.rulesets.sheets import add_spend

#: Characters whose running series a table remembers (the least recent are dropped).
MAX_SERIES = 500


def series_skill(params: dict[str, Any]) -> str:
    """The skill a series is counted on: the sheet's skill named (case-folded, as the
    sheet matches it), else the code typed."""
    if params.get("skill"):
        return "skill:" + str(params["skill"]).casefold()
    return f"code:{params.get('code')}"


def running_skill(roll: Roll) -> str | None:
    """The skill of the roller's running series, as the table remembers it."""
    if roll.character is None:
        return None
    return (roll.state.get("sc_series") or {}).get(roll.character)


def series_spend(spend: dict[str, int], params: dict[str, Any], sheet: dict[str, Any],
                 running: str | None) -> None:
    """Add to ``spend`` what the roll's SurCompétence takes: a ``serie`` roll continuing
    the running series in its skill, one of ``sc_serie``; a ``serie`` roll starting one,
    a point and ``sc_serie`` set to 2; any other roll ends a running series; ``auto`` and
    ``double``, a point."""
    choice = params.get("surcompetence")
    left = sheet.get("sc_serie", 0)
    if choice == "serie" and left > 0 and running == series_skill(params):
        add_spend(spend, "sc_serie", 1)
        return
    if choice == "serie":
        add_spend(spend, "points_surcompetence", 1)
        add_spend(spend, "sc_serie", left - 2)
        return
    if left:
        add_spend(spend, "sc_serie", left)  # (not successive any more: the series ends)
    if choice:
        add_spend(spend, "points_surcompetence", 1)


def remember_series(roll: Roll, params: dict[str, Any]) -> None:
    """Keep in the table's state the skill of the roller's series (forgotten when the
    roll is not one)."""
    if roll.character is None or roll.sheet is None:
        return
    series = dict(roll.state.get("sc_series") or {})
    series.pop(roll.character, None)
    if params.get("surcompetence") == "serie":
        series[roll.character] = series_skill(params)  # (re-inserted last: oldest go first)
        while len(series) > MAX_SERIES:
            del series[next(iter(series))]
    roll.state["sc_series"] = series
