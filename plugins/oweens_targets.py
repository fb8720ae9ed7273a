"""O'Ween's with other characters: what a roll aimed at a target reads of its sheet,
what the dice do to it (contract §8), and what collaborators give (seed 000, quoted in
docs/RULESETS.md).

- The opponent is the roll's first target played by O'Ween's (:func:`opponent`).
- A characteristic resisting an action is its reserve (« Lors d'une action, la valeur de
  la réserve remplace la caractéristique »): :func:`resisting`. A threshold the seed
  calls a score (« le score d'ENC de votre victime ») is the score.
- An action against a character is played against its resistance (« La caractéristique
  de résistance : c'est la caractéristique de l'adversaire qui entre en résistance, et
  qui servira de difficulté à l'action »): :func:`aim_difficulty`; a complex action
  (``contest``) drains its reserve (« Si le jet est réussie, la MR détermine combien de
  points sont retranchés à la réserve attaquée »): :func:`target_effects`.
- A blow's counted wounds go on the target's ``blessures`` (:func:`target_effects`).
- « chaque participant gagne une augmentation par collaborateur »: ``collaborators``
  (counted by a cooperative ask) are free augmentations (:func:`free_augmentations`).

A value typed by a GM in ``params``/``options`` still wins over the target's (an NPC
without a sheet, the GM's call); the target's wounds and drained reserve still land. A
player's typed value that would replace one the target's sheet holds is refused before
the dice (:func:`refuse_typed`): a player does not rewrite another character's sheet.
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Roll, sheet_override_allowed, typed_by_gm
from sidecar.protocol.errors import invalid_param
from sidecar.protocol.text import elide
from sidecar.rulesets.oweens_sheet import CHARACTERISTICS, reserve_now


def refuse_typed(roll: Roll, param: str, typed: Any, found: tuple[str, dict[str, Any]] | None,
                 field: str) -> None:
    """``invalid_params`` on ``param`` when a player typed a value (``typed`` not None) that
    would replace the ``field`` the opponent's sheet holds (``found``: :func:`opponent`'s).
    A GM's typed value wins (:func:`sidecar.model.typed_by_gm`). Names no value of the
    sheet: the roller may not see it."""
    if typed is None or found is None or field not in found[1] or typed_by_gm(roll):
        return
    name = found[0][:64]
    raise invalid_param(param, f"{name}'s sheet sets this value; only a GM changes it (leave "
                        "it out)", fr=f"la fiche {elide('de', name)} fixe cette valeur ; "
                        "seul un MJ la change (ne l'indiquez pas)")


def set_difficulty(roll: Roll, value: int | None, option: str | None,
                   field: str | None) -> None:
    """Set the difficulty a combat attack gives (a melee's opponent's Peps, a ranged
    attack's table, a hold's target's ECL): ``value``, read from the opponent's sheet's
    ``field`` unless ``options.combat.<option>`` was typed. A difficulty typed other than 0
    (the default) and other than ``value`` is never silently replaced: a GM's wins (an
    NPC, the GM's call); a player's is refused before any die — as the opponent's sheet's
    (:func:`refuse_typed`, which names no value of it) when the sheet gives ``value``,
    else as contradicting what the attack sets. An equal value passes."""
    p = roll.params
    typed = p.get("difficulty")
    if value is None or not typed or typed == value:
        p["difficulty"] = value
        return
    if sheet_override_allowed(roll):
        return  # (the GM's typed difficulty, or a journal's: its word)
    found = opponent(roll)
    combat = roll.options.get("combat")
    if (found is not None and field is not None and option is not None
            and isinstance(combat, dict) and combat.get(option) is None):
        refuse_typed(roll, "difficulty", typed, found, field)
        p["difficulty"] = typed  # (a sheet that holds no such value: typed, as before)
        return
    raise invalid_param("difficulty", f"the attack sets it ({value}): leave it out or type "
                        f"{value}", fr=f"l'attaque la fixe ({value}) : ne l'indiquez pas ou "
                        f"indiquez {value}")


def free_augmentations(params: dict[str, Any]) -> int:
    """The roll's free augmentations: those given (GM, situation) and one per
    collaborator (« chaque participant gagne une augmentation par collaborateur »)."""
    return params["augmentations"] + (params.get("collaborators") or 0)


def opponent(roll: Roll) -> tuple[str, dict[str, Any]] | None:
    """The roll's opponent: its first target played by O'Ween's, ``(name, values)`` (a
    cooperative ask's collaborators are never targets, PROTOCOL.md §8)."""
    for name, target in (roll.targets or {}).items():
        if isinstance(target, dict) and target.get("ruleset") == "oweens":
            return name, target.get("values") or {}
    return None


def resisting(values: dict[str, Any], characteristic: str) -> int:
    """A characteristic resisting an action: its reserve's current value."""
    return reserve_now(values, characteristic)


def resistance(params: dict[str, Any]) -> str | None:
    """The target's characteristic a complex action attacks: ``resistance``, else the
    one the roller acts with (« Peps contre le Peps »)."""
    return params.get("resistance") or params.get("characteristic")


def aimed_contest(roll: Roll) -> tuple[str, dict[str, Any], str] | None:
    """A complex action against a character: ``(name, values, resistance)`` when the roll
    is a ``contest`` aimed at an O'Ween's target, with a resistance known and no attacked
    reserve typed (``reserve``/``adversity`` still win), else None."""
    p = roll.params
    if not p.get("contest") or p.get("reserve") is not None or p.get("adversity"):
        return None
    found = opponent(roll)
    characteristic = resistance(p)
    if found is None or characteristic not in CHARACTERISTICS:
        return None
    return found[0], found[1], characteristic


def aim_difficulty(roll: Roll) -> None:
    """The difficulty of an action against a character (« Celle-ci est déterminée par
    les caractéristiques de l'adversaire »; « La caractéristique de résistance … servira
    de difficulté à l'action »): its resistance's reserve — unless a difficulty was typed
    (D 0, the default, is an action with nothing against it: the seed's « réussit
    automatiquement », never typed for an opponent) or the roll is a glass."""
    p = roll.params
    if p.get("drinking"):
        return
    found = opponent(roll)
    characteristic = resistance(p)
    if found is None or characteristic not in CHARACTERISTICS:
        return
    if p.get("difficulty"):
        if not set_by_combat(roll):  # (typed: a player's is refused)
            refuse_typed(roll, "difficulty", p["difficulty"], found,
                         CHARACTERISTICS[characteristic][0])
        return
    p["difficulty"] = resisting(found[1], characteristic)


def set_by_combat(roll: Roll) -> bool:
    """Whether the combat extension set the difficulty (a melee from the opponent's Peps
    read by it, a ranged attack's table, a hold): then it was not typed."""
    combat = roll.options.get("combat")
    return isinstance(combat, dict) and bool(combat.get("hold") or combat.get("attack"))


def target_effects(roll: Roll, result: dict[str, Any],
                   counted: int | None) -> dict[str, dict[str, int]]:
    """What a hit does to the roll's opponent: ``counted`` wounds (a blow's, None when
    the roll is no blow) on its ``blessures``, and, in a complex action against it, the
    MR (the wounds counted, for a blow) off its resistance's reserve, as far as that
    reserve holds at the roll's turn. Notes them in ``result`` (what was done, not the
    target's values: the roller learns nothing more of its sheet)."""
    found = opponent(roll)
    if found is None or not result["success"]:
        return {}
    name, values = found
    effects: dict[str, int] = {}
    if counted:
        effects["blessures"] = counted
    aimed = aimed_contest(roll)
    if aimed is not None:
        lost = min(counted if counted is not None else max(0, result["margin"]),
                   resisting(values, aimed[2]))
        if lost > 0:
            effects[f"reserve_{CHARACTERISTICS[aimed[2]][0]}"] = -lost
            result["target_reserve"] = {"character": name, "characteristic": aimed[2],
                                        "lost": lost}
    return {name: effects} if effects else {}


def difficulty_source(roll: Roll, difficulty: int, fr: bool) -> str:
    """Whose value the difficulty is, for the roll's line: `` (Peps d'Aengus)`` /
    `` (Aengus's Peps)`` when it is its opponent's resisting characteristic (« Celle-ci
    est déterminée par les caractéristiques de l'adversaire »: an opposed ask's sides read
    each other so — a GM's typed 0 is the default, not a value over it), else ``""``
    (a typed difficulty, a glass, a combat's)."""
    p = roll.params
    found = opponent(roll)
    melee = melee_source(roll, found, difficulty, fr)
    if melee is not None:
        return melee
    characteristic = resistance(p)
    if (found is None or p.get("drinking") or set_by_combat(roll)
            or characteristic not in CHARACTERISTICS):
        return ""
    if difficulty - (1 if p.get("npc_bagage") else 0) != resisting(found[1], characteristic):
        return ""
    name, (_, french, english) = found[0], CHARACTERISTICS[characteristic]
    return f" ({french} {elide('de', name)})" if fr else f" ({name}'s {english})"


def melee_source(roll: Roll, found: tuple[str, dict[str, Any]] | None, difficulty: int,
                 fr: bool) -> str | None:
    """A melee attack's difficulty source, said as an opposed roll's (« Le joueur fait un
    jet de Peps contre le Peps de l'adversaire »): `` (Peps de Garde)`` read from the
    target's sheet, `` (Peps de l'adversaire)`` typed as ``opponent_pep``, ``""`` when a
    GM's typed difficulty replaced it; None when the roll is no melee attack."""
    combat = roll.options.get("combat")
    if not isinstance(combat, dict) or combat.get("attack") != "melee" or combat.get("hold"):
        return None
    pep = difficulty - (1 if roll.params.get("npc_bagage") else 0)
    typed = combat.get("opponent_pep")
    if typed is not None and typed_value(typed) == pep:
        return " (Peps de l'adversaire)" if fr else " (the opponent's Peps)"
    if typed is None and found is not None and resisting(found[1], "PEP") == pep:
        return f" (Peps {elide('de', found[0])})" if fr else f" ({found[0]}'s Peps)"
    return ""


def typed_value(value: Any) -> int | None:
    """A typed integer option (an int, not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
