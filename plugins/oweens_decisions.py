"""O'Ween's outcome of a roll, and the decisions after its dice.

:func:`settle` makes the outcome of rolled faces: judged (``oweens_judging``), the attacked
reserve moved (named adversities kept in the table's state), the combat options' wounds
and Surprendre's lock, a glass's effects, what the sheet spends. When the player may
still change the roll once the dice are seen, the outcome is left open with its choices
(the protocol's decisions): augmentations bought after the dice (:func:`purchase_offers`),
reserve points kept after a lost contest (:func:`reserve_offers`), the characteristic an
alcoholic coma takes. :func:`decide` applies the choice made; a purchase settles the same
faces again, through the same code as the roll itself.
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Outcome, Roll, label, sheet_override_allowed
from sidecar.protocol.errors import ProtocolError, invalid_param
from sidecar.rules import agree, plural
from sidecar.rulesets.oweens_combat import counted_wounds, read_settings
from sidecar.rulesets.oweens_initiative import surprise
from sidecar.rulesets.oweens_judging import (
    SUCCESSES,
    best_gain,
    drinking_state,
    judge,
    sober_coma,
)
from sidecar.rulesets.oweens_sheet import CHARACTERISTICS, spends
from sidecar.rulesets.oweens_targets import aimed_contest, free_augmentations, target_effects
from sidecar.rulesets.oweens_words import (
    english,
    failure_margin,
    lost_points,
    success_margin,
    successes,
)
from sidecar.rulesets.sheets import add_spend

#: Named attacked reserves a table keeps (the least recently rolled against are dropped).
MAX_ADVERSITIES = 50
#: Purchases offered after the dice: at most this many (one per success a purchase adds).
MAX_PURCHASES = 11

_count = SUCCESSES.__getitem__


#: The ``reserve`` param's label (:mod:`sidecar.rulesets.oweens` names it with this).
RESERVE = label("Réserve attaquée", "Attacked reserve")


def refuse_players_reserve(roll: Roll) -> None:
    """``forbidden`` (``details.field``: ``reserve``) before any die when a player typed
    the attacked reserve: it is the GM's obstacle — « Si l'adversité dépend de
    l'environnement, le MJ détermine la valeur de la réserve » (seed 000) —, and with
    ``adversity`` it would (re)start the one the table keeps. A GM's, an answer to a GM's
    ask (its params are the GM's) or a journal's passes (:func:`sheet_override_allowed`);
    a player's roll with only ``adversity`` goes on from the kept value. (A roll made in
    process, by no member of a table — the plugin kit's —, has nobody to refuse.)"""
    if (roll.params.get("reserve") is None or roll.by.get("role") != "player"
            or sheet_override_allowed(roll)):
        return
    raise ProtocolError(
        "forbidden", f"\"{RESERVE['en']}\" ('reserve'): only the GM sets the attacked "
        "reserve (a GM's roll or ask gives it; with \"Adversity\" alone, the roll goes on "
        "from where the table left it)",
        fr=f"« {RESERVE['fr']} » ('reserve') : seul le MJ fixe la réserve attaquée (son jet "
           "ou sa demande la donne ; avec « Adversité » seule, le jet reprend où la table "
           "l'a laissée)", details={"field": "reserve"})


def attacked_reserve(params: dict[str, Any], state: dict[str, Any]) -> int | None:
    """The attacked reserve of the roll: ``reserve`` when given, else the table's current
    value of the named ``adversity`` (what the last roll against it left)."""
    if params.get("reserve") is not None or not params.get("adversity"):
        return params.get("reserve")
    reserves = state.get("adversities") or {}
    if params["adversity"] not in reserves:
        raise invalid_param("adversity", f"no reserve named '{params['adversity'][:40]}' at "
                            "this table yet: the GM gives its starting reserve "
                            f"(\"{RESERVE['en']}\")",
                            fr=f"aucune réserve nommée « {params['adversity'][:40]} » à cette "
                               f"table : le MJ indique sa réserve de départ "
                               f"(« {RESERVE['fr']} »)")
    return reserves[params["adversity"]]


def _verdict(result: dict[str, Any], fr: bool) -> str:
    """"5 réussites, MR 1" — what a choice would make of the roll, for its label."""
    count = successes(result["successes"], fr)
    if result["kind"] == "narrow":
        mr = f", {success_margin(result['margin'], fr)}" if result["margin"] else ""
        return f"{count}, {'de justesse' if fr else 'narrowly'}{mr}"
    if result["success"]:
        return f"{count}, {success_margin(result['margin'], fr)}"
    return f"{count}, {failure_margin(-result['margin'], fr)}"


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
    free = free_augmentations(params)
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
                  "margin": over + params["equipment"] if over >= 0 else over}
        cost = steps * price
        # (``spend``: what taking it costs the sheet, so that a page offers it only while
        # the sheet can pay — another roll may spend the BB+ first.)
        offers.append({"name": f"buy_{steps}", "dice": 0, "spend": {"bonbonus": cost},
                       "label": label(f"Acheter {steps}A ({cost} BB+) : {_verdict(bought, True)}",
                                      f"Buy {steps}A ({cost} BB+): {_verdict(bought, False)}")})
    if offers:
        offers.append({"name": "keep", "dice": 0, "label": label(
            f"Garder ({_verdict(result, True)}, 0 BB+)",
            f"Keep ({_verdict(result, False)}, 0 BB+)")})
    return offers


