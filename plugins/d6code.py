"""Codes ND+M : somme de d6, dés jumeaux, style / skill codes ND+M: d6 sums, twins, style.

Dice order: the N − 2 normal dice (or N without twins), then the 2 twin dice, then the 2
twin reroll dice (only after a double), then the 2 style dice; for an opposed roll, the
opponent's N dice come last. With physical dice (``roll.manual``) a double's reroll is
asked for after the twins are seen: the roll opens (contract §7) with the choice
``twin_reroll``, which draws those 2 faces; every other face keeps its place.

Decided after the dice: a failed roll (or a draw) without a style point offers one
(``style_libre``, ``style_extreme``: 2 dice) or ``keep``.

Character sheet (:data:`SHEET`): skill codes by name, style points (SP), SurCompétence
points (SC) and the doubled short actions an SC point has left. Rolled as a character,
the code is the named skill's; a style point is spent (less what extreme style gives
back), an SC point is spent (a three-action SC spends one point for three rolls). The
sheet keeps the combo chain (``combo_mise``, ``combo_points``): the character's next
roll, when it closes, continues it (an extreme-style point that comes back, at the
doubled stake) or breaks it (its accumulated points lost) — see :func:`settle_chain`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice, ManualDice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import Dist, add, check_work, odds_reply, sum_of
from sidecar.protocol.errors import invalid_param
from sidecar.rules import KIND_LABELS, common, name_params, signed
from sidecar.rulesets.d6code_recovery import CHOICES as RECOVERY_CHOICES
from sidecar.rulesets.d6code_recovery import hold_recovery, recovery_decided, sp_text
from sidecar.rulesets.d6code_series import remember_series, running_skill, series_spend
from sidecar.rulesets.sheets import (
    add_spend,
    counter,
    entry_heading,
    field,
    pick,
    refuse_sheet_override,
    required_without_sheet,
)

__version__ = "1.1"

NAME = "d6code"
MAX_DICE = 30
#: The highest combo stake (the ``combo`` param's maximum; a chain's stake stops there).
MAX_STAKE = 1024
CODE = re.compile(r"\s*([0-9]{1,2})\s*[dD]\s*(?:([+-])\s*([0-9]{1,3}))?\s*")
CODE_PATTERN = CODE.pattern
DIFFICULTIES = {"Facile": 10, "Moyen": 15, "Difficile": 20, "Très difficile": 25,
                "Héroïque": 30}
#: Each difficulty's English name (a request sends the French one; see label_names).
DIFFICULTIES_EN = {"Facile": "Easy", "Moyen": "Average", "Difficile": "Hard",
                   "Très difficile": "Very hard", "Héroïque": "Heroic"}

#: The style choices as people read them (the values stay the keys requests send).
STYLE_LABELS = {"libre": label("libre", "free"), "extreme": label("extrême", "extreme")}

PARAMS: dict[str, dict[str, Any]] = {
    "code": {
        "type": "string", "pattern": CODE_PATTERN, "example": "4D+3",
        "max_length": 16,
        "description": label("Code de compétence : ND, ND+M ou ND-M (ex. 4D+3 ; "
                             "obligatoire sans personnage)", "Skill code: ND, ND+M or ND-M "
                             "(e.g. 4D+3; required without a character)"),
    },
    "skill": {
        "type": "string", "max_length": 64,
        "description": label("En tant que personnage : la compétence de la fiche dont le "
                             "code est lancé (ex. PILOTAGE)", "As a character: the sheet's "
                             "skill whose code is rolled (e.g. PILOTING)"),
    },
    "modifier": {
        "type": "int", "min": -100, "max": 100, "default": 0,
        "description": label("Modificateur de situation (ex. maniabilité +3)",
                             "Situational modifier (e.g. handling +3)"),
    },
    "difficulty": {
        "type": "int", "min": 0, "max": 200, "labels": DIFFICULTIES,
        "label_names": {name: {"fr": name, "en": DIFFICULTIES_EN[name]} for name in DIFFICULTIES},
        "description": label("Difficulté : nombre, ou Facile 10, Moyen 15, Difficile 20, "
                             "Très difficile 25, Héroïque 30 (obligatoire hors opposition)",
                             "Difficulty: a number or a level: " + ", ".join(
                                 f"{DIFFICULTIES_EN[name]} {value}"
                                 for name, value in DIFFICULTIES.items())
                             + " (required unless opposed)"),
    },
    "twin": {
        "type": "bool", "default": False,
        "description": label("Dés jumeaux : deux des dés sont jumeaux (N ≥ 2)",
                             "Twin dice: two of the dice are twins (N ≥ 2)"),
    },
    "style": {
        "type": "string", "choices": ["libre", "extreme"], "choice_labels": STYLE_LABELS,
        "description": label("Point de style : 2 dés en plus, style libre ou extrême",
                             "Style point: 2 extra dice, free or extreme style"),
    },
    "style_if_needed": {
        "type": "string", "choices": ["libre", "extreme"], "choice_labels": STYLE_LABELS,
        "description": label("Décidé d'avance : un point de style (libre ou extrême) "
                             "seulement si le jet échoue ou fait égalité ; ses 2 dés sont "
                             "tirés en dernier. Pour les chances : celles de ce choix",
                             "Decided beforehand: a style point (free or extreme) only if "
                             "the roll fails or draws; its 2 dice are drawn last. For odds: "
                             "those of that play"),
    },
    "combo": {
        "type": "int", "min": 1, "max": MAX_STAKE, "default": 1,
        "description": label("Mise du combo de style (1, puis 2, 4… si le SP regagné est "
                             "réinvesti aussitôt) ; sans personnage : en tant que "
                             "personnage, la fiche tient la chaîne", "Style combo stake (1, "
                             "then 2, 4… when the regained SP is reinvested at once); "
                             "without a character: as a character, the sheet keeps the "
                             "chain"),
    },
    "surcompetence": {
        "type": "string", "choices": ["auto", "double", "serie"],
        "choice_labels": {"auto": label("auto", "auto"), "double": label("double", "double"),
                          "serie": label("série", "series")},
        "description": label("Point de SurCompétence : réussite automatique (action "
                             "courte), score ×2 (action longue), ou score ×2 sur trois "
                             "actions courtes successives (série : un point pour les trois)",
                             "SurCompetence point: automatic success (short action), score "
                             "×2 (long action), or score ×2 on three successive short actions "
                             "(serie: one point for the three)"),
    },
    "opponent": {
        "type": "string", "pattern": CODE_PATTERN, "example": "4D+1", "max_length": 16,
        "description": label("Jet en opposition : code de l'adversaire",
                             "Opposed roll: the opponent's code"),
    },
    "opponent_skill": {
        "type": "string", "max_length": 64,
        "description": label("Contre un personnage (cible) : la compétence de sa fiche qui "
                             "s'oppose (par défaut la même que « Compétence »)", "Against a "
                             "character (target): the skill of its sheet that opposes (by "
                             "default the same as \"Skill\")"),
    },
    "opponent_modifier": {
        "type": "int", "min": -100, "max": 100, "default": 0,
        "description": label("Modificateur de situation de l'adversaire",
                             "The opponent's situational modifier"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    "code": ("Code de compétence", "Skill code"),
    "modifier": ("Modificateur", "Modifier"),
    "difficulty": ("Difficulté", "Difficulty"),
    "twin": ("Dés jumeaux", "Twin dice"),
    "style": ("Point de style", "Style point"),
    "style_if_needed": ("Point de style si besoin", "Style point if needed"),
    "combo": ("Mise du combo", "Combo stake"),
    "surcompetence": ("SurCompétence", "SurCompetence"),
    "opponent": ("Code de l'adversaire", "Opponent's code"),
    "opponent_modifier": ("Modificateur de l'adversaire", "Opponent's modifier"),
    "opponent_skill": ("Compétence de l'adversaire", "Opponent's skill"),
    "skill": ("Compétence", "Skill"),
})

# What a form shows at once is what a roll needs (the code or the skill, the modifier, the
# difficulty); the seed's « options de jeu » — twin dice, style points, « dont il est tout à
# fait possible de se passer » —, SurCompétence and an opponent fold behind « plus
# d'options » (``more``: docs/PLUGINS.md, ``sidecar_rulesets``).
for _key in ("twin", "style", "style_if_needed", "combo", "surcompetence", "opponent",
             "opponent_skill", "opponent_modifier"):
    PARAMS[_key]["more"] = True

#: The character sheet of d6code (RULES.md §4; seed 003).
SHEET: dict[str, dict[str, Any]] = {
    "competences": field(
        "map", "Compétences", "Skills", "Codes de compétence (nom → ND+M, ex. PILOTAGE "
        "4D+3)", "Skill codes (name → ND+M, e.g. PILOTING 4D+3)", values="string",
        default={}, item={"pattern": CODE_PATTERN, "example": "4D+3", "max_length": 16},
        max_items=50),
    "points_style": counter(
        "Points de style (SP)", "Style points (SP)", "Un SP lance 2 dés de plus ; le "
        "style extrême peut en rendre", "An SP rolls 2 more dice; extreme style may give "
        "some back", default=1, high=99),
    "points_surcompetence": counter(
        "Points de SurCompétence (SC)", "SurCompetence points (SC)", "Un SC : réussite "
        "automatique, score ×2 sur une action longue ou sur trois actions courtes",
        "An SC: automatic success, score ×2 on a long action or on three short ones",
        default=0, high=99),
    "sc_serie": counter(
        "Actions ×2 restantes (SC)", "×2 actions left (SC)", "Actions courtes encore "
        "doublées par le dernier point de SurCompétence en série (même compétence)",
        "Short actions still doubled by the last SurCompetence point spent as a series "
        "(same skill)", default=0, high=2),
    "combo_mise": counter(
        "Mise du combo", "Combo stake", "La mise de la prochaine action si elle "
        "réinvestit le SP regagné (0 : pas de chaîne ; 2, 4… après une récupération)",
        "The next action's stake if it reinvests the regained SP (0: no chain; 2, 4… "
        "after a recovery)", default=0, high=MAX_STAKE, resource=False),
    "combo_points": counter(
        "Points du combo", "Combo points", "SP gagnés par la chaîne de combos (au-delà "
        "d'une récupération simple) : perdus si la chaîne est rompue", "SP the combo "
        "chain gained (beyond a plain recovery): lost if the chain breaks", default=0,
        high=99, resource=False),
}

#: The SurCompétence choices that double the score.
DOUBLING = ("double", "serie")


def parse_code(code: str, param: str = "code") -> tuple[int, int]:
    """``"4D+3"`` → ``(4, 3)``; refuses codes outside 1 to 30 dice."""
    match = CODE.fullmatch(code)
    if match is None:
        raise invalid_param(param, f"'{code[:20]}' is not of the form ND, ND+M or ND-M",
                            fr=f"« {code[:20]} » n'est pas de la forme ND, ND+M ou ND-M")
    count = int(match.group(1))
    if not 1 <= count <= MAX_DICE:
        raise invalid_param(param, f"1 to {MAX_DICE} dice, not {count}",
                            fr=f"de 1 à {MAX_DICE} dés, pas {count}")
    bonus = int(match.group(3) or 0) * (-1 if match.group(2) == "-" else 1)
    return count, bonus


def twin_value(a: int, b: int, reroll: tuple[int, int] | None) -> tuple[int, str]:
    """The pair's total and its state: normal, double (plus the reroll) or fiasco (1)."""
    if a == b:
        assert reroll is not None
        return a + b + reroll[0] + reroll[1], "double"
    if 1 in (a, b):
        return 1, "fiasco"
    return a + b, "normal"


