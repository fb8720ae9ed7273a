"""Every benchmark in one run, with a summary table against the targets.

    .venv/bin/pip install icepool d20      # baselines, for the benchmarks only
    .venv/bin/python benchmarks/run_all.py [--loop uvloop]

Takes about six minutes on the project's 2-core machine. Figures, the machine and the
targets are recorded in benchmarks/README.md.
"""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fanout  # noqa: E402
import memory  # noqa: E402
import resolution  # noqa: E402
import throughput  # noqa: E402


def section(title: str) -> None:
    print(f"\n== {title} ==")


def main() -> int:
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {cores} cores")
    summary: list[tuple[str, str, str, bool]] = []

    section("throughput and latency vs bare websockets echo (benchmarks/throughput.py)")
    rows = throughput.measure(throughput.server_args_from(sys.argv))
    for r in rows:
        print(f"{r['clients']:>3} clients: {r['rolls/s']:>6.0f} rolls/s, group-commit ceiling "
              f"{r['grouped/s']:>6.0f}/s ({r['vs grouped']:.0%}), echo {r['echo/s']:>6.0f}/s "
              f"({r['ratio']:.0%}); p50 {r['p50 ms']:.2f} ms, p99 {r['p99 ms']:.2f} ms "
              f"(ceiling p99 {r['grouped p99 ms']:.2f})")
    one, fifty = rows[0], rows[-1]
    summary.append(("throughput, 1 client", "≥ 80 % of ceiling", f"{one['vs grouped']:.0%}",
                    one["vs grouped"] >= 0.8))
    summary.append(("throughput, 50 clients", "≥ 60 % of ceiling",
                    f"{fifty['vs grouped']:.0%}", fifty["vs grouped"] >= 0.6))
    p99_ratio = fifty["p99 ms"] / fifty["grouped p99 ms"]
    summary.append(("p99, 50 clients", "≤ 2× ceiling's", f"{p99_ratio:.2f}×", p99_ratio <= 2))

    section("fan-out vs websockets.broadcast (benchmarks/fanout.py)")
    runs = fanout.measure_runs(5)
    for number, rows in enumerate(runs, 1):
        for r in rows:
            print(f"run {number}, {r['clients']:>3} clients: p50 {r['p50 ms']:.2f} ms, "
                  f"p99 {r['p99 ms']:.2f} ms; raw p99 {r['raw p99 ms']:.2f} ms → "
                  f"{r['p99 ratio']:.2f}×")
    worst = max(r["p99 ratio"] for rows in runs for r in rows)
    summary.append(("fan-out p99 (10/100/500)", "≤ 1.5× raw, 5 runs", f"{worst:.2f}× worst",
                    worst <= 1.5))

    section("in-process resolution vs d20 (benchmarks/resolution.py)")
    rows = resolution.best_of_two()
    for r in rows:
        print(f"{r['ruleset']:<10} {r['d20']:<12} resolve {r['resolve µs']:6.1f} µs, pipeline "
              f"{r['pipeline µs']:6.1f} µs, d20 {r['d20 µs']:6.1f} µs ({r['vs d20']:.1f}×)")
    slowest = max(r["resolve µs"] for r in rows)
    least = min(r["vs d20"] for r in rows)
    summary.append(("resolution ≤ 10 dice", "≤ 30 µs, faster than d20",
                    f"{slowest:.1f} µs max, {least:.1f}× d20 min", slowest <= 30 and least > 1))

    section("memory with 1,000 idle clients (benchmarks/memory.py)")
    rows = memory.measure()
    rss = rows[0]["rss MiB"]
    print(f"server RSS {rss:.1f} MiB (at start {rows[0]['rss before MiB']:.1f} MiB)")
    summary.append(("RSS, 1,000 idle clients", "≤ 100 MiB", f"{rss:.1f} MiB", rss <= 100))

    section("summary")
    print(f"{'figure':<28} {'target':<26} {'measured':<24} met")
    for name, target, measured, met in summary:
        print(f"{name:<28} {target:<26} {measured:<24} {'yes' if met else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
