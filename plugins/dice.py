"""Dés simples, le /roll de toute table : 2d6+3, 4d6kh3, 3d6!… / plain dice, every VTT's /roll.

Ruleset ``dice``: an expression and an optional target.

The notation and its limits are in :mod:`sidecar.rulesets.dice_notation`. Dice order: the
terms left to right, the dice of a term in order, each explosion die right after the die
that exploded.

Result: ``total`` (the sum, or the count of successes for a compare expression), ``expr``
(the expression as understood), ``target``, ``counting``, ``terms`` (one ``{expr, sign,
value}`` per term). Dice carry ``term`` (the index of their term), ``kept`` (keep/drop
terms), ``exploded`` (this die's highest face added the next die), ``extra`` (a die added
by an explosion) and ``success`` (compare terms). With a target, the roll succeeds when the
total reaches it (kinds ``success``/``failure``, margin ``total − target``); without one,
there is no verdict: ``success``, margin 0, ``judged: false`` (clients show it neutral). No
critical or botch: a plain roll has none.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from math import comb
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import POINT, Dist, add, check_work, negate, odds_reply
from sidecar.rules import common, heading, name_params
from sidecar.rulesets.dice_notation import (
    MAX_EXPLOSIONS,
    MAX_LENGTH,
    Expression,
    Term,
    parse,
)

__version__ = "1.1"

NAME = "dice"
#: Largest target (in absolute value); far beyond any total an expression reaches.
MAX_TARGET = 1_000_000

PARAMS: dict[str, dict[str, Any]] = {
    "expr": {
        "type": "string", "required": True, "max_length": MAX_LENGTH, "example": "2d6+3",
        "description": label(
            "Expression de dés : 2d6+3, 4d6kh3 (garder les 3 meilleurs), 2d20kl1+5, d100, "
            "3d6! (explosifs), 8d10>=7 (compter les réussites), 1d20+1d4-1",
            "Dice expression: 2d6+3, 4d6kh3 (keep the best 3), 2d20kl1+5, d100, 3d6! "
            "(exploding), 8d10>=7 (count successes), 1d20+1d4-1"),
    },
    "target": {
        "type": "int", "min": -MAX_TARGET, "max": MAX_TARGET,
        "description": label(
            "Facultatif : réussite quand le total l'atteint (le nombre de réussites, "
            "avec >=)", "Optional: success when the total reaches it (the number of "
            "successes, with >=)"),
    },
}

# « Seuil », not « Cible »: the form's « Cible » aims the roll at a character (contract §8).
name_params(PARAMS, {"expr": ("Expression", "Expression"),
                     "target": ("Seuil à atteindre", "Number to reach")})


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("Dés — lanceur libre (2d6+3, 4d6kh3…)",
                       "Dice — plain roller (2d6+3, 4d6kh3…)"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label(
            "les termes de gauche à droite, les dés d'un terme dans l'ordre, chaque dé "
            "d'explosion juste après le dé qui a explosé",
            "the terms left to right, a term's dice in order, each explosion die right "
            "after the die that exploded"),
    }]


# -- rolling ----------------------------------------------------------------------------------


def judge_term(term: Term, dice: list[dict[str, Any]]) -> int:
    """A dice term's value from its drawn ``dice`` (marked in place: ``kept``,
    ``success``)."""
    if term.keep is not None:
        side, kept = term.keep
        # The best (or worst) faces are kept; among equal faces, the first drawn.
        order = sorted(range(len(dice)),
                       key=lambda i: (-dice[i]["face"] if side == "h" else dice[i]["face"], i))
        chosen = set(order[:kept])
        for i, die in enumerate(dice):
            die["kept"] = i in chosen
        return sum(dice[i]["face"] for i in chosen)
    if term.compare is not None:
        hits = 0
        for die in dice:
            hit = die["success"] = term.success(die["face"])
            hits += hit
        return hits
    return sum(die["face"] for die in dice)


def roll_term(term: Term, index: int, dice: Dice) -> list[dict[str, Any]]:
    """Draw a term's dice in the documented order; return their records."""
    records: list[dict[str, Any]] = []
    for _ in range(term.count):
        face = dice.roll(term.sides, term=index)
        record = dice.rolled[-1]
        records.append(record)
        explosions = 0
        while term.explode and face == term.sides and explosions < MAX_EXPLOSIONS:
            record["exploded"] = True
            face = dice.roll(term.sides, term=index, extra=True)
            record = dice.rolled[-1]
            records.append(record)
            explosions += 1
    return records


