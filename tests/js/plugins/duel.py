"""Duel: a d6 ruleset aimed at other characters (contract §8), for the clients' tests.

A roll adds ``bonus`` to a d6 against a difficulty: ``difficulty`` when typed, else the
first target's ``defense`` read from its sheet (``roll.targets``), else 4. Whatever the
die, each target takes the die's face in ``wounds`` (``effects``, taken as far as the
sheet's max allows) and, with ``drain``, loses one point of ``reserve``: a test knows what
a roll did from its faces alone. The clients' tests (Python, Node, the command line, the
web page, the Foundry module) see the targets' cards change with them.
"""

from sidecar import hookimpl

SHEET = {
    "defense": {"type": "int", "min": 1, "max": 7, "default": 4,
                "label": {"fr": "Défense", "en": "Defence"}},
    "wounds": {"type": "int", "min": 0, "max": 20, "default": 0,
               "label": {"fr": "Blessures", "en": "Wounds"}},
    "reserve": {"type": "int", "min": 0, "max": 3, "default": 3, "resource": True,
                "refill": "rest", "label": {"fr": "Réserve", "en": "Reserve"}},
}


@hookimpl
def sidecar_rulesets():
    return [{"name": "duel", "title": {"fr": "Duel", "en": "Duel"}, "version": "1.0",
             "params": {"bonus": {"type": "int", "min": 0, "max": 3, "default": 0},
                        "difficulty": {"type": "int", "min": 1, "max": 9},
                        "drain": {"type": "bool", "default": False}}}]


@hookimpl
def sidecar_sheet(ruleset):
    return SHEET if ruleset == "duel" else None


def _difficulty(roll):
    if roll.params.get("difficulty") is not None:
        return roll.params["difficulty"]
    for target in (roll.targets or {}).values():
        return target["values"].get("defense", 4)
    return 4


@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    difficulty = _difficulty(roll)
    won = face + roll.params["bonus"] >= difficulty
    effects = {}
    for name in roll.targets or {}:
        effects[name] = {"wounds": face}
        if roll.params["drain"]:
            effects[name]["reserve"] = -1
    return {"result": {"success": won, "margin": face + roll.params["bonus"] - difficulty,
                       "total": face + roll.params["bonus"], "difficulty": difficulty,
                       "kind": "success" if won else "failure",
                       "label": {"fr": "Touché" if won else "Raté",
                                 "en": "Hit" if won else "Missed"}},
            "effects": effects}


@hookimpl
def sidecar_odds(roll):
    p = min(6, max(0, 7 + roll.params["bonus"] - _difficulty(roll))) / 6
    return {"p_success": p, "kinds": {"failure": 1 - p, "success": p}}