def extreme_recovery(style_faces: list[int], success: bool, stake: int = 1) -> int:
    """SP recovered in extreme style: any 1 → 0; any 6 → 2; a 1 and a 6 cancel (1);
    recovery only on success; a combo multiplies by its stake."""
    if not success:
        return 0
    has_one, has_six = 1 in style_faces, 6 in style_faces
    if has_one and not has_six:
        return 0
    base = 2 if has_six and not has_one else 1
    return base * stake


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("Codes de compétence ND+M — dés jumeaux et style",
                       "Skill codes ND+M — twin dice and style"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("les N − 2 dés normaux (ou N), les 2 jumeaux, les 2 relances "
                            "après un double, les 2 dés de style, puis les dés de "
                            "l'adversaire ; avec des dés physiques, les relances d'un double "
                            "sont demandées après (react) ; un point de style « si besoin » "
                            "tire ses 2 dés en dernier", "the N − 2 normal dice (or N), the 2 "
                            "twins, the 2 rerolls after a double, the 2 style dice, then the "
                            "opponent's; with physical dice, a double's rerolls are asked "
                            "for afterwards (react); a style point \"if needed\" draws its 2 "
                            "dice last"),
    }]


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


def code_of(params: dict[str, Any], sheet: dict[str, Any] | None) -> str:
    """The skill code: the request's, else the character's named skill's."""
    if params.get("code") is not None:
        return params["code"]
    if sheet is None:
        raise required_without_sheet("code")
    if not params.get("skill"):
        raise invalid_param("skill", "choose the sheet's skill (or give the code)",
                            fr="choisissez la compétence de la fiche (ou indiquez le code)")
    return pick(sheet, "competences", params["skill"], "skill")


