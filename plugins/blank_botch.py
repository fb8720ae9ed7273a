"""Échec critique blanc : 1er de la séance = échec / blank botch: a session's first = failure.

Optional Bloodlust rule (RULES.md §3): the first botch of each game session at a table,
whoever rolls it (players and GM alike), counts as a simple failure, once per session —
the seed: « le Conteur peut donner à tous - aux joueurs comme aux personnages du Conteur -
un échec critique "blanc". C'est-à-dire que le premier échec critique de la partie ne
compte pas ». A GM starts a session with ``{type: "session", op: "start"}``; until one is
started the table is in session 0. A table playing with the rule
sends ``options: {"blank_botch": {}}`` with its bloodlust rolls; ``{"enabled": false}``
(or no key) leaves a roll out.

Only public rolls play with it (ruling in docs/RULESETS.md): a ``gm``, ``blind`` or
``self`` roll neither uses nor sees the table's blank botch, so whether a later public botch
is forgiven never tells the table that a roll hidden from it was a botch.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.host.plugins import scope
from sidecar.model import Outcome, Roll, label

__version__ = "1.0"

NAME = "blank_botch"


@hookimpl
def sidecar_options() -> dict[str, Any]:
    """``options.blank_botch``: ``{}`` plays the rule, ``{"enabled": false}`` does not."""
    return {"label": {"fr": "Échec critique blanc", "en": "Blank botch"},
            "description": {"fr": "Le premier échec critique de la séance compte comme un "
                                  "simple échec",
                            "en": "The session's first botch counts as a simple failure"},
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


def used_in(state: dict[str, Any]) -> int | None:
    """The session whose blank botch was used (a table saved before sessions existed
    used it in session 0), or ``None``."""
    if "session" in state:
        return int(state["session"])
    return 0 if state.get("used") else None


@hookimpl
@scope(rulesets=("bloodlust",), option=NAME)  # (exact: the first test below)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    if roll.ruleset != "bloodlust" or not enabled(roll.options):
        return
    if roll.mode != "public":
        return  # the table-wide state must not carry news of a hidden roll
    if outcome.result.get("kind") != "botch" or used_in(roll.state) == roll.session:
        return
    roll.state.pop("used", None)
    roll.state["session"] = roll.session
    roll.state["by"] = roll.by.get("name", "?")
    outcome.result.update(
        kind="failure",
        label=label("Échec (échec critique blanc)", "Failure (blank botch)"),
        blank_botch=True,
    )
    outcome.notes.append(label(
        "Échec critique blanc : premier échec critique de la séance, compté comme un simple "
        "échec.", "Blank botch: the session's first botch counts as a simple failure."))
