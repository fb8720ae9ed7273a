"""``sidecar serve`` with measuring probes, for ``capacity.py`` (never for production).

    python benchmarks/_probe_serve.py serve --port ... (the options of ``sidecar serve``)

It is the real command (``sidecar.cli.main``), with, inside the server's process:

- an event-loop lag probe: a task sleeping 10 ms, recording how late it wakes;
- ``gc.callbacks`` recording each collection's duration by generation;
- optionally ``cProfile`` of the whole process ($SIDECAR_PROBE_PROFILE: where to dump it);
- each roll's time inside the server, from its request's frame handed to the server to
  its outcome written to the roller's connection (``SidecarServer._roll``, wall time): the
  latency the server adds itself, immune to what the load's clients cost the machine
  (though not to the server waiting for a core in the middle of a roll).

SIGUSR1 starts the measured window (clears what was recorded); SIGUSR2 writes what was
recorded since to $SIDECAR_PROBE_OUT (JSON) and the profile to $SIDECAR_PROBE_PROFILE.
Settings the command line has no flag for are given as $SIDECAR_PROBE_CONFIG,
``field=value,field=value`` of ``ServerConfig`` (e.g. ``max_tables=5000,ping_interval=none``).
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sidecar.cli.serve as serve  # noqa: E402
from sidecar.cli.main import main  # noqa: E402
from sidecar.server.connections import SidecarServer  # noqa: E402

LAG_PERIOD = 0.010


class Probes:
    """What the probes recorded since the window opened."""

    def __init__(self) -> None:
        self.reset()
        self._gc_start = self._gc_cpu_start = 0.0
        self.profiler: cProfile.Profile | None = None
        self.server: SidecarServer | None = None

    def reset(self) -> None:
        self.lags: list[float] = []
        self.gc: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.gc_cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.gc_collected: dict[int, int] = {0: 0, 1: 0, 2: 0}
        self.rolls: list[float] = []
        self.opened = time.monotonic()

    def open_window(self) -> None:
        self.reset()
        if self.profiler is not None:
            self.profiler.enable()

    def close_window(self, path: str) -> None:
        self.dump(path)
        if self.profiler is not None:
            self.profiler.disable()
            self.profiler.dump_stats(os.environ["SIDECAR_PROBE_PROFILE"])

    def on_gc(self, phase: str, info: dict) -> None:
        # Wall time and this thread's CPU time: on a shared machine a wall-clock pause
        # may be the process waiting for a core, not the collector working.
        if phase == "start":
            self._gc_start = time.perf_counter()
            self._gc_cpu_start = time.thread_time()
        else:
            generation = info["generation"]
            self.gc[generation].append(time.perf_counter() - self._gc_start)
            self.gc_cpu[generation].append(time.thread_time() - self._gc_cpu_start)
            self.gc_collected[generation] += info["collected"]

    async def sample_lag(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(LAG_PERIOD)
            self.lags.append(time.perf_counter() - before - LAG_PERIOD)

    def dump(self, path: str) -> None:
        collections = {str(g): {"count": len(d), "total_ms": sum(d) * 1000,
                                "max_ms": max(d, default=0.0) * 1000,
                                "cpu_total_ms": sum(self.gc_cpu[g]) * 1000,
                                "cpu_max_ms": max(self.gc_cpu[g], default=0.0) * 1000,
                                "collected": self.gc_collected[g]}
                       for g, d in self.gc.items()}
        tracked = gc.get_objects()  # (what a full collection walks: all but the frozen)
        # What a full collection costs now, in CPU (a wall clock would count the waits for
        # a core on a shared machine): the pause one would hold the event loop for.
        cpu = time.thread_time()
        gc.collect(2)
        full_cpu = time.thread_time() - cpu
        lags = sorted(self.lags)
        rolls = sorted(self.rolls)

        def q(p: float, values: list[float] = lags) -> float:
            return (values[min(len(values) - 1, int(p * len(values)))] * 1000 if values
                    else float("nan"))

        report = {
            "seconds": time.monotonic() - self.opened,
            "lag_ms": {"samples": len(lags), "p50": q(0.5), "p99": q(0.99), "p999": q(0.999),
                       "max": lags[-1] * 1000 if lags else float("nan"),
                       "over_50ms": sum(1 for x in lags if x > 0.050)},
            "roll_ms": {"count": len(rolls), "p50": q(0.5, rolls), "p99": q(0.99, rolls),
                        "max": rolls[-1] * 1000 if rolls else float("nan")},
            "gc": collections,
            "remembered": None if self.server is None else {
                "mib": self.server.tables.remembered.bytes / 2**20,
                "events": self.server.tables.remembered.count,
                "trimmed": self.server.tables.remembered.trimmed,
                "ids": self.server.tables.remembered.keys,
                "dropped": self.server.tables.remembered.dropped,
                "tables": len(self.server.tables)},
            "tracked_objects": len(tracked),
            "full_collection_cpu_ms": full_cpu * 1000,
            "tracked_types": Counter(type(o).__qualname__ for o in tracked).most_common(12),
            "gc_frozen": gc.get_freeze_count(),
            "gc_threshold": gc.get_threshold(),
        }
        Path(path).write_text(json.dumps(report))


def _value(text: str) -> object:
    if text.lower() == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def install() -> Probes:
    probes = Probes()
    overrides = dict(item.split("=", 1) for item in
                     os.environ.get("SIDECAR_PROBE_CONFIG", "").split(",") if item)
    original = serve.serve_until_stopped

    async def probed(config, table, *more):  # type: ignore[no-untyped-def]
        for key, text in overrides.items():
            setattr(config, key, _value(text))
        gc.callbacks.append(probes.on_gc)
        lag = asyncio.get_running_loop().create_task(probes.sample_lag())  # noqa: RUF006
        out = os.environ.get("SIDECAR_PROBE_OUT")
        signal.signal(signal.SIGUSR1, lambda *_: probes.open_window())
        if out:
            # On the loop, not in the handler: a handler may run inside a collection's
            # callback, where a forced collection would return at once.
            loop = asyncio.get_running_loop()
            signal.signal(signal.SIGUSR2, lambda *_: loop.call_soon_threadsafe(
                probes.close_window, out))
        try:
            return await original(config, table, *more)
        finally:
            lag.cancel()

    serve.serve_until_stopped = probed
    original_roll = SidecarServer._roll

    async def timed_roll(self, session, request):  # type: ignore[no-untyped-def]
        probes.server = self
        began = time.perf_counter()
        try:
            return await original_roll(self, session, request)
        finally:
            probes.rolls.append(time.perf_counter() - began)

    SidecarServer._roll = timed_roll  # type: ignore[method-assign]
    return probes


if __name__ == "__main__":
    installed = install()
    if os.environ.get("SIDECAR_PROBE_PROFILE"):
        # Enabled by SIGUSR1, dumped by SIGUSR2: the measured window only.
        installed.profiler = cProfile.Profile(time.thread_time)  # CPU, not waits for a core
    sys.exit(main(sys.argv[1:]))
