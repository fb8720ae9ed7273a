"""One odds request through the pipeline, in process, with the odds cached: what a page
asks each time its form changes. Prints the best and the median cost per request of five
runs of 300 requests.

    .venv-test/bin/python benchmarks/odds_request.py
"""

from __future__ import annotations

import asyncio
import time

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host

BY = {"name": "A", "role": "gm"}
CASES = [("bloodlust", {"pool": 5}),
         ("oweens", {"dice": 3, "difficulty": 2}),
         ("dice", {"expr": "2d6+3", "target": 10})]
REQUESTS = 300


async def measure(pipeline: RollPipeline) -> None:
    for ruleset, params in CASES:
        runs = []
        for _run in range(5):
            start = time.perf_counter()
            for _ in range(REQUESTS):
                await pipeline.odds(pipeline.prepare(ruleset, params, by=BY))
            runs.append((time.perf_counter() - start) / REQUESTS * 1e6)
        runs.sort()
        print(f"{ruleset:10s} odds request in process: best {runs[0]:7.1f} µs, "
              f"median {runs[2]:7.1f} µs")


def main() -> None:
    host = default_host()
    try:
        asyncio.run(measure(RollPipeline(host)))
    finally:
        host.shutdown()


if __name__ == "__main__":
    main()