def refuse_typed_code(roll: Roll) -> None:
    """A player rolling as a character may type only the code its sheet gives the skill
    (the same code, however written); else ``forbidden`` (docs/RULESETS.md)."""
    typed, sheet = roll.params.get("code"), roll.sheet
    skill = roll.params.get("skill")
    if typed is None or sheet is None or not (skill or sheet.get("competences")):
        return  # (no skill on the sheet: it supplies no code)
    own = pick(sheet, "competences", skill, "skill") if skill else None
    same = own is not None and parse_code(own) == parse_code(typed)
    refuse_sheet_override(roll, "code", PARAMS["code"]["label"], typed if same else own)


def with_code(roll: Roll) -> dict[str, Any]:
    """The roll's params with its code filled in (from the sheet when it gives it), and,
    aimed at a character, the opponent's code from its sheet (:func:`opponent_code`)."""
    p = roll.params
    p = p if p.get("code") is not None else {**p, "code": code_of(p, roll.sheet)}
    code = opponent_code(roll)
    return p if code is None else {**p, "opponent": code}


def opponent_code(roll: Roll) -> str | None:
    """Aimed at a character (contract §8) with no ``opponent`` typed: the code of its
    sheet's ``opponent_skill`` (« le Maître du Jeu décide quelles Compétences seront
    utilisées par chacun des protagonistes »), else — with no difficulty, a pure
    opposition — of the roller's own ``skill``; the first d6code target is the opponent.
    None when the roll is not opposed that way: with a difficulty and no
    ``opponent_skill`` the target does not roll (a shot at it; a side of an opposed ask,
    which rolls its own dice)."""
    p = roll.params
    skill = p.get("opponent_skill") or (p.get("skill") if p.get("difficulty") is None
                                        else None)
    if p.get("opponent") is not None or not skill:
        return None
    for name, target in (roll.targets or {}).items():
        if isinstance(target, dict) and target.get("ruleset") == NAME:
            # A refusal lists the target's skills to a GM only: a player may not see its
            # sheet (contract §8).
            return pick(target.get("values") or {}, "competences", skill, "opponent_skill",
                        whose=name, listed=roll.by.get("role") == "gm")
    return None