def drained_note(drained: dict[str, Any], margin: int, *, open_: bool) -> dict[str, str]:
    """What a lost contest took from the reserve: the points kept at 1 BB+ each only when
    some were (a standing ``keep_reserve``); with the offers to keep some still open, that
    they are — not « 0 point gardé » before anyone decided (issue 29)."""
    short, kept = drained["characteristic"], drained["kept"]
    fr = f"Réserve {short} : {drained['before']} → {drained['after']} (ME {margin}"
    en = f"{short} reserve: {drained['before']} → {drained['after']} (failure margin {margin}"
    if kept:
        fr += f", {plural(kept, 'point gardé', 'points gardés')} pour {kept} BB+"
        en += f", {kept} {english(kept, 'point')} kept for {kept} BB+"
    if open_:
        return label(f"{fr}) ; des points peuvent encore être gardés, 1 BB+ chacun.",
                     f"{en}); points may still be kept, 1 BB+ each.")
    return label(f"{fr}).", f"{en}).")


def reserve_offers(result: dict[str, Any], wallet: int) -> list[dict[str, Any]]:
    """After a lost ``contest`` drained the reserve: keep 1…n of the points lost at 1 BB+
    each, as far as ``wallet`` pays (at most 11), then ``none`` (the default)."""
    drained = result.get("reserve_drained")
    if not drained or drained["lost"] <= 0 or wallet <= 0:
        return []
    short = drained["characteristic"]
    offers = [{"name": f"save_{n}", "dice": 0, "spend": {"bonbonus": n}, "label": label(
        f"Garder {plural(n, 'point')} de réserve {short} ({n} BB+)",
        f"Keep {n} {short} reserve {english(n, 'point')} ({n} BB+)")}
        for n in range(1, min(drained["lost"], wallet, 11) + 1)]
    offers.append({"name": "none", "dice": 0, "label": label(
        f"Perdre {lost_points(drained['lost'])} de réserve {short}",
        f"Lose the {drained['lost']} {short} reserve {english(drained['lost'], 'point')}")})
    return offers


