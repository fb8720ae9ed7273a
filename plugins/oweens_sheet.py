"""O'Ween's character: its sheet, the dice a roll takes from it, what a roll spends.

The sheet (:data:`SHEET`) holds the four characteristics, a reserve per characteristic
(kept as its gap to the characteristic: 0 is a full reserve, so a rest refills it), the
bonbonus wallet, bagages, wounds, and the binge's glasses and manifested effect. Rolled
as a character, a roll takes its dice from the chosen characteristic's reserve
(:func:`dice_count`) and spends what the rules spend (:func:`spends`).
"""

from __future__ import annotations

from typing import Any

from sidecar.protocol.errors import ProtocolError, invalid_param
from sidecar.rules import elide
from sidecar.rulesets.sheets import add_spend, counter, field, required_without_sheet

#: Characteristic → (sheet field, French name, English name).
CHARACTERISTICS = {"PEP": ("pep", "Peps", "Peps"), "ECL": ("ecl", "Éclate", "Burst"),
                   "ENC": ("enc", "Encaisse", "Endurance"), "FLA": ("fla", "Flair", "Flair")}
MAX_SCORE = 10


def _sheet() -> dict[str, dict[str, Any]]:
    sheet: dict[str, dict[str, Any]] = {}
    for short, (name, fr, en) in CHARACTERISTICS.items():
        sheet[name] = counter(f"{fr} ({short})", f"{en} ({short})",
                              f"Score {elide('de', fr)} : les dés d'une action", f"{en} score: an "
                              "action's dice", default=2, high=MAX_SCORE, resource=False)
    for short, (name, fr, en) in CHARACTERISTICS.items():
        sheet[f"reserve_{name}"] = counter(
            # (The label names it; the description explains the gap a request sends: the
            # page and the CLI show what is left, « 2 / 3 », and so do the server's errors.)
            f"Réserve {short}", f"{short} reserve",
            f"Réserve {elide('de', fr)}, comptée depuis le score : 0 = pleine, −2 = deux points "
            "perdus ; les dés d'une action sont le score plus cette valeur ; un repos la "
            "remet à 0", f"{en} reserve, counted from the score: 0 = full, −2 = two points "
            "lost; an action's dice are the score plus this value; a rest sets it back to 0",
            default=0, low=-MAX_SCORE, high=0, refill="rest")
    sheet["bonbonus"] = counter(
        "Bonbonus (BB+)", "Bonbonus (BB+)", "Portefeuille de bonbonus : augmentations "
        "achetées, réserve préservée, options de combat, initiative",
        "Bonbonus wallet: bought augmentations, reserve kept, combat options, initiative",
        default=0, high=99)
    # (A bagage is what the character knows from its past — « marin-pêcheur »: in English,
    # a background.)
    sheet["bagages"] = field("list", "Bagages", "Backgrounds", "Bagages du personnage (un "
                             "bagage adéquat : +1 dé, augmentations à 1 BB+)", "The "
                             "character's backgrounds (a relevant one: +1 die, augmentations "
                             "at 1 BB+)", default=[], max_items=20)
    sheet["verres"] = counter(
        "Verres", "Glasses", "Se pinter : verres de la beuverie en cours (la difficulté du "
        "prochain est ce nombre + 1 ; chaque heure sans boire en retire un)", "Drinking: "
        "glasses of the current binge (the next one's difficulty is this + 1; each hour "
        "without a drink takes one off)", default=0, high=30, refill="rest")
    sheet["effet_manifeste"] = counter(
        "Effet manifesté", "Effect manifested", "Se pinter : 1 quand un effet (Honte, "
        "Fierté) est manifesté ; une Bourde alors est le coma éthylique", "Drinking: 1 while "
        "an effect (Shame, Pride) is manifested; a Blunder then is an alcoholic coma",
        default=0, high=1, refill="rest")
    sheet["blessures"] = counter("Blessures", "Wounds", "Blessures reçues",
                                 "Wounds taken", default=0, high=99, resource=False)
    return sheet


#: The character sheet of O'Ween's (RULES.md §1; seed 000).
SHEET = _sheet()


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
    if dice + paid == 0 and params.get("dice") is None and sheet is not None:
        raise _spent(params["characteristic"], sheet)
    if dice + paid == 0:
        raise invalid_param("dice", "a characteristic or reserve at 0 can no longer be used",
                            fr="une caractéristique ou réserve à 0 ne peut plus être utilisée")
    return dice + (1 if params["bagage"] else 0)


def _spent(characteristic: str, sheet: dict[str, Any]) -> ProtocolError:
    """The refusal of a characteristic at 0, or of its empty reserve, named by its label
    (« Éclate (ECL) »: a key such as 'dice' says nothing to a player, issue 29)."""
    name, fr, en = CHARACTERISTICS[characteristic]
    details = {"param": "characteristic"}
    if sheet.get(name, 0) <= 0:
        return ProtocolError(
            "invalid_params", f"{en} ({characteristic}) is at 0: a characteristic at 0 can "
            "no longer be used", fr=f"{fr} ({characteristic}) est à 0 : une caractéristique "
            "à 0 ne peut plus être utilisée", details=details)
    return ProtocolError(
        "invalid_params", f"The {en} ({characteristic}) reserve is at 0: it can no longer be "
        "used until a rest", fr=f"La réserve {elide('de', fr)} ({characteristic}) est à 0 : "
        "elle ne peut plus être utilisée avant un repos", details=details)


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
