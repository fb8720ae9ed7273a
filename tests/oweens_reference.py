"""Slow, plain references for O'Ween's fast code: the first odds engine, and the best
placement of augmentations by exhaustive search.

The odds engine visits every (non-1 dice, cheap steps, natural successes) state one by
one; it was checked against exhaustive enumeration of the real roll code.
``sidecar.rulesets.oweens_odds.exact_odds`` must give exactly the same integers
(tests/test_oweens_odds.py compares them).
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

from sidecar.probability import odds_reply
from sidecar.rulesets.oweens_judging import die_successes


def exhaustive_placement(faces: list[int], budget: int) -> tuple[int, int]:
    """(most successes, fewest steps) for augmentations placed on ``faces`` within
    ``budget``, by trying every raise of every die (what ``place_augmentations`` must
    find)."""
    best = (sum(die_successes(f) for f in faces), 0)
    ranges = [range(0, 6 - f + 1) for f in faces]
    for steps in itertools.product(*ranges):
        used = sum(steps)
        if used <= budget:
            gained = sum(die_successes(f + k) for f, k in zip(faces, steps, strict=True))
            if (gained, -used) > (best[0], -best[1]):
                best = (gained, used)
    return best


def exact_odds_by_state(count: int, target: int, free: int, bought: int) -> dict[str, Any]:
    """Exact odds of an O'Ween's roll of ``count`` d6 against ``target`` (NPC bagage
    included), with free and bought augmentations.

    The number of 1s is binomial. The other dice are enumerated by a dynamic programme:
    a face 2, 4 or 6 adds 0, 1 or 2 natural successes (the polynomial 1 + x + x²), a 3 or a
    5 adds 0 or 1 and offers a cheap step (y·(1 + x)); cheap steps are counted up to the
    budget, beyond which they cannot all be used. The medium steps are then 2·dice −
    successes − cheap, and the best placement follows in closed form (:func:`best_gain`).
    """
    budget = free + bought
    cap = min(budget, count)
    # layer[m][s]: ways for the dice so far (faces 2–6) to show s natural successes and m
    # cheap steps (m capped); all lists of a layer have the same length.
    layer = [[1]]
    layers = [layer]
    for dice_so_far in range(count):
        width = len(layer[0]) + 2
        # After j dice there are at most j cheap steps: rows beyond are always empty.
        nxt = [[0] * width for _ in range(min(dice_so_far + 1, cap) + 1)]
        for m, poly in enumerate(layer):
            times_a = [a + b + c for a, b, c in zip(poly + [0, 0], [0] + poly + [0],
                                                   [0, 0] + poly, strict=True)]
            times_b = [a + b for a, b in zip(poly + [0, 0], [0] + poly + [0], strict=True)]
            nxt[m] = [a + b for a, b in zip(nxt[m], times_a, strict=True)]
            up = min(m + 1, cap)
            nxt[up] = [a + b for a, b in zip(nxt[up], times_b, strict=True)]
        layer = nxt
        layers.append(layer)
    # Counts per kind and per final number of successes, as plain locals and a list: this
    # loop visits every state, so it is kept free of calls and dict look-ups where it can.
    botch = failure = narrow = success = critical = 0
    finals = [0] * (2 * count + 1)
    coup_from = max(2 * target, target + 1)  # free successes that make a Coup d'éclat
    for others in range(count + 1):
        ones = count - others
        weight = comb(count, ones)  # a 1 shows in one way; the others are in the layer
        for cheap, poly in enumerate(layers[others]):
            # A budget the cheap steps absorb gains exactly itself; past them, while the
            # medium steps outnumber what the rest can buy, it gains cheap + rest // 2.
            # Only the remaining states need the closed form.
            free_half = (free - cheap) // 2 if free > cheap else -1
            total_half = (budget - cheap) // 2 if budget > cheap else -1
            free_fixed = free if free_half < 0 else cheap + free_half
            total_fixed = budget if total_half < 0 else cheap + total_half
            row = 2 * others - cheap
            for natural, ways in enumerate(poly):
                if not ways:
                    continue
                medium = row - natural
                if free_half < 0 or medium > free_half:
                    free_succ = natural + free_fixed
                else:  # best_gain's last branch, inlined: this is the hot path
                    left = free - cheap - 2 * medium
                    pairs = min(ones, left // 5)
                    free_succ = natural + cheap + medium + 2 * pairs + (
                        1 if pairs < ones and left - 5 * pairs >= 3 else 0)
                ways *= weight
                if ones > natural:  # Bourde: natural faces; nothing bought
                    botch += ways
                    finals[free_succ] += ways
                    continue
                if free_succ >= coup_from:  # Coup d'éclat: nothing bought
                    critical += ways
                    finals[free_succ] += ways
                    continue
                final = free_succ
                if bought:
                    if total_half < 0 or medium > total_half:
                        final = natural + total_fixed
                    else:
                        left = budget - cheap - 2 * medium
                        pairs = min(ones, left // 5)
                        final = natural + cheap + medium + 2 * pairs + (
                            1 if pairs < ones and left - 5 * pairs >= 3 else 0)
                if final > target:
                    success += ways
                elif final == target:
                    narrow += ways
                else:
                    failure += ways
                finals[final] += ways
    kinds = {"botch": botch, "failure": failure, "narrow": narrow, "success": success,
             "critical": critical}
    finals_items = [(value, ways) for value, ways in enumerate(finals) if ways]
    return odds_reply(kinds, 6 ** count, "successes", finals_items)
