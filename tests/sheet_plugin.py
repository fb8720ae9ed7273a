"""A small ruleset with a character sheet, for the tests of seats, sheets and spends.

``luck``: a d6 against ``target``; rolled as a character, it spends ``cost`` points of
``luck`` (the sheet's resource) and reads ``skill`` from the sheet when not given. It
declares those costs before the dice (``sidecar_max_spend``), as a plugin should.

Aimed at characters (contract §8): ``hit`` takes that much ``luck`` from every target
(``effects``, the server clamps it), also on a reroll — only when the roll succeeds with
``hit_on_success`` (the dice decide whether it lands); the result's ``seen`` shows the
targets' ``luck`` as the hook read it; ``bad_effect`` makes a wrong effect on purpose
(``stranger``: a character that is no target, ``field``: a text field, ``amount``: not an
integer; ``mutate`` writes into the copies it read instead); the odds read the first
target's ``skill`` as the difficulty.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import Outcome, label


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{"name": "luck", "title": "Luck", "version": "1.0", "params": {
        "target": {"type": "int", "min": 1, "max": 12, "default": 4},
        "skill": {"type": "int", "min": 0, "max": 6},
        "cost": {"type": "int", "min": -3, "max": 5, "default": 1},
        "second_chance": {"type": "bool", "default": False},
        "no_default": {"type": "bool", "default": False},
        # (no defaults: a roll that does not give them keeps the params it always had)
        "hit": {"type": "int", "min": -20, "max": 20},
        "hit_on_success": {"type": "bool"},
        "bad_effect": {"type": "string"},
    }}]


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    if ruleset != "luck":
        return None
    return {
        "luck": {"type": "int", "min": 0, "max": 5, "default": 3, "resource": True,
                 "refill": "rest", "label": {"fr": "Chance", "en": "Luck"}},
        "focus": {"type": "int", "min": 0, "max": 1, "default": 1, "resource": True,
                  "refill": "turn"},
        "skill": {"type": "int", "min": 0, "max": 6, "default": 2},
        "notes": {"type": "string", "default": ""},
        "skills": {"type": "map", "values": "int", "default": {}},
    }


@hookimpl
def sidecar_resolve(roll: Any, dice: Any) -> Outcome:
    skill = roll.params.get("skill")
    if skill is None:
        skill = roll.sheet["skill"] if roll.sheet is not None else 0
    face = dice.roll(6)
    total = face + skill
    success = total >= roll.params["target"]
    spend = {"luck": roll.params["cost"]} if roll.sheet is not None else {}
    outcome = Outcome(result=_result(total, roll.params["target"]), spend=spend,
                      effects=_effects(roll, success))
    if roll.targets:
        outcome.result["seen"] = {name: target["values"]["luck"]
                                  for name, target in roll.targets.items()}
    if not success and roll.params["second_chance"]:
        # An open roll: after a failure, the roller may reroll (1 die, 1 luck) or keep it.
        outcome.choices = [{"name": "reroll", "label": label("Relancer", "Reroll"), "dice": 1},
                           {"name": "keep", "label": label("Garder", "Keep"), "dice": 0}]
        outcome.default = None if roll.params["no_default"] else "keep"
    return outcome


def _effects(roll: Any, success: bool) -> dict[str, dict[str, Any]]:
    bad = roll.params.get("bad_effect") or ""
    first = next(iter(roll.targets), None)
    if bad == "stranger":
        return {"Nobody-at-all": {"luck": -1}}
    if bad == "field" and first:
        return {first: {"notes": 1}}
    if bad == "amount" and first:
        return {first: {"luck": "lots"}}
    if bad == "mutate":  # a hook that writes into the copies it was given
        for target in roll.targets.values():
            target["values"]["luck"] = 0
        return {}
    hit = roll.params.get("hit") or 0
    if roll.params.get("hit_on_success") and not success:
        return {}
    return {name: {"luck": -hit} for name in roll.targets} if hit else {}


def _result(total: int, target: int) -> dict[str, Any]:
    success = total >= target
    return {"success": success, "margin": total - target,
            "kind": "success" if success else "failure",
            "label": label("Réussite", "Success") if success else label("Échec", "Failure"),
            "total": total}


@hookimpl
def sidecar_react(roll: Any, outcome: Any, choice: str, dice: Any) -> Outcome:
    if choice == "keep":
        return Outcome(result=outcome.result)
    skill = roll.params.get("skill")
    if skill is None:
        skill = roll.sheet["skill"] if roll.sheet is not None else 0
    face = dice.roll(6)
    spend = {"luck": 1} if roll.sheet is not None else {}
    result = _result(face + skill, roll.params["target"])
    return Outcome(result=result, spend=spend, effects=_effects(roll, result["success"]))


@hookimpl
def sidecar_odds(roll: Any) -> dict[str, Any]:
    skill = roll.params.get("skill")
    if skill is None:
        skill = roll.sheet["skill"] if roll.sheet is not None else 0
    target = roll.params["target"]
    if roll.targets:
        target = next(iter(roll.targets.values()))["values"]["skill"] + 2
    wins = sum(1 for face in range(1, 7) if face + skill >= target)
    p = wins / 6
    return {"p_success": p, "kinds": {"botch": 0.0, "failure": 1 - p, "narrow": 0.0,
                                      "success": p, "critical": 0.0}}


@hookimpl
def sidecar_max_spend(roll: Any, choice: Any) -> dict[str, int] | None:
    if choice is None:
        return {"luck": roll.params["cost"]}
    return {"luck": 1} if choice == "reroll" else None


@hookimpl
def sidecar_initiative(roll: Any, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    # The order asked, as it is (what the tests of who acted this turn need).
    return {"order": [[entry["character"]] for entry in entries], "spend": {}}
