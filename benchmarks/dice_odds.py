"""The ``dice`` ruleset's exact odds: cold time and work estimate, near and over the budget.

    .venv/bin/python benchmarks/dice_odds.py

Each expression is computed cold (caches cleared), best of three; expressions over the
work budget print ``too_large`` with the time it took to refuse them.
"""

from __future__ import annotations

import time

from sidecar.protocol.errors import ProtocolError
from sidecar.rulesets import dice
from sidecar.rulesets.dice_notation import parse

EXPRESSIONS = ["2d6+3", "4d6kh3", "2d20kl1+5", "3d6!", "8d10!>=8", "100d6", "100d20",
               "20d20kh10", "30d6!", "50d10!>=8", "10d1000", "4d6kh3+4d6kh3+4d6kh3",
               "20d1000", "100d1000", "40d20kh20", "80d100!"]


def main() -> None:
    print(f"{'expression':<24} {'estimate':>14} {'best of 3':>12}")
    for text in EXPRESSIONS:
        best, answer = float("inf"), "ok"
        for _ in range(3):
            dice.exact_odds.cache_clear()
            dice.term_dist.cache_clear()
            start = time.perf_counter()
            try:
                dice.exact_odds(text, 10)
            except ProtocolError as error:
                answer = error.code
            best = min(best, time.perf_counter() - start)
        estimate = dice.work_estimate(parse(text))
        print(f"{text:<24} {estimate:>14,} {best * 1000:>9.1f} ms  {answer}")


if __name__ == "__main__":
    main()
