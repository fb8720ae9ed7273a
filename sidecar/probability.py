"""The exact odds engine: distributions as integer counts, never samples.

A :class:`Dist` maps each value to the number of equally likely ways it happens out of
``total``; sums are convolutions, "keep the best" is a max, and probabilities are formed
only at the edge (``count / total`` with Python integers is correctly rounded, far inside
the contract's 1e-9). Rulesets build their odds from these pieces in their own plugin
(``sidecar_odds``). Pure maths, no I/O: the Python entry point that loads the plugins and
runs the pipeline is :func:`sidecar.api.odds`.

Work is bounded: :func:`check_work` refuses with ``too_large`` any computation whose size
estimate exceeds :data:`WORK_LIMIT`, so an odds request can never stall the server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import KINDS

#: The largest work estimate (elementary steps) an odds computation may take.
WORK_LIMIT = 4_000_000


def check_work(estimate: int) -> None:
    """Refuse a computation larger than the work budget."""
    if estimate > WORK_LIMIT:
        raise ProtocolError(
            "too_large",
            f"these odds would take too much work to compute exactly ({estimate:,} steps, "
            f"limit {WORK_LIMIT:,})",
            fr=f"ces chances demanderaient trop de calcul pour être exactes ({estimate:,} "
               f"étapes, limite {WORK_LIMIT:,})",
        )


@dataclass(frozen=True)
class Dist:
    """A distribution: value → number of ways, out of ``total`` equally likely ways."""

    counts: dict[Any, int]
    total: int

    def map(self, fn: Callable[[Any], Any]) -> Dist:
        """The distribution of ``fn(value)`` (any hashable: a number, a kind…)."""
        out: dict[Any, int] = {}
        for value, ways in self.counts.items():
            key = fn(value)
            out[key] = out.get(key, 0) + ways
        return Dist(out, self.total)

    def shift(self, amount: int) -> Dist:
        return Dist({v + amount: w for v, w in self.counts.items()}, self.total)

    def probability(self, predicate: Callable[[int], bool]) -> float:
        return sum(w for v, w in self.counts.items() if predicate(v)) / self.total


POINT = Dist({0: 1}, 1)


def die(sides: int) -> Dist:
    """One die: each face once."""
    return Dist({face: 1 for face in range(1, sides + 1)}, sides)


def add(a: Dist, b: Dist) -> Dist:
    """The distribution of the sum of two independent values (a convolution)."""
    out: dict[int, int] = {}
    for va, wa in a.counts.items():
        for vb, wb in b.counts.items():
            out[va + vb] = out.get(va + vb, 0) + wa * wb
    return Dist(out, a.total * b.total)


def negate(a: Dist) -> Dist:
    return Dist({-v: w for v, w in a.counts.items()}, a.total)


@lru_cache(maxsize=256)
def sum_of(count: int, sides: int) -> Dist:
    """The sum of ``count`` dice of ``sides`` faces (cached; built by doubling)."""
    if count == 0:
        return POINT
    if count == 1:
        return die(sides)
    half = sum_of(count // 2, sides)
    whole = add(half, half)
    return add(whole, die(sides)) if count % 2 else whole


@lru_cache(maxsize=256)
def highest_of(sides_a: int, sides_b: int) -> Dist:
    """The better of two dice ("keep the best"): the ways both show at most v are
    min(v, a)·min(v, b), so the ways the best is exactly v are a difference of two."""
    def at_most(v: int) -> int:
        return min(v, sides_a) * min(v, sides_b)

    top = max(sides_a, sides_b)
    return Dist({v: at_most(v) - at_most(v - 1) for v in range(1, top + 1)},
                sides_a * sides_b)


def odds_reply(kind_ways: dict[str, int], total: int, of: str,
               values: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """The odds map rulesets return: kinds, p_success and the main number's distribution,
    from integer counts out of ``total``."""
    kinds = {kind: kind_ways.get(kind, 0) / total for kind in KINDS}
    success = sum(kind_ways.get(k, 0) for k in ("narrow", "success", "critical"))
    return {
        "p_success": success / total,
        "kinds": kinds,
        "distribution": {"of": of, "values": [[v, w / total] for v, w in sorted(values)]},
    }
