"""O'Ween's : réussites sur d6 contre une difficulté / d6 successes against a difficulty.

Dice order: the action's d6, in order (one more d6 with a relevant bagage, at the end).

This module is the plugin's face: its description (:data:`PARAMS`) and its hooks, each
handing the work to the module of the ruleset that does it:

- ``oweens_sheet``: the character sheet, the dice a roll takes from it, what it spends;
- ``oweens_judging``: what rolled d6 make against a difficulty (augmentations, Bourde,
  Coup d'éclat), a glass when drinking;
- ``oweens_decisions``: a roll's outcome, and the decisions after its dice (open rolls,
  :func:`sidecar_react`): augmentations bought once the dice are seen, reserve points
  kept after a lost contest, the characteristic an alcoholic coma takes;
- ``oweens_darts``: the darts game (the seed's draft), its rerolls and its odds;
- ``oweens_odds``: a roll's exact odds;
- ``oweens_initiative``: the scene's initiative and Surprendre's locks.

The combat options are an extension of their own (``oweens_combat``, option ``combat``).
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.protocol.errors import invalid_param
from sidecar.rules import heading, name_params
from sidecar.rulesets.oweens_combat import paid_dice
from sidecar.rulesets.oweens_darts import darts_odds, first_volley, volley_react, volley_text
from sidecar.rulesets.oweens_decisions import (
    RESERVE,
    attacked_reserve,
    decide,
    refuse_players_reserve,
    settle,
)
from sidecar.rulesets.oweens_fixed import NAMED, named_characteristic
from sidecar.rulesets.oweens_initiative import initiative
from sidecar.rulesets.oweens_judging import drinking_difficulty
from sidecar.rulesets.oweens_odds import after_dice_budget, after_dice_odds, exact_odds
from sidecar.rulesets.oweens_sheet import CHARACTERISTICS, SHEET, dice_count, reserve_now
from sidecar.rulesets.oweens_targets import (
    aim_difficulty,
    difficulty_source,
    free_augmentations,
)
from sidecar.rulesets.oweens_words import failure_margin, ones, success_margin, successes
from sidecar.rulesets.sheets import refuse_sheet_override

__version__ = "1.1"

NAME = "oweens"
MAX_DICE = 30

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
                             "sont sa réserve actuelle (seule une action complexe perdue la "
                             "vide)", "Characteristic used: as a character, the dice are its "
                             "current reserve (only a lost complex action drains it)"),
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
    "collaborators": {
        "type": "int", "min": 0, "max": 10, "default": 0,
        "description": label("Coopération : collaborateurs, une augmentation gratuite "
                             "chacun (compté par une demande coopérative)", "Cooperation: "
                             "collaborators, a free augmentation each (counted by a "
                             "cooperative ask)"),
    },
    "buy_augmentations": {
        "type": "int", "min": 0, "max": MAX_DICE * 5, "default": 0,
        "description": label("Augmentations achetées (2 BB+ chacune, 1 avec un bagage)",
                             "Bought augmentations (2 BB+ each, 1 with a background)"),
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
        "description": label("Chances avec « Acheter après les dés » : les BB+ que le joueur "
                             "pourra dépenser après les dés (par défaut la bourse du "
                             "personnage, sans limite sans personnage)", "Odds with \"Buy "
                             "after the dice\": the BB+ the player may spend after the dice "
                             "(by default the character's wallet, no limit without a "
                             "character)"),
    },
    "bagage": {
        "type": "bool", "default": False,
        "description": label("Bagage adéquat : +1 dé, augmentations à 1 BB+",
                             "Relevant background: +1 die, augmentations cost 1 BB+"),
    },
    "npc_bagage": {
        "type": "bool", "default": False,
        "description": label("Le PNJ opposé a un bagage adéquat : difficulté +1",
                             "The opposing NPC has a relevant background: difficulty +1"),
    },
    "equipment": {
        "type": "int", "min": 0, "max": 10, "default": 0,
        "description": label("Bonus d'équipement adéquat, ajouté à la MR (S ≥ D)",
                             "Adequate equipment bonus, added to the success margin (S ≥ D)"),
    },
    "reserve": {
        "type": "int", "min": 0, "max": 100,
        "description": label("Action complexe, facultatif : la valeur de la réserve "
                             "que le jet attaque (seul le MJ la fixe)", "Complex action, "
                             "optional: the value of the reserve the roll attacks (only the "
                             "GM sets it)"),
    },
    "adversity": {
        "type": "string", "max_length": 64,
        # (The reserve named by its label, as people read it: not its key.)
        "description": label("Nom de la réserve attaquée, gardée par la table : avec "
                             f"« {RESERVE['fr']} » (du MJ), elle (re)commence à cette "
                             "valeur ; sans, le jet reprend où le précédent l'a laissée "
                             "(réserve commune aux participants)", "Name of the attacked "
                             f"reserve, kept by the table: with “{RESERVE['en']}” (the "
                             "GM's) it (re)starts at that value; without, the roll goes on "
                             "from where the last one left it (one reserve shared by the "
                             "participants)"),
    },
    "contest": {
        "type": "bool", "default": False,
        "description": label("Action complexe en opposition : sur un échec, la ME (la marge "
                             "de l'adversaire) vide d'autant la réserve de la caractéristique "
                             "utilisée (en tant que personnage)", "Opposed complex action: "
                             "on a failure, the failure margin (the opponent's margin) drains "
                             "the reserve of the characteristic used (as a character)"),
    },
    "resistance": {
        "type": "string", "choices": ["PEP", "ECL", "ENC", "FLA"],
        "description": label("Action complexe contre un personnage (cible) : sa "
                             "caractéristique de résistance, difficulté et réserve attaquée "
                             "(par défaut la caractéristique utilisée)", "Complex action "
                             "against a character (target): its resisting characteristic, "
                             "the difficulty and the attacked reserve (by default the "
                             "characteristic used)"),
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
                             "failure loses 1 bonbonus, a Blunder manifests Shame, a Blunder "
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
        "description": label("Un effet de l'alcool (Honte, Fierté) est manifesté (la fiche le "
                             "garde, en tant que personnage) : une Bourde, quel que soit le "
                             "jet, est le coma éthylique", "An effect of the alcohol (Shame, "
                             "Pride) is manifested (the sheet keeps it, as a character): a "
                             "Blunder, whatever the roll, is an alcoholic coma"),
    },
    "emotion_bonbonus": {
        "type": "string", "choices": ["honte", "fierte"],
        "choice_labels": {"honte": label("Honte", "Shame"), "fierte": label("Fierté", "Pride")},
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
    "collaborators": ("Collaborateurs", "Collaborators"),
    "buy_augmentations": ("Augmentations achetées", "Bought augmentations"),
    "buy_after": ("Acheter après les dés", "Buy after the dice"),
    "budget": ("BB+ pour acheter après les dés", "BB+ to buy after the dice"),
    "bagage": ("Bagage adéquat", "Relevant background"),
    "npc_bagage": ("Bagage du PNJ", "NPC's background"),
    "equipment": ("Équipement", "Equipment"),
    "reserve": (RESERVE["fr"], RESERVE["en"]),
    "characteristic": ("Caractéristique", "Characteristic"),
    "adversity": ("Adversité", "Adversity"),
    # (Not « En opposition »: the ask form's box for an opposed ask bore that name too.)
    "contest": ("Action complexe (vide la réserve)", "Complex action (drains the reserve)"),
    "resistance": ("Résistance de la cible", "Target's resistance"),
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

# What a form shows at once is what a roll needs (dice, characteristic, difficulty, free
# augmentations, bagage); the rest folds behind « plus d'options » (``more``), and drinking
# and darts are situations bringing their own fields (``situation``: the bool they need).
for _key in ("buy_augmentations", "buy_after", "budget", "npc_bagage", "equipment", "reserve",
             "adversity", "contest", "keep_reserve", "manifested"):
    PARAMS[_key]["more"] = True
for _key in ("drinks", "hours_dry", "emotion_bonbonus"):
    PARAMS[_key]["situation"] = "drinking"
# Drinking is an Encaisse roll (oweens_fixed.NAMED): the form picks ENC once it is chosen.
PARAMS["drinking"]["sets"] = {"characteristic": NAMED["drinking"][0]}
for _key in ("volleys", "darts_bonus"):
    PARAMS[_key]["situation"] = "volley"
for _key in ("collaborators", "resistance"):  # (a cooperative ask gives the first)
    PARAMS[_key]["more"] = True


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("O'Ween's — réussites sur d6", "O'Ween's — d6 successes"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("les d6 de l'action, dans l'ordre (le dé du bagage en dernier)",
                            "the action's d6, in order (the background die last)"),
        # The seed's words, as its roll's badge says them (extension, issue 29): the
        # odds and the oppositions name them so, not « Échec critique » or « marge ».
        "kind_labels": {"botch": label("Bourde", "Blunder"),
                        "critical": label("Coup d'éclat", "Coup d'éclat (critical)")},
        "margin_labels": {"success": label("MR", "success margin"),
                          "failure": label("ME", "failure margin")},
    }]


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


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


def refuse_budget_alone(p: dict[str, Any]) -> None:
    """``budget`` is the BB+ of a purchase after the dice: without ``buy_after`` it would
    count for nothing, silently (docs/RULESETS.md): ``invalid_params`` naming both."""
    if p.get("budget") is None or p["buy_after"]:
        return
    after = PARAMS["buy_after"]["label"]
    # (Named by its label, « BB+ pour… » ('budget'), by the host: a param's refusal is.)
    raise invalid_param("budget", f"needs \"{after['en']}\" ('buy_after')",
                        fr=f"demande « {after['fr']} » ('buy_after')")


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = roll.params
    refuse_budget_alone(p)
    aim_difficulty(roll)  # (as the roll reads its target: below)
    if p["volley"]:
        return darts_odds(p)
    named_characteristic(roll)
    difficulty = drinking_difficulty(p, roll.sheet) if p["drinking"] else p["difficulty"]
    count = dice_count(p, roll.sheet, paid_dice(roll))
    target = difficulty + (1 if p["npc_bagage"] else 0)
    if p["buy_after"] and not p["buy_augmentations"]:
        # The player buys after seeing the dice (docs/RULESETS.md): the odds of that play.
        return after_dice_odds(count, target, free_augmentations(p), 1 if p["bagage"] else 2,
                               after_dice_budget(roll))
    return exact_odds(count, target, free_augmentations(p), p["buy_augmentations"])


@hookimpl
def sidecar_initiative(roll: Roll, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The scene's initiative: highest Peps first, a bonbonus spent to take it,
    Surprendre's locks honoured (``oweens_initiative``)."""
    return initiative(roll, entries)


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    p = roll.params
    refuse_budget_alone(p)
    if p["volley"]:
        return first_volley(roll, dice)
    named_characteristic(roll)  # (before any die: it may refuse the roll)
    refuse_typed_dice(roll)
    refuse_players_reserve(roll)  # (before any die: the GM's obstacle)
    reserve = attacked_reserve(p, roll.state)
    aim_difficulty(roll)
    if p["drinking"]:
        refuse_typed_glass(roll)
        p["difficulty"] = drinking_difficulty(p, roll.sheet)
    faces = dice.roll_many(dice_count(p, roll.sheet, paid_dice(roll)), 6)
    return settle(roll, faces, dice.rolled, reserve, bought=p["buy_augmentations"],
                  decided=False)