def roll_expression(expr: Expression, dice: Dice) -> tuple[int, list[dict[str, Any]]]:
    """Roll every term; return the total and the per-term breakdown."""
    total = 0
    terms = []
    for index, term in enumerate(expr.terms):
        value = judge_term(term, roll_term(term, index, dice)) if term.is_dice else term.number
        total += term.sign * value
        terms.append({"expr": term.text, "sign": "-" if term.sign < 0 else "+",
                      "value": value})
    return total, terms


def verdict(total: int, target: int | None, counting: bool) -> dict[str, Any]:
    """The common fields: against a target, success when the total reaches it; without
    one, no verdict (a success of margin 0, labelled with the total, ``judged: false``:
    the page, the CLI and the Foundry card show it neutral, not as a success)."""
    if target is None:
        if counting:
            return common(True, 0, "success", f"{total} réussite{'s' if abs(total) > 1 else ''}",
                          f"{total} success{'es' if total != 1 else ''}", judged=False)
        return common(True, 0, "success", f"Total : {total}", f"Total: {total}", judged=False)
    if total >= target:
        return common(True, total - target, "success", "Réussite", "Success")
    return common(False, total - target, "failure", "Échec", "Failure")


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    expr = parse(roll.params["expr"])
    target = roll.params.get("target")
    total, terms = roll_expression(expr, dice)
    result = verdict(total, target, expr.counting)
    result.update(total=total, expr=expr.text, target=target, counting=expr.counting,
                  terms=terms)
    if expr.counting:
        result["successes"] = total  # (what the odds' distribution is of, for a pool)
    return Outcome(result=result, dice=dice.rolled)


def _shown_dice(dice: list[dict[str, Any]]) -> str:
    shown = []
    for die in dice:
        face = str(die.get("face", "?"))
        if die.get("exploded"):
            face += "!"
        if die.get("success"):
            face += "✓"
        if die.get("kept") is False:
            face = f"({face})"
        shown.append(face)
    return "[" + ", ".join(shown) + "]"


def breakdown(result: dict[str, Any], dice: list[dict[str, Any]]) -> str:
    """``[4, 2] + 3``: each term's dice (dropped ones in parentheses, ``!`` on a die that
    exploded, ``✓`` on a success) or number, with its sign."""
    parts = []
    for index, term in enumerate(result.get("terms", [])):
        own = [d for d in dice if d.get("term") == index]
        shown = _shown_dice(own) if own else str(term.get("value"))
        sign = "−" if term.get("sign") == "-" else "+"
        parts.append(shown if not parts and sign == "+" else f"{sign} {shown}")
    return " ".join(parts)


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    start = heading(roll, locale=locale)
    expr = r.get("expr", roll.params.get("expr", ""))
    parts = breakdown(r, outcome.dice)
    total, target = r.get("total"), r.get("target")
    if r.get("counting"):
        n = total if isinstance(total, int) else 0
        amount = (f"{total} réussite{'s' if abs(n) > 1 else ''}" if locale == "fr"
                  else f"{total} success{'es' if n != 1 else ''}")
    else:
        amount = f"Total : {total}" if locale == "fr" else f"Total: {total}"
    text = f"{start}{expr} → {parts} → {amount}"
    if target is None:
        return text
    if locale == "fr":
        return f"{text} (cible {target}) → {r['label']['fr']}"
    return f"{text} (target {target}) → {r['label']['en']}"


# -- exact odds -------------------------------------------------------------------------------


