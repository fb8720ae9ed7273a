"""Points faibles des boss : armure, points faibles nommés, attaques visées.

Boss weak points for any vtt-sidecar ruleset whose outcome carries a margin (RULES.md,
O'Ween's, "Boss weak points"). Settings per roll in ``options.boss``:
``{"armor": 2, "weak_points": {"oeil": 3}, "aim": "oeil"}``.
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import invalid_param

__version__ = "1.0.0"

NAME = "boss"


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
    return {"armor": armor, "weak_points": weak_points, "aim": aim}


@hookimpl
def sidecar_modify_roll(roll: Roll) -> None:
    # Only checks the settings, before any die is drawn.
    read_settings(roll.options)


def aimed_zone(settings: dict[str, Any], result: dict[str, Any]) -> str | None:
    """Where the attack aimed: the boss setting, else the combat extension's Viser zone."""
    if settings["aim"]:
        return settings["aim"]
    combat = result.get("combat")
    if isinstance(combat, dict) and combat.get("aimed"):
        return combat.get("zone")
    return None


@hookimpl(trylast=True)
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    settings = read_settings(roll.options)
    if settings is None:
        return
    result = outcome.result
    combat = result.get("combat")
    if isinstance(combat, dict) and combat.get("no_wound"):
        outcome.notes.append("Boss : l'option de combat ne compte aucune blessure. / "
                             "Boss: the combat option counts no wound.")
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
        note = (f"Point faible « {zone} » touché : armure ignorée, +{settings['weak_points'][zone]}"
                + (", coup d'éclat : ×2" if result["kind"] == "critical" else "")
                + f" → {wounds} blessure(s).")
    else:
        wounds = max(0, before - settings["armor"])
        note = f"Armure du boss {settings['armor']} : {before} → {wounds} blessure(s)."
    result["wounds"] = wounds
    result["boss"] = {"armor": settings["armor"], "weak_point": zone,
                      "hit_weak_point": on_weak_point, "wounds_before": before}
    outcome.notes.append(note)
