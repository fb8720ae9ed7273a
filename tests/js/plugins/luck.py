"""Chance: a d6 ruleset whose characters carry luck points, for the clients' tests.

A roll as a character adds the character's ``level`` to a d6 and may ``push`` it with luck
points, which the roll spends (``spend``); 6 or more succeeds. The built-in rulesets' own
sheets are tested with them; this one keeps the clients' tests about seats, sheets and
spends whatever those sheets hold.

``second_chance``: a failed roll is left open (PROTOCOL.md §7, open rolls): the roller may
``reroll`` (one more die; as a character, one luck point) or ``keep`` it (the default).
``target`` (default 6) above 6 makes a roll without bonus fail for sure.
Both costs are declared before the dice (``sidecar_max_spend``): a sheet short of them is
refused before any die is drawn.
"""

from sidecar import hookimpl

SHEET = {
    "level": {"type": "int", "min": 0, "max": 5, "default": 2,
              "label": {"fr": "Niveau", "en": "Level"}},
    "luck": {"type": "int", "min": 0, "max": 3, "default": 3, "resource": True,
             "refill": "rest", "label": {"fr": "Chance", "en": "Luck"}},
    "skills": {"type": "map", "values": "int", "default": {},
               "label": {"fr": "Compétences", "en": "Skills"}},
}


@hookimpl
def sidecar_rulesets():
    return [{"name": "luck", "title": {"fr": "Chance", "en": "Luck"}, "version": "1.0",
             "params": {"push": {"type": "int", "min": 0, "max": 3, "default": 0},
                        "skill": {"type": "string", "default": ""},
                        "target": {"type": "int", "min": 1, "max": 12, "default": 6},
                        "second_chance": {"type": "bool", "default": False}}}]


@hookimpl
def sidecar_sheet(ruleset):
    return SHEET if ruleset == "luck" else None


def _bonus(roll):
    sheet = roll.sheet or {}
    skill = (sheet.get("skills") or {}).get(roll.params["skill"], 0)
    return sheet.get("level", 0) + skill + roll.params["push"]


def _result(total, target):
    won = total >= target
    return {"success": won, "margin": total - target, "total": total,
            "kind": "success" if won else "failure",
            "label": {"fr": "Réussite" if won else "Échec",
                      "en": "Success" if won else "Failure"}}


@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    result = _result(face + _bonus(roll), roll.params["target"])
    spend = {"luck": roll.params["push"]} if roll.params["push"] else {}
    outcome = {"result": result, "spend": spend}
    if not result["success"] and roll.params["second_chance"]:
        outcome["choices"] = [
            {"name": "reroll", "label": {"fr": "Relancer", "en": "Reroll"}, "dice": 1},
            {"name": "keep", "label": {"fr": "Garder", "en": "Keep"}, "dice": 0}]
        outcome["default"] = "keep"
    return outcome


@hookimpl
def sidecar_react(roll, outcome, choice, dice):
    if choice == "keep":
        return {"result": outcome.result}
    face = dice.roll(6)
    spend = {"luck": 1} if roll.sheet is not None else {}
    return {"result": _result(face + _bonus(roll), roll.params["target"]), "spend": spend}


@hookimpl
def sidecar_odds(roll):
    p = min(6, max(0, 7 + _bonus(roll) - roll.params["target"])) / 6
    return {"p_success": p, "kinds": {"failure": 1 - p, "success": p}}


@hookimpl
def sidecar_max_spend(roll, choice):
    if choice is None:
        return {"luck": roll.params["push"]}
    return {"luck": 1} if choice == "reroll" else None
