"""Statistical checks of every ruleset over the secure dice source.

Each test rolls the real roll code (secure dice, no manual faces) a few thousand times and
compares the counts with the exact distribution computed *here*, independently of the
plugins, from the rules as RULES.md states them. A wrong face range or a wrong rule shifts
the counts far beyond chance. The threshold is the chi-square quantile at p = 1e-6
(Wilson–Hilferty), so an honest implementation fails about once in a million runs.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from tests.rules_helpers import pipeline_result

N = 6000
Z_1E6 = 4.753  # standard normal quantile for one-sided p = 1e-6


def chi2_bound(df: int) -> float:
    """Chi-square quantile at p = 1e-6 (Wilson–Hilferty approximation)."""
    a = 2 / (9 * df)
    return df * (1 - a + Z_1E6 * math.sqrt(a)) ** 3


def check(observed: Counter, exact: dict, n: int = N) -> None:
    """Chi-square goodness of fit, pooling cells expected below 10 counts."""
    assert set(observed) <= set(exact), set(observed) - set(exact)
    cells, pooled_obs, pooled_exp = [], 0, 0.0
    for key, p in exact.items():
        expected = float(p) * n
        if expected < 10:
            pooled_obs += observed.get(key, 0)
            pooled_exp += expected
        else:
            cells.append((observed.get(key, 0), expected))
    if pooled_exp > 0:
        cells.append((pooled_obs, pooled_exp))
    chi2 = sum((o - e) ** 2 / e for o, e in cells)
    assert chi2 < chi2_bound(len(cells) - 1), (chi2, cells)


def enumerate_dice(sides: list[int], key) -> dict:
    """Exact distribution of ``key(faces)`` over every face combination."""
    counts: Counter = Counter()
    for faces in itertools.product(*[range(1, s + 1) for s in sides]):
        counts[key(list(faces))] += 1
    total = math.prod(sides)
    return {k: Fraction(v, total) for k, v in counts.items()}


def test_oweens_distribution():
    # 3d6 vs D=2 with 1 free augmentation: (successes, kind), rules written out here.
    def rule(faces):
        value = [0, 0, 0, 0, 1, 1, 2]
        natural = sum(value[f] for f in faces)
        ones = faces.count(1)
        best = natural
        for f in faces:  # one augmentation: the best single +1
            if f < 6:
                best = max(best, natural - value[f] + value[f + 1])
        if ones > natural:
            kind = "botch"
        elif best > 2:
            kind = "critical" if best >= 4 else "success"
        else:
            kind = "narrow" if best == 2 else "failure"
        return best, kind

    exact = enumerate_dice([6, 6, 6], rule)
    observed = Counter()
    for _ in range(N):
        r = pipeline_result("oweens", dice=3, difficulty=2, augmentations=1)
        observed[(r["successes"], r["kind"])] += 1
    check(observed, exact)


def test_ladder_distribution():
    # level 4: best of d6 and d8, vs 5.
    exact = enumerate_dice([6, 8], lambda f: max(f))
    observed = Counter(pipeline_result("ladder", level=4, difficulty=5)["score"]
                       for _ in range(N))
    check(observed, exact)


def test_bloodlust_distribution():
    def rule(faces):
        s = sum(1 for f in faces if f >= 7)
        o = faces.count(1)
        return max(0, s - o), s == 0 and o > 0

    exact = enumerate_dice([10] * 3, rule)
    observed = Counter()
    for _ in range(N):
        r = pipeline_result("bloodlust", pool=3, difficulty=7)
        observed[(r["net"], r["kind"] == "botch")] += 1
    check(observed, exact)


def test_d6code_twin_distribution():
    # 3D+1 with twins: 1 normal die, the twin pair, and 2 rerolls after a double.
    def twin_total(a, b, r1, r2):
        if a == b:
            return a + b + r1 + r2
        return 1 if 1 in (a, b) else a + b

    counts: Counter = Counter()
    for n, a, b, r1, r2 in itertools.product(range(1, 7), repeat=5):
        counts[n + twin_total(a, b, r1, r2) + 1] += 1
    exact = {k: Fraction(v, 6 ** 5) for k, v in counts.items()}
    observed = Counter(pipeline_result("d6code", code="3D+1", twin=True, difficulty=10)["score"]
                       for _ in range(N))
    check(observed, exact)


def test_seuil_distribution():
    # level 2 (2D10) with complication 2 (−1D4) and flat +1.
    exact = enumerate_dice([10, 10, 4], lambda f: f[0] + f[1] - f[2] + 1)
    observed = Counter(pipeline_result("seuil", level=2, complication=2, flat=1,
                                       threshold=13)["score"] for _ in range(N))
    check(observed, exact)


def test_the_check_itself_catches_a_wrong_die():
    """The test would fail on a d6 that never shows a 6 (guards against a toothless check)."""
    exact = enumerate_dice([6, 8], lambda f: max(f))
    wrong = enumerate_dice([5, 8], lambda f: max(f))
    observed = Counter({k: round(float(p) * N) for k, p in wrong.items()})
    try:
        check(observed, exact)
    except AssertionError:
        return
    raise AssertionError("a d5 posing as a d6 went unnoticed")
