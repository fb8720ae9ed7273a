"""O'Ween's : réussites sur d6 contre une difficulté / d6 successes against a difficulty.

Dice order: the action's d6, in order (one more d6 with a relevant bagage, at the end).

Character sheet (:data:`SHEET`): the four characteristics, a reserve per characteristic
(kept as its gap to the characteristic: 0 is a full reserve, so a rest refills it), the
bonbonus wallet, bagages, wounds, and the binge's glasses and manifested effect. Rolled
as a character, a roll takes its dice from the chosen characteristic's reserve and spends
what the rules spend (:func:`spends`).

Decisions after the dice (open rolls, :func:`sidecar_react`): augmentations bought once
the dice are seen (:func:`purchase_offers`), reserve points kept after a lost contest
(:func:`reserve_offers`), the characteristic an alcoholic coma takes, and the rerolls of a
darts volley (the seed's draft, :func:`_volley`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache, lru_cache
from math import comb
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import check_work, odds_reply
from sidecar.protocol.errors import invalid_param
from sidecar.rules import common, heading, name_params, plural
from sidecar.rulesets.sheets import add_spend, counter, field, required_without_sheet

__version__ = "1.0"

NAME = "oweens"
MAX_DICE = 30
#: Named attacked reserves a table keeps (the least recently rolled against are dropped).
MAX_ADVERSITIES = 50
#: Surprendre's locks a table keeps (one per opponent; the oldest go first).
MAX_SURPRISES = 50
#: Turns a surprise holds: the turn of the roll and the next one.
SURPRISE_TURNS = 2
#: Purchases offered after the dice: at most this many (one per success a purchase adds).
MAX_PURCHASES = 11

PARAMS: dict[str, dict[str, Any]] = {
    "dice": {
        "type": "int", "min": 0, "max": MAX_DICE,
        "description": label("Dés : la caractéristique (PEP, ECL, ENC, FLA) ou la valeur "
                             "actuelle de la réserve (obligatoire sans personnage ; sinon "
                             "la réserve de la caractéristique choisie)", "Dice: the "
                             "characteristic (PEP, ECL, ENC, FLA) or the reserve's current "
                             "value (required without a character; else the chosen "
                             "characteristic's reserve)"),
    },
    "characteristic": {
        "type": "string", "choices": ["PEP", "ECL", "ENC", "FLA"],
        "description": label("Caractéristique utilisée : en tant que personnage, les dés "
                             "sont sa réserve actuelle, et c'est cette réserve qui se vide",
                             "Characteristic used: as a character, the dice are its current "
                             "reserve, and that reserve is the one drained"),
    },
    "difficulty": {
        "type": "int", "min": 0, "max": 20, "default": 0,
        "description": label("Difficulté (0 à 20 ; en opposition, la caractéristique de "
                             "l'adversaire)", "Difficulty (0 to 20; opposed: the opponent's "
                             "characteristic)"),
    },
    "augmentations": {
        "type": "int", "min": 0, "max": MAX_DICE * 5, "default": 0,
        "description": label("Augmentations gratuites (MJ, coopération, situation "
                             "avantageuse, alliés)", "Free augmentations (GM, cooperation, "
                             "advantageous situation, allies)"),
    },
    "buy_augmentations": {
        "type": "int", "min": 0, "max": MAX_DICE * 5, "default": 0,
        "description": label("Augmentations achetées (2 BB+ chacune, 1 avec un bagage)",
                             "Bought augmentations (2 BB+ each, 1 with a bagage)"),
    },
    "buy_after": {
        "type": "bool", "default": False,
        "description": label("Sans personnage : proposer d'acheter des augmentations après "
                             "les dés (un personnage le propose toujours, selon sa bourse)",
                             "Without a character: offer to buy augmentations after the "
                             "dice (a character always offers it, as its wallet allows)"),
    },
    "budget": {
        "type": "int", "min": 0, "max": 99,
        "description": label("Chances avec « buy_after » : les BB+ que le joueur pourra "
                             "dépenser après les dés (par défaut la bourse du personnage, "
                             "sans limite sans personnage)", "Odds with \"buy_after\": the "
                             "BB+ the player may spend after the dice (by default the "
                             "character's wallet, no limit without a character)"),
    },
    "bagage": {
        "type": "bool", "default": False,
        "description": label("Bagage adéquat : +1 dé, augmentations à 1 BB+",
                             "Relevant bagage: +1 die, augmentations cost 1 BB+"),
    },
    "npc_bagage": {
        "type": "bool", "default": False,
        "description": label("Le PNJ opposé a un bagage adéquat : difficulté +1",
                             "The opposing NPC has a relevant bagage: difficulty +1"),
    },
    "equipment": {
        "type": "int", "min": 0, "max": 10, "default": 0,
        "description": label("Bonus d'équipement adéquat, ajouté à la MR (S > D)",
                             "Adequate equipment bonus, added to the MR (S > D)"),
    },
    "reserve": {
        "type": "int", "min": 0, "max": 100,
        "description": label("Réserve attaquée (action complexe), facultatif",
                             "Attacked reserve (complex action), optional"),
    },
    "adversity": {
        "type": "string", "max_length": 64,
        "description": label("Nom de la réserve attaquée, gardée par la table : avec "
                             "« reserve », elle (re)commence à cette valeur ; sans, le jet "
                             "reprend où le précédent l'a laissée (réserve commune aux "
                             "participants)", "Name of the attacked reserve, kept by the "
                             "table: with \"reserve\" it (re)starts at that value; without, "
                             "the roll goes on from where the last one left it (one reserve "
                             "shared by the participants)"),
    },
    "contest": {
        "type": "bool", "default": False,
        "description": label("Action complexe en opposition : sur un échec, la ME (la marge "
                             "de l'adversaire) vide d'autant la réserve de la caractéristique "
                             "utilisée (en tant que personnage)", "Opposed complex action: "
                             "on a failure, the ME (the opponent's margin) drains the reserve "
                             "of the characteristic used (as a character)"),
    },
    "keep_reserve": {
        "type": "int", "min": 0, "max": MAX_DICE, "default": 0,
        "description": label("Bonbonus dépensés pour éviter la perte de points de réserve "
                             "(1 BB+ par point, facturés seulement pour les points perdus)",
                             "Bonbonus spent to prevent the loss of reserve points (1 BB+ a "
                             "point, charged only for points that would be lost)"),
    },
    "drinking": {
        "type": "bool", "default": False,
        "description": label("Se pinter (jet d'Encaisse) : un échec fait perdre 1 bonbonus, "
                             "une Bourde manifeste la Honte, une Bourde avec un effet "
                             "manifesté est le coma éthylique", "Drinking (Encaisse roll): a "
                             "failure loses 1 bonbonus, a Bourde manifests Shame, a Bourde "
                             "while an effect is manifested is an alcoholic coma"),
    },
    "drinks": {
        "type": "int", "min": 0, "max": 30, "default": 0,
        "description": label("Se pinter : numéro du verre (difficulté 1 au premier, +1 à "
                             "chaque nouveau) ; 0 : compté par la fiche (personnage), sinon "
                             "la difficulté donnée", "Drinking: the glass's number (difficulty "
                             "1 for the first, +1 for each new one); 0: counted by the sheet "
                             "(character), else the difficulty given"),
    },
    "hours_dry": {
        "type": "int", "min": 0, "max": 48, "default": 0,
        "description": label("Se pinter : heures passées sans boire avant ce verre (−1 à la "
                             "difficulté chacune, et les effets de l'alcool cessent)",
                             "Drinking: hours without a drink before this glass (−1 "
                             "difficulty each, and the alcohol's effects end)"),
    },
    "manifested": {
        "type": "bool", "default": False,
        "description": label("Se pinter : un effet (Honte, Fierté) est déjà manifesté (la "
                             "fiche le garde, en tant que personnage)", "Drinking: an effect "
                             "(Shame, Pride) is already manifested (the sheet keeps it, as a "
                             "character)"),
    },
    "emotion_bonbonus": {
        "type": "string", "choices": ["honte", "fierte"],
        "description": label("Se pinter : un bonbonus de Honte ou de Fierté claqué pour le "
                             "jet (1 BB+) : l'effet associé se manifeste", "Drinking: a "
                             "bonbonus of Shame or Pride spent on the roll (1 BB+): its "
                             "effect manifests"),
    },
    "volley": {
        "type": "bool", "default": False,
        "description": label("Fléchettes (brouillon du jeu) : une volée, 3D6 en 3 lancers pour "
                             "faire un triple ; les autres paramètres sont ignorés",
                             "Darts (the game's draft): one volley, 3D6 in 3 throws to make a "
                             "triple; the other params are ignored"),
    },
    "volleys": {
        "type": "int", "min": 1, "max": 6, "default": 1,
        "description": label("Fléchettes : volées jouées à la suite dans ce jet (6 : une "
                             "partie) ; leurs points s'additionnent, le moins de points "
                             "gagne", "Darts: volleys played one after the other in this "
                             "roll (6: a game); their points add up, fewest points wins"),
    },
    "darts_bonus": {
        "type": "int", "min": 0, "max": 60, "default": 0,
        "description": label("Fléchettes : réussites du jet de FLA préalable, +1 à un dé "
                             "chacune à chaque volée", "Darts: successes of the FLA roll made "
                             "first, +1 to a die each per volley"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    "dice": ("Dés", "Dice"),
    "difficulty": ("Difficulté", "Difficulty"),
    "augmentations": ("Augmentations gratuites", "Free augmentations"),
    "buy_augmentations": ("Augmentations achetées", "Bought augmentations"),
    "buy_after": ("Acheter après les dés", "Buy after the dice"),
    "budget": ("BB+ pour acheter après les dés", "BB+ to buy after the dice"),
    "bagage": ("Bagage adéquat", "Relevant bagage"),
    "npc_bagage": ("Bagage du PNJ", "NPC's bagage"),
    "equipment": ("Équipement", "Equipment"),
    "reserve": ("Réserve attaquée", "Reserve attacked"),
    "characteristic": ("Caractéristique", "Characteristic"),
    "adversity": ("Adversité", "Adversity"),
    "contest": ("En opposition", "Opposed"),
    "keep_reserve": ("BB+ pour garder la réserve", "BB+ to keep the reserve"),
    "drinking": ("Se pinter", "Drinking"),
    "drinks": ("Numéro du verre", "Glass number"),
    "hours_dry": ("Heures sans boire", "Hours without a drink"),
    "manifested": ("Effet manifesté", "Effect manifested"),
    "emotion_bonbonus": ("Bonbonus d'émotion", "Emotion bonbonus"),
    "volley": ("Volée de fléchettes", "Darts volley"),
    "volleys": ("Volées", "Volleys"),
    "darts_bonus": ("Bonus aux fléchettes", "Darts bonus"),
})

#: Characteristic → (sheet field, French name, English name).
CHARACTERISTICS = {"PEP": ("pep", "Peps", "Peps"), "ECL": ("ecl", "Éclate", "Burst"),
                   "ENC": ("enc", "Encaisse", "Endurance"), "FLA": ("fla", "Flair", "Flair")}
MAX_SCORE = 10


def _sheet() -> dict[str, dict[str, Any]]:
    sheet: dict[str, dict[str, Any]] = {}
    for short, (name, fr, en) in CHARACTERISTICS.items():
        sheet[name] = counter(f"{fr} ({short})", f"{en} ({short})",
                              f"Score de {fr} : les dés d'une action", f"{en} score: an "
                              "action's dice", default=2, high=MAX_SCORE, resource=False)
    for short, (name, fr, en) in CHARACTERISTICS.items():
        sheet[f"reserve_{name}"] = counter(
            f"Réserve {short} (0 = pleine)", f"{short} reserve (0 = full)",
            f"Réserve de {fr}, comptée depuis le score : 0 = pleine, −2 = deux points "
            "perdus ; les dés d'une action sont le score plus cette valeur ; un repos la "
            "remet à 0", f"{en} reserve, counted from the score: 0 = full, −2 = two points "
            "lost; an action's dice are the score plus this value; a rest sets it back to 0",
            default=0, low=-MAX_SCORE, high=0, refill="rest")
    sheet["bonbonus"] = counter(
        "Bonbonus (BB+)", "Bonbonus (BB+)", "Portefeuille de bonbonus : augmentations "
        "achetées, réserve préservée, options de combat, initiative",
        "Bonbonus wallet: bought augmentations, reserve kept, combat options, initiative",
        default=0, high=99)
    sheet["bagages"] = field("list", "Bagages", "Bagages", "Bagages du personnage (un "
                             "bagage adéquat : +1 dé, augmentations à 1 BB+)", "The "
                             "character's bagages (a relevant one: +1 die, augmentations "
                             "at 1 BB+)", default=[], max_items=20)
    sheet["verres"] = counter(
        "Verres", "Glasses", "Se pinter : verres de la beuverie en cours (la difficulté du "
        "prochain est ce nombre + 1 ; chaque heure sans boire en retire un)", "Drinking: "
        "glasses of the current binge (the next one's difficulty is this + 1; each hour "
        "without a drink takes one off)", default=0, high=30, refill="rest")
    sheet["effet_manifeste"] = counter(
        "Effet manifesté", "Effect manifested", "Se pinter : 1 quand un effet (Honte, "
        "Fierté) est manifesté ; une Bourde alors est le coma éthylique", "Drinking: 1 while "
        "an effect (Shame, Pride) is manifested; a Bourde then is an alcoholic coma",
        default=0, high=1, refill="rest")
    sheet["blessures"] = counter("Blessures", "Wounds", "Blessures reçues",
                                 "Wounds taken", default=0, high=99, resource=False)
    return sheet


#: The character sheet of O'Ween's (RULES.md §1; seed 000).
SHEET = _sheet()


def die_successes(face: int) -> int:
    """Successes of one d6: 1–3 → 0, 4–5 → 1, 6 → 2."""
    return 0 if face <= 3 else (1 if face <= 5 else 2)


#: :func:`die_successes` of each face 0…6, as a table (a roll counts faces by the dozen).
_SUCCESSES = tuple(die_successes(face) for face in range(7))
_count = _SUCCESSES.__getitem__


def place_augmentations(faces: list[int], budget: int) -> tuple[list[int], int]:
    """Raise faces with up to ``budget`` +1 steps to maximise successes.

    Returns the raised faces and the number of steps used: the fewest that reach the
    maximum. Every useful run of steps gains one success, so cheapest first is optimal
    (the same optimum as :func:`best_gain`, checked by the tests against an exhaustive
    search): 3→4 and 5→6 cost 1, then 2→4 and 4→6 cost 2, then 1→6 costs 5 for two or 1→4
    3 for one. Among equal choices the lowest dice are raised, then the earlier ones (the
    seed raises the 3 of [5, 5, 3, 6], not a 5).
    """
    final = list(faces)
    if budget <= 0:
        return final, 0
    used = 0
    for face in (3, 5):
        for index, value in enumerate(final):
            if value == face:
                final[index] += 1
                used += 1
                if used == budget:  # (nothing below could place another step)
                    return final, used
    while budget - used >= 2:
        candidates = [(value, index) for index, value in enumerate(final) if value in (2, 4)]
        if not candidates:
            break
        _, index = min(candidates)
        final[index] += 2
        used += 2
    else:
        return final, used  # medium steps left over: the 1s are not worth raising yet
    for index, value in enumerate(final):
        left = budget - used
        if value != 1:
            continue
        if left >= 5:
            final[index], used = 6, used + 5
        elif left >= 3:
            final[index], used = 4, used + 3
        else:
            break
    return final, used


def judge(faces: list[int], *, difficulty: int, augmentations: int = 0,
          buy_augmentations: int = 0, bagage: bool = False, npc_bagage: bool = False,
          equipment: int = 0, reserve: int | None = None) -> dict[str, Any]:
    """The whole O'Ween's logic for rolled ``faces`` (bagage die included)."""
    target = difficulty + (1 if npc_bagage else 0)
    ones = faces.count(1)
    natural = sum(map(_count, faces))
    bourde = ones > natural  # Ruling: natural faces, before any augmentation
    free_faces, free_used = place_augmentations(faces, augmentations)
    free_successes = sum(map(_count, free_faces))
    coup = free_successes >= 2 * target and free_successes > target and not bourde
    final_faces, bought, refused = free_faces, 0, False
    if buy_augmentations:
        if bourde or coup:
            refused = True
        else:
            # Free and bought augmentations are placed together on the natural faces (a
            # free +1 that is useless alone may complete a bought one); only the steps
            # beyond the free ones are bought.
            joint_faces, joint_used = place_augmentations(
                faces, augmentations + buy_augmentations)
            bought = max(0, joint_used - augmentations)
            if bought:
                final_faces, free_used = joint_faces, joint_used - bought
    successes = sum(map(_count, final_faces))
    augmented = [{"die": index, "from": natural_face, "to": final_face}
                 for index, (natural_face, final_face)
                 in enumerate(zip(faces, final_faces, strict=True))
                 if final_face != natural_face]
    price = 1 if bagage else 2
    fields: dict[str, Any] = {
        "successes": successes, "ones": ones, "bourde": bourde, "coup_d_eclat": coup,
        "augmented": augmented, "bonbonus_spent": bought * price,
        "difficulty": target, "dice_count": len(faces),
        "augmentations_used": free_used, "augmentations_bought": bought,
        "purchase_refused": refused,
    }
    if bourde:
        result = common(False, successes - target, "botch", "Bourde", "Blunder (Bourde)",
                        **fields)
    elif successes > target:
        margin = successes - target + equipment
        if coup:
            result = common(True, margin, "critical", "Coup d'éclat", "Coup d'éclat (critical)",
                            **fields)
        else:
            result = common(True, margin, "success", "Réussite", "Success", **fields)
    elif successes == target:
        result = common(True, 0, "narrow", "Réussite de justesse", "Narrow success", **fields)
    else:
        result = common(False, successes - target, "failure", "Échec", "Failure", **fields)
    if reserve is not None:
        result["reserve_after"] = max(0, reserve - result["margin"]) if result["success"] \
            else reserve
    return result


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("O'Ween's — réussites sur d6", "O'Ween's — d6 successes"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("les d6 de l'action, dans l'ordre (le dé du bagage en dernier)",
                            "the action's d6, in order (the bagage die last)"),
    }]


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


def reserve_now(sheet: dict[str, Any], characteristic: str) -> int:
    """The current value of a characteristic's reserve on a sheet (never below 0)."""
    name = CHARACTERISTICS[characteristic][0]
    return max(0, sheet.get(name, 0) + sheet.get(f"reserve_{name}", 0))


