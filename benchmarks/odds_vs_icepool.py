"""The odds engine against icepool, side by side in one run, on the seed rulesets.

    .venv/bin/pip install icepool        # for this benchmark only, not a dependency
    .venv/bin/python benchmarks/odds_vs_icepool.py

Each problem is computed cold by both (our caches cleared before every run; icepool's
dice built anew), five times, and the best time kept. Two figures for vtt-sidecar: the
engine alone (the ruleset's odds function, from validated parameters) and end to end
(``sidecar.odds()``: validation, extensions, engine — what an ``odds`` request costs).
Both answers must agree on every kind's probability to 1e-12, or the script says so and
exits non-zero.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from fractions import Fraction

import icepool
from icepool import Vector

from sidecar import api, probability
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from sidecar.rulesets import bloodlust, d6code, ladder, oweens_odds, seuil
from sidecar.rulesets.oweens_judging import best_gain

# The default install's plugins: the boss example, if installed here, would add a thread
# hop per request (see benchmarks/README.md).
HOST = default_host(disabled=("boss",))
PIPELINE = RollPipeline(HOST)

KINDS = ("botch", "failure", "narrow", "success", "critical")


def clear_caches() -> None:
    for module in (bloodlust, d6code, ladder, oweens_odds, seuil):
        module.exact_odds.cache_clear()
    probability.sum_of.cache_clear()
    probability.highest_of.cache_clear()


def kinds_of(die: icepool.Die) -> dict[str, float]:
    total = die.denominator()
    return {k: float(Fraction(die.quantity(k), total)) for k in KINDS}


# -- the same problems in icepool ---------------------------------------------------------

def ice_oweens(n: int, target: int, free: int, bought: int) -> dict[str, float]:
    # per die: (natural successes, cheap steps, medium steps, is a 1)
    vectors = {1: (0, 0, 0, 1), 2: (0, 0, 2, 0), 3: (0, 1, 1, 0), 4: (1, 0, 1, 0),
               5: (1, 1, 0, 0), 6: (2, 0, 0, 0)}
    total = n @ icepool.d6.map(lambda f: Vector(vectors[f]))

    def kind(state: Vector) -> str:
        natural, cheap, medium, ones = state
        bourde = ones > natural
        free_succ = natural + best_gain(cheap, medium, ones, free)[0]
        coup = free_succ >= 2 * target and free_succ > target and not bourde
        final = free_succ
        if bought and not bourde and not coup:
            final = natural + best_gain(cheap, medium, ones, free + bought)[0]
        if bourde:
            return "botch"
        if final > target:
            return "critical" if coup else "success"
        return "narrow" if final == target else "failure"

    return kinds_of(total.map(kind))


def ice_bloodlust(pool: int, difficulty: int, willpower: bool) -> dict[str, float]:
    die = icepool.d10.map(lambda f: Vector((int(f >= difficulty), int(f == 1))))
    return kinds_of((pool @ die).map(
        lambda v: bloodlust.kind_of(max(0, v[0] - v[1]) + willpower, v[0], v[1])))


def ice_ladder(level: int, difficulty: int) -> dict[str, float]:
    small, large, bonus, _ = ladder.dice_for(level)
    score = icepool.highest(icepool.d(small), icepool.d(large)) + bonus
    return kinds_of(score.map(lambda s: "failure" if s < difficulty else "narrow"
                              if s == difficulty else "critical" if s - difficulty >= 7
                              else "success"))


def ice_seuil(level: int, complication: int, flat: int, threshold: int) -> dict[str, float]:
    count, fixed = seuil.SCORE_DICE[level]
    score = count @ icepool.d10 + fixed + flat
    sides = seuil.COMPLICATION_DIE[complication]
    if sides:
        score = score + icepool.d(abs(sides)) if sides > 0 else score - icepool.d(abs(sides))
    return kinds_of(score.map(lambda s: "failure" if s < threshold else "narrow"
                              if s == threshold else "critical" if s >= threshold + 10
                              else "success"))


def ice_d6code(count: int, bonus: int, twin: bool, style: bool, difficulty: int | None,
               opponent: tuple[int, int] | None) -> dict[str, float]:
    d6 = icepool.d6

    def pair(a: int, b: int):
        if a == b:
            return (2 @ d6).map(lambda r: Vector((a + b + r, 0)))
        return Vector((1, 1)) if 1 in (a, b) else Vector((a + b, 0))

    score = ((count - 2 if twin else count) @ d6).map(lambda s: Vector((s, 0)))
    if twin:
        score = score + icepool.map(pair, d6, d6)
    if style:
        score = score + (2 @ d6).map(lambda s: Vector((s, 0)))
    score = score.map(lambda v: Vector((v[0] + bonus, v[1])))

    def kind(v: Vector, opp: int | None = None) -> str:
        s, fiasco = v
        ok, margin = True, 0
        if opp is None:
            margin = s - difficulty
            ok = margin >= 0
        elif difficulty is not None and s < difficulty:
            ok = False
        elif difficulty is not None and opp < difficulty:
            margin = s - difficulty
        else:
            margin = s - opp
            ok = margin >= 0
        if not ok:
            return "botch" if fiasco else "failure"
        return "narrow" if margin == 0 else "critical" if margin >= 10 else "success"

    if opponent is None:
        return kinds_of(score.map(kind))
    opp = opponent[0] @ d6 + opponent[1]
    return kinds_of(icepool.map(kind, score, opp))


# -- problems -----------------------------------------------------------------------------

PROBLEMS: list[tuple[str, str, dict, Callable[[], dict[str, float]]]] = [
    ("oweens", "4 dés, D 3", {"dice": 4, "difficulty": 3},
     lambda: ice_oweens(4, 3, 0, 0)),
    ("oweens", "10 dés, D 5, 2A + 1 achetée", {"dice": 10, "difficulty": 5,
                                              "augmentations": 2, "buy_augmentations": 1},
     lambda: ice_oweens(10, 5, 2, 1)),
    ("oweens", "30 dés, D 10, 3A + 2 achetées", {"dice": 30, "difficulty": 10,
                                                "augmentations": 3, "buy_augmentations": 2},
     lambda: ice_oweens(30, 10, 3, 2)),
    ("ladder", "niveau 4 vs 5", {"level": 4, "difficulty": 5}, lambda: ice_ladder(4, 5)),
    ("ladder", "niveau 12 vs 13", {"level": 12, "difficulty": 13}, lambda: ice_ladder(12, 13)),
    ("bloodlust", "5d10 diff 7", {"pool": 5, "difficulty": 7},
     lambda: ice_bloodlust(5, 7, False)),
    ("bloodlust", "10d10 diff 6", {"pool": 10}, lambda: ice_bloodlust(10, 6, False)),
    ("bloodlust", "30d10 diff 8 + volonté", {"pool": 30, "difficulty": 8, "willpower": True},
     lambda: ice_bloodlust(30, 8, True)),
    ("d6code", "4D+3 +3 jumeaux vs 20", {"code": "4D+3", "modifier": 3, "twin": True,
                                          "difficulty": 20},
     lambda: ice_d6code(4, 6, True, False, 20, None)),
    ("d6code", "10D jumeaux + style vs 40", {"code": "10D", "twin": True, "style": "extreme",
                                              "difficulty": 40},
     lambda: ice_d6code(10, 0, True, True, 40, None)),
    ("d6code", "3D+5 contre 4D+1", {"code": "3D+5", "opponent": "4D+1"},
     lambda: ice_d6code(3, 5, False, False, None, (4, 1))),
    ("d6code", "30D jumeaux contre 30D, diff 100", {"code": "30D", "twin": True,
                                                     "opponent": "30D", "difficulty": 100},
     lambda: ice_d6code(30, 0, True, False, 100, (30, 0))),
    ("seuil", "niveau 3, complication 3, +6 vs 22", {"level": 3, "complication": 3, "flat": 6,
                                                     "threshold": 22},
     lambda: ice_seuil(3, 3, 6, 22)),
    ("seuil", "niveau 4, −2, vs 31", {"level": 4, "complication": -2, "threshold": 31},
     lambda: ice_seuil(4, -2, 0, 31)),
]


def best_of(fn: Callable[[], object], repeat: int = 5, before: Callable[[], None] = lambda: None
            ) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000, result


def main() -> int:
    print(f"icepool {icepool.__version__}, Python {sys.version.split()[0]}; times in ms, "
          "cold (caches cleared), best of 5\n")
    print(f"{'ruleset':<10} {'problem':<36} {'engine':>8} {'end2end':>8} {'icepool':>9} "
          f"{'ratio':>7} {'ratio e2e':>10} {'same':>5}")
    worst, worst_e2e, all_same = float("inf"), float("inf"), True
    for ruleset, name, params, ice in PROBLEMS:
        roll = PIPELINE.prepare(ruleset, params)
        plugin = PIPELINE.host.pm.get_plugin(ruleset)
        engine_ms, _ = best_of(lambda p=plugin, r=roll: p.sidecar_odds(r), before=clear_caches)
        e2e_ms, ours = best_of(lambda r=ruleset, p=params: api.odds(r, p, host=HOST),
                               before=clear_caches)
        ice_ms, theirs = best_of(ice, repeat=3)
        same = all(abs(ours["kinds"][k] - theirs[k]) < 1e-12 for k in KINDS)
        all_same &= same
        worst = min(worst, ice_ms / engine_ms)
        worst_e2e = min(worst_e2e, ice_ms / e2e_ms)
        print(f"{ruleset:<10} {name:<36} {engine_ms:>8.3f} {e2e_ms:>8.3f} {ice_ms:>9.2f} "
              f"{ice_ms / engine_ms:>6.0f}× {ice_ms / e2e_ms:>9.0f}× "
              f"{'yes' if same else 'NO':>5}")
    print(f"\nslowest ratio: the engine is {worst:.0f}× faster than icepool "
          f"({worst_e2e:.1f}× end to end); answers identical: {'yes' if all_same else 'NO'}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