def spends(params: dict[str, Any], result: dict[str, Any],
           sheet: dict[str, Any], running: str | None = None) -> dict[str, int]:
    """What a roll made as a character takes from its sheet (all the player's choices,
    declared before the dice by :func:`sidecar_max_spend`: a sheet without the point
    answers ``insufficient`` before any die): a style point, less the SP extreme
    style gives back (a give-back when it is 2); an SC point — for a series, one point
    for three doubled rolls of one skill in a row (``running``: the skill of the series
    under way, ``d6code_series``): the first spends it and leaves 2 in ``sc_serie``, the
    next two spend those."""
    spend: dict[str, int] = {}
    style = result.get("style")
    if style:  # declared, or engaged by a standing order
        add_spend(spend, "points_style", 1 - ((style or {}).get("sp_recovered") or 0))
    series_spend(spend, params, sheet, running)
    return spend


@hookimpl
def sidecar_max_spend(roll: Roll, choice: str | None) -> dict[str, int] | None:
    """The most a roll as a character could spend, declared before its dice (the host
    refuses it then when the sheet lacks it): the style point — ``style``, or
    ``style_if_needed`` counted even though a success spends nothing (else a failure
    alone would be refused, and the player could roll until the dice succeed) — and the
    SurCompétence point; a decision, the style point it engages. What extreme style
    gives back and the combo chain's points are the dice's, taken as far as the sheet
    holds."""
    if choice is not None:
        return {"points_style": 1} if choice.startswith("style_") else None
    p = roll.params
    style = p.get("style") is not None or p.get("style_if_needed") is not None
    most = spends(p, {"style": {"sp_recovered": 0} if style else None}, roll.sheet or {},
                  running_skill(roll))
    return {name: amount for name, amount in most.items() if amount > 0} or None


def chain_stake(sheet: dict[str, Any] | None, params: dict[str, Any]) -> int:
    """The stake a style point plays at: the sheet's chain as a character (1 without a
    chain), else the ``combo`` param."""
    if sheet is None:
        return params["combo"]
    return max(1, sheet.get("combo_mise") or 0)


def settle_chain(outcome: Outcome, sheet: dict[str, Any]) -> None:
    """The combo chain once a roll as a character closes (its very next action after a
    recovery): an extreme-style point that comes back continues it — the next stake
    doubles, the SP beyond a plain recovery add up in ``combo_points`` —; any other end
    (no style point, a free-style one, a point that does not come back) breaks a chain
    that is on, and its points are lost (as far as the sheet has them). Added to the
    outcome's ``spend`` (one journal write) and told in ``result.combo_chain``."""
    stake_on = sheet.get("combo_mise") or 0
    points = sheet.get("combo_points") or 0
    style = outcome.result.get("style")
    recovered = (style or {}).get("sp_recovered") or 0
    spend = outcome.spend
    if style is not None and style["mode"] == "extreme" and recovered:
        stake = max(1, stake_on)
        gained = recovered - recovered // stake  # what the doubled stakes brought
        after = min(points + gained, SHEET["combo_points"]["max"])
        next_stake = min(2 * stake, MAX_STAKE)
        add_spend(spend, "combo_mise", stake_on - next_stake)
        add_spend(spend, "combo_points", points - after)
        chain = {"stake": stake, "next_stake": next_stake, "points": after, "broken": False}
    elif stake_on or points:
        left = sheet.get("points_style", 0) - spend.get("points_style", 0)
        lost = min(points, max(0, left))
        add_spend(spend, "points_style", lost)
        add_spend(spend, "combo_mise", stake_on)
        add_spend(spend, "combo_points", points)
        chain = {"stake": style["stake"] if style else None, "next_stake": 0, "points": 0,
                 "broken": True, "lost": lost}
    else:
        return
    # What extreme style gives back stops at the sheet's maximum, not past it.
    high = SHEET["points_style"]["max"]
    if sheet.get("points_style", 0) - spend.get("points_style", 0) > high:
        add_spend(spend, "points_style", sheet["points_style"] - high
                  - spend.get("points_style", 0))
    outcome.result["combo_chain"] = chain


def close_as_character(outcome: Outcome, roll: Roll) -> None:
    """What a roll as a character settles when it closes (no choice left): its chain."""
    if roll.sheet is not None and outcome.choices is None:
        settle_chain(outcome, roll.sheet)


def _check(p: dict[str, Any]) -> tuple[int, int]:
    count, bonus = parse_code(p["code"])
    if p.get("difficulty") is None and p.get("opponent") is None:
        raise invalid_param("difficulty", "is required (or give an opponent)",
                            fr="est obligatoire (ou indiquez un adversaire)")
    if p["twin"] and count < 2:
        raise invalid_param("twin", "twin dice need at least 2 dice",
                            fr="les dés jumeaux demandent au moins 2 dés")
    if p.get("surcompetence") == "auto" and p.get("opponent") is not None:
        raise invalid_param("surcompetence", "no automatic success in an opposed roll",
                            fr="pas de réussite automatique en opposition")
    if p.get("style") is not None and p.get("style_if_needed") is not None:
        raise invalid_param("style_if_needed", "never two style points on one action",
                            fr="jamais deux points de style pour une même action")
    if p["combo"] > 1 and p.get("style") is None and p.get("style_if_needed") is None:
        raise invalid_param("combo", "a combo needs a style point",
                            fr="un combo demande un point de style")
    return count, bonus