def refuse_typed_dice(roll: Roll) -> None:
    """A player rolling as a character may type only the dice its sheet gives (the chosen
    characteristic's reserve); else ``forbidden`` before any die (docs/RULESETS.md). Dice
    paid to combat options were taken off ``dice`` already: counted back."""
    p, sheet = roll.params, roll.sheet
    if p.get("dice") is None or sheet is None:
        return
    own = reserve_now(sheet, p["characteristic"]) if p.get("characteristic") else None
    typed = p["dice"] + paid_dice(roll)
    refuse_sheet_override(roll, "dice", PARAMS["dice"]["label"],
                          p["dice"] if typed == own else own)


def refuse_typed_glass(roll: Roll) -> None:
    """A player's glass as a character is the one its sheet counts (« Verres » + 1: « La
    difficulté augmente de 1 à chaque nouveau verre »): another glass number or difficulty
    typed is ``forbidden`` before any die, as any value the sheet supplies (a GM's passes;
    « Heures sans boire » stays the table's to say, lowering the glass as the seed does)."""
    if roll.sheet is None:
        return
    glass = roll.sheet.get("verres", 0) + 1
    for param in ("drinks", "difficulty"):
        if roll.params.get(param):  # (0, the default: the sheet counts the glass)
            refuse_sheet_override(roll, param, PARAMS[param]["label"], glass)


