"""Options de combat d'O'Ween's : assommer, viser… / O'Ween's combat options: stun, aim…

Built-in extension for ``oweens`` rolls (RULES.md §1, Combat). Per-roll settings in
``options.combat``::

    {"attack": "melee", "opponent_pep": 3,          # melee: difficulty = opponent's Peps
     "attack": "ranged", "ranged_modifiers": [1, 2], # ranged: difficulty 3 + the worst one
     "options": ["viser", "charger"], "pay": "dice" | "bonbonus",
     "target_enc": 2, "target_ecl": 3, "attacker_pep": 4, "zone": "tête",
     "engaged": false, "initiative": true, "room": true,
     "opponent": "Brady",                           # the opposing character (Surprendre)
     "hold": true, "target_ecl": 2}                  # each turn a pinned target struggles

Surprendre rolled as a character with ``opponent`` named locks the initiative for the
surpriser over that opponent for the table's turn and the next (the ruleset keeps the lock
in its table state; its initiative honours it, ``sidecar.rulesets.oweens_initiative``).

A hold (Immobiliser, each turn the target struggles) is an ENC roll against the
target's ECL: a failure frees it; it costs nothing and counts no wound.

Costs are paid by rolling fewer dice (``pay: "dice"``, the default) or in bonbonus (taken
from the wallet of a roll made as a character: ``spend.bonbonus``). Wounds
dealt are the MR; the outcome gets ``wounds`` (as counted) and ``combat`` (the effects).
Ruling: Assommer, Immobiliser and Désarmer count no wound whatever happens (the seed says
"aucune blessure n'est comptabilisée" of the option itself).
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.host.params import normalise_label
from sidecar.host.plugins import scope
from sidecar.model import Outcome, Roll, label
from sidecar.protocol.errors import MUST_BE_BOOL, invalid_param
from sidecar.protocol.text import dice_words
from sidecar.rulesets.oweens_sheet import base_dice
from sidecar.rulesets.oweens_targets import opponent as opponent_of
from sidecar.rulesets.oweens_targets import refuse_typed, resisting, set_difficulty
from sidecar.rulesets.sheets import add_spend

__version__ = "1.1"

NAME = "combat"
COSTS = {"assommer": 1, "viser": 1, "pousser": 1, "surprendre": 1, "immobiliser": 1,
         "renverser": 2, "charger": 2, "desarmer": 3}
#: Options that count no wound whatever happens (Assommer: only when it knocks out).
NO_WOUND = ("immobiliser", "desarmer")
RANGED_DIFFICULTY = 3


def _int_field(fr: str, en: str, help_fr: str, help_en: str) -> dict[str, Any]:
    return {"type": "int", "min": 0, "max": 50, "label": {"fr": fr, "en": en},
            "description": {"fr": help_fr, "en": help_en}}


def _bool_field(fr: str, en: str, help_fr: str, help_en: str) -> dict[str, Any]:
    return {"type": "bool", "default": False, "label": {"fr": fr, "en": en},
            "description": {"fr": help_fr, "en": help_en}}


#: The options' names as players read them.
OPTION_LABELS = {
    "assommer": {"fr": "Assommer", "en": "Knock out"},
    "viser": {"fr": "Viser", "en": "Aim"},
    "pousser": {"fr": "Pousser", "en": "Push"},
    "surprendre": {"fr": "Surprendre", "en": "Surprise"},
    "immobiliser": {"fr": "Immobiliser", "en": "Pin"},
    "renverser": {"fr": "Renverser", "en": "Knock down"},
    "charger": {"fr": "Charger", "en": "Charge"},
    "desarmer": {"fr": "Désarmer", "en": "Disarm"},
}

#: What ``options.combat`` may hold (see :func:`sidecar.hookspecs.sidecar_options`).
OPTIONS = {
    "label": {"fr": "Combat (O'Ween's)", "en": "Combat (O'Ween's)"},
    "description": {"fr": "Attaque au contact ou à distance, options de combat et leur coût",
                    "en": "Melee or ranged attack, combat options and their cost"},
    "rulesets": ["oweens"],
    "params": {
        "attack": {"type": "string", "choices": ["melee", "ranged"],
                   "choice_labels": {"melee": {"fr": "au contact", "en": "melee"},
                                     "ranged": {"fr": "à distance", "en": "ranged"}},
                   "label": {"fr": "Attaque", "en": "Attack"},
                   "description": {"fr": "Au contact : difficulté = Peps de l'adversaire ; "
                                         "à distance : 3 + le pire modificateur",
                                   "en": "Melee: difficulty = the opponent's Peps; ranged: "
                                         "3 + the worst modifier"}},
        "opponent_pep": _int_field("Peps de l'adversaire", "Opponent's Peps",
                                   "La difficulté d'une attaque au contact",
                                   "The difficulty of a melee attack"),
        "ranged_modifiers": {"type": "list", "items": "int", "item": {"min": -10, "max": 20},
                             "label": {"fr": "Modificateurs à distance",
                                       "en": "Ranged modifiers"},
                             "description": {"fr": "Seul le plus handicapant compte (liste "
                                                   "d'entiers, ou noms → entiers)",
                                             "en": "Only the most handicapping counts (a list "
                                                   "of integers, or names → integers)"}},
        "options": {"type": "list", "choices": list(COSTS), "cost": dict(COSTS),
                    "choice_labels": OPTION_LABELS,
                    "label": {"fr": "Options de combat", "en": "Combat options"},
                    "description": {"fr": "Chacune coûte des dés (ou des bonbonus)",
                                    "en": "Each costs dice (or bonbonus)"}},
        "pay": {"type": "string", "choices": ["dice", "bonbonus"], "default": "dice",
                "choice_labels": {"dice": {"fr": "en dés", "en": "in dice"},
                                  "bonbonus": {"fr": "en bonbonus", "en": "in bonbonus"}},
                "label": {"fr": "Payer", "en": "Pay"},
                "description": {"fr": "Le coût des options : des dés en moins, ou des bonbonus "
                                      "(du portefeuille du personnage)",
                                "en": "The options' cost: fewer dice, or bonbonus (from the "
                                      "character's wallet)"}},
        "opponent": {"type": "string", "max_length": 64,
                     "label": {"fr": "Adversaire", "en": "Opponent"},
                     "description": {"fr": "Surprendre : le personnage adverse (l'initiative "
                                           "lui est prise ce tour et le suivant)",
                                     "en": "Surprise: the opposing character (it loses the "
                                           "initiative this turn and the next)"}},
        "zone": {"type": "string", "max_length": 64,
                 "label": {"fr": "Zone visée", "en": "Aimed zone"},
                 "description": {"fr": "Viser : la zone touchée (ex. tête)",
                                 "en": "Aim: the zone hit (e.g. head)"}},
        "target_enc": _int_field("ENC de la cible", "Target's ENC",
                                 "Assommer : assommée si les blessures la dépassent",
                                 "Knock out: out if the wounds exceed it"),
        "target_ecl": _int_field("ECL de la cible", "Target's ECL",
                                 "Renverser, maintenir une immobilisation",
                                 "Knock down, hold a pin"),
        "attacker_pep": _int_field("Peps de l'attaquant", "Attacker's Peps",
                                   "Charger : ajoutés aux blessures",
                                   "Charge: added to the wounds"),
        "initiative": _bool_field("À l'initiative", "Has the initiative",
                                  "Charger : il faut l'initiative",
                                  "Charge: needs the initiative"),
        "room": _bool_field("De l'espace pour l'élan", "Room to run",
                            "Charger : il faut de l'espace", "Charge: needs room"),
        "engaged": _bool_field("Engagé au contact", "Engaged in melee",
                               "Charger : impossible si engagé avec la cible",
                               "Charge: impossible when engaged with the target"),
        "hold": _bool_field("Maintenir l'immobilisation", "Hold the pin",
                            "Jet d'ENC contre l'ECL de la cible, sans option ni blessure",
                            "ENC roll against the target's ECL, no option, no wound"),
    },
}


@hookimpl
def sidecar_options() -> dict[str, Any]:
    return OPTIONS


def _bad(field: str, en: str, fr: str) -> Exception:
    return invalid_param(f"options.{NAME}.{field}", en, fr=fr)


def _int(settings: dict[str, Any], field: str, *, required: bool = False,
         fallback: dict[str, Any] | None = None, field_name: str = "") -> int | None:
    """``settings[field]`` checked; untyped, the ``field_name`` of the ``fallback`` sheet
    (a target's, a roller's) when there is one."""
    value = settings.get(field)
    if value is None and fallback is not None and field_name:
        return int(fallback.get(field_name) or 0)
    if value is None:
        if required:
            raise _bad(field, "is required for this option", "est obligatoire pour cette option")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 50:
        raise _bad(field, "must be an integer from 0 to 50", "doit être un entier de 0 à 50")
    return value


def charge_pep(roll: Roll, raw: dict[str, Any], names: list[str]) -> int | None:
    """Charger's PEP (« ajoutez votre PEP aux blessures de votre adversaire »): as a
    character, its own — the Peps reserve, as for any action (« la valeur de la réserve
    remplace la caractéristique »); ``attacker_pep`` is for a roll without one, and a
    different value typed as a character is refused (it was added as typed)."""
    if roll.sheet is None:
        # (A decision on a roll whose character was removed since: decided on what is
        # left, the charge adding nothing — else it could never be decided.)
        return _int(raw, "attacker_pep", required="charger" in names
                    and not roll.removed) or 0
    own = resisting(roll.sheet, "PEP")
    typed = _int(raw, "attacker_pep")
    if typed is not None and typed != own and "charger" in names:
        raise _bad("attacker_pep", f"as a character the charge adds its own PEP ({own}): "
                   "leave it out", f"en tant que personnage, la charge ajoute son propre "
                   f"PEP ({own}) : ne l'indiquez pas")
    return own


def read_settings(roll: Roll) -> dict[str, Any] | None:
    """The validated ``options.combat`` of an oweens roll, or None when there are none."""
    if roll.ruleset != "oweens" or NAME not in roll.options:
        return None
    raw = roll.options[NAME]
    if not isinstance(raw, dict):
        raise _bad("", "must be a map", "doit être une table (map)")
    chosen = raw.get("options", [raw["option"]] if "option" in raw else [])
    if not isinstance(chosen, list) or not all(isinstance(o, str) for o in chosen):
        raise _bad("options", "must be a list of option names",
                   "doit être une liste de noms d'options")
    names = []
    for option in chosen:
        name = normalise_label(option)
        if name not in COSTS:
            known = ", ".join(COSTS)
            raise _bad("options", f"unknown option '{option[:30]}' (known: {known})",
                       f"option inconnue '{option[:30]}' (connues : {known})")
        if name not in names:
            names.append(name)
    pay = raw.get("pay", "dice")
    if pay not in ("dice", "bonbonus"):
        raise _bad("pay", "must be 'dice' or 'bonbonus'", "doit être 'dice' ou 'bonbonus'")
    opponent = raw.get("opponent")
    if opponent is not None and (not isinstance(opponent, str) or not 0 < len(opponent) <= 64):
        raise _bad("opponent", "must be the opposing character's name (1 to 64 characters)",
                   "doit être le nom du personnage adverse (1 à 64 caractères)")
    # Aimed at a character (contract §8), what the options read of the opponent comes
    # from its sheet; a value a GM typed still wins (an NPC without a sheet), a player's
    # is refused (a player does not rewrite another character's sheet by typing).
    aimed = opponent_of(roll)
    target = aimed[1] if aimed is not None else None
    for field, sheet_field in (("target_enc", "enc"), ("target_ecl", "ecl"),
                               ("opponent_pep", "pep")):
        refuse_typed(roll, f"options.{NAME}.{field}", raw.get(field), aimed, sheet_field)
    # A decision on a roll whose target was removed since (``roll.removed``): nothing is
    # required of it any more — the roll is decided on what is left, without effects on
    # it (its difficulty was set when it was rolled); else it could never be decided.
    needed = target is None and not roll.removed
    settings: dict[str, Any] = {"options": names, "pay": pay,
                                "cost": sum(COSTS[n] for n in names),
                                "zone": raw.get("zone") if isinstance(raw.get("zone"), str)
                                else None,
                                "opponent": opponent if opponent is not None or aimed is None
                                else aimed[0]}
    # « plus de blessures que le score d'ENC de votre victime »: the score.
    settings["target_enc"] = _int(raw, "target_enc", required="assommer" in names
                                  and needed, fallback=target, field_name="enc")
    hold = raw.get("hold", False)
    if not isinstance(hold, bool):
        raise _bad("hold", MUST_BE_BOOL["en"], MUST_BE_BOOL["fr"])
    if hold and names:
        raise _bad("hold", "a hold takes no combat option", "un maintien ne prend pas "
                   "d'option de combat")
    settings["hold"] = hold
    if hold:
        # « un jet d'ENC contre l'ECL de la cible »: a resistance, so its reserve.
        settings["target_ecl"] = _int(raw, "target_ecl", required=needed)
        if settings["target_ecl"] is None and target is not None:
            settings["target_ecl"] = resisting(target, "ECL")
    else:
        # « plus de blessures que le score d'ECL de votre adversaire »: the score.
        settings["target_ecl"] = _int(raw, "target_ecl", required="renverser" in names
                                      and needed, fallback=target, field_name="ecl")
    settings["attacker_pep"] = charge_pep(roll, raw, names)
    if "charger" in names:
        if raw.get("engaged") is True:
            raise _bad("engaged", "a charge needs not to be engaged with the target",
                       "pour charger, il ne faut pas être engagé au corps à corps avec la cible")
        if raw.get("initiative") is not True:
            raise _bad("initiative", "a charge needs the initiative (initiative: true)",
                       "pour charger, il faut avoir l'initiative (initiative: true)")
        if raw.get("room") is not True:
            raise _bad("room", "a charge needs room to run (room: true)",
                       "pour charger, il faut de l'espace pour prendre son élan (room: true)")
    attack = raw.get("attack")
    if attack not in (None, "melee", "ranged"):
        raise _bad("attack", "must be 'melee' or 'ranged'", "doit être 'melee' ou 'ranged'")
    settings["attack"] = attack
    # « Le joueur fait un jet de Peps contre le Peps de l'adversaire »: a resistance.
    settings["opponent_pep"] = _int(raw, "opponent_pep",
                                    required=attack == "melee" and needed)
    if settings["opponent_pep"] is None and attack == "melee" and target is not None:
        settings["opponent_pep"] = resisting(target, "PEP")
    modifiers = raw.get("ranged_modifiers", [])
    if isinstance(modifiers, dict):
        modifiers = list(modifiers.values())
    if not isinstance(modifiers, list) or not all(
            isinstance(m, int) and not isinstance(m, bool) and -10 <= m <= 20
            for m in modifiers):
        raise _bad("ranged_modifiers", "must be a list of integers from -10 to 20",
                   "doit être une liste d'entiers de -10 à 20")
    settings["ranged_modifiers"] = modifiers
    return settings


@hookimpl
@scope(rulesets=("oweens",), option=NAME)  # (exact: read_settings answers None elsewhere)
def sidecar_modify_roll(roll: Roll) -> None:
    settings = read_settings(roll)
    if settings is None:
        return
    if settings["hold"]:
        # Immobiliser, each turn the target struggles: « faites à chaque tour un jet d'ENC
        # contre l'ECL de la cible. Si le jet est raté, la cible se libère. »
        if roll.params.get("characteristic") not in (None, "ENC"):
            raise _bad("hold", "holding a pinned target is an ENC roll",
                       "maintenir une cible immobilisée est un jet d'ENC")
        if roll.params.get("resistance") not in (None, "ECL"):
            raise _bad("hold", "holding a pinned target is against its ECL",
                       "maintenir une cible immobilisée se joue contre son ECL")
        set_difficulty(roll, settings["target_ecl"], "target_ecl", "ecl")
        if opponent_of(roll) is not None:
            # Aimed at the target, its resistance is its ECL (not the ENC rolled): else
            # an ECL reserve at 0 — no difficulty set — was read as its ENC's.
            roll.params["resistance"] = "ECL"
    elif settings["attack"] == "melee":
        set_difficulty(roll, settings["opponent_pep"], "opponent_pep", "pep")
    elif settings["attack"] == "ranged":
        # « si plusieurs modificateurs sont applicables, on ne prend en compte que le plus
        # handicapant »: the single most handicapping one, even when all are favourable.
        modifiers = settings["ranged_modifiers"]
        worst = max(modifiers) if modifiers else 0
        set_difficulty(roll, max(0, RANGED_DIFFICULTY + worst), None, None)
    if settings["pay"] == "dice" and settings["cost"]:
        # A character's dice come from its sheet (the chosen characteristic's reserve). The
        # cost comes off the dice thrown, the bagage's die included.
        dice = base_dice(roll.params, roll.sheet)
        thrown = dice + (1 if roll.params.get("bagage") else 0)
        if dice == 0 or thrown - settings["cost"] < 1:
            # What is missing, said as such: the cost plus one die still to throw.
            cost, has = settings["cost"], dice_words(thrown)
            need = dice_words(cost + 1)
            raise _bad("pay", f"not enough dice to pay {cost}: it takes {need[1]} ({cost} "
                       f"to pay, 1 to throw), this roll has {has[1]}; pay in bonbonus",
                       f"pas assez de dés pour payer {cost} : il en faut {need[0]} ({cost} "
                       f"à payer, 1 à lancer), ce jet en a {has[0]} ; payez en bonbonus")
        # (A characteristic the options leave at 0 dice still throws its bagage's die:
        # the ruleset knows from ``paid_dice`` that it was not at 0 to begin with.)
        roll.params["dice"] = dice - settings["cost"]


EFFECTS = {
    "viser": ("zone visée touchée{zone}", "aimed zone hit{zone}"),
    "pousser": ("l'adversaire recule de quelques mètres",
                "the opponent is pushed back a few metres"),
    "surprendre": ("initiative prise ; l'adversaire ne peut la reprendre ni ce tour ni le "
                   "suivant", "initiative taken; the opponent cannot retake it this turn or "
                   "the next"),
    "immobiliser": ("adversaire immobilisé ; s'il se débat, jet d'ENC contre son ECL à "
                    "chaque tour, raté il se libère", "opponent pinned; if it struggles, an "
                    "ENC roll against its ECL each turn, failure frees it"),
    "desarmer": ("l'arme de l'adversaire lui échappe des mains",
                 "the opponent's weapon drops"),
    "charger": ("charge : +{pep} blessures (PEP)", "charge: +{pep} wounds (PEP)"),
}


def paid_dice(roll: Roll) -> int:
    """Dice the roll's combat options took (paid in dice), 0 without."""
    settings = read_settings(roll)
    if settings is None or settings["pay"] != "dice" or settings["hold"]:
        return 0
    return settings["cost"]


