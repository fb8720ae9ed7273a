"""Cold odds: the first call in a fresh process, and a repeat (served by the LRU cache).

    .venv/bin/python benchmarks/odds_cold.py            # the seed problems
    .venv/bin/python benchmarks/odds_cold.py --sweep    # O'Ween's 30 dice, every budget

Targets (issue #4): ≤ 2 ms for any roll of ≤ 10 dice, ≤ 10 ms for ≤ 30 dice. Imports and
plugin loading happen before the clock starts; the first call pays for everything else.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBLEMS = [
    ("oweens", {"dice": 10, "difficulty": 5, "augmentations": 2, "buy_augmentations": 1}),
    ("oweens", {"dice": 30, "difficulty": 10, "augmentations": 3, "buy_augmentations": 2}),
    ("oweens", {"dice": 30, "difficulty": 10}),
    ("oweens", {"dice": 30, "difficulty": 10, "augmentations": 10, "buy_augmentations": 10}),
    ("oweens", {"dice": 30, "difficulty": 10, "augmentations": 30, "buy_augmentations": 30}),
    ("oweens", {"dice": 30, "difficulty": 10, "augmentations": 60}),
    ("oweens", {"dice": 30, "difficulty": 10, "augmentations": 150,
                "buy_augmentations": 150}),
    ("oweens", {"dice": 30, "difficulty": 5, "augmentations": 150, "buy_augmentations": 150,
                "bagage": True}),
    ("oweens", {"dice": 10, "difficulty": 4, "augmentations": 150, "buy_augmentations": 150}),
    ("ladder", {"level": 12, "difficulty": 13}),
    ("bloodlust", {"pool": 10}),
    ("bloodlust", {"pool": 30, "difficulty": 8, "willpower": True}),
    ("d6code", {"code": "10D", "twin": True, "style": "extreme", "difficulty": 40}),
    ("d6code", {"code": "28D+2", "twin": True, "style": "libre", "difficulty": 100}),
    ("d6code", {"code": "15D", "twin": True, "opponent": "15D", "difficulty": 50}),
    ("seuil", {"level": 3, "complication": 3, "flat": 6, "threshold": 22}),
]

CHILD = """
import json, sys, time
import sidecar
import sidecar.host.pipeline
from sidecar import probability
from sidecar.host.plugins import default_host
# The default install's plugins (not the boss example, if it is installed here), loaded
# before the clock starts.
probability._default_host(lambda: default_host(disabled=("boss",)))
ruleset, params = json.loads(sys.argv[1])
start = time.perf_counter()
sidecar.odds(ruleset, params)
first = time.perf_counter() - start
start = time.perf_counter()
sidecar.odds(ruleset, params)
again = time.perf_counter() - start
print(json.dumps([first * 1000, again * 1e6]))
"""


def dice_in(params: dict) -> int:
    if "dice" in params:
        return params["dice"]
    if "pool" in params:
        return params["pool"]
    if "code" in params:
        count = int(params["code"].upper().split("D")[0])
        extra = 2 if params.get("style") else 0
        opponent = int(params["opponent"].upper().split("D")[0]) if "opponent" in params else 0
        return count + extra + opponent + (2 if params.get("twin") else 0)
    if "level" in params and "threshold" in params:
        return 4
    return 2


#: O'Ween's at 30 dice is the heaviest engine: its work depends on the budget and the
#: target, so ``--sweep`` times a grid of both and prints the worst.
SWEEP = [("oweens", {"dice": 30, "difficulty": target, "augmentations": free,
                     "buy_augmentations": bought})
         for target in (3, 10, 20)
         for free, bought in ((0, 0), (5, 5), (15, 15), (30, 0), (30, 30), (60, 0), (45, 45),
                              (100, 50), (150, 150))]


def cold(ruleset: str, params: dict) -> tuple[float, float]:
    """Best of three fresh processes: (first call in ms, repeat in µs)."""
    runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD,
                                       json.dumps([ruleset, params])],
                                      capture_output=True, text=True, check=True).stdout)
            for _ in range(3)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    if "--sweep" in sys.argv:
        timings = [(cold(ruleset, params)[0], params) for ruleset, params in SWEEP]
        for first, params in timings:
            print(f"{first:6.2f} ms  {json.dumps(params)}")
        worst, params = max(timings, key=lambda item: item[0])
        print(f"worst first call: {worst:.2f} ms for {json.dumps(params)}")
        return
    print(f"{'ruleset':<10} {'params':<70} {'dice':>4} {'first':>9} {'repeat':>9}")
    for ruleset, params in PROBLEMS:
        first, again = cold(ruleset, params)
        print(f"{ruleset:<10} {json.dumps(params, ensure_ascii=False):<70} "
              f"{dice_in(params):>4} {first:>6.2f} ms {again:>6.1f} µs")


if __name__ == "__main__":
    main()
