"""Secure dice vs Python's ``random``: microseconds per face, side by side in one run.

    .venv/bin/python benchmarks/dice_speed.py
"""

from __future__ import annotations

import random
import timeit

from sidecar.dice.sources import SecureDice, SeededDice

N = 200_000


def per_face(fn, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=N, repeat=repeat)) / N * 1e6


def measure(sides: int) -> str:
    """One line of the table: the raw face draws, then whole ``roll()`` calls."""
    secure, rng = SecureDice(), random.Random()
    full, seeded = SecureDice(), SeededDice(1)

    def secure_roll() -> None:
        full.rolled.clear()
        full.roll(sides)

    def seeded_roll() -> None:
        seeded.rolled.clear()
        seeded.roll(sides)

    s = per_face(lambda: secure._face(sides))
    r = per_face(lambda: rng.randint(1, sides))
    return (f"d{sides:<4} {s:>14.3f} µs {r:>12.3f} µs {s / r:>6.2f}"
            f" {per_face(secure_roll):>13.3f} µs {per_face(seeded_roll):>13.3f} µs")


def main() -> None:
    print(f"{'die':>5} {'SecureDice._face':>17} {'random.randint':>15} {'ratio':>6}"
          f" {'SecureDice.roll':>16} {'SeededDice.roll':>16}")
    for sides in (6, 10, 20, 100, 1000):
        print(measure(sides))


if __name__ == "__main__":
    main()
