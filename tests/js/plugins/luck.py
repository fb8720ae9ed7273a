"""Chance: a d6 ruleset whose characters carry luck points, for the clients' tests.

A roll as a character adds the character's ``level`` to a d6 and may ``push`` it with luck
points, which the roll spends (``spend``); 6 or more succeeds. The built-in rulesets' own
sheets are tested with them; this one keeps the clients' tests about seats, sheets and
spends whatever those sheets hold.
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
                        "skill": {"type": "string", "default": ""}}}]


@hookimpl
def sidecar_sheet(ruleset):
    return SHEET if ruleset == "luck" else None


def _bonus(roll):
    sheet = roll.sheet or {}
    skill = (sheet.get("skills") or {}).get(roll.params["skill"], 0)
    return sheet.get("level", 0) + skill + roll.params["push"]


@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    won = face + _bonus(roll) >= 6
    spend = {"luck": roll.params["push"]} if roll.params["push"] else {}
    return {"result": {"success": won, "margin": face + _bonus(roll) - 6,
                       "kind": "success" if won else "failure",
                       "label": {"fr": "Réussite" if won else "Échec",
                                 "en": "Success" if won else "Failure"}},
            "spend": spend}


@hookimpl
def sidecar_odds(roll):
    p = min(6, max(0, 1 + _bonus(roll))) / 6
    return {"p_success": p, "kinds": {"failure": 1 - p, "success": p}}