def base_dice(params: dict[str, Any], sheet: dict[str, Any] | None) -> int:
    """The roll's dice before the bagage die: the request's ``dice``, else the chosen
    characteristic's current reserve on the character's sheet."""
    if params.get("dice") is not None:
        return params["dice"]
    if sheet is not None and params.get("characteristic"):
        return reserve_now(sheet, params["characteristic"])
    if sheet is not None:
        raise invalid_param("characteristic", "choose the characteristic to roll (PEP, ECL, "
                            "ENC, FLA), or give dice", fr="choisissez la caractéristique à "
                            "lancer (PEP, ECL, ENC, FLA), ou indiquez les dés")
    raise required_without_sheet("dice")


def dice_count(params: dict[str, Any], sheet: dict[str, Any] | None = None,
               paid: int = 0) -> int:
    """How many d6 the roll uses, refusing a characteristic at 0. ``paid``: dice combat
    options already took from ``dice`` (a characteristic they leave at 0 still throws
    its bagage's die)."""
    dice = base_dice(params, sheet)
    if dice + paid == 0:
        raise invalid_param("dice", "a characteristic or reserve at 0 can no longer be used",
                            fr="une caractéristique ou réserve à 0 ne peut plus être utilisée")
    return dice + (1 if params["bagage"] else 0)


