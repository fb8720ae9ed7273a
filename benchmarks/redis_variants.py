"""What one proposed change to the Redis store would save, measured before it is made.

    .venv/bin/python benchmarks/redis_variants.py [--rounds 3] [--seconds 4]

``redis_scaling.py`` counts three ``HGET``s per roll on Redis: two inside the append
script, and one before the roll (``find_request``: with a shared store every table is
marked ``forgot``, so each new request id is looked up in Redis first, although the
script checks the id atomically and a duplicate is answered from ``DuplicateRequest``).
This runs the same load (12 tables, everysec) against ``sidecar serve`` as shipped and
against ``sidecar serve`` with that look-up switched off in the process
(``Table.needs_journal_lookup`` patched to ``False`` — a measurement, not a fix: with the
SQLite journal the look-up is needed), alternated over ``--rounds`` rounds, and prints the
server CPU per roll of each; and first the same in process (core, pipeline, RedisStore,
the look-up made or not), which the machine's noise disturbs less.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import redis_scaling  # noqa: E402
from _common import GM, PLAYER, Process  # noqa: E402

NO_LOOKUP = ("import sys; import sidecar.table.tables as t; "
             "t.Table.needs_journal_lookup = lambda self: False; "
             "from sidecar.cli.main import main; sys.exit(main(sys.argv[1:]))")


def no_lookup_server(port: int, *extra: str) -> Process:
    """``sidecar serve`` as ``_common.sidecar_server`` starts it, without the look-up."""
    db = Path(tempfile.mkdtemp(prefix="sidecar-bench-")) / "bench.db"
    return Process([sys.executable, "-c", NO_LOOKUP, "serve", "--port", str(port),
                    "--db", str(db), "--gm-token", GM, "--player-token", PLAYER,
                    "--rate-limit", "0", "--log-level", "warning", "--disable", "boss",
                    "--max-observers", "1000", "--max-connections-per-address", "0",
                    *extra], ready=r"WebSocket ws://")


def in_process(folder: Path, rounds: int) -> None:
    """The same look-up in process: rolls on a RedisStore with and without it, alternated."""
    found: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
    for _ in range(rounds):
        for lookup in (True, False):
            found[lookup] += asyncio.run(redis_scaling.in_process("redis", folder,
                                                                  lookup=lookup))
    with_, without = found[True], found[False]
    print("in process, RedisStore (everysec), whole roll: with the look-up "
          f"{statistics.median(r[0] for r in with_):.0f} µs wall (median), "
          f"{min(r[1] for r in with_):.0f} µs CPU (best batch); without "
          f"{statistics.median(r[0] for r in without):.0f} µs wall, "
          f"{min(r[1] for r in without):.0f} µs CPU")


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv \
        else 4.0
    folder = Path(tempfile.mkdtemp(prefix="sidecar-redis-variants-"))
    in_process(folder, rounds)
    variants = {"as shipped": redis_scaling.sidecar_server, "no look-up": no_lookup_server}
    found: dict[tuple[str, int], list[dict]] = {}
    print(f"{'variant':<12} {'proc':>4} {'round':>5} {'rolls/s':>8} {'p99 ms':>7} "
          f"{'srv µs':>7} {'hget':>5}")
    for round_ in range(rounds):
        for processes in (1, 2, 3):
            for label, start in variants.items():
                row = redis_scaling.throughput_row("everysec", processes, False, seconds,
                                                   folder / f"{round_}", start)
                found.setdefault((label, processes), []).append(row)
                print(f"{label:<12} {processes:>4} {round_ + 1:>5} {row['rolls/s']:>8.0f} "
                      f"{row['p99']:>7.2f} {row['server µs']:>7.0f} {row['hget/roll']:>5.2f}",
                      flush=True)
    print("median server CPU per roll (µs):")
    for processes in (1, 2, 3):
        shipped = statistics.median(r["server µs"] for r in found[("as shipped", processes)])
        patched = statistics.median(r["server µs"] for r in found[("no look-up", processes)])
        print(f"  {processes} process(es): as shipped {shipped:.0f}, no look-up {patched:.0f} "
              f"({patched / shipped - 1:+.0%})")


if __name__ == "__main__":
    main()