@hookimpl
def sidecar_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    """A decision after the dice: ``buy_<n>`` (n augmentations bought with bonbonus) or
    ``keep``; then, after a lost ``contest``, ``save_<n>`` (n reserve points kept at 1 BB+
    each) or ``none``; after an alcoholic coma, ``lose_<characteristic>``; between a
    darts volley's throws, ``reroll_<dice>``, ``stop`` or ``next``."""
    if "volley" in outcome.result:
        return volley_react(roll, outcome, choice, dice)
    return decide(roll, outcome, choice)


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    p, r = roll.params, outcome.result
    fr = locale == "fr"
    if "volley" in r:
        return volley_text(roll, r, fr)
    # The free augmentations the roll had (GM, situation, one per collaborator), used or
    # not: a cooperation's +1A that could raise no die is still said (« 2D+1A contre 3 »,
    # not « 2D contre 3 »: the reader sees it was counted), then those bought.
    aug = (max(free_augmentations(p), r["augmentations_used"])
           + r["augmentations_bought"])
    pool = f"{r['dice_count']}D" + (f"+{aug}A" if aug else "")
    line = (f"{heading(roll, locale=locale)}{pool} {'contre' if fr else 'vs'} {r['difficulty']}"
            f"{difficulty_source(roll, r['difficulty'], fr)}{' : ' if fr else ': '}")
    line += successes(r["successes"], fr)
    kind = r["kind"]
    cry = ""  # (the verdict's cry ends the line, after the reserve and the wounds)
    if kind == "botch":
        line += f", {ones(r['ones'], fr)}"
        cry = " : Bourde !" if fr else ": Blunder!"
    elif kind == "narrow":
        margin = r["margin"]  # (equipment raises it: « la MR est augmentée »)
        line += (f", {'de justesse' if fr else 'narrowly'}, {success_margin(margin, fr)}"
                 if margin else f", {'de justesse' if fr else 'narrowly'} "
                 f"({success_margin(0, fr)})")
    elif r["success"]:
        line += f", {success_margin(r['margin'], fr)}"
        if kind == "critical":
            cry = " : Coup d'éclat !" if fr else ": Coup d'éclat!"
    else:
        line += f", {failure_margin(-r['margin'], fr)}"
    if "reserve_after" in r:
        before = r.get("reserve_before", p.get("reserve"))
        line += f", {'réserve' if fr else 'reserve'} {before} → {r['reserve_after']}"
    if r.get("wounds") is not None:
        line += f", {'blessures' if fr else 'wounds'} {r['wounds']}"
    return line + cry
