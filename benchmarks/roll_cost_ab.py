"""Server instructions per roll, tree A against tree B, counted by callgrind (issue 27).

    .venv-test/bin/python benchmarks/roll_cost_ab.py \
        --tree old=/work/wt/old59/.venv-old/bin/python --tree new=.venv-test/bin/python \
        [--rolls 300] [--warm-up 20] [--kinds plain,character] [--repeat 1] [--keep DIR]

Timings swing on a shared machine; a count of machine instructions does not. For each tree
(a Python interpreter whose ``sidecar`` is that tree, e.g. the venv of a ``git worktree``
of the old commit) and each kind of roll, a real ``sidecar serve --dice secure`` runs under
``valgrind --tool=callgrind`` twice: once where a GM and a watching player join, the GM
sets a character up, makes the warm-up rolls and then N rolls one after another (each
awaited), and once the same without the N rolls. Instructions per roll = (instructions of
the N-roll run − of the 0-roll run) / N: the whole server side of a roll — the frame read
and decoded, the request parsed, the table core, the pipeline and the plugins, the
journal's append and commit, the fan-out's encoding and writes to the roller and to the
watcher — and nothing of the start, the joins, the warm-up (imports on first use, caches
filled) or the stop. The client runs in this process, outside valgrind; the server gets
``PYTHONHASHSEED=0`` so both runs hash alike.

Kinds: ``plain`` (bloodlust, 5 dice, public, no character) and ``character`` (the same
roll as a character: the pool named from the sheet). The bloodlust ruleset is the same
file in both trees of issue 27, and offers no decision (no open roll, no timer).

``--keep DIR`` keeps the callgrind files (for ``callgrind_annotate --inclusive=yes``);
``--repeat K`` runs each pair K times (the table shows their mean).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import GM, PLAYER, free_port  # noqa: E402

RULESET = "bloodlust"
SHEET = {"groupements": {"Melee": 5}}
#: Rolls made in both runs before the counted ones: what a server does once (imports on
#: first use, caches filled, the journal's first pages) stays out of the difference.
WARM_UP = 20
KINDS: dict[str, dict] = {
    "plain": {"type": "roll", "ruleset": RULESET, "params": {"pool": 5}, "mode": "public"},
    "character": {"type": "roll", "ruleset": RULESET, "params": {"skill": "Melee"},
                  "mode": "public", "character": "Bench"},
}


def sidecar_script(python: str) -> str:
    """The ``sidecar`` console script beside ``python`` (it knows its tree's ``main``)."""
    script = Path(python).parent / "sidecar"
    if not script.exists():
        raise SystemExit(f"no sidecar script beside {python}")
    return str(script)


class Server:
    """``sidecar serve --dice secure`` under callgrind, on a loopback port."""

    def __init__(self, python: str, out: Path, profile: str = "") -> None:
        self.port = free_port()
        self.out = out
        self.profile = profile
        folder = Path(tempfile.mkdtemp(prefix="sidecar-ab-"))
        self.folder = folder
        # (``profile``: instead of callgrind, ``calls`` per function by cProfile, or
        # ``opcodes``: the bytecodes each Python function ran, by _opcount.py)
        wrap = ([python, "-m", "cProfile", "-o", str(out)] if profile == "calls" else
                [python, str(Path(__file__).resolve().parent / "_opcount.py"), str(out)]
                if profile == "opcodes" else
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python])
        args = [*wrap, sidecar_script(python), "serve", "--port", str(self.port),
                "--db", str(folder / "ab.db"), "--gm-token", GM, "--player-token", PLAYER,
                "--rate-limit", "0", "--log-level", "warning", "--disable", "boss",
                "--dice", "secure"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0"}
        env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, cwd=folder, env=env)
        deadline = time.monotonic() + 600
        #: What the server logged once started (read all along: a full pipe would stop it).
        self.logged: list[str] = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if re.search(r"WebSocket ws://", line):
                threading.Thread(target=self._drain, daemon=True).start()
                return
            if not line:
                break
        self.proc.kill()
        raise RuntimeError(f"{python}: sidecar serve did not start under valgrind")

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.logged.append(line.rstrip())

    def stop(self) -> int:
        """Stop the server; the instructions it ran, from callgrind's totals."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=600)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
        if self.logged:  # (logging costs instructions too: say so)
            print(f"    ({len(self.logged)} lines logged, e.g. {self.logged[0][:120]!r})",
                  flush=True)
        if self.profile:
            return 0
        for line in self.out.read_text().splitlines():
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
        raise RuntimeError(f"no totals in {self.out}")


async def _join(url: str, name: str, role: str, token: str):
    ws = await connect(url, compression=None, max_size=1 << 22, ping_interval=None)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": "ab", "name": name,
                                 "role": role, "token": token}))
    while True:  # the welcome, then its own presence: joined and settled
        message = msgpack.unpackb(await ws.recv())
        if message["type"] == "presence" and message.get("name", name) == name:
            return ws
        if message["type"] == "error":
            raise RuntimeError(message)


async def _ask(ws, message: dict) -> dict:
    await ws.send(msgpack.packb(message))
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply.get("id") == message["id"]:
            return reply


async def _session(url: str, kind: str, rolls: int, warm_up: int) -> None:
    """Join a GM and a watching player, set the character up, make ``rolls`` rolls (after
    the warm-up's)."""
    gm = await _join(url, "MJ", "gm", GM)
    watcher = await _join(url, "Watcher", "player", PLAYER)
    made = await _ask(gm, {"type": "sheet", "id": "setup", "op": "set", "character": "Bench",
                           "ruleset": RULESET, "values": SHEET})
    assert made["type"] == "sheet", made
    seen = 0

    async def drain() -> None:  # the watcher reads its copies as a client would
        nonlocal seen
        async for frame in watcher:
            if msgpack.unpackb(frame).get("type") == "outcome":
                seen += 1

    reading = asyncio.create_task(drain())
    for n in range(warm_up + rolls):
        reply = await _ask(gm, {**KINDS[kind], "id": f"r{n}"})
        assert reply["type"] == "outcome", reply
    while seen < warm_up + rolls:  # every copy delivered before the server stops
        await asyncio.sleep(0.05)
    await gm.close()
    await watcher.close()
    await reading


def count(python: str, kind: str, rolls: int, out: Path, warm_up: int = WARM_UP,
          profile: str = "") -> int:
    """The server's instructions for a session of ``rolls`` rolls of ``kind``."""
    server = Server(python, out, profile)
    try:
        asyncio.run(_session(f"ws://127.0.0.1:{server.port}/ws", kind, rolls, warm_up))
    except BaseException:
        server.proc.kill()
        raise
    return server.stop()


def _calls(path: Path) -> dict[str, tuple[int, float]]:
    """function → (calls, own seconds) from a cProfile file."""
    import pstats
    found: dict[str, tuple[int, float]] = {}
    for (file, line, name), (_, calls, own, _, _) in pstats.Stats(str(path)).stats.items():
        where = f"{Path(file).parent.name}/{Path(file).name}:{name}" if line else name
        calls0, own0 = found.get(where, (0, 0.0))
        found[where] = (calls0 + calls, own0 + own)
    return found


def calls_per_roll(trees: list[tuple[str, str]], kinds: list[str], rolls: int, warm_up: int,
                   keep: Path) -> None:
    """Per tree and kind: each function's calls per roll ((N − 0) / N), the most first —
    where a tree's extra instructions go, named by Python function (callgrind sees the
    interpreter's C functions only)."""
    for kind in kinds:
        for label, python in trees:
            zero, full = (keep / f"{label}.{kind}.{n}.prof" for n in (0, rolls))
            count(python, kind, 0, zero, warm_up, profile="calls")
            count(python, kind, rolls, full, warm_up, profile="calls")
            before, after = _calls(zero), _calls(full)
            rows = sorted(((after[f][0] - before.get(f, (0, 0))[0]) / rolls, f)
                          for f in after)
            total = sum(n for n, _ in rows)
            print(f"\n{kind} {label}: {total:.1f} calls a roll")
            for n, name in reversed(rows):
                if n >= 0.5:
                    print(f"  {n:6.1f}  {name}")


def _opcodes(zero: Path, full: Path, rolls: int) -> dict[str, list[Any]]:
    """function name → [bytecodes, calls, files] per roll, from two _opcount.py files
    (by name alone: the refactor moved functions between modules)."""
    import pickle
    before, after = (pickle.loads(path.read_bytes()) for path in (zero, full))
    found: dict[str, list[Any]] = {}
    for key in set(before) | set(after):
        file, name, what = key
        change = (after.get(key, 0) - before.get(key, 0)) / rolls
        if "<frozen" in file or not change:
            continue
        entry = found.setdefault(name, [0.0, 0.0, set()])
        entry[what == "calls"] += change
        entry[2].add(Path(file).name)
    return found


def opcodes_per_roll(trees: list[tuple[str, str]], kinds: list[str], rolls: int,
                     warm_up: int, keep: Path) -> None:
    """Per kind: each tree's bytecodes and calls per roll, and each function's difference
    from the first tree to the last (functions matched by file and name: a module moved
    to another folder is the same function)."""
    for kind in kinds:
        found = {}
        for label, python in trees:
            zero, full = (keep / f"{label}.{kind}.{n}.ops" for n in (0, rolls))
            count(python, kind, 0, zero, warm_up, profile="opcodes")
            count(python, kind, rolls, full, warm_up, profile="opcodes")
            found[label] = _opcodes(zero, full, rolls)
            ops = sum(e[0] for e in found[label].values())
            calls = sum(e[1] for e in found[label].values())
            print(f"{kind} {label}: {ops:,.0f} bytecodes, {calls:.1f} Python calls a roll")
        first, last = found[trees[0][0]], found[trees[-1][0]]
        none = [0.0, 0.0, set()]
        rows = sorted((last.get(f, none)[0] - first.get(f, none)[0], f)
                      for f in set(first) | set(last))
        print(f"  bytecodes (calls) a roll, {trees[-1][0]} − {trees[0][0]}, by function name:")
        for ops, name in rows:
            a, b = first.get(name, none), last.get(name, none)
            if abs(ops) >= 8 or abs(b[1] - a[1]) >= 0.5:
                print(f"  {ops:+7.0f}  {a[0]:6.0f} ({a[1]:4.1f}) → {b[0]:6.0f} ({b[1]:4.1f})  "
                      f"{name}  {', '.join(sorted(b[2] or a[2]))[:60]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", required=True, metavar="LABEL=PYTHON",
                        help="a tree's interpreter (its venv's python); repeat per tree")
    parser.add_argument("--rolls", type=int, default=400)
    parser.add_argument("--kinds", default="plain,character")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--warm-up", type=int, default=WARM_UP)
    parser.add_argument("--keep", type=Path, help="keep the callgrind files here")
    parser.add_argument("--calls", action="store_true",
                        help="no callgrind: the calls per roll of each function (cProfile)")
    parser.add_argument("--opcodes", action="store_true",
                        help="no callgrind: the bytecodes per roll of each Python function, "
                             "and the difference between the first and the last tree")
    options = parser.parse_args()
    # (absolute, not resolved: a venv's python is a link that must keep its name)
    trees = [(label, os.path.abspath(python))
             for label, python in (spec.split("=", 1) for spec in options.tree)]
    kinds = options.kinds.split(",")
    keep = options.keep or Path(tempfile.mkdtemp(prefix="sidecar-ab-cg-"))
    keep.mkdir(parents=True, exist_ok=True)
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))
    print(f"{options.rolls} rolls − 0 rolls (after {options.warm_up} in both), "
          f"{RULESET} 5 dice, --dice secure, "
          "server instructions per roll (callgrind)")
    if options.calls:
        calls_per_roll(trees, kinds, options.rolls, options.warm_up, keep)
        return
    if options.opcodes:
        opcodes_per_roll(trees, kinds, options.rolls, options.warm_up, keep)
        return
    figures: dict[tuple[str, str], list[float]] = {}
    for attempt in range(options.repeat):
        for kind in kinds:
            for label, python in trees:
                stem = keep / f"{label}.{kind}.{attempt}"
                zero = count(python, kind, 0, Path(f"{stem}.0.out"), options.warm_up)
                full = count(python, kind, options.rolls, Path(f"{stem}.{options.rolls}.out"),
                             options.warm_up)
                per_roll = (full - zero) / options.rolls
                figures.setdefault((kind, label), []).append(per_roll)
                print(f"  {kind:<10} {label:<8} 0 rolls {zero:>14,}  {options.rolls} rolls "
                      f"{full:>14,}  → {per_roll:>10,.0f} a roll", flush=True)
    labels = [label for label, _ in trees]
    print()
    print(f"| kind | {' | '.join(labels)} |"
          + (f" {labels[-1]}/{labels[0]} |" if len(labels) > 1 else ""))
    print("|---" * (len(labels) + 1 + (len(labels) > 1)) + "|")
    for kind in kinds:
        cells = [sum(figures[kind, label]) / len(figures[kind, label]) for label in labels]
        ratio = f" {cells[-1] / cells[0]:.3f} |" if len(cells) > 1 else ""
        print(f"| {kind} | " + " | ".join(f"{c:,.0f}" for c in cells) + " |" + ratio)
    print("callgrind files:", keep)
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