def judge(score: int, difficulty: int | None, opponent_score: int | None,
          fiasco: bool) -> tuple[bool, int, str, str | None]:
    """(success, margin, kind, winner) of a final score; ``winner`` is None unless opposed."""
    if opponent_score is None:
        assert difficulty is not None
        margin, bar_met = score - difficulty, score >= difficulty
        success, winner = bar_met, None
    elif difficulty is not None and score < difficulty:
        margin, success = score - difficulty, False
        winner = "opponent" if opponent_score >= difficulty else "nobody"
    elif difficulty is not None and opponent_score < difficulty:
        margin, success, winner = score - difficulty, True, "roller"
    else:
        margin = score - opponent_score
        success = margin >= 0
        winner = "roller" if margin > 0 else ("draw" if margin == 0 else "opponent")
    if not success:
        kind = "botch" if fiasco else "failure"
    elif margin == 0:
        kind = "narrow"
    elif margin >= 10:
        kind = "critical"
    else:
        kind = "success"
    return success, margin, kind, winner


LABELS = {**KIND_LABELS, "botch": ("Fiasco", "Fiasco (botch)")}


def _style(p: dict[str, Any], faces: list[int], success: bool) -> dict[str, Any]:
    """The style point's part of a result: its dice and what it gives back."""
    style: dict[str, Any] = {"mode": p["style"], "faces": faces, "stake": p["combo"]}
    if p["style"] == "extreme":
        style["sp_recovered"] = extreme_recovery(faces, success, p["combo"])
    else:
        style["sp_recovered"] = None  # style libre: the GM decides
        style["gm_may_return"] = success
    return style


def play(p: dict[str, Any], dice: Dice, *, await_reroll: bool = False
         ) -> dict[str, Any]:
    """The result of a roll whose params (code filled in) are checked, drawing its faces
    from ``dice`` in the documented order. ``await_reroll``: a double's reroll is not
    drawn yet (physical dice): the twins count their two faces until it comes."""
    count, bonus = parse_code(p["code"])
    difficulty = p.get("difficulty")
    if p.get("surcompetence") == "auto":
        # Seed: « il [est] par contre possible d'utiliser à la fois un Point de Style et
        # un Point de SurCompétence pour une même action »: the style dice still decide
        # what extreme style gives back on the (automatic) success.
        style = None
        if p.get("style"):
            style = _style(p, dice.roll_many(2, 6, role="style"), True)
        fields = {"score": None, "difficulty": difficulty, "automatic": True,
                  "twin": None, "style": style, "code": p["code"]}
        return common(True, 0, "success", "Réussite automatique (SC)",
                      "Automatic success (SC)", **fields)
    normal = dice.roll_many(count - 2 if p["twin"] else count, 6, role="normal")
    score = sum(normal)
    twin = None
    if p["twin"]:
        a, b = dice.roll(6, role="twin"), dice.roll(6, role="twin")
        reroll = None
        waiting = a == b and await_reroll
        if a == b and not waiting:
            reroll = (dice.roll(6, role="twin_reroll"), dice.roll(6, role="twin_reroll"))
        total, state = (a + b, "double") if waiting else twin_value(a, b, reroll)
        score += total
        twin = {"faces": [a, b], "state": state, "reroll": list(reroll) if reroll else [],
                "total": total}
        if waiting:
            twin["awaiting_reroll"] = True
    style_faces: list[int] = []
    if p.get("style"):
        style_faces = [dice.roll(6, role="style"), dice.roll(6, role="style")]
        score += sum(style_faces)
    score += bonus + p["modifier"]
    if p.get("surcompetence") in DOUBLING:
        score *= 2
    opponent = None
    if p.get("opponent") is not None:
        opp_count, opp_bonus = parse_code(p["opponent"], "opponent")
        opp_faces = dice.roll_many(opp_count, 6, role="opponent")
        opponent = {"code": p["opponent"], "faces": opp_faces,
                    "score": sum(opp_faces) + opp_bonus + p["opponent_modifier"]}
    fiasco = twin is not None and twin["state"] == "fiasco"
    waiting = twin is not None and twin.get("awaiting_reroll", False)
    success, margin, kind, winner = judge(score, difficulty,
                                          opponent["score"] if opponent else None, fiasco)
    if p.get("style_if_needed") and not waiting and (not success or winner == "draw"):
        # A standing order: the point the player would engage after seeing the dice.
        p = {**p, "style": p["style_if_needed"]}
        style_faces = [dice.roll(6, role="style"), dice.roll(6, role="style")]
        score += sum(style_faces) * (2 if p.get("surcompetence") in DOUBLING else 1)
        success, margin, kind, winner = judge(
            score, difficulty, opponent["score"] if opponent else None, fiasco)
    style = _style(p, style_faces, success) if style_faces else None
    if opponent is not None:
        opponent["winner"] = winner
    fr, en = LABELS[kind]
    if winner == "draw":
        fr, en = "Égalité", "Draw"
    if waiting:
        fr, en = "Double aux jumeaux : relance à lancer", "Twin double: reroll to roll"
    return common(success, margin, kind, fr, en, score=score, difficulty=difficulty,
                  automatic=False, twin=twin, style=style, opposed=opponent,
                  doubled=p.get("surcompetence") in DOUBLING, code=p["code"])


