"""Bloodlust : réserve de d10 contre une difficulté / a d10 pool against a difficulty.

Dice order: the pool's d10, in order.

Character sheet (:data:`SHEET`): dice pools by name, Volonté points and the once-a-turn
use of Volonté (a counter a new turn refills). Rolled as a character, the pool is the
named one; spending Volonté takes a point and the turn's use.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import check_work, odds_reply
from sidecar.protocol.errors import invalid_param
from sidecar.rules import heading, name_params
from sidecar.rulesets.sheets import (
    counter,
    field,
    pick,
    refuse_sheet_param,
    required_without_sheet,
)

__version__ = "1.1"

NAME = "bloodlust"
MAX_POOL = 50

PARAMS: dict[str, dict[str, Any]] = {
    "pool": {
        "type": "int", "min": 1, "max": MAX_POOL,
        "description": label("Combien de d10 lancer (obligatoire sans personnage ; en tant "
                             "que personnage, son groupement les donne)", "How many d10 to "
                             "roll (required without a character; as one, its sheet's pool "
                             "gives them)"),
    },
    "skill": {
        "type": "string", "max_length": 64,
        "description": label("En tant que personnage : lequel des groupements de dés de sa "
                             "fiche lancer (son nombre de d10)", "As a character: which of "
                             "the sheet's named dice pools to roll (its number of d10)"),
    },
    "difficulty": {
        "type": "int", "min": 2, "max": 10, "default": 6,
        "description": label("Difficulté : face minimale d'un succès (2 à 10)",
                             "Difficulty: lowest face that succeeds (2 to 10)"),
    },
    "willpower": {
        "type": "bool", "default": False,
        "description": label("Dépenser 1 point de volonté : un succès automatique que les 1 "
                             "n'annulent pas", "Spend 1 willpower: an automatic success 1s "
                             "cannot cancel"),
    },
    "automatic": {
        "type": "bool", "default": False,
        "description": label("Réussite automatique sans lancer (réserve ≥ difficulté, hors "
                             "tension)", "Automatic success without rolling (pool ≥ "
                             "difficulty, not tense)"),
    },
    "tense": {
        "type": "bool", "default": False,
        "description": label("Combat ou situation tendue (pas de réussite automatique)",
                             "Combat or tense situation (no automatic success)"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    # The count and the sheet's named pool, named apart ("Dice pool" above "Pool" read as
    # one field twice): the first is a number of d10, the second a name on the sheet.
    "pool": ("Réserve de d10", "Number of d10"),
    "difficulty": ("Difficulté", "Difficulty"),
    "willpower": ("Volonté", "Willpower"),
    "automatic": ("Réussite automatique", "Automatic success"),
    "tense": ("Situation tendue", "Tense situation"),
    "skill": ("Groupement de la fiche", "Sheet's pool"),
})

# What a form shows at once is what a roll needs (the pool or the sheet's grouping, the
# difficulty, willpower); the automatic success and a tense situation fold behind « plus
# d'options » (``more``).
for _key in ("automatic", "tense"):
    PARAMS[_key]["more"] = True

#: The character sheet of Bloodlust (RULES.md §3; seed 002).
SHEET: dict[str, dict[str, Any]] = {
    "groupements": field(
        "map", "Groupements de dés", "Dice pools", "Les groupements de dés du personnage "
        "(nom → nombre de d10)", "The character's dice pools (name → number of d10)",
        values="int", default={}, item={"min": 1, "max": MAX_POOL}, max_items=50),
    "volonte": counter(
        "Volonté", "Willpower", "Points de volonté : un point donne un succès "
        "automatique", "Willpower points: one gives an automatic success", default=3,
        high=20),
    "volonte_tour": counter(
        "Volonté ce tour", "Willpower this turn", "Dépense de volonté encore permise ce "
        "tour (une fois par tour ; un nouveau tour la rend)", "Willpower use still allowed "
        "this turn (once per turn; a new turn gives it back)", default=1, high=1,
        refill="turn"),
}

DEGREES = {
    1: ("marginale", "marginal"),
    2: ("modérée", "moderate"),
    3: ("complète", "complete"),
    4: ("exceptionnelle", "exceptional"),
    5: ("phénoménale", "phenomenal"),
}


def degree(net: int) -> tuple[str, str]:
    """The (French, English) degree of a success with ``net`` ≥ 1 net successes."""
    return DEGREES[min(net, 5)]


def kind_of(net: int, successes: int, ones: int) -> str:
    """The common ``kind`` of a result."""
    if net >= 5:
        return "critical"
    if net >= 2:
        return "success"
    if net == 1:
        return "narrow"
    return "botch" if successes == 0 and ones >= 1 else "failure"


def judge(faces: list[int], difficulty: int, willpower: bool = False) -> dict[str, Any]:
    """The result of a rolled pool (the ruleset's whole logic, no dice drawn here)."""
    successes = ones = 0
    for face in faces:
        if face >= difficulty or face == 10:
            successes += 1
        if face == 1:
            ones += 1
    net = max(0, successes - ones) + (1 if willpower else 0)
    return _result(net, successes, ones, automatic=False, willpower=willpower)


#: The label of each outcome, built once (each result gets its own copy).
_SUCCESS_LABELS = {net: label(f"Réussite {fr}", f"{en.capitalize()} success")
                   for net, (fr, en) in DEGREES.items()}
_BOTCH_LABEL = label("Échec critique", "Critical failure (botch)")
_FAILURE_LABEL = label("Échec", "Failure")


def _result(net: int, successes: int, ones: int, *, automatic: bool,
            willpower: bool) -> dict[str, Any]:
    kind = kind_of(net, successes, ones)
    if net >= 1:
        top = min(net, 5)
        text, deg = dict(_SUCCESS_LABELS[top]), DEGREES[top][0]
    elif kind == "botch":
        text, deg = dict(_BOTCH_LABEL), None
    else:
        text, deg = dict(_FAILURE_LABEL), None
    return {
        "success": net >= 1,
        "margin": net - 1 if net >= 1 else -1,
        "kind": kind,
        "label": text,
        "successes": successes,
        "ones": ones,
        "net": net,
        "degree": deg,
        "automatic": automatic,
        "willpower": willpower,
    }


def annotate(rolled: list[dict[str, Any]], difficulty: int) -> tuple[int, int]:
    """Mark each die: success, and which successes the 1s cancelled (lowest first).
    Returns the count of successes and of 1s."""
    ones = []
    hits = 0
    for die in rolled:
        face = die["face"]
        hit = die["success"] = face >= difficulty or face == 10
        if hit:
            hits += 1
        if face == 1:
            ones.append(die)
    if ones and hits:
        winners = sorted((d for d in rolled if d["success"]), key=lambda d: d["face"])
        for one, cancelled in zip(ones, winners, strict=False):
            one["cancels"] = True
            cancelled["cancelled"] = True
    return hits, len(ones)


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("Bloodlust — réserve de d10", "Bloodlust — d10 pool"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("les d10 de la réserve, dans l'ordre", "the pool's d10, in order"),
    }]


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


