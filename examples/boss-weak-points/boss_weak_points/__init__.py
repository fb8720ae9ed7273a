"""Points faibles des boss : armure, points faibles / boss weak points: armour, weak points.

Boss weak points for any vtt-sidecar ruleset whose outcome carries a margin (O'Ween's
seed game 000, "point faible pour les boss"). Settings per roll in ``options.boss``:
``{"armor": 2, "weak_points": {"oeil": 3}, "aim": "oeil"}``.

A boss may also keep its armour and weak points on its character sheet (``armure``,
``points_faibles``: fields this plugin adds to the built-in rulesets' sheets). An attack
aimed at it (``roll.targets``, a server with targets) reads them there and puts the
wounds on its sheet (``outcome.effects``). A roll made
*as the boss* with ``options.boss`` that gives neither ``armor`` nor ``weak_points`` is the
boss's side of an opposed exchange: when it fails, the opponent's margin is the wounds the
boss takes — its sheet's armour and weak points apply — and they go on its sheet.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import invalid_param

__version__ = "1.0.0"

NAME = "boss"

#: The rulesets whose sheets get the boss's fields, and where each counts wounds taken:
#: (field, +1 when wounds add to it, −1 when they take from it).
WOUND_FIELDS: dict[str, tuple[str, int] | None] = {
    "oweens": ("blessures", +1), "ladder": ("pv", -1), "bloodlust": None, "d6code": None,
    "seuil": None}

SHEET_FIELDS: dict[str, dict[str, Any]] = {
    "armure": {
        "type": "int", "min": 0, "max": 100, "default": 0,
        "label": {"fr": "Armure (boss)", "en": "Armour (boss)"},
        "description": {"fr": "Armure du boss : retirée des blessures qu'il reçoit, sauf "
                              "sur un point faible visé",
                        "en": "The boss's armour: taken off the wounds it receives, except "
                              "on an aimed weak point"},
    },
    "points_faibles": {
        "type": "map", "values": "int", "default": {}, "max_items": 20,
        "item": {"min": 0, "max": 100},
        "label": {"fr": "Points faibles (boss)", "en": "Weak points (boss)"},
        "description": {"fr": "Points faibles du boss et leur bonus aux blessures",
                        "en": "The boss's weak points and their bonus to wounds"},
    },
}


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    """Armour and weak points on the sheets of the rulesets this plugin knows."""
    return SHEET_FIELDS if ruleset in WOUND_FIELDS else None


#: What ``options.boss`` may hold (see ``sidecar_options`` in sidecar.hookspecs).
OPTIONS: dict[str, Any] = {
    "label": {"fr": "Boss : armure et points faibles", "en": "Boss: armour and weak points"},
    "description": {"fr": "Une attaque contre un boss (ou le boss qui encaisse)",
                    "en": "An attack on a boss (or the boss taking it)"},
    "rulesets": None,  # every ruleset: wounds come from the common margin
    "params": {
        "armor": {"type": "int", "min": 0, "max": 100,
                  "label": {"fr": "Armure du boss", "en": "Boss's armour"},
                  "description": {"fr": "Retirée des blessures, sauf sur un point faible visé",
                                  "en": "Taken off the wounds, except on an aimed weak "
                                        "point"}},
        "weak_points": {"type": "map", "values": "int", "max_items": 20,
                        "item": {"min": 0, "max": 100},
                        "label": {"fr": "Points faibles", "en": "Weak points"},
                        "description": {"fr": "Nom → bonus aux blessures",
                                        "en": "Name → bonus to the wounds"}},
        "aim": {"type": "string", "max_length": 64,
                "label": {"fr": "Point faible visé", "en": "Aimed weak point"},
                "description": {"fr": "Où l'attaque vise (sinon la zone de Viser)",
                                "en": "Where the attack aims (else Aim's zone)"}},
        "critical": {"type": "bool", "default": False,
                     "label": {"fr": "Coup critique de l'adversaire",
                               "en": "Opponent's critical"},
                     "description": {"fr": "Le boss encaisse : l'attaque était un critique",
                                     "en": "The boss takes it: the attack was a critical"}},
    },
}


@hookimpl
def sidecar_options() -> dict[str, Any]:
    """The boss settings, described for the server's checks and the clients' forms."""
    return OPTIONS


def _bad(field: str, en: str, fr: str) -> Exception:
    return invalid_param(f"options.{NAME}.{field}", en, fr=fr)


def read_settings(options: dict[str, Any]) -> dict[str, Any] | None:
    """The validated boss settings of a roll, or None when it is not against a boss."""
    raw = options.get(NAME)
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _bad("", "must be a map", "doit être une table (map)")
    armor = raw.get("armor", 0)
    if isinstance(armor, bool) or not isinstance(armor, int) or not 0 <= armor <= 100:
        raise _bad("armor", "must be an integer from 0 to 100",
                   "doit être un entier de 0 à 100")
    weak_points = raw.get("weak_points", {})
    if not isinstance(weak_points, dict) or not all(
            isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 100
            for b in weak_points.values()):
        raise _bad("weak_points", "must map names to bonuses from 0 to 100",
                   "doit associer des noms à des bonus de 0 à 100")
    aim = raw.get("aim")
    if aim is not None and not isinstance(aim, str):
        raise _bad("aim", "must be the name of a weak point",
                   "doit être le nom d'un point faible")
    critical = raw.get("critical", False)
    if not isinstance(critical, bool):
        raise _bad("critical", "must be true or false", "doit être true ou false")
    return {"armor": armor, "weak_points": weak_points, "aim": aim, "critical": critical,
            "given": "armor" in raw or "weak_points" in raw}


def boss_sheet(roll: Roll, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The boss's own armour and weak points when the roll is made as a boss (its sheet
    has them) and the settings do not give the target's: else None."""
    sheet = roll.sheet
    if sheet is None or settings["given"]:
        return None
    armor, weak_points = sheet.get("armure") or 0, sheet.get("points_faibles") or {}
    if not armor and not weak_points:
        return None
    return {**settings, "armor": armor, "weak_points": weak_points}