def counted_wounds(settings: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The wounds an attack deals and counts with its options: ``dealt`` (the MR, + the
    attacker's PEP on a charge), ``counted`` (what the target — or an attacked reserve —
    loses), ``knocked_out``, ``knocked_down``."""
    names = settings["options"]
    hit = result["success"]
    dealt = max(0, result["margin"]) if hit else 0
    if hit and "charger" in names:
        dealt += settings["attacker_pep"]
    # (No threshold: a target removed before the decision — nobody is knocked out.)
    knocked_out = (hit and "assommer" in names and settings["target_enc"] is not None
                   and dealt > settings["target_enc"])
    knocked_down = (hit and "renverser" in names and settings["target_ecl"] is not None
                    and dealt > settings["target_ecl"])
    no_wound = settings.get("hold") or knocked_out or any(n in NO_WOUND for n in names)
    counted = 0 if no_wound else (1 if knocked_down else dealt)
    return {"dealt": dealt, "counted": counted, "no_wound": no_wound,
            "knocked_out": knocked_out, "knocked_down": knocked_down}


def attacks(roll: Roll, settings: dict[str, Any]) -> bool:
    """Whether the combat roll attacks someone — an attack type, an option, a target or a
    named opponent — and so counts wounds. Seed 000's wounds are « les blessures de votre
    adversaire »: the extension turned on with nothing it attacks (``combat=oui`` alone, a
    difficulty typed or none) wounds no one, and its line says no « blessures 3 »."""
    return bool(settings["attack"] or settings["options"] or settings["opponent"]
                or opponent_of(roll) is not None)


@hookimpl
@scope(rulesets=("oweens",), option=NAME)  # (exact: read_settings answers None elsewhere)
def sidecar_max_spend(roll: Roll, choice: str | None) -> dict[str, int] | None:
    """The options paid in bonbonus, declared before the dice: the host refuses the roll
    then when the wallet lacks them with what the ruleset declares (augmentations
    bought), never once the dice are seen. A decision after the dice pays nothing here."""
    settings = read_settings(roll)
    if (choice is not None or settings is None or settings["hold"]
            or settings["pay"] != "bonbonus" or not settings["cost"]):
        return None
    return {"bonbonus": settings["cost"]}


@hookimpl
@scope(rulesets=("oweens",), option=NAME)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    settings = read_settings(roll)
    if settings is None:
        return
    result = outcome.result
    hit = result["success"]
    effects: list[dict[str, str]] = []
    names = settings["options"]
    if settings["hold"]:
        result["wounds"] = 0
        held = bool(hit)
        effect = ({"fr": "la cible reste immobilisée", "en": "the target stays pinned"}
                  if held else {"fr": "la cible se libère", "en": "the target breaks free"})
        result["combat"] = {"options": names, "pay": settings["pay"], "cost": 0,
                            "effects": [effect], "no_wound": True, "hold": True,
                            "held": held, "zone": None, "aimed": False, "wounds_dealt": 0,
                            "knocked_out": False, "knocked_down": False}
        # (The difficulty the dice were judged against: what the note says is the roll's.)
        against = roll.params.get("difficulty", settings["target_ecl"])
        outcome.notes.append(label(f"Immobilisation (jet d'ENC contre ECL {against}) : "
                                   f"{effect['fr']}.", f"Pin (ENC roll against ECL "
                                   f"{against}): {effect['en']}."))
        return
    zone = f" ({settings['zone']})" if settings["zone"] else ""
    wounding = counted_wounds(settings, result)
    wounds, knocked_out = wounding["dealt"], wounding["knocked_out"]
    knocked_down = wounding["knocked_down"]
    for name in names:
        if not hit:
            continue  # a missed attack: one wording for every option, « sans effet » below
        if name == "assommer":
            effects.append({"fr": "assommé : inconscient jusqu'à la fin de la scène ou des "
                                  "soins, aucune blessure comptée" if knocked_out
                                  else "pas assommé (blessures ≤ ENC)",
                            "en": "knocked out until the end of the scene or care, no "
                                  "wound counted" if knocked_out
                                  else "not knocked out (wounds ≤ ENC)"})
        elif name == "renverser":
            effects.append({"fr": "adversaire à terre, une seule blessure comptée"
                                  if knocked_down else "pas renversé (blessures ≤ ECL)",
                            "en": "opponent knocked down, only 1 wound counted"
                                  if knocked_down else "not knocked down (wounds ≤ ECL)"})
        else:
            fr, en = EFFECTS[name]
            effects.append({"fr": fr.format(zone=zone, pep=settings["attacker_pep"]),
                            "en": en.format(zone=zone, pep=settings["attacker_pep"])})
    no_wound, counted = wounding["no_wound"], wounding["counted"]
    if attacks(roll, settings):
        result["wounds"] = counted
    result["combat"] = {"options": names, "pay": settings["pay"], "cost": settings["cost"],
                        "effects": effects, "no_wound": no_wound, "zone": settings["zone"],
                        "aimed": "viser" in names, "wounds_dealt": wounds,
                        "knocked_out": knocked_out, "knocked_down": knocked_down}
    if settings["pay"] == "bonbonus":
        result["bonbonus_spent"] = result.get("bonbonus_spent", 0) + settings["cost"]
        # The player's choice: never reduced to the wallet (declared before the dice,
        # sidecar_max_spend); paid once, with the roll (a decision taken after the dice,
        # ``decided``, does not pay it again).
        if roll.sheet is not None and not result.get("decided"):
            add_spend(outcome.spend, "bonbonus", settings["cost"])
    fewer, fewer_en = dice_words(settings["cost"])
    paid = (f"{fewer} en moins" if settings["pay"] == "dice"
            else f"{settings['cost']} BB+")
    paid_en = (fewer_en.replace(" ", " fewer ", 1) if settings["pay"] == "dice"
               else f"{settings['cost']} BB+")
    if names:
        outcome.notes.append(label(
            f"Options de combat ({', '.join(names)} ; coût : {paid}) : "
            + ("; ".join(e["fr"] for e in effects) or "sans effet (attaque ratée)")
            + f". Blessures comptées : {counted}.",
            f"Combat options ({', '.join(_option_en(name) for name in names)}; "
            f"cost: {paid_en}): "
            + ("; ".join(e["en"] for e in effects) or "no effect (missed attack)")
            + f". Wounds counted: {counted}."))


def _option_en(name: str) -> str:
    """An option's English name for an English note (« Aim », not « viser »)."""
    named = OPTION_LABELS.get(name)
    return named["en"].lower() if isinstance(named, dict) and named.get("en") else name
