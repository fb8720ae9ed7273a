"""O'Ween's judging: what rolled d6 make against a difficulty.

Each d6 counts 0, 1 or 2 successes (:func:`die_successes`); augmentations raise faces
where they gain most (:func:`place_augmentations`, and its closed form :func:`best_gain`);
:func:`judge` says Bourde, failure, narrow success, success or Coup d'éclat, with the
margin and what was bought. Drinking (« se pinter ») judges a glass: its difficulty
(:func:`drinking_difficulty`) and what it did (:func:`drinking_state`).
"""

from __future__ import annotations

from typing import Any

from sidecar.rules import common


def die_successes(face: int) -> int:
    """Successes of one d6: 1–3 → 0, 4–5 → 1, 6 → 2."""
    return 0 if face <= 3 else (1 if face <= 5 else 2)


#: :func:`die_successes` of each face 0…6, as a table (a roll counts faces by the dozen).
SUCCESSES = tuple(die_successes(face) for face in range(7))
_count = SUCCESSES.__getitem__


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
        result = common(False, successes - target, "botch", "Bourde", "Blunder",
                        **fields)
    elif successes > target:
        margin = successes - target + equipment
        if coup:
            result = common(True, margin, "critical", "Coup d'éclat", "Coup d'éclat (critical)",
                            **fields)
        else:
            result = common(True, margin, "success", "Réussite", "Success", **fields)
    elif successes == target:
        # « En cas de réussite, si le personnage utilise un matériel adéquat la MR est
        # augmentée »: a narrow success is a success too (Brady's narrow roll with the
        # seed's palmes: MR 1). It stays narrow (S = D), its consequences with it.
        result = common(True, equipment, "narrow", "Réussite de justesse", "Narrow success",
                        **fields)
    else:
        result = common(False, successes - target, "failure", "Échec", "Failure", **fields)
    if reserve is not None:
        result["reserve_after"] = max(0, reserve - result["margin"]) if result["success"] \
            else reserve
    return result


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


def sober_coma(params: dict[str, Any], sheet: dict[str, Any] | None,
               result: dict[str, Any]) -> bool:
    """Whether a roll that is not a glass is the alcoholic coma: « Si le personnage fait
    une bourde alors qu'un effet est manifesté, quel que soit le jet, c'est le coma
    éthylique » — a Bourde while the sheet (or, without a character, the request's
    ``manifested``) says an effect is manifested. (A glass judges it with its own
    state, :func:`drinking_state`: its hours dry, its emotion bonbonus.)"""
    return bool(result["bourde"] and (params.get("manifested")
                                      or (sheet or {}).get("effet_manifeste")))