def pool_of(params: dict[str, Any], sheet: dict[str, Any] | None) -> int:
    """The pool: the request's, else the character's named one."""
    if params.get("pool") is not None:
        return params["pool"]
    if sheet is None:
        raise required_without_sheet("pool")
    if not params.get("skill"):
        raise invalid_param("skill", "choose the sheet's pool (or give the pool)",
                            fr="choisissez le groupement de la fiche (ou indiquez la "
                               "réserve)")
    return pick(sheet, "groupements", params["skill"], "skill")


def with_pool(roll: Roll) -> dict[str, Any]:
    """The roll's params with its pool filled in (from the sheet when it gives it)."""
    p = roll.params
    return p if p.get("pool") is not None else {**p, "pool": pool_of(p, roll.sheet)}


def spends(params: dict[str, Any], sheet: dict[str, Any] | None) -> dict[str, int]:
    """Volonté: a point and the turn's one use (both the player's choice, declared
    before the dice by :func:`sidecar_max_spend`: a character without them answers
    ``insufficient`` before any die)."""
    if sheet is None or not params["willpower"]:
        return {}
    return {"volonte": 1, "volonte_tour": 1}


@hookimpl
def sidecar_max_spend(roll: Roll, choice: str | None) -> dict[str, int] | None:
    """The most a roll as a character could spend, before its dice: Volonté's point and
    use, which the dice never change (no decision after the dice spends)."""
    return None if choice is not None else spends(roll.params, roll.sheet) or None