#: The settings a boss's sheet holds, and its field for each.
SHEET_OF = {"armor": "armure", "weak_points": "points_faibles"}


def typed_by_gm(roll: Roll) -> bool:
    """A GM's roll, or an answer to a GM's ask (``roll.asked``, on servers that have it):
    its settings are the GM's."""
    return (roll.by or {}).get("role") == "gm" or bool(getattr(roll, "asked", False))


def refuse_players_settings(roll: Roll) -> None:
    """A player may not type the armour or weak points of a target whose sheet holds them
    (an invented weak point would kill any boss): refused before the dice, naming no value
    of the sheet. A GM's typed settings still win (a boss without a sheet, the GM's call)."""
    raw = roll.options.get(NAME)
    if not isinstance(raw, dict) or typed_by_gm(roll):
        return
    for setting, field in SHEET_OF.items():
        if setting not in raw:
            continue
        for name, target in (getattr(roll, "targets", None) or {}).items():
            if isinstance(target, dict) and field in (target.get("values") or {}):
                name = name[:64]
                de = "d'" if name[:1].lower() in "aeiouyéèêàâîôh" else "de "
                raise _bad(setting, f"{name}'s sheet sets this value; only a GM changes it "
                           "(leave it out)", f"la fiche {de}{name} fixe cette valeur ; seul "
                           "un MJ la change (ne l'indiquez pas)")


@hookimpl
def sidecar_modify_roll(roll: Roll) -> None:
    # Only checks the settings, before any die is drawn.
    read_settings(roll.options)
    refuse_players_settings(roll)


def aimed_zone(settings: dict[str, Any], result: dict[str, Any]) -> str | None:
    """Where the attack aimed: the boss setting, else the combat extension's Viser zone."""
    if settings["aim"]:
        return settings["aim"]
    combat = result.get("combat")
    if isinstance(combat, dict) and combat.get("aimed"):
        return combat.get("zone")
    return None


def wounds_taken(settings: dict[str, Any], result: dict[str, Any]) -> tuple[int, bool]:
    """Wounds a boss takes from ``before`` points of the opponent's margin: armour off,
    or on the aimed weak point its bonus on (doubled by a critical)."""
    before = 0 if result["success"] else max(0, -result["margin"])
    zone = settings["aim"]
    if before and zone in settings["weak_points"]:
        wounds = before + settings["weak_points"][zone]
        return (wounds * 2 if settings["critical"] else wounds), True
    return max(0, before - settings["armor"]), False