def convolve(a: Dist, b: Dist) -> Dist:
    """The sum of two independent values, exactly, as one product of two big integers
    (Kronecker substitution: each distribution packed as the digits of an integer, in
    slots wide enough that no sum of products overflows into the next), so that the
    inner loop runs in C; tiny ones by :func:`~sidecar.probability.add`."""
    if len(a.counts) * len(b.counts) <= 256:
        return add(a, b)
    low_a, low_b = min(a.counts), min(b.counts)
    span_a, span_b = max(a.counts) - low_a + 1, max(b.counts) - low_b + 1
    most = max(a.counts.values()) * max(b.counts.values()) * min(span_a, span_b)
    size = (most.bit_length() + 7) // 8  # bytes per slot

    def packed(dist: Dist, low: int, span: int) -> int:
        buffer = bytearray(size * span)
        for value, ways in dist.counts.items():
            at = (value - low) * size
            buffer[at:at + size] = ways.to_bytes(size, "little")
        return int.from_bytes(buffer, "little")

    span = span_a + span_b - 1
    raw = (packed(a, low_a, span_a) * packed(b, low_b, span_b)).to_bytes(size * span,
                                                                          "little")
    counts = {}
    for i in range(span):
        ways = int.from_bytes(raw[i * size:(i + 1) * size], "little")
        if ways:
            counts[low_a + low_b + i] = ways
    return Dist(counts, a.total * b.total)


#: The shape of a distribution for the work estimate: (how many values it spans at most,
#: how many bits its total has at most).
Shape = tuple[int, int]


def convolve_cost(a: Shape, b: Shape) -> tuple[int, Shape]:
    """The work of :func:`convolve` and the result's shape: its Python steps over both
    operands and the result (each as many steps as 64-bit words in a slot), and the
    product of the two packed integers (Karatsuba's words^1.585 operations in C, sixteen
    of which count as a step)."""
    span = a[0] + b[0] - 1
    slot_words = 1 + (a[1] + b[1] + span.bit_length()) // 64
    product = int((max(a[0], b[0]) * slot_words) ** 1.585) // 16
    return (a[0] + b[0] + span) * slot_words + product, (span, a[1] + b[1])


