"""The journal alone: how many appends per second it commits, one at a time and concurrently.

    .venv/bin/python benchmarks/journal_append.py

"sequential": one task awaits each append before the next (one client rolling alone).
"concurrent": 50 tasks each append in a loop, as 50 clients rolling at once do (appends that
arrive together may share a commit). Each case runs on a fresh journal file in a temporary
folder, with outcome-sized events and a small plugin state, and reports appends/s and the
commits it took (from the journal's counter when it has one). Figures, not assertions: the
machine is shared and noisy; run it twice.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sidecar.journal import Journal  # noqa: E402

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


def measure(count: int = 5000, clients: int = 50) -> dict[str, tuple[float, int | None]]:
    """appends/s and commits for each case, on fresh journals."""
    results: dict[str, tuple[float, int | None]] = {}
    cases = {"sequential": lambda j: sequential(j, count),
             f"concurrent ({clients} tasks)": lambda j: concurrent(j, clients, count // clients)}
    for name, case in cases.items():
        with tempfile.TemporaryDirectory() as folder:
            journal = Journal(Path(folder) / "bench.db")
            try:
                rate = asyncio.run(case(journal))
                commits = getattr(getattr(journal, "writer", None), "commits", None)
            finally:
                journal.close()
        results[name] = (rate, commits)
    return results


def main() -> None:
    for name, (rate, commits) in measure().items():
        extra = f", {commits} commits" if commits is not None else ""
        print(f"{name:>22}: {rate:>7.0f} appends/s{extra}")


if __name__ == "__main__":
    main()