def _faces_after_twins(p: dict[str, Any]) -> int:
    """How many faces a roll draws after its twins and their reroll (at least)."""
    after = 2 if p.get("style") else 0
    if p.get("opponent") is not None:
        after += parse_code(p["opponent"], "opponent")[0]
    return after


def awaits_reroll(roll: Roll, p: dict[str, Any], dice: Dice) -> bool:
    """Physical dice: a double's reroll is asked for once the twins are seen — unless the
    faces entered already hold it (typed up front, as before open rolls: still taken)."""
    if not roll.manual or not p["twin"]:
        return False
    return dice.unused < parse_code(p["code"])[0] + 2 + _faces_after_twins(p)


#: What an open d6code roll may offer, by choice name.
CHOICES: dict[str, dict[str, Any]] = {
    "twin_reroll": {"name": "twin_reroll", "label": label(
        "Relancer les jumeaux (double)", "Reroll the twins (double)"), "dice": 2},
    "style_libre": {"name": "style_libre", "label": label(
        "Point de style, style libre (2 dés)", "Style point, free style (2 dice)"),
        "dice": 2},
    "style_extreme": {"name": "style_extreme", "label": label(
        "Point de style, style extrême (2 dés)", "Style point, extreme style (2 dice)"),
        "dice": 2},
    "keep": {"name": "keep", "label": label("Garder le résultat", "Keep the result"),
             "dice": 0},
}


def offer(outcome: Outcome, p: dict[str, Any], sheet: dict[str, Any] | None) -> None:
    """Open the roll when something is left to decide after the dice: a double's reroll
    awaited (physical dice; taken by default: the rules always add it), else a style
    point on a failed or drawn roll that has none (as a character, only with an SP)."""
    r = outcome.result
    if (r.get("twin") or {}).get("awaiting_reroll"):
        outcome.choices, outcome.default = [dict(CHOICES["twin_reroll"])], "twin_reroll"
        return
    if r.get("automatic") or r.get("style") is not None:
        return
    if r["success"] and (r.get("opposed") or {}).get("winner") != "draw":
        return
    if sheet is not None and (sheet.get("points_style") or 0) < 1:
        return
    outcome.choices = [dict(CHOICES[name]) for name in ("style_libre", "style_extreme",
                                                        "keep")]
    outcome.default = "keep"


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    refuse_typed_code(roll)  # (before any die; odds stay free)
    p = with_code(roll)
    _check(p)
    _check_combo(roll)
    p = {**p, "combo": chain_stake(roll.sheet, p)}
    result = play(p, dice, await_reroll=awaits_reroll(roll, p, dice))
    outcome = Outcome(result=result, dice=dice.rolled, spend=spends(
        p, result, roll.sheet, running_skill(roll)) if roll.sheet is not None else {})
    remember_series(roll, p)
    offer(outcome, p, roll.sheet)
    hold_recovery(outcome, roll.sheet)
    close_as_character(outcome, roll)
    return outcome


def _check_combo(roll: Roll) -> None:
    """As a character the sheet keeps the chain: a ``combo`` param is refused."""
    if roll.sheet is not None and roll.params["combo"] > 1:
        raise invalid_param("combo", "as a character the sheet keeps the combo chain "
                            "(\"Combo stake\")", fr="en tant que personnage, la fiche tient "
                            "la chaîne de combos (« Mise du combo »)")


def _recovered(result: dict[str, Any]) -> int:
    return ((result.get("style") or {}).get("sp_recovered")) or 0


@hookimpl
def sidecar_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    """A decision after the dice: ``twin_reroll`` draws the double's 2 reroll faces;
    ``style_libre``/``style_extreme`` spend a style point and draw its 2 dice; ``keep``
    leaves the result. The roll is played again with every face in the documented order,
    so the result is exactly what the same faces typed up front would give; the outcome
    carries all of them (the new ones in their place)."""
    old = outcome.result
    if choice in RECOVERY_CHOICES:
        decided = recovery_decided(outcome, choice)
        close_as_character(decided, roll)
        return decided
    if choice == "keep":
        kept = Outcome(result=old, dice=outcome.dice)
        close_as_character(kept, roll)
        return kept
    p = {**roll.params, "code": old["code"]}  # the code rolled, even if the sheet changed
    if old.get("opposed"):
        p["opponent"] = old["opposed"]["code"]  # (the target's, as it was rolled)
    p["combo"] = chain_stake(roll.sheet, p)
    # A standing style order left undecided by awaited twins becomes the offered choice.
    p.pop("style_if_needed", None)
    if old.get("style") is not None:
        p["style"] = old["style"]["mode"]
    by_role: dict[str, list[int]] = {}
    for die in outcome.dice:
        by_role.setdefault(die.get("role", "normal"), []).append(die["face"])
    if choice == "twin_reroll":
        by_role["twin_reroll"] = [dice.roll(6, role="twin_reroll"),
                                  dice.roll(6, role="twin_reroll")]
    else:
        p["style"] = "libre" if choice == "style_libre" else "extreme"
        by_role["style"] = [dice.roll(6, role="style"), dice.roll(6, role="style")]
    faces = [face for role in ("normal", "twin", "twin_reroll", "style", "opponent")
             for face in by_role.get(role, [])]
    replay = ManualDice(faces)
    result = play(p, Dice(replay))
    spend: dict[str, int] = {}
    if roll.sheet is not None:
        if choice == "twin_reroll":
            # The style point was paid with the roll; only what it gives back may change
            # — as far as the sheet still holds what it gave (the dice decide this one).
            change = min(_recovered(old) - _recovered(result),
                         max(0, roll.sheet.get("points_style", 0)))
        else:
            change = 1 - _recovered(result)
        if change:
            spend["points_style"] = change
    # Every die of the roll as it now stands, in the documented order: what a later
    # decision on the same roll reads back.
    decided = Outcome(result=result, dice=replay.rolled, spend=spend)
    offer(decided, p, roll.sheet)
    hold_recovery(decided, roll.sheet)
    close_as_character(decided, roll)
    return decided