def spends(params: dict[str, Any], result: dict[str, Any], sheet: dict[str, Any],
           spent_already: int = 0, decided: bool = False) -> dict[str, int]:
    """What a roll made as a character takes from its sheet (and notes it in ``result``).

    - the bought augmentations' bonbonus (what the player chose: never reduced; their
      most is declared before the dice, :func:`sidecar_max_spend`, so a wallet too
      small is the server's ``insufficient`` before any die);
    - in an opposed complex action (``contest``), a failure's ME — the opponent's margin
      — from the reserve of the characteristic used, never below 0 (a reserve stops at
      0), less the points the player keeps at 1 BB+ each (``keep_reserve``, charged only
      for points that would really be lost, and only as many as the wallet pays: what
      the dice decide never makes a roll ``insufficient``, or it could be rolled again);
    - drinking (``drinking``): a failure loses 1 bonbonus, if the wallet has one left.

    - drinking: the glasses counted (``verres`` becomes this glass's difficulty), the
      effect manifested (``effet_manifeste``), the bonbonus of Honte or Fierté claimed.

    ``spent_already``: bonbonus the same outcome spends elsewhere (combat options), which
    the wallet no longer holds for what the dice take. ``decided``: a decision after the
    dice, whose roll already paid what was chosen before them.
    """
    spend: dict[str, int] = {}
    add_spend(spend, "bonbonus", result["bonbonus_spent"])
    drinking = result.get("drinking")
    if drinking:
        if params.get("emotion_bonbonus") and not decided:
            add_spend(spend, "bonbonus", 1)  # (chosen before the dice: never reduced)
        add_spend(spend, "verres", sheet.get("verres", 0) - drinking["glass"])
        add_spend(spend, "effet_manifeste",
                  sheet.get("effet_manifeste", 0) - (1 if drinking["manifested_after"] else 0))
    characteristic = params.get("characteristic")
    if params["contest"] and not result["success"] and characteristic:
        name = CHARACTERISTICS[characteristic][0]
        have = reserve_now(sheet, characteristic)
        lost = min(-result["margin"], have)
        # What the dice decide is never refused as insufficient (a refused roll could be
        # rolled again until the dice spare the sheet): keep only what the wallet pays.
        wallet = sheet.get("bonbonus", 0) - spend.get("bonbonus", 0) - spent_already
        kept = max(0, min(params["keep_reserve"], lost, wallet))
        add_spend(spend, f"reserve_{name}", lost - kept)
        add_spend(spend, "bonbonus", kept)
        result["reserve_drained"] = {"characteristic": characteristic, "before": have,
                                     "lost": lost - kept, "kept": kept,
                                     "after": have - lost + kept}
    if params["drinking"] and not result["success"]:
        left = sheet.get("bonbonus", 0) - spend.get("bonbonus", 0) - spent_already
        lost = 1 if left >= 1 else 0
        add_spend(spend, "bonbonus", lost)
        result["drinking_bonbonus_lost"] = lost
    return spend


@hookimpl
def sidecar_max_spend(roll: Roll, choice: str | None) -> dict[str, int] | None:
    """The most a roll as a character could spend, declared before its dice (the host
    refuses it then when the wallet lacks it): every augmentation bought before the dice
    at its price — counted even though the dice may leave some unused, or refuse the
    purchase on a Bourde (else the dice alone would decide the refusal, and the player
    could roll until they spared the wallet) — and the emotion bonbonus of a glass; a
    decision, what it buys. What the dice drain (a reserve, a glass's bonbonus) is taken
    as far as the sheet holds (:func:`spends`). Combat options paid in bonbonus are
    declared by their extension."""
    p = roll.params
    price = 1 if p["bagage"] else 2
    if p["volley"]:
        return None  # (darts spend nothing)
    if choice is None:
        bonbonus = p["buy_augmentations"] * price
        if p["drinking"] and p.get("emotion_bonbonus"):
            bonbonus += 1
        return {"bonbonus": bonbonus} if bonbonus else None
    if choice.startswith("buy_") and choice[4:].isdigit():
        return {"bonbonus": int(choice[4:]) * price}
    if choice.startswith("save_") and choice[5:].isdigit():
        return {"bonbonus": int(choice[5:])}
    if choice.startswith("lose_") and choice[5:] in CHARACTERISTICS:
        return {CHARACTERISTICS[choice[5:]][0]: 1}
    return None


def drinking_difficulty(params: dict[str, Any], sheet: dict[str, Any] | None) -> int:
    """The difficulty of a glass (« difficulté 1. La difficulté augmente de 1 à chaque
    nouveau verre »; « Chaque heure passée sans boire réduit la difficulté … de 1 »): the
    glass's number — ``drinks``, else a ``difficulty`` given, else the sheet's ``verres``
    + 1, else 1 — less ``hours_dry``, never below 1."""
    glass = params["drinks"] or params["difficulty"] or (
        sheet.get("verres", 0) + 1 if sheet is not None else 1)
    return max(1, glass - params["hours_dry"])


def drinking_state(params: dict[str, Any], sheet: dict[str, Any] | None,
                   result: dict[str, Any]) -> dict[str, Any]:
    """What a glass did: ``manifested`` (an effect was, during the roll: the sheet's or the
    request's, ended by any hour without a drink, or the emotion bonbonus just spent),
    ``honte`` (a Bourde manifests Shame), ``coma`` (a Bourde while an effect is
    manifested), ``manifested_after``."""
    before = bool(params["manifested"] or (sheet or {}).get("effet_manifeste"))
    if params["hours_dry"]:
        before = False  # « A partir du moment où la difficulté baisse, les effets … cessent »
    manifested = before or bool(params.get("emotion_bonbonus"))
    coma = result["bourde"] and manifested
    honte = result["bourde"] and not manifested
    return {"glass": params["difficulty"], "hours_dry": params["hours_dry"],
            "manifested": manifested, "honte": honte, "coma": coma,
            "emotion": params.get("emotion_bonbonus"),
            "manifested_after": manifested or honte}


