"""Powered by the Apocalypse : les actions / the moves, a ruleset for vtt-sidecar.

A move rolls two six-sided dice and adds a stat (and any *forward* or *ongoing* bonus):

* 10 or more: a full success (kind ``success``);
* 7 to 9: a partial success, at a cost, a hard choice or a worse outcome (``narrow``);
* 6 or less: a miss — the MC makes a move, as hard as they like (``failure``);
* with ``advanced`` (an advanced move, as in *Dungeon World* and *Apocalypse World*'s
  second edition), 12 or more is a critical (``critical``).

The ``margin`` is the total against the partial success's 7 (a success when it is 0 or
more). Dice order: the two dice. The game is not one of vtt-sidecar's seeds: this plugin
was started with ``sidecar new-plugin pbta-moves`` and written from there.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import odds_reply, sum_of
from sidecar.rules import heading

__version__ = "1.0.0"

#: The ruleset's name: what a client sends as ``ruleset``.
RULESET = "pbta"
#: Totals from which a roll is a partial success, a full success, a critical (advanced).
PARTIAL, FULL, CRITICAL = 7, 10, 12

PARAMS: dict[str, dict[str, Any]] = {
    "stat": {"type": "int", "min": -3, "max": 4, "default": 0,
             "label": label("Caractéristique", "Stat"),
             "description": label("La caractéristique ajoutée aux dés (−3 à +4)",
                                  "The stat added to the dice (−3 to +4)")},
    "forward": {"type": "int", "min": -5, "max": 5, "default": 0,
                "label": label("En avant / continu", "Forward / ongoing"),
                "description": label("Bonus ou malus « en avant » et continus, ajoutés",
                                     "Forward and ongoing bonuses or penalties, added")},
    "advanced": {"type": "bool", "default": False,
                 "label": label("Action avancée", "Advanced move"),
                 "description": label("12 et plus : réussite critique",
                                      "12 or more: a critical success")},
    "move": {"type": "string", "default": "", "max_length": 100,
             "label": label("Action", "Move"),
             "description": label("Le nom de l'action (pour le message)",
                                  "The move's name (for the message)")},
}

LABELS = {
    "critical": label("Réussite critique", "Critical success"),
    "success": label("Réussite totale", "Full success"),
    "narrow": label("Réussite partielle", "Partial success"),
    "failure": label("Échec : le MC fait une action", "Miss: the MC makes a move"),
}


def kind_of(total: int, advanced: bool) -> str:
    """The kind of a move's total."""
    if advanced and total >= CRITICAL:
        return "critical"
    if total >= FULL:
        return "success"
    return "narrow" if total >= PARTIAL else "failure"


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{"name": RULESET,
             "title": label("Powered by the Apocalypse (2d6 + caractéristique)",
                            "Powered by the Apocalypse (2d6 + stat)"),
             "version": __version__, "params": PARAMS,
             "dice_order": label("les deux dés", "the two dice")}]


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    p = roll.params
    faces = dice.roll_many(2, 6)
    modifier = p["stat"] + p["forward"]
    total = sum(faces) + modifier
    kind = kind_of(total, p["advanced"])
    result = {"success": kind != "failure", "margin": total - PARTIAL, "kind": kind,
              "label": LABELS[kind], "total": total, "modifier": modifier,
              "move": p["move"]}
    return Outcome(result=result, dice=dice.rolled)


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    """Exact odds: the two dice's sum, shifted by the stat and the bonuses."""
    p = roll.params
    totals = sum_of(2, 6).shift(p["stat"] + p["forward"])
    kinds = totals.map(lambda total: kind_of(total, p["advanced"])).counts
    return odds_reply(kinds, totals.total, "total", totals.counts.items())


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    faces = "+".join(str(die["face"]) for die in outcome.dice)
    dice = f"({faces}) {r['modifier']:+d}" if r["modifier"] else faces
    colon = " : " if locale == "fr" else ": "  # (French sets a colon apart with a space)
    move = f"{r['move']}{colon}" if r["move"] and r["move"] != roll.label else ""
    # "Aengus — Se défaire : (4+3) +1 = 8 → Réussite partielle": who, the move, the dice.
    return f"{heading(roll, locale=locale)}{move}{dice} = {r['total']} → {r['label'][locale]}"