#: A style's name in a roll's text: the param's value is an identifier, not French.
STYLE_NAMES = {"libre": ("style libre", "free style"),
               "extreme": ("style extrême", "extreme style")}


def style_name(mode: str, fr: bool) -> str:
    """``style extrême`` / ``extreme style`` (an unknown mode as it is)."""
    names = STYLE_NAMES.get(mode)
    return (names[0] if fr else names[1]) if names else f"style {mode}"


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    p, r = roll.params, outcome.result
    fr = locale == "fr"
    verdict = r["label"]["fr" if fr else "en"]
    code = ((p.get("code") or r.get("code") or "?").strip().upper()
            + (f" {signed(p['modifier'])}" if p["modifier"] else ""))
    # (Without a label, the skill rolled: « Aengus — Pilotage : 3D+1 … ».)
    head = entry_heading(roll, "competences", "skill", locale)
    if r.get("automatic"):
        line = f"{head}{code} → {verdict}"
        style = r.get("style")
        if style:
            line += f", {style_name(style['mode'], fr)} {'+'.join(map(str, style['faces']))}"
            if style["mode"] == "extreme":
                line += sp_text(style, outcome, fr)
        return line + chain_text(r, fr)
    parts = [code]
    twin = r.get("twin")
    if twin:
        faces = "-".join(map(str, twin["faces"]))
        if twin.get("awaiting_reroll"):
            parts.append(f"jumeaux {faces} : relance à lancer" if fr
                         else f"twins {faces}: reroll to roll")
        elif twin["state"] == "double":
            parts.append(f"{'jumeaux' if fr else 'twins'} {faces} "
                         f"{'relancés' if fr else 'rerolled'} ({sum(twin['reroll'])})")
        elif twin["state"] == "fiasco":
            parts.append(f"jumeaux {faces} : fiasco" if fr else f"twins {faces}: fiasco")
    style = r.get("style")
    if style:
        parts.append(f"{style_name(style['mode'], fr)} {'+'.join(map(str, style['faces']))}")
    if r.get("doubled"):
        parts.append("SC ×2")
    line = f"{head}{', '.join(parts)} → {r['score']}"
    if r.get("difficulty") is not None:
        line += f" {'contre' if fr else 'vs'} {r['difficulty']}"
    opposed = r.get("opposed")
    if opposed:
        line += (f", {'adversaire' if fr else 'opponent'} {opposed['code'].strip().upper()} → "
                 f"{opposed['score']}")
    line += f" → {verdict}"
    if style and style["mode"] == "extreme":
        line += sp_text(style, outcome, fr)
    return line + chain_text(r, fr)


def chain_text(r: dict[str, Any], fr: bool) -> str:
    """The combo chain's part of the text (a roll as a character)."""
    chain = r.get("combo_chain")
    if not chain:
        return ""
    if chain["broken"]:
        return (f" — chaîne de combos rompue : −{chain['lost']} SP" if fr
                else f" — combo chain broken: −{chain['lost']} SP")
    return (f" — combo ×{chain['stake']}, {'prochaine mise' if fr else 'next stake'} "
            f"×{chain['next_stake']}")


# -- exact odds ----------------------------------------------------------------------------

def _twin_parts() -> tuple[Dist, Dist]:
    """The twin pair's total as two partial distributions out of 36 × 36 ways (pair ×
    reroll pair): without fiasco (normal pairs, doubles plus their reroll), and fiasco."""
    clean: dict[int, int] = {}
    fiasco = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                for reroll, ways in sum_of(2, 6).counts.items():
                    clean[a + b + reroll] = clean.get(a + b + reroll, 0) + ways
            elif 1 in (a, b):
                fiasco += 36
            else:
                clean[a + b] = clean.get(a + b, 0) + 36
    return Dist(clean, 1296), Dist({1: fiasco}, 1296)


TWIN_CLEAN, TWIN_FIASCO = _twin_parts()


def _margin_kind(margin: int, fiasco: bool) -> str:
    if margin < 0:
        return "botch" if fiasco else "failure"
    if margin == 0:
        return "narrow"
    return "critical" if margin >= 10 else "success"