def take_wounds(roll: Roll, outcome: Outcome, settings: dict[str, Any]) -> None:
    """The roll was the boss's side of an exchange: a failure is the opponent's margin."""
    result = outcome.result
    wounds, on_weak_point = wounds_taken(settings, result)
    before = 0 if result["success"] else max(0, -result["margin"])
    result["boss"] = {"side": "boss", "armor": settings["armor"],
                      "weak_point": settings["aim"], "hit_weak_point": on_weak_point,
                      "wounds_before": before, "wounds_taken": wounds}
    target = WOUND_FIELDS.get(roll.ruleset)
    if wounds and target is not None and roll.sheet is not None:
        name, sign = target
        have = roll.sheet.get(name) or 0
        # Wounds are the rules' doing: a counter stops at its bounds (0 HP, 99 wounds).
        amount = min(wounds, 99 - have) if sign > 0 else min(wounds, have)
        if amount:
            outcome.spend[name] = outcome.spend.get(name, 0) - sign * amount
    # A note in both languages: each member reads one.
    aim = settings["aim"]
    outcome.notes.append({
        "fr": f"Boss : {before} blessure(s) de l'adversaire → {wounds} reçue(s) (armure "
              f"{settings['armor']}" + (f", point faible « {aim} »" if on_weak_point else "")
              + ").",
        "en": f"Boss: {before} wound(s) from the opponent → {wounds} taken (armour "
              f"{settings['armor']}" + (f", weak point '{aim}'" if on_weak_point else "")
              + ")."})


def aimed_boss(roll: Roll) -> tuple[str, str, dict[str, Any]] | None:
    """The boss an attack is aimed at (a server with targets, contract §8): the roll's
    first target whose sheet has armour or weak points, ``(name, ruleset, values)``."""
    for name, target in (getattr(roll, "targets", None) or {}).items():
        values = target.get("values") or {} if isinstance(target, dict) else {}
        if values.get("armure") or values.get("points_faibles"):
            return name, target.get("ruleset", ""), values
    return None


def wound_target(outcome: Outcome, aimed: tuple[str, str, dict[str, Any]],
                 wounds: int) -> None:
    """The wounds the aimed boss takes, on its sheet (``effects``: the server applies
    them in the roll's journal write, each field as far as its bounds allow). They
    replace what the ruleset counted on that field: the armour is the boss's."""
    name, ruleset, _ = aimed
    target = WOUND_FIELDS.get(ruleset)
    if target is None:
        return
    field, sign = target
    effects = dict(outcome.effects.get(name) or {})
    effects.pop(field, None)
    if wounds:
        effects[field] = sign * wounds
    outcome.effects = {**outcome.effects, name: effects}
    if not effects:
        del outcome.effects[name]


@hookimpl(trylast=True)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    settings = read_settings(roll.options)
    aimed = aimed_boss(roll)
    if settings is None and aimed is None:
        return
    if settings is None:
        settings = {"armor": 0, "weak_points": {}, "aim": None, "critical": False,
                    "given": False}
    if aimed is not None and not settings["given"]:
        # Aimed at a boss: its armour and weak points are its sheet's (a GM's typed ones
        # win; a player's are refused before the dice, refuse_players_settings).
        settings = {**settings, "armor": aimed[2].get("armure") or 0,
                    "weak_points": aimed[2].get("points_faibles") or {}}
    own = boss_sheet(roll, settings) if aimed is None else None
    if own is not None:
        take_wounds(roll, outcome, own)
        return
    result = outcome.result
    combat = result.get("combat")
    if isinstance(combat, dict) and combat.get("no_wound"):
        # A note in both languages: each member reads one (a plain string reads the same).
        outcome.notes.append({"fr": "Boss : l'option de combat ne compte aucune blessure.",
                              "en": "Boss: the combat option counts no wound."})
        return
    if isinstance(result.get("wounds"), int):
        before = result["wounds"]
    else:
        before = max(0, result["margin"]) if result["success"] else 0
    zone = aimed_zone(settings, result)
    on_weak_point = bool(result["success"] and zone in settings["weak_points"])
    if on_weak_point:
        wounds = before + settings["weak_points"][zone]
        if result["kind"] == "critical":
            wounds *= 2
        bonus, critical = settings["weak_points"][zone], result["kind"] == "critical"
        note = {"fr": f"Point faible « {zone} » touché : armure ignorée, +{bonus}"
                      + (", coup d'éclat : ×2" if critical else "")
                      + f" → {wounds} blessure(s).",
                "en": f"Weak point '{zone}' hit: armour ignored, +{bonus}"
                      + (", critical hit: ×2" if critical else "") + f" → {wounds} wound(s)."}
    else:
        wounds = max(0, before - settings["armor"])
        note = {"fr": f"Armure du boss {settings['armor']} : {before} → {wounds} blessure(s).",
                "en": f"Boss armour {settings['armor']}: {before} → {wounds} wound(s)."}
    result["wounds"] = wounds
    result["boss"] = {"armor": settings["armor"], "weak_point": zone,
                      "hit_weak_point": on_weak_point, "wounds_before": before}
    outcome.notes.append(note)
    if aimed is not None and result["success"] and not outcome.choices:
        wound_target(outcome, aimed, wounds)
