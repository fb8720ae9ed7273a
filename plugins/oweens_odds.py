"""O'Ween's exact odds: a roll's chances, whole numbers of ways over 6ⁿ.

:func:`exact_odds` counts a roll whose augmentations (free and bought) are fixed before
the dice, by a generating function packed in big integers; :func:`after_dice_odds` a roll
whose player buys augmentations once the dice are seen, as the decisions after the dice
offer them (``oweens_decisions``). Both judge each case as ``oweens_judging.judge`` does (the tests
compare them with slow references). The darts' odds are in ``oweens_darts``.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any

from sidecar.model import Roll
from sidecar.probability import check_work, odds_reply
from sidecar.rulesets.oweens_combat import read_settings
from sidecar.rulesets.oweens_decisions import MAX_PURCHASES
from sidecar.rulesets.oweens_judging import best_gain


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
    combat = read_settings(roll)
    if combat is not None and combat["pay"] == "bonbonus":
        wallet -= combat["cost"]
    if p["drinking"] and p.get("emotion_bonbonus"):
        wallet -= 1
    return max(0, wallet)
