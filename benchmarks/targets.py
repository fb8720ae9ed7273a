"""What a target costs (issue 26): a roll as a character aimed at another character
against the same roll as a character aimed at nobody.

    .venv/bin/python benchmarks/targets.py                 # CPU time, A/B alternated
    .venv/bin/python benchmarks/targets.py --instructions  # callgrind instruction counts

Target: a targeted roll costs at most 1.2× a roll as a character.

Both rolls go the whole server path in process — the table core's ``begin_roll``, the
sheet (and the target's copy) read, the pipeline, numbering (the roller's spend; for the
targeted roll the effect, clamped, the target's record and its ``target_sheets``), the
journal's append (a real SQLite file) and the commit, which plans every reader's copy. The
ruleset is this file's own ``strike`` (an opposed roll in the manner of O'Ween's melee:
a pool of the roller's ``peps`` d6 against a difficulty, each roll spending a point of
``reserve``; aimed at a character, the difficulty is the target's ``peps`` and the margin
goes to its ``wounds``): the same plugin work both ways, so the difference is the
server's handling of the target.

Figures: CPU time by batches of each kind alternated (so both see the same machine),
the median of the pairs' ratios; with ``--instructions``, the instructions per roll that
callgrind counts (each kind measured as a run of N rolls minus a run of none, in separate
processes: steadier than time on a loaded machine).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import GM  # noqa: E402

from sidecar import hookimpl  # noqa: E402
from sidecar.config import ServerConfig  # noqa: E402
from sidecar.host.pipeline import RollPipeline  # noqa: E402
from sidecar.host.plugins import default_host  # noqa: E402
from sidecar.model import Outcome, label  # noqa: E402
from sidecar.protocol.messages import Hello, RollRequest, SheetRequest  # noqa: E402
from sidecar.stores.journal import Journal  # noqa: E402
from sidecar.table.core import TableCore  # noqa: E402

BIG = 10**9


class Strike:
    """The ``strike`` ruleset (this benchmark's): see the module's docstring."""

    @hookimpl
    def sidecar_rulesets(self) -> list[dict[str, Any]]:
        return [{"name": "strike", "title": "Strike", "version": "1.0", "params": {
            "difficulty": {"type": "int", "min": 1, "max": 10, "default": 3}}}]

    @hookimpl
    def sidecar_sheet(self, ruleset: str) -> dict[str, Any] | None:
        if ruleset != "strike":
            return None
        return {"peps": {"type": "int", "min": 1, "max": 6, "default": 4},
                "reserve": {"type": "int", "min": 0, "max": BIG, "default": BIG,
                            "resource": True},
                "wounds": {"type": "int", "min": 0, "max": BIG, "default": 0}}

    @hookimpl
    def sidecar_max_spend(self, roll: Any, choice: Any) -> dict[str, int] | None:
        return {"reserve": 1}

    @hookimpl
    def sidecar_resolve(self, roll: Any, dice: Any) -> Outcome:
        target = next(iter(roll.targets.items()), None)
        difficulty = target[1]["values"]["peps"] if target else roll.params["difficulty"]
        pool = roll.sheet["peps"] if roll.sheet is not None else 4
        hits = sum(1 for _ in range(pool) if dice.roll(6) > 3)
        margin = hits - difficulty
        success = margin >= 0
        outcome = Outcome(result={
            "success": success, "margin": margin, "kind": "success" if success else "failure",
            "label": label("Réussite", "Success") if success else label("Échec", "Failure")},
            spend={"reserve": 1} if roll.sheet is not None else {})
        if target is not None and margin > 0:
            outcome.effects = {target[0]: {"wounds": margin}}
        return outcome


def _core() -> tuple[TableCore, RollPipeline, Journal, Any, Any, Any]:
    folder = tempfile.mkdtemp(prefix="sidecar-bench-")
    config = ServerConfig(gm_token=GM, player_token="p", db=str(Path(folder) / "b.db"))
    host = default_host()
    # Trusted, as the built-in rulesets are (no guard's copies, no deadline: callgrind
    # runs the server some fifty times slower).
    host.register(Strike(), "strike", version="1.0", source="benchmark", trusted=True)
    pipeline = RollPipeline(host)
    journal = Journal(config.db)
    core = TableCore(config, catalogue=host, preparer=pipeline, load=lambda name: (0, {}))
    table, gm = core.join(Hello(table="bench", name="MJ", role="gm", token=GM), binary=True)
    return core, pipeline, journal, table, gm, host


async def _setup(core: TableCore, journal: Journal, table: Any, gm: Any) -> None:
    for name in ("Bench", "Foe"):
        async with table.turn:
            request = SheetRequest(op="set", character=name, ruleset="strike",
                                   values={"peps": 4})
            pending = core.sheet_change(core.begin_change(table, gm, request), request)
            await journal.append(pending.event, pending.state, pending.records)
            core.commit(pending)


async def _roll(core: TableCore, pipeline: RollPipeline, journal: Journal, table: Any,
                gm: Any, targeted: bool, plain: bool = False) -> None:
    request = RollRequest(ruleset="strike", character=None if plain else "Bench",
                          targets=("Foe",) if targeted else ())
    ticket = core.begin_roll(table, gm, request)
    async with table.turn:
        core.attach_sheet(ticket)
        resolution = await pipeline.run(ticket.roll, table_state=table.state)
        pending = core.number(ticket, resolution)
        await journal.append(pending.event, pending.state, pending.records)
        core.commit(pending)


async def alternated(batches: int = 31, per_batch: int = 90) -> dict[str, float]:
    core, pipeline, journal, table, gm, host = _core()
    await _setup(core, journal, table, gm)

    async def batch(targeted: bool) -> float:
        cpu = 0.0
        for _ in range(per_batch):
            start = time.thread_time()
            await _roll(core, pipeline, journal, table, gm, targeted)
            cpu += time.thread_time() - start
            await asyncio.sleep(0)  # (untimed: each roll a loop turn, as from a socket)
            await asyncio.sleep(0)
        return cpu / per_batch * 1e6

    await batch(False)
    await batch(True)
    pairs = []
    for _ in range(batches):
        pairs.append((await batch(False), await batch(True)))
    journal.close()
    host.shutdown()
    return {"character_us": statistics.median(p[0] for p in pairs),
            "targeted_us": statistics.median(p[1] for p in pairs),
            "ratio": statistics.median(p[1] / p[0] for p in pairs)}


async def _count(kind: str, rolls: int) -> None:
    """What one callgrind run does: set up, warm both paths up, then ``rolls`` of
    ``kind`` (``none``: no more; ``plain``: a roll as no character, aimed at nobody — the
    path whose cost targets must leave alone)."""
    core, pipeline, journal, table, gm, host = _core()
    await _setup(core, journal, table, gm)
    for targeted in (False, True) * 20:
        await _roll(core, pipeline, journal, table, gm, targeted)
    for _ in range(rolls if kind != "none" else 0):
        await _roll(core, pipeline, journal, table, gm, kind == "targeted", kind == "plain")
    journal.close()
    host.shutdown()


def _instructions(kind: str, rolls: int) -> int:
    folder = tempfile.mkdtemp(prefix="sidecar-callgrind-")
    out = Path(folder) / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    sys.executable, __file__, "--count", kind, str(rolls)],
                   check=True, capture_output=True, timeout=3600)
    for line in out.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError("no totals in the callgrind output")


def main() -> None:
    if sys.argv[1:2] == ["--count"]:
        asyncio.run(_count(sys.argv[2], int(sys.argv[3])))
        return
    if sys.argv[1:2] == ["--instructions"]:
        rolls = 200
        base = _instructions("none", 0)
        character = (_instructions("character", rolls) - base) / rolls
        targeted = (_instructions("targeted", rolls) - base) / rolls
        print(f"instructions per roll (callgrind, whole server path in process): as a "
              f"character {character:,.0f}, aimed at a character {targeted:,.0f} → "
              f"×{targeted / character:.2f} (target ≤ ×1.20)")
        return
    figures = asyncio.run(alternated())
    print(f"whole server path in process (strike): as a character "
          f"{figures['character_us']:.1f} µs CPU, aimed at a character "
          f"{figures['targeted_us']:.1f} µs → ×{figures['ratio']:.2f} (median of pairs; "
          f"target ≤ ×1.20)")


if __name__ == "__main__":
    main()
