"""Échec critique blanc : le 1er de chacun par séance = échec / blank botch: each one's first
of a session = failure.

Optional Bloodlust rule (RULES.md §3): each roller's first botch of a game session at a
table counts as a simple failure — the seed: « le Conteur peut donner à tous - aux joueurs
comme aux personnages du Conteur - un échec critique "blanc". C'est-à-dire que le premier
échec critique de la partie ne compte pas ». Everyone is given one: the roller is the
character rolled as, else the seat (a GM's rolls without a character share the GM's). A
GM starts a session with ``{type: "session", op: "start"}``; until one is started the
table is in session 0. A table playing with the rule sends ``options: {"blank_botch":
{}}`` with its bloodlust rolls; ``{"enabled": false}`` (or no key) leaves a roll out.

Hidden rolls play with it too (ruling in docs/RULESETS.md): the seed gives the blank to
« personnages du Conteur », whose rolls are the ones the Conteur hides; what a later
public botch tells is only about that one roller's own rolls.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.host.plugins import scope
from sidecar.model import Outcome, Roll, label

__version__ = "1.1"

NAME = "blank_botch"


@hookimpl
def sidecar_options() -> dict[str, Any]:
    """``options.blank_botch``: ``{}`` plays the rule, ``{"enabled": false}`` does not."""
    return {"label": {"fr": "Échec critique blanc", "en": "Blank botch"},
            # (Optional, as the seed has it: « le Conteur peut donner… ».)
            "description": {"fr": "Règle optionnelle, pour les jets qui la demandent : le "
                                  "premier échec critique de chacun dans la séance compte "
                                  "comme un simple échec",
                            "en": "Optional rule, for the rolls that ask for it: each one's "
                                  "first botch of the session counts as a simple failure"},
            "rulesets": ["bloodlust"],
            "params": {"enabled": {"type": "bool", "default": True,
                                   "label": {"fr": "Activé", "en": "On"}}}}


def enabled(options: dict[str, Any]) -> bool:
    """Whether this roll plays with the rule."""
    if NAME not in options:
        return False
    setting = options[NAME]
    if isinstance(setting, dict):
        return setting.get("enabled", True) is not False
    return bool(setting)


#: Rollers whose session a table remembers (the least recent are dropped).
MAX_ROLLERS = 1000


def roller(roll: Roll) -> str:
    """Whose blank botch a roll plays: the character's, else the seat's."""
    return roll.character if roll.character else str(roll.by.get("name", "?"))


def used_by(state: dict[str, Any]) -> dict[str, int]:
    """The session in which each roller used theirs. A table saved before the blank was
    each one's (``session``/``used``: one for the table) counts it as its roller's."""
    used = state.get("rollers")
    used = dict(used) if isinstance(used, dict) else {}
    if "session" in state or state.get("used"):
        used.setdefault(str(state.get("by", "?")), int(state.get("session", 0)))
    return used


@hookimpl
@scope(rulesets=("bloodlust",), option=NAME)  # (exact: the first test below)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    if roll.ruleset != "bloodlust" or not enabled(roll.options):
        return
    who = roller(roll)
    used = used_by(roll.state)
    if outcome.result.get("kind") != "botch" or used.get(who) == roll.session:
        return
    used.pop(who, None)
    used[who] = roll.session  # (re-inserted last: the least recent go first)
    while len(used) > MAX_ROLLERS:
        del used[next(iter(used))]
    for legacy in ("used", "session", "by"):
        roll.state.pop(legacy, None)
    roll.state["rollers"] = used
    outcome.result.update(
        kind="failure",
        label=label("Échec (échec critique blanc)", "Failure (blank botch)"),
        blank_botch=True,
    )
    outcome.notes.append(label(
        f"Échec critique blanc : premier échec critique de la séance pour {who}, compté "
        "comme un simple échec.", f"Blank botch: {who}'s first botch of the session "
        "counts as a simple failure."))