def settle(roll: Roll, faces: list[int], rolled: list[dict[str, Any]],
           reserve: int | None, *, bought: int, decided: bool,
           adversity_was: int | None = None) -> Outcome:
    """The outcome of ``faces``: the roll itself (``decided`` False), or the purchase
    after the dice decided (``bought`` augmentations, ``decided`` True)."""
    p = roll.params
    result = judge(faces, difficulty=p["difficulty"], augmentations=free_augmentations(p),
                   buy_augmentations=bought, bagage=p["bagage"],
                   npc_bagage=p["npc_bagage"], equipment=p["equipment"], reserve=reserve)
    combat = read_settings(roll)
    if combat is not None and reserve is not None and result["success"]:
        # The attacked reserve loses the wounds counted, as the options count them.
        result["reserve_after"] = max(0, reserve - counted_wounds(combat, result)["counted"])
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
        die["successes"] = SUCCESSES[die["face"]]
    for change in result["augmented"]:
        die = rolled[change["die"]]
        die["raised_to"] = change["to"]
        die["successes"] = SUCCESSES[change["to"]]
    notes = []
    if result["purchase_refused"]:
        notes.append(label("Achat d'augmentations refusé sur une Bourde ou un Coup d'éclat : "
                           "aucun bonbonus dépensé.", "Buying augmentations is refused on a "
                           "Blunder or a Coup d'éclat: no bonbonus spent."))
    elif bought > result["augmentations_bought"]:
        unused = bought - result["augmentations_bought"]
        notes.append(label(f"{plural(unused, 'augmentation achetée', 'augmentations achetées')}"
                           f" sans effet, non {agree(unused, 'facturée')}.",
                           f"{unused} bought {english(unused, 'augmentation')} had no effect "
                           f"and {'was' if unused == 1 else 'were'} not charged."))
    if decided:
        result["decided"] = True
        result["bought_after_dice"] = result["augmentations_bought"]
        if bought:
            notes.append(label(f"{bought}A {agree(bought, 'achetée')} après les dés pour "
                               f"{result['bonbonus_spent']} BB+.", f"{bought}A bought after "
                               f"the dice for {result['bonbonus_spent']} BB+."))
    if combat is not None:
        surprise(roll, combat, result, notes)
    if p.get("characteristic"):
        result["characteristic"] = p["characteristic"]
    state = None
    if p["drinking"]:
        state = result["drinking"] = drinking_state(p, roll.sheet, result)
    if state["coma"] if state is not None else sober_coma(p, roll.sheet, result):
        result["coma"] = True  # (any roll: « quel que soit le jet »)
        notes.append(label("Coma éthylique : hospitalisé, −1 définitif à une caractéristique "
                           "au choix du joueur.", "Alcoholic coma: hospitalised, −1 for "
                           "good to a characteristic of the player's choice."))
    elif state is not None and state["honte"]:
            notes.append(label("Bourde : la Honte du personnage se manifeste.",
                               "Blunder: the character's Shame manifests."))
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
    # What the dice did to the opponent (contract §8), with the roll's close: an open
    # purchase above brings them with its decision.
    outcome.effects = target_effects(roll, result, None if combat is None or combat["hold"]
                                     else counted_wounds(combat, result)["counted"])
    if roll.sheet is not None:
        # (A contest aimed at a character drains its reserve, not the roller's: the
        # target's own action drains the roller's, ``oweens_targets``.)
        outcome.spend = spends(p if aimed_contest(roll) is None else {**p, "contest": False},
                               result, roll.sheet, spent_already=0 if decided else (
            combat["cost"] if combat is not None and combat["pay"] == "bonbonus" else 0),
            decided=decided)
        if result.get("coma"):
            # Which characteristic loses its point is the player's choice: asked now, no
            # default (left undecided, the GM adjusts the sheet).
            outcome.choices = [{"name": f"lose_{short}", "dice": 0, "label": label(
                f"−1 définitif en {fr} ({short})", f"−1 for good to {en} ({short})")}
                for short, (_, fr, en) in CHARACTERISTICS.items()]
            outcome.default = None
            return outcome
        drained = result.get("reserve_drained")
        if drained:
            offers = []
            if not p["keep_reserve"]:
                wallet = (roll.sheet.get("bonbonus", 0) - outcome.spend.get("bonbonus", 0)
                          - (0 if decided else (combat["cost"] if combat is not None
                                                and combat["pay"] == "bonbonus" else 0)))
                offers = reserve_offers(result, wallet)
            notes.append(drained_note(drained, -result["margin"], open_=bool(offers)))
            if offers:
                outcome.choices, outcome.default = offers, "none"
    return outcome


def decide(roll: Roll, outcome: Outcome, choice: str) -> Outcome:
    """Apply a decision after the dice: ``buy_<n>`` (n augmentations bought with bonbonus)
    or ``keep``; then, after a lost ``contest``, ``save_<n>`` (n reserve points kept at
    1 BB+ each) or ``none``; after an alcoholic coma, ``lose_<characteristic>``."""
    opened = outcome.result
    if choice.startswith("lose_"):
        result = dict(opened)
        result["decided"] = True
        result["coma_lost"] = choice[5:]
        if "drinking" in result:
            result["drinking"] = {**result["drinking"], "lost": choice[5:]}
        name = CHARACTERISTICS[choice[5:]][0]
        return Outcome(result=result, dice=outcome.dice, spend={name: 1}, notes=[
            label(f"Coma éthylique : {choice[5:]} −1 définitivement.",
                  f"Alcoholic coma: {choice[5:]} −1 for good.")])
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
            notes.append(label(f"{plural(kept, 'point')} de réserve {drained['characteristic']} "
                               f"{agree(kept, 'gardé')} pour {kept} BB+ : {drained['before']} → "
                               f"{drained['after']}.", f"{kept} {drained['characteristic']} "
                               f"reserve {english(kept, 'point')} kept for {kept} BB+: "
                               f"{drained['before']} → "
                               f"{drained['after']}."))
        result["reserve_drained"] = drained
        return Outcome(result=result, dice=outcome.dice, notes=notes, spend=spend)
    bought = 0 if choice == "keep" else int(choice[4:])
    faces = [die["face"] for die in outcome.dice]
    return settle(roll, faces, outcome.dice, opened.get("reserve_before"), bought=bought,
                  decided=True, adversity_was=opened.get("reserve_after"))