def attacked_reserve(params: dict[str, Any], state: dict[str, Any]) -> int | None:
    """The attacked reserve of the roll: ``reserve`` when given, else the table's current
    value of the named ``adversity`` (what the last roll against it left)."""
    if params.get("reserve") is not None or not params.get("adversity"):
        return params.get("reserve")
    reserves = state.get("adversities") or {}
    if params["adversity"] not in reserves:
        raise invalid_param("adversity", f"no reserve named '{params['adversity'][:40]}' at "
                            "this table yet: give its starting reserve",
                            fr=f"aucune réserve nommée « {params['adversity'][:40]} » à cette "
                               "table : indiquez sa réserve de départ")
    return reserves[params["adversity"]]


def _combat_settings(roll: Roll) -> dict[str, Any] | None:
    """The roll's combat options (the built-in extension ``combat``), or None."""
    if "combat" not in roll.options:
        return None
    from sidecar.rulesets.oweens_combat import read_settings  # (it imports this module)
    return read_settings(roll)


def paid_dice(roll: Roll) -> int:
    """Dice the roll's combat options took from its characteristic."""
    if "combat" not in roll.options:
        return 0
    from sidecar.rulesets.oweens_combat import paid_dice as paid
    return paid(roll)


def _counted_wounds(settings: dict[str, Any], result: dict[str, Any]) -> int:
    from sidecar.rulesets.oweens_combat import counted_wounds
    return counted_wounds(settings, result)["counted"]


def _verdict(result: dict[str, Any], fr: bool) -> str:
    """"5 réussites, MR 1" — what a choice would make of the roll, for its label."""
    count = (plural(result["successes"], "réussite") if fr
             else plural(result["successes"], "success", "successes"))
    if result["kind"] == "narrow":
        return f"{count}, {'de justesse' if fr else 'narrowly'}"
    if result["success"]:
        return f"{count}, MR {result['margin']}"
    return f"{count}, ME {-result['margin']}"


def purchase_offers(faces: list[int], params: dict[str, Any], result: dict[str, Any],
                    wallet: int | None) -> list[dict[str, Any]]:
    """The augmentations the player may still buy after seeing ``faces``: one choice per
    success a purchase can add (the fewest augmentations reaching it), as far as the
    rules allow (neither Bourde nor Coup d'éclat) and ``wallet`` pays (None: no limit),
    at most 11, then ``keep``. Empty when no purchase can change the roll."""
    if result["bourde"] or result["coup_d_eclat"]:
        return []
    price = 1 if params["bagage"] else 2
    offers: list[dict[str, Any]] = []
    free = params["augmentations"]
    # Successes for a budget, in constant time (best_gain: the placement's closed form).
    natural = sum(map(_count, faces))
    cheap = sum(1 for face in faces if face in (3, 5))
    medium = sum({2: 2, 3: 1, 4: 1}.get(face, 0) for face in faces)
    ones = faces.count(1)
    target = result["difficulty"]
    best = result["successes"]
    for steps in range(1, 5 * len(faces) + 1):
        if best >= 2 * len(faces) or len(offers) == MAX_PURCHASES:
            break
        if wallet is not None and steps * price > wallet:
            break
        successes = natural + best_gain(cheap, medium, ones, free + steps)[0]
        if successes <= best:
            continue
        best = successes
        # What judge() would say (neither Bourde nor Coup d'éclat: those buy nothing).
        over = successes - target
        bought = {"successes": successes, "success": over >= 0,
                  "kind": "narrow" if over == 0 else ("success" if over > 0 else "failure"),
                  "margin": over + params["equipment"] if over > 0 else over}
        cost = steps * price
        offers.append({"name": f"buy_{steps}", "dice": 0, "label": label(
            f"Acheter {steps}A ({cost} BB+) : {_verdict(bought, True)}",
            f"Buy {steps}A ({cost} BB+): {_verdict(bought, False)}")})
    if offers:
        offers.append({"name": "keep", "dice": 0, "label": label(
            f"Garder ({_verdict(result, True)}, 0 BB+)",
            f"Keep ({_verdict(result, False)}, 0 BB+)")})
    return offers


def reserve_offers(result: dict[str, Any], wallet: int) -> list[dict[str, Any]]:
    """After a lost ``contest`` drained the reserve: keep 1…n of the points lost at 1 BB+
    each, as far as ``wallet`` pays (at most 11), then ``none`` (the default)."""
    drained = result.get("reserve_drained")
    if not drained or drained["lost"] <= 0 or wallet <= 0:
        return []
    short = drained["characteristic"]
    offers = [{"name": f"save_{n}", "dice": 0, "label": label(
        f"Garder {n} point(s) de réserve {short} ({n} BB+)",
        f"Keep {n} {short} reserve point(s) ({n} BB+)")}
        for n in range(1, min(drained["lost"], wallet, 11) + 1)]
    offers.append({"name": "none", "dice": 0, "label": label(
        f"Perdre les {drained['lost']} point(s) de réserve {short}",
        f"Lose the {drained['lost']} {short} reserve point(s)")})
    return offers


def active_surprises(state: dict[str, Any], turn: int) -> dict[str, dict[str, Any]]:
    """Surprendre's locks still holding at ``turn``: opponent → ``{by, over, turn}``."""
    return {over: lock for over, lock in (state.get("surprises") or {}).items()
            if turn - lock["turn"] < SURPRISE_TURNS}


def _surprise(roll: Roll, combat: dict[str, Any], result: dict[str, Any],
              notes: list[str]) -> None:
    """Surprendre (« … qui vous permet de prendre l'initiative sur votre adversaire.
    Celui-ci ne pourra pas la reprendre durant ce tour et le suivant »): a hit (the
    options' effects need one) rolled as a character with its
    ``opponent`` named locks the initiative for the surpriser over the opponent, kept in
    the table state with the roll (``surprises``), for this turn and the next."""
    if "surprendre" not in combat["options"] or not result["success"]:
        return
    if roll.character is None or not combat.get("opponent"):
        notes.append("Surprendre : sans personnage et adversaire nommés (options.combat."
                     "opponent), le verrou d'initiative n'est pas suivi. / Surprendre: "
                     "without a character and a named opponent, the initiative lock is "
                     "not tracked.")
        return
    over = combat["opponent"]
    lock = {"by": roll.character, "over": over, "turn": roll.turn}
    surprises = active_surprises(roll.state, roll.turn)  # (expired locks dropped)
    surprises.pop(over, None)
    surprises[over] = lock  # (re-inserted last: the oldest go first)
    while len(surprises) > MAX_SURPRISES:
        del surprises[next(iter(surprises))]
    roll.state["surprises"] = surprises
    result["surprise"] = {**lock, "until_turn": roll.turn + SURPRISE_TURNS - 1}
    notes.append(f"Surprise : {roll.character} a l'initiative sur {over}, qui ne peut la "
                 f"reprendre ni ce tour ({roll.turn}) ni le suivant. / Surprise: "
                 f"{roll.character} holds the initiative over {over}, who cannot retake it "
                 f"this turn ({roll.turn}) or the next.")


