"""The in-process roll pipeline of a built-in roll, per ruleset (issue 13: ≤ 25 µs).

    .venv/bin/python benchmarks/pipeline.py

What a roll costs the server between the decoded request and the outcome to journal:
``prepare`` (ruleset lookup, params validation) and ``run`` (extensions, the ruleset's
resolution with the secure dice, the texts in both locales), with every built-in plugin
loaded, as ``sidecar serve`` runs them. Each figure is the median over batches of
``prepare`` + ``run`` driven on one event loop (no socket, no journal), in wall time and
in this thread's CPU time, and the best batch's CPU time (on a shared machine the other
processes slow whole batches down: the best batch is the steadiest figure to compare
two versions by).
"""

from __future__ import annotations

import asyncio
import statistics
import time

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host

CASES = [
    ("oweens", {"dice": 4, "difficulty": 3}),
    ("oweens", {"dice": 10, "difficulty": 5, "augmentations": 2}),
    ("ladder", {"level": 5, "difficulty": 7}),
    ("bloodlust", {"pool": 5, "difficulty": 6}),
    ("bloodlust", {"pool": 10, "difficulty": 7}),
    ("d6code", {"code": "4D+3", "difficulty": 15, "twin": True}),
    ("d6code", {"code": "8D+2", "difficulty": 30, "style": "extreme"}),
    ("seuil", {"level": 3, "complication": 2, "flat": 6, "threshold": 22}),
]
BY = {"name": "b", "role": "gm"}


def measure(batches: int = 41, per_batch: int = 300
            ) -> list[tuple[str, dict, float, float, float]]:
    """Median µs per roll of each case (a batch of rolls awaited in one coroutine, so the
    figure holds the pipeline's cost, not the loop's)."""
    host = default_host()
    pipeline = RollPipeline(host)
    loop = asyncio.new_event_loop()
    rows = []
    for ruleset, params in CASES:
        async def batch(r: str = ruleset, p: dict = params) -> tuple[float, float]:
            start, cpu = time.perf_counter(), time.thread_time()
            for _ in range(per_batch):
                roll = pipeline.prepare(r, p, table="t", by=BY)
                await pipeline.run(roll, table_state={})
            return ((time.perf_counter() - start) / per_batch * 1e6,
                    (time.thread_time() - cpu) / per_batch * 1e6)
        loop.run_until_complete(batch())  # warm the caches
        figures = [loop.run_until_complete(batch()) for _ in range(batches)]
        rows.append((ruleset, params, statistics.median(f[0] for f in figures),
                     statistics.median(f[1] for f in figures), min(f[1] for f in figures)))
    loop.close()
    host.shutdown()
    return rows


def main() -> None:
    print(f"{'ruleset':<10} {'params':<52} {'wall':>9} {'cpu':>9} {'best':>9}"
          "  (median, median, best batch: µs per roll)")
    for ruleset, params, wall, cpu, best in measure():
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"{ruleset:<10} {shown:<52} {wall:>6.1f} µs {cpu:>6.1f} µs {best:>6.1f} µs")


if __name__ == "__main__":
    main()