@lru_cache(maxsize=1024)
def exact_odds(count: int, bonus: int, twin: bool, style: bool, double: bool,
               difficulty: int | None, opponent: tuple[int, int] | None,
               style_after: bool = False) -> dict[str, Any]:
    """Exact odds of a d6code roll, opposed or not. ``style_after``: a style point is
    engaged only when the roll fails or draws (the best play after the dice)."""
    check_work((count + 4) * 6 * 36 * 36 * (2 if opponent else 1))
    base = sum_of(count - 2 if twin else count, 6)
    parts = [(add(base, TWIN_CLEAN), False), (add(base, TWIN_FIASCO), True)] if twin \
        else [(base, False)]
    if style:
        parts = [(add(d, sum_of(2, 6)), f) for d, f in parts]
    parts = [(d.shift(bonus).map((lambda v: 2 * v) if double else (lambda v: v)), f)
             for d, f in parts]
    if style_after:
        return _odds_style_after(parts, double, difficulty, opponent)
    total = parts[0][0].total
    kinds: dict[str, int] = {}
    scores: dict[int, int] = {}

    def tally(kind: str, ways: int) -> None:
        if ways:
            kinds[kind] = kinds.get(kind, 0) + ways

    if opponent is None:
        assert difficulty is not None
        for dist, fiasco in parts:
            for score, ways in dist.counts.items():
                scores[score] = scores.get(score, 0) + ways
                tally(_margin_kind(score - difficulty, fiasco), ways)
        return odds_reply(kinds, total, "score", scores.items())

    opp = sum_of(opponent[0], 6).shift(opponent[1])
    low, high = min(opp.counts), max(opp.counts)
    # below[v]: ways the opponent scores < v (prefix sums over its values)
    below = [0] * (high - low + 2)
    for v in range(low, high + 1):
        below[v - low + 1] = below[v - low] + opp.counts.get(v, 0)

    def ways_under(v: int) -> int:  # opponent < v
        return below[max(0, min(v, high + 1) - low)]

    for dist, fiasco in parts:
        for score, ways in dist.counts.items():
            scores[score] = scores.get(score, 0) + ways
            if difficulty is not None and score < difficulty:
                tally("botch" if fiasco else "failure", ways * opp.total)
                continue
            missed = ways_under(difficulty) if difficulty is not None else 0
            if missed:  # the opponent missed the difficulty: judged against it
                tally(_margin_kind(score - difficulty, fiasco), ways * missed)
            floor = difficulty if difficulty is not None else low
            critical = max(0, ways_under(score - 9) - ways_under(floor))
            wins = max(0, ways_under(score) - ways_under(floor))
            draws = opp.counts.get(score, 0) if score >= floor else 0
            losses = opp.total - missed - wins - draws
            tally("critical", ways * critical)
            tally("success", ways * (wins - critical))
            tally("narrow", ways * draws)
            tally("botch" if fiasco else "failure", ways * losses)
    return odds_reply(kinds, total * opp.total, "score", [(s, w * opp.total)
                                                           for s, w in scores.items()])


def _odds_style_after(parts: list[tuple[Dist, bool]], double: bool, difficulty: int | None,
                      opponent: tuple[int, int] | None) -> dict[str, Any]:
    """Exact odds when a style point is engaged only on a failure or a draw: each score
    (and opponent's score) judged as the roll does, the failed ones again with every sum
    of the 2 style dice."""
    style = sum_of(2, 6).map((lambda v: 2 * v) if double else (lambda v: v))
    opp = sum_of(opponent[0], 6).shift(opponent[1]) if opponent else Dist({None: 1}, 1)
    check_work(sum(len(d.counts) for d, _ in parts) * len(opp.counts) * len(style.counts))
    kinds: dict[str, int] = {}
    scores: dict[int, int] = {}

    def tally(score: int, kind: str, ways: int) -> None:
        kinds[kind] = kinds.get(kind, 0) + ways
        scores[score] = scores.get(score, 0) + ways

    for dist, fiasco in parts:
        for score, ways in dist.counts.items():
            for opp_score, opp_ways in opp.counts.items():
                success, _, kind, winner = judge(score, difficulty, opp_score, fiasco)
                if success and winner != "draw":
                    tally(score, kind, ways * opp_ways * style.total)
                    continue
                for extra, extra_ways in style.counts.items():
                    tally(score + extra, judge(score + extra, difficulty, opp_score,
                                               fiasco)[2], ways * opp_ways * extra_ways)
    total = parts[0][0].total * opp.total * style.total
    return odds_reply(kinds, total, "score", scores.items())


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = with_code(roll)
    count, bonus = _check(p)
    _check_combo(roll)
    if p.get("surcompetence") == "auto":
        return odds_reply({"success": 1}, 1, "score", [])
    opponent = None
    if p.get("opponent") is not None:
        opp_count, opp_bonus = parse_code(p["opponent"], "opponent")
        opponent = (opp_count, opp_bonus + p["opponent_modifier"])
    return exact_odds(count, bonus + p["modifier"], p["twin"], p.get("style") is not None,
                      p.get("surcompetence") in DOUBLING, p.get("difficulty"), opponent,
                      p.get("style_if_needed") is not None)
