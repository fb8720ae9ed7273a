"""What characters cost (issue 11): a roll as a character against a plain roll, and the
memory of 1,000 characters at a table.

    .venv/bin/python benchmarks/characters.py

Targets: a roll as a character costs at most 1.2× a plain roll of the same ruleset, in
process and end to end; 1,000 characters at a table add at most 20 MiB of server RSS.

* **Pipeline, in process** (as ``benchmarks/pipeline.py`` measures a roll): preparing the
  roll (params checked; as a character, the sheet read and copied) and running it through
  the plugins, no journal, no socket.
* **Whole server path, in process**: one roll's whole path without a socket — the table
  core's ``begin_roll``, reading the sheet, the pipeline, numbering, the journal's append
  (a real SQLite file) and the commit — in batches of plain rolls and of rolls as a
  character (which also read the sheet, apply a spend and write the character's record in
  the same transaction), alternated so both see the same machine. Figures: the median and
  the best batch's µs per roll, and their ratios.
* **End to end**: one client against ``sidecar serve``, one roll at a time (send, wait
  for the outcome), plain and as a character in alternated batches: median round trip.
* **Memory**: ``sidecar serve``'s RSS with a GM at a table, before and after the GM made
  1,000 characters there (each with its full sheet).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import GM, free_port, sidecar_server  # noqa: E402

from sidecar.config import ServerConfig  # noqa: E402
from sidecar.host.pipeline import RollPipeline  # noqa: E402
from sidecar.host.plugins import default_host  # noqa: E402
from sidecar.protocol.messages import Hello, RollRequest, SheetRequest  # noqa: E402
from sidecar.stores.journal import Journal  # noqa: E402
from sidecar.table.core import TableCore  # noqa: E402

#: The ruleset, its plain params, and the same roll as a character (params the sheet
#: supplies left out, a spend made): a roll that spends and one that gives back, so the
#: character's counter stays within its bounds however many rolls are made.
RULESET = "d6code"
#: The same roll, typed in full or taken from the sheet: a skill code and a style point
#: (2 more dice). As a character, every roll spends its style point: the sheet is read,
#: checked, spent and written in the outcome's transaction each time. Between two batches,
#: untimed, the GM sets the points back.
PLAIN = {"code": "4D+2", "difficulty": 15, "style": "libre"}
CHARACTER_VALUES: dict[str, Any] = {"competences": {"Tir": "4D+2"}, "points_style": 99}
AS_CHARACTER = [{"skill": "Tir", "difficulty": 15, "style": "libre"}]


def configure(ruleset: str, plain: dict, values: dict, as_character: list[dict]) -> None:
    global RULESET, PLAIN, CHARACTER_VALUES, AS_CHARACTER
    RULESET, PLAIN, CHARACTER_VALUES, AS_CHARACTER = ruleset, plain, values, as_character


# -- in process ---------------------------------------------------------------------------

async def pipeline_only(batches: int = 41, per_batch: int = 90) -> dict[str, float]:
    config = ServerConfig(gm_token=GM, player_token="p")
    host = default_host()
    pipeline = RollPipeline(host)
    core = TableCore(config, catalogue=host, preparer=pipeline, load=lambda name: (0, {}))
    table, gm = core.join(Hello(table="bench", name="MJ", role="gm", token=GM), binary=True)
    request = SheetRequest(op="set", character="Bench", ruleset=RULESET,
                           values=CHARACTER_VALUES)
    core.commit(core.sheet_change(core.begin_change(table, gm, request), request))

    async def batch(character: bool) -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.thread_time()
        for index in range(per_batch):
            params = AS_CHARACTER[index % len(AS_CHARACTER)] if character else PLAIN
            ticket = core.begin_roll(table, gm, RollRequest(
                ruleset=RULESET, params=params, character="Bench" if character else None))
            core.attach_sheet(ticket)
            await pipeline.run(ticket.roll, table_state=table.state)
        return ((time.perf_counter() - start) / per_batch * 1e6,
                (time.thread_time() - cpu) / per_batch * 1e6)

    await batch(False)
    await batch(True)
    plain, as_character = [], []
    for _ in range(batches):
        plain.append(await batch(False))
        as_character.append(await batch(True))
    host.shutdown()
    return _figures(plain, as_character)


async def in_process(batches: int = 31, per_batch: int = 90) -> dict[str, float]:
    folder = tempfile.mkdtemp(prefix="sidecar-bench-")
    config = ServerConfig(gm_token=GM, player_token="p", db=str(Path(folder) / "b.db"))
    host = default_host()
    pipeline = RollPipeline(host)
    journal = Journal(config.db)
    core = TableCore(config, catalogue=host, preparer=pipeline, load=lambda name: (0, {}))
    table, gm = core.join(Hello(table="bench", name="MJ", role="gm", token=GM), binary=True)

    async def store(pending: Any) -> None:
        await journal.append(pending.event, pending.state, pending.records)
        core.commit(pending)

    async with table.turn:
        ticket = core.begin_change(table, gm, SheetRequest(op="set"))
        await store(core.sheet_change(ticket, SheetRequest(
            op="set", character="Bench", ruleset=RULESET, values=CHARACTER_VALUES)))

    async def give_back() -> None:
        async with table.turn:
            request = SheetRequest(op="set", character="Bench", ruleset=RULESET,
                                   values=CHARACTER_VALUES)
            await store(core.sheet_change(core.begin_change(table, gm, request), request))

    async def batch(character: bool) -> tuple[float, float]:
        wall = cpu = 0.0
        for index in range(per_batch):
            params = AS_CHARACTER[index % len(AS_CHARACTER)] if character else PLAIN
            start, start_cpu = time.perf_counter(), time.thread_time()
            request = RollRequest(ruleset=RULESET, params=params,
                                  character="Bench" if character else None)
            ticket = core.begin_roll(table, gm, request)
            async with table.turn:
                core.attach_sheet(ticket)
                resolution = await pipeline.run(ticket.roll, table_state=table.state)
                await store(core.number(ticket, resolution))
            wall += time.perf_counter() - start
            cpu += time.thread_time() - start_cpu
            # Untimed, both kinds: each roll starts a loop turn of its own, as a request
            # read from a socket does (the journal groups appends made in one turn).
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        if character:
            await give_back()  # untimed
        return wall / per_batch * 1e6, cpu / per_batch * 1e6

    await batch(False)
    await batch(True)
    plain, as_character = [], []
    for _ in range(batches):
        plain.append(await batch(False))
        as_character.append(await batch(True))
    journal.close()
    host.shutdown()
    return _figures(plain, as_character)


def _figures(plain: list[tuple[float, float]], character: list[tuple[float, float]]
             ) -> dict[str, float]:
    median_plain = statistics.median(p[0] for p in plain)
    median_character = statistics.median(c[0] for c in character)
    best_plain = min(p[1] for p in plain)
    best_character = min(c[1] for c in character)
    return {"plain_us": median_plain, "character_us": median_character,
            "ratio": median_character / median_plain,
            "best_plain_cpu_us": best_plain, "best_character_cpu_us": best_character,
            "best_ratio": best_character / best_plain}


# -- end to end ---------------------------------------------------------------------------

async def _gm(url: str) -> Any:
    ws = await connect(url, compression=None, max_size=1 << 24)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": "bench",
                                 "name": "MJ", "role": "gm", "token": GM}))
    await ws.recv()
    return ws


async def _ask(ws: Any, message: dict) -> dict:
    await ws.send(msgpack.packb(message))
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply.get("id") == message["id"]:
            return reply


async def end_to_end(url: str, batches: int = 21, per_batch: int = 90) -> dict[str, float]:
    ws = await _gm(url)
    made = await _ask(ws, {"type": "sheet", "id": "c", "op": "set", "character": "Bench",
                           "ruleset": RULESET, "values": CHARACTER_VALUES})
    assert made["type"] == "sheet", made
    counter = 0

    async def batch(character: bool) -> tuple[float, float]:
        nonlocal counter
        wall = cpu = 0.0
        for index in range(per_batch):
            counter += 1
            message = {"type": "roll", "id": counter, "ruleset": RULESET,
                       "params": AS_CHARACTER[index % len(AS_CHARACTER)] if character
                       else PLAIN}
            if character:
                message["character"] = "Bench"
            start, start_cpu = time.perf_counter(), time.thread_time()
            reply = await _ask(ws, message)
            wall += time.perf_counter() - start
            cpu += time.thread_time() - start_cpu
            assert reply["type"] == "outcome", reply
        if character:  # untimed
            counter += 1
            await _ask(ws, {"type": "sheet", "id": counter, "op": "set", "character": "Bench",
                            "ruleset": RULESET, "values": CHARACTER_VALUES})
        return wall / per_batch * 1e6, cpu / per_batch * 1e6

    await batch(False)
    await batch(True)
    plain, as_character = [], []
    for _ in range(batches):
        plain.append(await batch(False))
        as_character.append(await batch(True))
    await ws.close()
    return _figures(plain, as_character)


# -- memory -------------------------------------------------------------------------------

async def characters_memory(url: str, server: Any, count: int = 1000) -> dict[str, float]:
    ws = await _gm(url)
    # The first character warms the paths up (imports, caches); the rest are measured.
    await _ask(ws, {"type": "sheet", "id": "c0", "op": "set",
                    "character": "Personnage 0000", "ruleset": RULESET,
                    "values": CHARACTER_VALUES})
    await asyncio.sleep(0.5)
    before = server.rss_mib()
    for index in range(1, count):
        reply = await _ask(ws, {"type": "sheet", "id": f"c{index}", "op": "set",
                                "character": f"Personnage {index:04d}", "ruleset": RULESET,
                                "values": CHARACTER_VALUES})
        assert reply["type"] == "sheet", reply
    await asyncio.sleep(0.5)
    after = server.rss_mib()
    await ws.close()
    return {"before_mib": before, "after_mib": after, "added_mib": after - before}


def main() -> None:
    figures = asyncio.run(pipeline_only())
    print(f"pipeline in process ({RULESET}): plain {figures['plain_us']:.1f} µs, as a "
          f"character {figures['character_us']:.1f} µs → ×{figures['ratio']:.2f} (median); "
          f"best batch CPU {figures['best_plain_cpu_us']:.1f} vs "
          f"{figures['best_character_cpu_us']:.1f} µs → ×{figures['best_ratio']:.2f} "
          f"(target ≤ ×1.20)")
    figures = asyncio.run(in_process())
    print(f"whole server path in process ({RULESET}): plain {figures['plain_us']:.1f} µs, "
          "as a character "
          f"{figures['character_us']:.1f} µs → ×{figures['ratio']:.2f} (median); best "
          f"batch CPU {figures['best_plain_cpu_us']:.1f} vs "
          f"{figures['best_character_cpu_us']:.1f} µs → ×{figures['best_ratio']:.2f} "
          f"(target ≤ ×1.20)")
    port = free_port()
    server = sidecar_server(port)
    try:
        url = f"ws://127.0.0.1:{port}/ws"
        figures = asyncio.run(end_to_end(url))
        print(f"end to end ({RULESET}): plain {figures['plain_us']:.0f} µs, as a character "
              f"{figures['character_us']:.0f} µs per round trip → ×{figures['ratio']:.2f} "
              f"(median; target ≤ ×1.20)")
    finally:
        server.stop()
    port = free_port()
    server = sidecar_server(port)
    try:
        memory = asyncio.run(characters_memory(f"ws://127.0.0.1:{port}/ws", server))
        print(f"memory: 1,000 {RULESET} characters at a table (999 after the first): "
              f"{memory['before_mib']:.1f} → "
              f"{memory['after_mib']:.1f} MiB RSS, +{memory['added_mib']:.1f} MiB "
              f"(target ≤ 20 MiB)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