def _settle(roll: Roll, faces: list[int], rolled: list[dict[str, Any]],
            reserve: int | None, *, bought: int, decided: bool,
            adversity_was: int | None = None) -> Outcome:
    """The outcome of ``faces``: the roll itself (``decided`` False), or the purchase
    after the dice decided (``bought`` augmentations, ``decided`` True)."""
    p = roll.params
    result = judge(faces, difficulty=p["difficulty"], augmentations=p["augmentations"],
                   buy_augmentations=bought, bagage=p["bagage"],
                   npc_bagage=p["npc_bagage"], equipment=p["equipment"], reserve=reserve)
    combat = _combat_settings(roll)
    if combat is not None and reserve is not None and result["success"]:
        # The attacked reserve loses the wounds counted, as the options count them.
        result["reserve_after"] = max(0, reserve - _counted_wounds(combat, result))
    if reserve is not None:
        result["reserve_before"] = reserve
    if p.get("adversity"):
        result["adversity"] = p["adversity"]
        reserves = dict(roll.state.get("adversities") or {})
        now = reserves.pop(p["adversity"], None)
        if adversity_was is not None and now is not None:
            # A decision after the dice moves the shared reserve by what it changed (other
            # rolls may have moved it meanwhile).
            value = max(0, now - (adversity_was - result["reserve_after"]))
        else:
            value = result["reserve_after"]
        reserves[p["adversity"]] = value  # (re-inserted last: the oldest go first)
        while len(reserves) > MAX_ADVERSITIES:
            del reserves[next(iter(reserves))]
        roll.state["adversities"] = reserves
    for die in rolled:
        die.pop("raised_to", None)
        die["successes"] = _SUCCESSES[die["face"]]
    for change in result["augmented"]:
        die = rolled[change["die"]]
        die["raised_to"] = change["to"]
        die["successes"] = _SUCCESSES[change["to"]]
    notes = []
    if result["purchase_refused"]:
        notes.append("Achat d'augmentations refusé sur une Bourde ou un Coup d'éclat : aucun "
                     "bonbonus dépensé. / Buying augmentations is refused on a Bourde or a "
                     "Coup d'éclat: no bonbonus spent.")
    elif bought > result["augmentations_bought"]:
        unused = bought - result["augmentations_bought"]
        notes.append(f"{unused} augmentation(s) achetée(s) sans effet, non facturée(s). / "
                     f"{unused} bought augmentation(s) had no effect and were not charged.")
    if decided:
        result["decided"] = True
        result["bought_after_dice"] = result["augmentations_bought"]
        if bought:
            notes.append(f"{bought}A achetée(s) après les dés pour "
                         f"{result['bonbonus_spent']} BB+. / {bought}A bought after the "
                         f"dice for {result['bonbonus_spent']} BB+.")
    if combat is not None:
        _surprise(roll, combat, result, notes)
    if p.get("characteristic"):
        result["characteristic"] = p["characteristic"]
    if p["drinking"]:
        state = result["drinking"] = drinking_state(p, roll.sheet, result)
        if state["coma"]:
            notes.append("Coma éthylique : hospitalisé, −1 définitif à une caractéristique au "
                         "choix du joueur. / Alcoholic coma: hospitalised, −1 for good to a "
                         "characteristic of the player's choice.")
        elif state["honte"]:
            notes.append("Bourde : la Honte du personnage se manifeste. / Bourde: the "
                         "character's Shame manifests.")
    outcome = Outcome(result=result, dice=rolled, notes=notes)
    # Opened when the wallet is known (a character) or asked for: a roll without a
    # character, nobody's BB+ tracked, does not wait for a decision nobody asked for.
    if not decided and not p["buy_augmentations"] and (roll.sheet is not None
                                                        or p["buy_after"]):
        spent = 0
        if roll.sheet is not None and combat is not None and combat["pay"] == "bonbonus":
            spent = combat["cost"]  # (the extension charges it once this returns)
        wallet = None if roll.sheet is None else roll.sheet.get("bonbonus", 0) - spent
        offers = purchase_offers(faces, p, result, wallet)
        if p["drinking"] and p.get("emotion_bonbonus") and roll.sheet is not None and offers:
            offers = purchase_offers(faces, p, result, wallet - 1)
        if offers:
            # Decide after the dice (the seed's towing: « Il pioche donc 2 BB+ pour gagner
            # une augmentation »): what the dice go on to cost is taken with the decision.
            outcome.choices, outcome.default = offers, "keep"
            if p["drinking"] and p.get("emotion_bonbonus") and roll.sheet is not None:
                outcome.spend = {"bonbonus": 1}  # (chosen before the dice: paid with them)
            return outcome
    if roll.sheet is not None:
        outcome.spend = spends(p, result, roll.sheet, spent_already=0 if decided else (
            combat["cost"] if combat is not None and combat["pay"] == "bonbonus" else 0),
            decided=decided)
        if result.get("drinking", {}).get("coma"):
            # Which characteristic loses its point is the player's choice: asked now, no
            # default (left undecided, the GM adjusts the sheet).
            outcome.choices = [{"name": f"lose_{short}", "dice": 0, "label": label(
                f"−1 définitif en {fr} ({short})", f"−1 for good to {en} ({short})")}
                for short, (_, fr, en) in CHARACTERISTICS.items()]
            outcome.default = None
            return outcome
        drained = result.get("reserve_drained")
        if drained:
            notes.append(f"Réserve {drained['characteristic']} : {drained['before']} → "
                         f"{drained['after']} (ME {-result['margin']}, {drained['kept']} "
                         f"point(s) gardé(s) pour {drained['kept']} BB+). / "
                         f"{drained['characteristic']} reserve: {drained['before']} → "
                         f"{drained['after']}.")
            if not p["keep_reserve"]:
                wallet = (roll.sheet.get("bonbonus", 0) - outcome.spend.get("bonbonus", 0)
                          - (0 if decided else (combat["cost"] if combat is not None
                                                and combat["pay"] == "bonbonus" else 0)))
                offers = reserve_offers(result, wallet)
                if offers:
                    outcome.choices, outcome.default = offers, "none"
    return outcome


# -- darts: one volley (the seed's draft, docs/RULESETS.md) --------------------------------

VOLLEY_DICE = 3
VOLLEY_THROWS = 3
NO_TRIPLE_POINTS = 7


def volley_triple(faces: list[int] | tuple[int, ...], bonus: int) -> int | None:
    """The triple ``faces`` make with up to ``bonus`` +1s (None without): the lowest one
    reachable — the highest face, the others raised to it (fewer points is better)."""
    top = max(faces)
    return top if 3 * top - sum(faces) <= bonus else None


def volley_policy(faces: list[int] | tuple[int, ...]) -> str:
    """The dice the default choice rerolls (1-based indices as a string): all but those
    showing the most frequent face (the highest among equals)."""
    counts = Counter(faces)
    kept = max(faces, key=lambda face: (counts[face], face))
    return "".join(str(i + 1) for i, face in enumerate(faces) if face != kept)


