"""Verifiable dice vs secure dice: cost per face, and rolls/s through the whole server.

    .venv/bin/python benchmarks/provable_dice.py [--quick]

1. Per face, in one process: ``ProvableDice`` (HMAC-SHA256 blocks, see sidecar.dice.provable)
   against ``SecureDice`` (``os.urandom`` blocks), both turned into faces in bulk. Two
   figures: a long run of faces from one source (the bulk cost), and whole rolls of 5 d10
   from a fresh source each (what a server does: one source per roll, its leaf key from
   the epoch's kept HMAC states and its first block included), divided by 5. Target
   (issue 17): ≤ 2× SecureDice.
2. What provable adds to one roll on the server, measured directly (its dice, its proof
   in the journal and in the message), to set against the server's CPU per roll.
3. End to end: ``sidecar serve --dice secure`` and ``--dice provable`` under the same load
   as ``throughput.py`` (1 and 10 clients, each at its own table, rolling bloodlust 5d10
   one after another), alternated to share the machine's noise. Target: rolls/s not lower
   by more than 5 %. The server's CPU time per roll (``/proc``) is printed beside: on a
   loaded machine rolls/s swing by tens of percent from run to run, CPU per roll much less.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
import timeit

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import free_port, sidecar_server  # noqa: E402
from throughput import load  # noqa: E402

from sidecar.dice.provable import Epoch, leaf_key, new_seed  # noqa: E402
from sidecar.dice.sources import ProvableDice, SecureDice  # noqa: E402

N = 200_000
ROLLS = 50_000


def per_face(fn, number: int, faces: int, repeat: int = 5) -> float:
    """Microseconds per face: the best of ``repeat`` runs of ``number`` calls, in this
    process's CPU time (a shared machine descheduling it does not count)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time)
               ) / (number * faces) * 1e6


def bulk(sides: int) -> tuple[float, float]:
    secure = SecureDice()
    provable = ProvableDice(leaf_key(new_seed(), 0), "bench-client", 0)
    return (per_face(lambda: secure._face(sides), N, 1),
            per_face(lambda: provable._face(sides), N, 1))


def whole_rolls() -> tuple[float, float]:
    epoch = Epoch.fresh(1, 0)
    pools: dict[int, list[int]] = {}  # the pipeline keeps one map for secure dice
    position = [0]

    def secure_roll() -> None:
        SecureDice(pools).roll_many(5, 10)

    def provable_roll() -> None:
        p = position[0] = (position[0] + 1) % 4096
        ProvableDice(epoch.leaf(p), "bench-client", p).roll_many(5, 10)
    return per_face(secure_roll, ROLLS, 5), per_face(provable_roll, ROLLS, 5)


def added_per_roll() -> tuple[float, float, float]:
    """What ``--dice provable`` adds to one roll on the server, in µs: the source (leaf
    key, first block), the proof in the stored event (JSON) and in the message sent
    (MessagePack). Measured directly: on a loaded machine this is steadier than the
    difference of two end-to-end runs."""
    import msgpack
    import orjson

    epoch = Epoch.fresh(1, 0)
    event = {"type": "outcome", "seq": 1234, "roll": "ae35678b52acb62c", "table": "t",
             "by": {"name": "Aengus", "role": "player"}, "ruleset": "bloodlust",
             "params": {"pool": 5, "difficulty": 6, "willpower": False},
             "label": "", "mode": "public",
             "dice": [{"sides": 10, "face": f, "success": f >= 6} for f in (3, 7, 9, 1, 6)],
             "result": {"success": True, "margin": 2, "kind": "success", "successes": 3},
             "applied": [], "notes": [], "text": {"fr": "Aengus — 5d10", "en": "Aengus — 5d10"}}
    proof = {"epoch": 1, "commitment": "ab" * 32, "position": 1233,
             "client": "0123456789abcdef0123456789abcdef", "sides": [10] * 5}
    with_proof = {**event, "proof": proof}

    def source() -> None:
        ProvableDice(epoch.leaf(1233), proof["client"], 1233).roll_many(5, 10)

    pools: dict[int, list[int]] = {}  # (as the pipeline keeps them)

    def secure() -> None:
        SecureDice(pools).roll_many(5, 10)
    dice = per_face(source, ROLLS, 1) - per_face(secure, ROLLS, 1)
    stored = (per_face(lambda: orjson.dumps(with_proof), ROLLS, 1)
              - per_face(lambda: orjson.dumps(event), ROLLS, 1))
    sent = (per_face(lambda: msgpack.packb(with_proof), ROLLS, 1)
            - per_face(lambda: msgpack.packb(event), ROLLS, 1))
    return dice, stored, sent


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def end_to_end(clients: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    """Rolls/s and the server's CPU µs per roll, per dice source, alternated."""
    found: dict[str, dict[str, list[float]]] = {
        dice: {"rate": [], "cpu": []} for dice in ("secure", "provable")}
    for _ in range(rounds):
        for dice in ("secure", "provable"):
            port = free_port()
            server = sidecar_server(port, "--dice", dice)
            try:
                before = cpu_seconds(server.pid)
                began = time.perf_counter()
                rate, _ = asyncio.run(load(f"ws://127.0.0.1:{port}/ws", clients, True))
                rolls = rate * (time.perf_counter() - began)
                cpu = cpu_seconds(server.pid) - before
            finally:
                server.stop()
            found[dice]["rate"].append(rate)
            found[dice]["cpu"].append(cpu / rolls * 1e6)
    return found


def main() -> None:
    quick = "--quick" in sys.argv
    print("load average:", open("/proc/loadavg").read().split()[:3])
    print("== cost per face (µs), best of 5 ==")
    print(f"{'die':>6} {'SecureDice':>11} {'ProvableDice':>13} {'ratio':>6}")
    for sides in (6, 10, 20, 100, 1000):
        s, p = bulk(sides)
        print(f"{'d' + str(sides):>6} {s:>11.3f} {p:>13.3f} {p / s:>6.2f}")
    s, p = whole_rolls()
    print(f"{'5d10/roll':>6} {s:>11.3f} {p:>13.3f} {p / s:>6.2f}   (a fresh source per roll)")
    dice, stored, sent = added_per_roll()
    print(f"added per roll (CPU): dice {dice:.1f} µs, proof stored {stored:.1f} µs, proof "
          f"sent {sent:.1f} µs per reader: {dice + stored + sent:.1f} µs in all")
    print()
    print("== end to end (bloodlust 5d10, one table per client), median of rounds ==")
    print(f"{'clients':>7} {'secure/s':>9} {'provable/s':>10} {'change':>7}"
          f" {'secure CPU':>11} {'provable CPU':>13} {'change':>7}")
    for clients in (1, 10):
        found = end_to_end(clients, 1 if quick else 3)
        a, b = (statistics.median(found[d]["rate"]) for d in ("secure", "provable"))
        c, d = (statistics.median(found[d]["cpu"]) for d in ("secure", "provable"))
        print(f"{clients:>7} {a:>9.0f} {b:>10.0f} {b / a - 1:>+7.1%}"
              f" {c:>8.0f} µs {d:>10.0f} µs {d / c - 1:>+7.1%}")
    print("load average:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
