"""The journal alone: how many appends per second it commits, one at a time and concurrently.

    .venv/bin/python benchmarks/journal_append.py [--before REV] [--rounds N]

"sequential": one task awaits each append before the next (one client rolling alone).
"concurrent": 50 tasks each append in a loop, as 50 clients rolling at once do (appends that
arrive together may share a commit). Each case runs on a fresh journal file in a temporary
folder, with outcome-sized events and a small plugin state, and reports appends/s and the
commits and checkpoints it took and the longest time a checkpoint made commits wait (from
the journal's counters when it has them). Figures, not assertions: the machine is shared
and noisy, so each case runs ``--rounds`` times (best kept), and ``--before REV`` measures
the single-file journal of an older commit (``git show REV:sidecar/stores/journal.py``) in the
same rounds, interleaved, for a before/after.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sidecar.stores.journal import Journal  # noqa: E402

OUTCOME = {"type": "outcome", "roll": "0123456789abcdef", "table": "t",
           "by": {"name": "Aengus", "role": "player"}, "ruleset": "bloodlust",
           "params": {"pool": 5, "difficulty": 6, "willpower": False, "automatic": False,
                      "tense": False}, "label": "Sauter le ravin", "mode": "public",
           "dice": [{"sides": 10, "face": f, "success": f >= 6} for f in (3, 8, 10, 1, 6)],
           "result": {"success": True, "margin": 1, "kind": "success",
                      "label": {"fr": "Réussite modérée", "en": "Moderate success"},
                      "successes": 3, "ones": 1, "net": 2},
           "applied": [], "notes": [],
           "text": {"fr": "Aengus — 5d10 diff. 6 : 3 succès → Réussite modérée",
                    "en": "Aengus — 5d10 diff. 6: 3 successes → Moderate success"},
           "request_id": None}
STATE = {"blank_botch": {"used": False}}


async def sequential(journal: Journal, count: int) -> float:
    start = time.perf_counter()
    for seq in range(1, count + 1):
        await journal.append({**OUTCOME, "seq": seq}, STATE)
        await asyncio.sleep(0)  # the client's next roll comes in a later loop turn
    return count / (time.perf_counter() - start)


async def concurrent(journal: Journal, clients: int, each: int) -> float:
    seq = 0

    async def client() -> None:
        nonlocal seq
        for _ in range(each):
            seq += 1  # numbered before the append, as Table.record does
            await journal.append({**OUTCOME, "seq": seq}, STATE)
            await asyncio.sleep(0)  # the client's next frame comes in a later loop turn

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return clients * each / (time.perf_counter() - start)


def measure(count: int = 5000, clients: int = 50,
            journal_class: type = Journal) -> dict[str, tuple[float, str | None]]:
    """appends/s and commits for each case, on fresh journals."""
    results: dict[str, tuple[float, str | None]] = {}
    cases = {"sequential": lambda j: sequential(j, count),
             f"concurrent ({clients} tasks)": lambda j: concurrent(j, clients, count // clients)}
    for name, case in cases.items():
        with tempfile.TemporaryDirectory() as folder:
            journal = journal_class(Path(folder) / "bench.db")
            try:
                rate = asyncio.run(case(journal))
                writer = getattr(journal, "writer", None)
                commits = (f"{writer.commits} commits, {writer.checkpoints} checkpoints, "
                           f"longest stall {writer.longest_stall * 1000:.1f} ms"
                           if writer is not None else None)
            finally:
                journal.close()
        results[name] = (rate, commits)
    return results


def journal_at(revision: str) -> type:
    """The Journal class of an older commit, when the journal was one module."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(["git", "show", f"{revision}:sidecar/stores/journal.py"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="journal-before-"))
    (folder / "journal_before.py").write_text(source)
    spec = importlib.util.spec_from_file_location("journal_before", folder / "journal_before.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Journal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also measure this commit's journal")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    versions = {"now": Journal}
    if args.before:
        versions = {f"before ({args.before})": journal_at(args.before), **versions}
    best: dict[tuple[str, str], tuple[float, str | None]] = {}
    for _ in range(args.rounds):
        for version, journal_class in versions.items():
            for name, (rate, commits) in measure(journal_class=journal_class).items():
                if rate > best.get((version, name), (0.0, None))[0]:
                    best[(version, name)] = (rate, commits)
    for (version, name), (rate, commits) in best.items():
        extra = f", {commits}" if commits is not None else ""
        print(f"{version:>18} {name:>22}: {rate:>7.0f} appends/s{extra}")


if __name__ == "__main__":
    main()