def _game_result(game: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """A darts game's result over its finished volleys: points add up, fewest wins (« Le
    gagnant est celui qui a le moins de points après 6 volées »). ``margin`` is the points
    below the worst score (7 a volley), so that the highest margin wins an opposed ask;
    a finished game is a success (``narrow``: not one triple)."""
    played = len(game["scores"])
    margin = NO_TRIPLE_POINTS * played - game["total"]
    if played < game["volleys"]:
        return common(True, margin, "success" if margin else "narrow",
                      f"Volée {game['volley']}/{game['volleys']}, {game['total']} points",
                      f"Volley {game['volley']}/{game['volleys']}, {game['total']} points",
                      **fields)
    return common(True, margin, "success" if margin else "narrow",
                  f"Partie : {game['total']} points en {played} volées",
                  f"Game: {game['total']} points in {played} volleys", **fields)


def _volley(roll: Roll, faces: list[int], rolled: list[dict[str, Any]], throw: int,
            game: dict[str, Any] | None = None) -> Outcome:
    bonus = roll.params["darts_bonus"]
    value = volley_triple(faces, bonus)
    points = value if value is not None else NO_TRIPLE_POINTS
    ended = value is not None or throw == VOLLEY_THROWS
    fields: dict[str, Any] = {"volley": {"faces": list(faces), "throw": throw,
                                         "triple": value, "points": points,
                                         "bonus_used": 3 * value - sum(faces)
                                         if value is not None else 0}}
    if game is not None:
        game = dict(game, scores=list(game["scores"]) + ([points] if ended else []))
        game["total"] = sum(game["scores"])
        fields["game"] = game
        result = _game_result(game, fields)
    elif value is not None:
        result = common(True, NO_TRIPLE_POINTS - value, "success", f"Triple de {value}",
                        f"Triple {value}s", **fields)
    else:
        result = common(False, -1, "failure", "Pas de triple" if throw == VOLLEY_THROWS
                        else "Pas encore de triple", "No triple" if throw == VOLLEY_THROWS
                        else "No triple yet", **fields)
    outcome = Outcome(result=result, dice=rolled)
    if not ended:
        choices = []
        for size in (1, 2, 3):
            for which in itertools.combinations(range(VOLLEY_DICE), size):
                name = "".join(str(i + 1) for i in which)
                shown = ", ".join(str(faces[i]) for i in which)
                choices.append({"name": f"reroll_{name}", "dice": size, "label": label(
                    f"Relancer {shown} (dé(s) {name})", f"Reroll {shown} (die {name})")})
        choices.append({"name": "stop", "dice": 0, "label": label(
            f"S'arrêter : {NO_TRIPLE_POINTS} points", f"Stop: {NO_TRIPLE_POINTS} points")})
        outcome.choices, outcome.default = choices, f"reroll_{volley_policy(faces)}"
    elif game is not None and len(game["scores"]) < game["volleys"]:
        # The next volley's three dice, thrown when the player goes on (the default).
        following = game["volley"] + 1
        outcome.choices = [{"name": "next", "dice": VOLLEY_DICE, "label": label(
            f"Volée suivante ({following}/{game['volleys']})",
            f"Next volley ({following}/{game['volleys']})")}]
        outcome.default = "next"
    return outcome


def _new_game(roll: Roll) -> dict[str, Any] | None:
    volleys = roll.params["volleys"]
    return None if volleys == 1 else {"volleys": volleys, "volley": 1, "scores": [],
                                      "total": 0}


def _volley_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    state = outcome.result["volley"]
    game = outcome.result.get("game")
    faces = list(state["faces"])
    if choice == "next":
        # The game's next volley: three new dice, the FLA bonus whole again (« à chaque
        # volée »).
        game = dict(game, volley=game["volley"] + 1)
        faces = dice.roll_many(VOLLEY_DICE, 6)
        for die in dice.rolled:
            die["throw"], die["volley"] = 1, game["volley"]
        return _volley(roll, faces, list(outcome.dice) + list(dice.rolled), 1, game)
    if choice == "stop":
        return _volley(roll, faces, list(outcome.dice), VOLLEY_THROWS, game)
    throw = state["throw"] + 1
    for index in choice[len("reroll_"):]:
        faces[int(index) - 1] = dice.roll(6)
    for die in dice.rolled:
        die["throw"] = throw
        if game is not None:
            die["volley"] = game["volley"]
    return _volley(roll, faces, list(outcome.dice) + list(dice.rolled), throw, game)


@lru_cache(maxsize=64)
def volley_odds(bonus: int) -> dict[str, Any]:
    """Exact odds of a volley played by its defaults (:func:`volley_policy` until a triple
    or the third throw): every path weighs 1/6 per die drawn, 9 dice at most."""
    counts = volley_ways(bonus)
    total = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    kinds = {"success": total - counts.get(NO_TRIPLE_POINTS, 0),
             "failure": counts.get(NO_TRIPLE_POINTS, 0)}
    return odds_reply(kinds, total, "points", list(counts.items()))


@lru_cache(maxsize=64)
def volley_ways(bonus: int) -> dict[int, int]:
    """A volley's points, each with its number of ways out of 6⁹ (the volley played by
    its defaults)."""
    @cache
    def ending(faces: tuple[int, ...], throw: int) -> tuple[tuple[int, Fraction], ...]:
        value = volley_triple(faces, bonus)
        if value is not None:
            return ((value, Fraction(1)),)
        if throw == VOLLEY_THROWS:
            return ((NO_TRIPLE_POINTS, Fraction(1)),)
        which = [int(i) - 1 for i in volley_policy(faces)]
        points: Counter[int] = Counter()
        for new in itertools.product(range(1, 7), repeat=len(which)):
            after = list(faces)
            for index, face in zip(which, new, strict=True):
                after[index] = face
            for value, p in ending(tuple(after), throw + 1):
                points[value] += p / 6 ** len(which)
        return tuple(points.items())

    total = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    ways: Counter[int] = Counter()
    for first in itertools.product(range(1, 7), repeat=VOLLEY_DICE):
        for value, p in ending(first, 1):
            ways[value] += p / 6 ** VOLLEY_DICE
    return {value: int(p * total) for value, p in sorted(ways.items())}


@lru_cache(maxsize=64)
def game_odds(bonus: int, volleys: int) -> dict[str, Any]:
    """Exact odds of a darts game of ``volleys`` volleys, each played by its defaults:
    the volleys are independent, so the total's distribution is the volleys' points
    distribution (:func:`volley_ways`, in integers over 6⁹ paths) added ``volleys`` times.
    Kinds as the game's result: ``narrow`` without a single triple, else ``success``."""
    ways = volley_ways(bonus)
    per_volley = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    totals = {0: 1}
    for _ in range(volleys):
        grown: dict[int, int] = {}
        for total, count in totals.items():
            for points, more in ways.items():
                grown[total + points] = grown.get(total + points, 0) + count * more
        totals = grown
    worst = NO_TRIPLE_POINTS * volleys
    kinds = {"narrow": totals.get(worst, 0),
             "success": per_volley ** volleys - totals.get(worst, 0)}
    return odds_reply(kinds, per_volley ** volleys, "total", sorted(totals.items()))


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    p = roll.params
    if p["volley"]:
        game = _new_game(roll)
        faces = dice.roll_many(VOLLEY_DICE, 6)
        if game is not None:
            for die in dice.rolled:
                die["volley"] = 1
        return _volley(roll, faces, dice.rolled, 1, game)
    reserve = attacked_reserve(p, roll.state)
    if p["drinking"]:
        p["difficulty"] = drinking_difficulty(p, roll.sheet)
    faces = dice.roll_many(dice_count(p, roll.sheet, paid_dice(roll)), 6)
    return _settle(roll, faces, dice.rolled, reserve, bought=p["buy_augmentations"],
                   decided=False)


@hookimpl
def sidecar_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    """A decision after the dice: ``buy_<n>`` (n augmentations bought with bonbonus) or
    ``keep``; then, after a lost ``contest``, ``save_<n>`` (n reserve points kept at 1 BB+
    each) or ``none``."""
    opened = outcome.result
    if "volley" in opened:
        return _volley_react(roll, outcome, choice, dice)
    if choice.startswith("lose_"):
        result = dict(opened)
        result["decided"] = True
        result["drinking"] = {**result["drinking"], "lost": choice[5:]}
        name = CHARACTERISTICS[choice[5:]][0]
        return Outcome(result=result, dice=outcome.dice, spend={name: 1}, notes=[
            f"Coma éthylique : {choice[5:]} −1 définitivement. / Alcoholic coma: "
            f"{choice[5:]} −1 for good."])
    if choice == "none" or choice.startswith("save_"):
        result = dict(opened)
        result["decided"] = True
        drained = dict(result["reserve_drained"])
        kept = 0 if choice == "none" else int(choice[5:])
        name = CHARACTERISTICS[drained["characteristic"]][0]
        spend: dict[str, int] = {}
        notes = []
        if kept:
            # « Dépenser un bonbonus permet de prévenir la perte d'un point de réserve »:
            # the points the roll took come back, paid 1 BB+ each.
            add_spend(spend, f"reserve_{name}", -kept)
            add_spend(spend, "bonbonus", kept)
            drained.update(lost=drained["lost"] - kept, kept=drained["kept"] + kept,
                           after=drained["after"] + kept)
            notes.append(f"{kept} point(s) de réserve {drained['characteristic']} gardé(s) "
                         f"pour {kept} BB+ : {drained['before']} → {drained['after']}. / "
                         f"{kept} {drained['characteristic']} reserve point(s) kept for "
                         f"{kept} BB+.")
        result["reserve_drained"] = drained
        return Outcome(result=result, dice=outcome.dice, notes=notes, spend=spend)
    bought = 0 if choice == "keep" else int(choice[4:])
    faces = [die["face"] for die in outcome.dice]
    return _settle(roll, faces, outcome.dice, opened.get("reserve_before"), bought=bought,
                   decided=True, adversity_was=opened.get("reserve_after"))


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    p, r = roll.params, outcome.result
    fr = locale == "fr"
    if "volley" in r:
        v, game = r["volley"], r.get("game")
        faces = ", ".join(map(str, v["faces"]))
        if fr:
            which = f" {game['volley']}/{game['volleys']}" if game else ""
            line = (f"{heading(roll)}Volée{which}, lancer {v['throw']} : {faces} "
                    "— " + (f"triple de {v['triple']}" if v["triple"] else "pas de triple")
                    + f", {v['points']} points")
            if game:
                line += f" ; partie : {game['total']} points en {len(game['scores'])} volée(s)"
            return line
        which = f" {game['volley']}/{game['volleys']}" if game else ""
        line = (f"{heading(roll)}Volley{which}, throw {v['throw']}: {faces} — "
                + (f"triple {v['triple']}s" if v["triple"] else "no triple")
                + f", {v['points']} points")
        if game:
            line += f"; game: {game['total']} points in {len(game['scores'])} volley(s)"
        return line
    aug = r["augmentations_used"] + r["augmentations_bought"]
    pool = f"{r['dice_count']}D" + (f"+{aug}A" if aug else "")
    fr = locale == "fr"
    line = (f"{heading(roll)}{pool} {'contre' if fr else 'vs'} {r['difficulty']}"
            f"{' : ' if fr else ': '}")
    line += plural(r["successes"], "réussite") if fr else plural(r["successes"], "success",
                                                                 "successes")
    kind = r["kind"]
    if kind == "botch":
        line += f", {r['ones']} × 1 : Bourde !" if fr else f", {r['ones']} ones: Bourde!"
    elif kind == "narrow":
        line += ", de justesse (MR 0)" if fr else ", narrowly (MR 0)"
    elif r["success"]:
        line += f", MR {r['margin']}"
        if kind == "critical":
            line += " : Coup d'éclat !" if fr else ": Coup d'éclat!"
    else:
        line += f", ME {-r['margin']}"
    if "reserve_after" in r:
        before = r.get("reserve_before", p.get("reserve"))
        line += f", {'réserve' if fr else 'reserve'} {before} → {r['reserve_after']}"
    if r.get("wounds") is not None:
        line += f", {'blessures' if fr else 'wounds'} {r['wounds']}"
    return line


# -- exact odds ----------------------------------------------------------------------------

def best_gain(cheap: int, medium: int, ones: int, budget: int) -> tuple[int, int]:
    """Most successes ``budget`` augmentation steps can add, and the fewest steps doing it.

    Every useful step-run gains exactly one success; they cost 1 (3→4, 5→6: ``cheap``
    of them), 2 (2→4, 4→6 — a 2 offers two, a 3 one after its 3→4: ``medium``) or 3 (1→4,
    which opens a 4→6 at 2). Cheapest first is optimal; the same answer as
    :func:`place_augmentations`, in constant time (tests check one against the other).
    """
    gain = min(budget, cheap)
    used, left = gain, budget - gain
    if gain < cheap:
        return gain, used
    two = min(medium, left // 2)
    gain, used, left = gain + two, used + 2 * two, left - 2 * two
    if two < medium:
        return gain, used
    pairs = min(ones, left // 5)  # 1→4→6: two successes for 5
    gain, used, left = gain + 2 * pairs, used + 5 * pairs, left - 5 * pairs
    if pairs < ones and left >= 3:  # one more 1→4
        gain, used = gain + 1, used + 3
    return gain, used


class _Greedy:
    """What a budget of augmentation steps makes of one row of states: ``others`` non-1
    dice with ``cheap`` cheap steps, as a function of the natural successes ``s``.

    Three stretches of ``s``: below ``linear_end`` the budget runs out among the cheap and
    medium steps and the count is ``s + offset``; then it reaches the 1s, and the count is
    ``2·others + pairs_gain(left)`` with ``left = left0 + 2s`` steps of budget for them;
    from ``saturated`` on every die shows 6 (2·dice successes). This is :func:`best_gain`
    row by row instead of state by state.
    """

    __slots__ = ("others", "ones", "end", "linear_end", "offset", "left0", "saturated")

    def __init__(self, budget: int, others: int, cheap: int, ones: int, end: int) -> None:
        self.others, self.ones, self.end = others, ones, end
        if budget <= cheap:  # the cheap steps absorb it all
            self.linear_end, self.offset, self.left0, self.saturated = end, budget, 0, end
            return
        half = (budget - cheap) // 2
        row = 2 * others - cheap
        self.offset = cheap + half
        self.linear_end = min(max(row - half, 0), end)
        self.left0 = budget - cheap - 2 * row
        self.saturated = min(max((5 * ones - self.left0 + 1) // 2, self.linear_end), end)

    def first_reaching(self, goal: int) -> int:
        """The smallest ``s`` whose count is at least ``goal`` (``end`` if none): the count
        never decreases with ``s``."""
        first = max(goal - self.offset, 0)
        if first < self.linear_end:
            return first
        need = goal - 2 * self.others
        if need <= 0:
            return self.linear_end
        if need > 2 * self.ones:
            return self.end
        pairs, odd = divmod(need, 2)
        left = 5 * pairs + (3 if odd else 0)
        return min(max(self.linear_end, (left - self.left0 + 1) // 2), self.end)


def _pairs_gain(left: int) -> int:
    """Successes ``left`` steps buy among the 1s, below saturation: 1→4→6 is 5 for two,
    a last 1→4 is 3 for one."""
    return (left + 2) // 5 + left // 5


@lru_cache(maxsize=1024)
def exact_odds(count: int, target: int, free: int, bought: int) -> dict[str, Any]:
    """Exact odds of an O'Ween's roll of ``count`` d6 against ``target`` (NPC bagage
    included), with free and bought augmentations.

    The number of 1s is binomial. The other dice are counted by a generating function:
    a face 2, 4 or 6 adds 0, 1 or 2 natural successes (1 + x + x²), a 3 or a 5 adds 0 or 1
    and a cheap step (y·(1 + x)); cheap steps are counted up to the budget, beyond which
    they all behave alike. Each row of coefficients (a number of cheap steps) is packed
    into one Python integer with fixed-width fields, wide enough that no sum can carry
    over, so each die is a few big-integer shifts and additions done in C. The best
    placement of the budget is then read off row by row (:class:`_Greedy`): whole
    stretches of a row land on one count, or on a shifted copy of the row, and move as
    one shift-and-mask; only states whose 1s are partly upgraded are looked at one count
    at a time. Same integers as the state-by-state engine it replaced (tests compare).
    """
    budget = free + bought
    cap = min(budget, count)
    check_work(count * (2 * count + 1) * (cap + 1) * 5)
    coup_from = max(2 * target, target + 1)  # free successes that make a Coup d'éclat
    width = ((6 ** count).bit_length() + 8) // 8  # bytes per field: no sum overflows it
    bits = 8 * width
    digit_sum = (1 << bits) - 1  # n mod (2^bits − 1) is the sum of n's fields
    top = 2 * (2 * count) * bits  # where the saturated count 2·dice goes

    masks = [(1 << (fields * bits)) - 1 for fields in range(4 * count + 3)]

    # layers[o][cheap]: o non-1 dice with that many cheap steps (capped: past the budget
    # they all behave alike); field 2·s of the integer counts the ways to show s natural
    # successes (every other field, so that cheap + 2·s can key the partly upgraded 1s).
    layers = [[1]]
    rows = [1]
    for dice_so_far in range(count):
        grown = [0] * (min(dice_so_far + 1, cap) + 1)
        for cheap, row in enumerate(rows):
            low = row + (row << (2 * bits))
            grown[cheap] += low + (row << (4 * bits))
            grown[min(cheap + 1, cap)] += low
        rows = grown
        layers.append(rows)

    # Per category (botch, critical, other): counts packed by final value (field 2v,
    # weighted), and counts by value added one at a time for partly upgraded 1s.
    by_value = [0, 0, 0]
    loose = [[0] * (2 * count + 1) for _ in range(3)]
    for others in range(count + 1):
        ones = count - others
        shifted = [0, 0, 0]
        keyed = [0, 0, 0]  # partly upgraded 1s, keyed by k = cheap + 2·natural

        def take(row: int, first: int, end: int, greedy: _Greedy, cheap: int,
                 category: int, shifted: list[int] = shifted,
                 keyed: list[int] = keyed) -> None:
            # (Conditional expressions rather than min/max: this runs for every row.)
            linear_end, saturated = greedy.linear_end, greedy.saturated
            stop = end if end < linear_end else linear_end
            if first < stop:  # count = s + offset: the row, shifted
                part = (row >> (2 * first * bits)) & masks[2 * (stop - first)]
                shifted[category] += part << (2 * (first + greedy.offset) * bits)
            start = first if first > linear_end else linear_end
            stop = end if end < saturated else saturated
            if start < stop:  # the 1s partly upgraded: the count depends on cheap + 2s
                part = (row >> (2 * start * bits)) & masks[2 * (stop - start)]
                keyed[category] += part << ((cheap + 2 * start) * bits)
            start = first if first > saturated else saturated
            if start < end:  # every die a 6
                part = (row >> (2 * start * bits)) & masks[2 * (end - start)]
                shifted[category] += (part % digit_sum) << top

        for cheap, row in enumerate(layers[others]):
            if not row:
                continue
            end = 2 * others - cheap + 1  # natural successes run over [0, end)
            on_free = _Greedy(free, others, cheap, ones, end)
            on_all = _Greedy(budget, others, cheap, ones, end) if bought else on_free
            botch_end = min(ones, end)  # Bourde: more 1s than natural successes
            take(row, 0, botch_end, on_free, cheap, 0)
            coup = max(on_free.first_reaching(coup_from), botch_end)
            take(row, coup, end, on_free, cheap, 1)  # Coup d'éclat: nothing bought
            take(row, botch_end, coup, on_all, cheap, 2)
        weight = comb(count, ones)  # a 1 shows in one way; the others are in the rows
        for category in range(3):
            by_value[category] += shifted[category] * weight
            if not keyed[category]:
                continue
            # Only keys whose budget left for the 1s is in [0, 5·ones) were filled.
            spend = budget if category == 2 else free
            first_key = max(4 * others - spend, 0)
            left = first_key - 4 * others + spend
            raw = (keyed[category] >> (first_key * bits)).to_bytes(5 * ones * width, "little")
            counts = loose[category]
            for key in range(5 * ones):
                ways = int.from_bytes(raw[key * width:(key + 1) * width], "little")
                if ways:
                    counts[2 * others + _pairs_gain(left + key)] += ways * weight

    totals = []
    for category in range(3):
        raw = by_value[category].to_bytes((2 * (2 * count) + 1) * width, "little")
        values = loose[category]
        for value in range(2 * count + 1):
            values[value] += int.from_bytes(raw[2 * value * width:(2 * value + 1) * width],
                                            "little")
        totals.append(values)
    botches, criticals, others_ = totals
    finals = [b + c + o for b, c, o in zip(botches, criticals, others_, strict=True)]
    kinds = {"botch": sum(botches), "failure": sum(others_[:target]),
             "narrow": others_[target] if target <= 2 * count else 0,
             "success": sum(others_[target + 1:]), "critical": sum(criticals)}
    finals_items = [(value, ways) for value, ways in enumerate(finals) if ways]
    return odds_reply(kinds, 6 ** count, "successes", finals_items)


#: What one d6 face adds to the state (1s, cheap steps, medium steps, natural successes)
#: that :func:`best_gain` reads (the same counts as :func:`purchase_offers`).
_FACE_STATE = ((1, 0, 0, 0), (0, 0, 2, 0), (0, 1, 1, 0), (0, 0, 1, 1), (0, 1, 0, 1),
               (0, 0, 0, 2))


@lru_cache(maxsize=256)
def after_dice_odds(count: int, target: int, free: int, price: int,
                    budget: int | None) -> dict[str, Any]:
    """Exact odds of a roll whose player buys augmentations **after seeing the dice**:
    when the dice (with the free augmentations) fail, neither Bourde nor Coup d'éclat, the
    player buys the fewest augmentations that make it a success — if ``budget`` BB+ pays
    them at ``price`` each (None: no limit) and one decision offers them (at most
    :data:`MAX_PURCHASES` successes more) — else keeps the failure. A success or a Coup
    d'éclat buys nothing. Also the expected BB+ spent (``after_dice``).

    The dice are counted by their state — (1s, cheap steps, medium steps, natural
    successes), all that :func:`best_gain` and the Bourde read — with exact integer
    weights, then each state is judged as the roll code judges it.
    """
    most = 5 * MAX_PURCHASES  # the steps that can buy MAX_PURCHASES successes, at most
    steps_budget = most if budget is None else min(budget // price, most)
    check_work(comb(count + 5, 5) * 6)  # (states: at most the face counts' multisets)
    states: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 1}
    for _ in range(count):
        grown: dict[tuple[int, int, int, int], int] = {}
        for (ones, cheap, medium, natural), ways in states.items():
            for d_ones, d_cheap, d_medium, d_natural in _FACE_STATE:
                key = (ones + d_ones, cheap + d_cheap, medium + d_medium, natural + d_natural)
                grown[key] = grown.get(key, 0) + ways
        states = grown
    kinds = dict.fromkeys(("botch", "failure", "narrow", "success", "critical"), 0)
    finals: dict[int, int] = {}
    bought_ways = spent_ways = 0
    for (ones, cheap, medium, natural), ways in states.items():
        successes = natural + best_gain(cheap, medium, ones, free)[0]
        if ones > natural:
            kind = "botch"
        elif successes >= 2 * target and successes > target:
            kind = "critical"
        elif successes > target:
            kind = "success"
        elif successes == target:
            kind = "narrow"
        else:
            kind = "failure"
            reach = natural + best_gain(cheap, medium, ones, free + steps_budget)[0]
            if target - successes <= MAX_PURCHASES and reach >= target:
                low, high = 1, steps_budget  # the fewest steps reaching the target
                while low < high:
                    mid = (low + high) // 2
                    if natural + best_gain(cheap, medium, ones, free + mid)[0] >= target:
                        high = mid
                    else:
                        low = mid + 1
                kind, successes = "narrow", target
                bought_ways += ways
                spent_ways += ways * low * price
        kinds[kind] += ways
        finals[successes] = finals.get(successes, 0) + ways
    total = 6 ** count
    reply = odds_reply(kinds, total, "successes", sorted(finals.items()))
    reply["after_dice"] = {"budget": budget, "price": price,
                           "p_bought": bought_ways / total,
                           "expected_bonbonus": spent_ways / total}
    return reply


def after_dice_budget(roll: Roll) -> int | None:
    """The BB+ a ``buy_after`` roll's player may spend after the dice: ``budget``, else
    the character's wallet less what the roll itself spends before (combat options paid
    in bonbonus, an emotion bonbonus), else None (no limit)."""
    p = roll.params
    if p.get("budget") is not None:
        return p["budget"]
    if roll.sheet is None:
        return None
    wallet = roll.sheet.get("bonbonus", 0)
    combat = _combat_settings(roll)
    if combat is not None and combat["pay"] == "bonbonus":
        wallet -= combat["cost"]
    if p["drinking"] and p.get("emotion_bonbonus"):
        wallet -= 1
    return max(0, wallet)


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = roll.params
    if p["volley"]:
        if p["volleys"] > 1:
            return game_odds(p["darts_bonus"], p["volleys"])
        return volley_odds(p["darts_bonus"])
    difficulty = drinking_difficulty(p, roll.sheet) if p["drinking"] else p["difficulty"]
    count = dice_count(p, roll.sheet, paid_dice(roll))
    target = difficulty + (1 if p["npc_bagage"] else 0)
    if p["buy_after"] and not p["buy_augmentations"]:
        # The player buys after seeing the dice (docs/RULESETS.md): the odds of that play.
        return after_dice_odds(count, target, p["augmentations"], 1 if p["bagage"] else 2,
                               after_dice_budget(roll))
    return exact_odds(count, target, p["augmentations"], p["buy_augmentations"])


def _initiative_key(entry: dict[str, Any]) -> tuple[int, int]:
    # Highest Peps first; at equal Peps, a relevant bagage first.
    return (-int(entry["sheet"].get("pep", 0)), 0 if entry.get("bagage") else 1)


def _in_groups(entries: list[dict[str, Any]]) -> list[list[str]]:
    groups: list[list[dict[str, Any]]] = []
    for entry in sorted(entries, key=_initiative_key):
        if groups and _initiative_key(groups[-1][0]) == _initiative_key(entry):
            groups[-1].append(entry)  # still tied: they act together
        else:
            groups.append([entry])
    return [[entry["character"] for entry in group] for group in groups]


@hookimpl
def sidecar_initiative(roll: Roll, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The scene's initiative (RULES.md §1, seed 000): highest Peps first; at equal Peps
    the one with a relevant bagage; still tied, together. A character whose player spends
    a bonbonus takes the initiative (1 BB+ from its wallet); if several spend, the same
    rules order them, before everyone else.

    Surprendre's locks (this turn and the next, :func:`active_surprises`): a surpriser
    takes the initiative as a claim that costs nothing (it was paid with the option); its
    opponent's claim to retake it is refused (``invalid_params``)."""
    names = {entry["character"] for entry in entries}
    locks = [lock for lock in active_surprises(roll.state, roll.turn).values()
             if lock["by"] in names and lock["over"] in names]
    surprisers = {lock["by"] for lock in locks}
    for entry in entries:
        lock = next((lock for lock in locks if lock["over"] == entry["character"]), None)
        if entry["claim"] and lock is not None and entry["character"] not in surprisers:
            raise invalid_param(
                "characters", f"{entry['character']} was surprised by {lock['by']}: it "
                "cannot retake the initiative this turn or the next",
                fr=f"{entry['character']} a été surpris par {lock['by']} : il ne peut "
                   "reprendre l'initiative ni ce tour ni le suivant")
    claims = [entry for entry in entries if entry["claim"] or entry["character"] in surprisers]
    others = [entry for entry in entries if entry not in claims]
    return {"order": _in_groups(claims) + _in_groups(others),
            "spend": {entry["character"]: {"bonbonus": 1} for entry in claims
                      if entry["character"] not in surprisers}}