def power(dist: Dist, n: int) -> Dist:
    """The sum of ``n`` independent copies of ``dist`` (by doubling)."""
    if n == 1:
        return dist
    half = power(dist, n // 2)
    whole = convolve(half, half)
    return convolve(whole, dist) if n % 2 else whole


def power_cost(one: Shape, n: int) -> tuple[int, Shape]:
    """The work of :func:`power` and the shape of its result (upper bounds)."""
    if n == 1:
        return 0, one
    cost, half = power_cost(one, n // 2)
    step, whole = convolve_cost(half, half)
    cost += step
    if n % 2:
        step, whole = convolve_cost(whole, one)
        cost += step
    return cost, whole


def chain(sides: int, value: Callable[[int], int]) -> Dist:
    """One exploding die with its explosions: ``k`` highest faces then a lower one
    (``k`` < the bound), each weighing ``sides**(bound − k)`` out of
    ``sides**(bound + 1)``; or the bound's highest faces then any face, weighing 1."""
    bound = MAX_EXPLOSIONS
    top = value(sides)
    counts: dict[int, int] = {}
    for k in range(bound):
        for face in range(1, sides):
            v = k * top + value(face)
            counts[v] = counts.get(v, 0) + sides ** (bound - k)
    for face in range(1, sides + 1):
        v = bound * top + value(face)
        counts[v] = counts.get(v, 0) + 1
    return Dist(counts, sides ** (bound + 1))


def keep_highest(n: int, sides: int, k: int) -> Dist:
    """The sum of the ``k`` highest of ``n`` dice: faces from the highest down, choosing
    how many dice show each (binomial ways); once ``k`` dice are placed, the rest only
    multiply the ways (each shows one of the faces left)."""
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    done: dict[int, int] = {}
    for v in range(sides, 0, -1):
        following: dict[tuple[int, int], int] = {}
        for (placed, total), ways in states.items():
            rest = n - placed
            if placed >= k:
                done[total] = done.get(total, 0) + ways * v ** rest
                continue
            for m in ([rest] if v == 1 else range(rest + 1)):
                key = (placed + m, total + min(m, k - placed) * v)
                following[key] = following.get(key, 0) + ways * comb(rest, m)
        states = following
    for (_, total), ways in states.items():
        done[total] = done.get(total, 0) + ways
    return Dist(done, sides ** n)


def keep_cost(n: int, sides: int, k: int) -> int:
    """An upper bound of :func:`keep_highest`'s steps (each counted twice: a binomial and
    two big-integer products, slower than a convolution's step)."""
    return 2 * sides * k * (k * sides + 1) * (n + 1)


def face_value(term: Term) -> Callable[[int], int]:
    """What one face adds to its term: itself, or 1 for a success (compare terms)."""
    if term.compare is None:
        return lambda face: face
    return lambda face: 1 if term.success(face) else 0


@lru_cache(maxsize=256)
def term_dist(term: Term) -> Dist:
    """The distribution of an unsigned term's value."""
    if not term.is_dice:
        return Dist({term.number: 1}, 1)
    if term.keep is not None:
        side, k = term.keep
        best = keep_highest(term.count, term.sides, k)
        if side == "h":
            return best
        # The lowest k of faces f are the highest k of faces sides + 1 − f.
        return best.map(lambda v: k * (term.sides + 1) - v)
    value = face_value(term)
    if term.explode:
        one = chain(term.sides, value)
    else:
        one = Dist({}, term.sides)
        for face in range(1, term.sides + 1):
            one.counts[value(face)] = one.counts.get(value(face), 0) + 1
    return power(one, term.count)


def term_shape(term: Term) -> tuple[int, Shape]:
    """The work of :func:`term_dist` and the shape of its result (upper bounds)."""
    if not term.is_dice:
        return 1, (1, 1)
    bits = term.sides.bit_length()  # (of one die's total, at most)
    if term.keep is not None:
        k = term.keep[1]
        return (keep_cost(term.count, term.sides, k) + k * term.sides,  # (the DP, the kl map)
                (k * (term.sides - 1) + 1, term.count * bits))
    counting = term.compare is not None
    one: Shape = (2 if counting else term.sides, bits)
    if term.explode:
        one = (MAX_EXPLOSIONS + 2 if counting else (MAX_EXPLOSIONS + 1) * term.sides,
               (MAX_EXPLOSIONS + 1) * bits)
    cost, shape = power_cost(one, term.count)
    return cost + (MAX_EXPLOSIONS + 1) * term.sides, shape


def work_estimate(expr: Expression) -> int:
    """An upper bound of the steps :func:`exact_odds` takes for ``expr``."""
    work, shape = 0, (1, 1)
    for term in expr.terms:
        cost, one = term_shape(term)
        step, shape = convolve_cost(shape, one)
        work += cost + step
    return work + shape[0]


@lru_cache(maxsize=1024)
def exact_odds(text: str, target: int | None) -> dict[str, Any]:
    """Exact probabilities of the total (and of success against ``target``), in integers:
    each term's distribution, then their convolution."""
    expr = parse(text)
    check_work(work_estimate(expr))
    dist = POINT
    for term in expr.terms:
        one = term_dist(term)
        dist = convolve(dist, one if term.sign > 0 else negate(one))
    if target is None:
        kinds = {"success": dist.total}
    else:
        reached = sum(w for v, w in dist.counts.items() if v >= target)
        kinds = {"success": reached, "failure": dist.total - reached}
    # A pool counted against a face (8d10>=7) gives a number of successes, not a total:
    # the parser refuses to mix counting and adding, so one counting term says it all.
    counts = any(term.compare is not None for term in expr.terms)
    reply = odds_reply(kinds, dist.total, "successes" if counts else "total",
                       dist.counts.items())
    if target is None:
        # No verdict without a target: « 100 % de réussite » would say nothing true; the
        # distribution is the answer (p_success stays 1 for the contract's older readers).
        reply["judged"] = False
    return reply


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    return exact_odds(roll.params["expr"], roll.params.get("target"))
