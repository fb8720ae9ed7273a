"""pbta-moves: a ruleset for vtt-sidecar.

Roll ``dice`` six-sided dice and add ``bonus``: a total that reaches ``target`` is a
success, one that beats it by 5 or more a critical success. Dice order: the dice, in the
order rolled (what a player enters with physical dice).

Made with ``sidecar new-plugin``: change the rules below, and the tests in ``tests/`` with
them. Every hook is documented in ``sidecar/hookspecs.py`` (and docs/PLUGINS.md).
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.dice import DiceSource
from sidecar.model import Outcome, Roll, label
from sidecar.probability import odds_reply, sum_of

__version__ = "0.1.0"

#: The ruleset's name: what a client sends as ``ruleset``.
RULESET = "pbta_moves"
#: A total that beats the target by this much is a critical success.
CRITICAL_BY = 5

#: The roll's parameters: the server checks every request against them and fills in the
#: defaults before any hook sees it; clients build their form from them.
PARAMS: dict[str, dict[str, Any]] = {
    "dice": {"type": "int", "min": 1, "max": 10, "default": 2,
             "label": label("Dés", "Dice"),
             "description": label("Nombre de d6 lancés", "How many d6 are rolled")},
    "bonus": {"type": "int", "min": -20, "max": 20, "default": 0,
              "label": label("Bonus", "Bonus"),
              "description": label("Ajouté au total des dés", "Added to the dice's total")},
    "target": {"type": "int", "min": 1, "max": 100, "required": True,
               "label": label("Seuil", "Target"),
               "description": label("Le total à atteindre", "The total to reach")},
}

LABELS = {
    "critical": label("Réussite critique", "Critical success"),
    "success": label("Réussite", "Success"),
    "failure": label("Échec", "Failure"),
}


def kind_of(total: int, target: int) -> str:
    """The kind of a total against the target (one of the five kinds of the protocol)."""
    if total >= target + CRITICAL_BY:
        return "critical"
    return "success" if total >= target else "failure"


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{"name": RULESET, "title": label("pbta-moves", "pbta-moves"), "version": __version__,
             "params": PARAMS,
             "dice_order": label("les dés, dans l'ordre", "the dice, in order")}]


@hookimpl
def sidecar_resolve(roll: Roll, dice: DiceSource) -> Outcome:
    p = roll.params
    faces = dice.roll_many(p["dice"], 6)
    total = sum(faces) + p["bonus"]
    kind = kind_of(total, p["target"])
    result = {"success": kind != "failure", "margin": total - p["target"], "kind": kind,
              "label": LABELS[kind], "total": total, "target": p["target"]}
    return Outcome(result=result, dice=dice.rolled)


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    """Exact odds: the distribution of the dice's sum, shifted by the bonus."""
    p = roll.params
    totals = sum_of(p["dice"], 6).shift(p["bonus"])
    kinds = totals.map(lambda total: kind_of(total, p["target"])).counts
    return odds_reply(kinds, totals.total, "total", totals.counts.items())


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    faces = "+".join(str(die["face"]) for die in outcome.dice)
    bonus = roll.params["bonus"]
    against = "contre" if locale == "fr" else "vs"
    head = f"{roll.label} : " if roll.label else ""
    return (f"{head}{faces}{f'{bonus:+d}' if bonus else ''} = {r['total']} {against} "
            f"{r['target']} → {r['label'][locale]}")
