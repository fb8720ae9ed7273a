"""Échec critique blanc : le premier échec critique de la table compte comme un simple échec.

Optional Bloodlust rule (RULES.md §3): the first botch of each table, whoever rolls it
(players and GM alike), counts as a simple failure, once. A table playing with the rule
sends ``options: {"blank_botch": {}}`` with its bloodlust rolls; ``{"enabled": false}``
(or no key) leaves a roll out.

Only public rolls play with it (ruling in docs/RULESETS.md): a ``gm``, ``blind`` or
``self`` roll neither uses nor sees the table's blank botch, so whether a later public botch
is forgiven never tells the table that a roll hidden from it was a botch.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import Outcome, Roll, label
from sidecar.plugins import scope

__version__ = "1.0"

NAME = "blank_botch"


def enabled(options: dict[str, Any]) -> bool:
    """Whether this roll plays with the rule."""
    if NAME not in options:
        return False
    setting = options[NAME]
    if isinstance(setting, dict):
        return setting.get("enabled", True) is not False
    return bool(setting)


@hookimpl
@scope(rulesets=("bloodlust",), option=NAME)  # (exact: the first test below)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    if roll.ruleset != "bloodlust" or not enabled(roll.options):
        return
    if roll.mode != "public":
        return  # the table-wide state must not carry news of a hidden roll
    if outcome.result.get("kind") != "botch" or roll.state.get("used"):
        return
    roll.state["used"] = True
    roll.state["by"] = roll.by.get("name", "?")
    outcome.result.update(
        kind="failure",
        label=label("Échec (échec critique blanc)", "Failure (blank botch)"),
        blank_botch=True,
    )
    outcome.notes.append(
        "Échec critique blanc : premier échec critique de la table, compté comme un simple "
        "échec. / Blank botch: the table's first botch counts as a simple failure."
    )