def _check_automatic(params: dict[str, Any], aimed: bool = False) -> None:
    """An automatic success is refused in a tense situation — ``tense``, or an action
    aimed at another character (``aimed``: « jamais en combat ou autre situation
    tendue ») — and with a pool below the difficulty."""
    if params["tense"] or aimed:
        raise invalid_param("automatic", "no automatic success in a tense situation",
                            fr="pas de réussite automatique en situation tendue")
    if params["pool"] < params["difficulty"]:
        raise invalid_param(
            "automatic",
            f"needs a pool ≥ the difficulty ({params['pool']} < {params['difficulty']})",
            fr=f"demande une réserve ≥ la difficulté ({params['pool']} < "
               f"{params['difficulty']})")


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    # A player may type only the pool its sheet gives the skill (docs/RULESETS.md).
    refuse_sheet_param(roll, "pool", PARAMS["pool"]["label"], "skill",
                       lambda p: pool_of(p, roll.sheet),
                       offered="groupements")
    p = with_pool(roll)
    spend = spends(p, roll.sheet)
    if p["automatic"]:
        _check_automatic(p, aimed=bool(roll.targets))
        net = 1 + (1 if p["willpower"] else 0)
        result = _result(net, 1, 0, automatic=True, willpower=p["willpower"])
        result["pool"] = p["pool"]
        return Outcome(result=result, spend=spend)
    dice.roll_many(p["pool"], 10)
    rolled = dice.rolled  # (the pool's dice only: what judge() would count, in one pass)
    successes, ones = annotate(rolled, p["difficulty"])
    net = max(0, successes - ones) + (1 if p["willpower"] else 0)
    result = _result(net, successes, ones, automatic=False, willpower=p["willpower"])
    result["pool"] = p["pool"]
    return Outcome(result=result, dice=rolled, spend=spend)


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    p = {**roll.params, "pool": r.get("pool", roll.params.get("pool"))}
    start = heading(roll, locale=locale)
    verdict = r["label"][locale]
    if r.get("automatic"):
        if locale == "fr":
            return f"{start}{p['pool']}d10 diff. {p['difficulty']}, sans lancer → {verdict}"
        return f"{start}{p['pool']}d10 diff. {p['difficulty']}, no roll → {verdict}"
    will = (" + volonté" if locale == "fr" else " + willpower") if r.get("willpower") else ""
    # The ones in words: « 0 × 1 » read as a multiplication (issue 29).
    ones = r["ones"]
    if locale == "fr":
        return (f"{start}{p['pool']}d10 diff. {p['difficulty']}{will} : "
                f"{r['successes']} succès, {ones} {'dés' if ones > 1 else 'dé'} à 1, "
                f"{r['net']} net → {verdict}")
    return (f"{start}{p['pool']}d10 diff. {p['difficulty']}{will}: "
            f"{r['successes']} successes, {ones} {'one' if ones == 1 else 'ones'}, "
            f"{r['net']} net → {verdict}")


@lru_cache(maxsize=1024)
def exact_odds(pool: int, difficulty: int, willpower: bool = False,
               automatic: bool = False) -> dict[str, Any]:
    """Exact probabilities of each kind and of each net count, by enumeration of the
    (successes, ones) counts with their multinomial weights, in integers."""
    kinds: dict[str, int] = {}
    nets: dict[int, int] = {}
    if automatic:
        net = 1 + (1 if willpower else 0)
        return odds_reply({kind_of(net, 1, 0): 1}, 1, "net", [(net, 1)])
    check_work(pool * pool)
    hit, other = 11 - difficulty, difficulty - 2  # faces out of 10 (and one face is a 1)
    for s in range(pool + 1):
        for o in range(pool - s + 1):
            ways = comb(pool, s) * comb(pool - s, o) * hit ** s * other ** (pool - s - o)
            if ways == 0:
                continue
            net = max(0, s - o) + (1 if willpower else 0)
            kind = kind_of(net, s, o)
            kinds[kind] = kinds.get(kind, 0) + ways
            nets[net] = nets.get(net, 0) + ways
    return odds_reply(kinds, 10 ** pool, "net", nets.items())


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = with_pool(roll)
    if p["automatic"]:
        _check_automatic(p, aimed=bool(roll.targets))
    return exact_odds(p["pool"], p["difficulty"], p["willpower"], p["automatic"])
