"""The events tables remember to answer a repeated request id have a server-wide bound
(``max_remembered_total_bytes``, issue 28): past it the oldest remembered events of any
table are trimmed, and a repeat of a trimmed one is answered from the journal."""

from __future__ import annotations

import asyncio

from tests.helpers import Peer, run, running_server

BOUND = 24 * 1024  # about 23 outcomes of 5 dice (≈ 1 KB each, as journaled)
TABLES = 12
ROUNDS = 6


def remembered_bytes(server) -> int:  # type: ignore[no-untyped-def]
    """What every table in memory holds (the test's memory figure)."""
    return sum(table.recent_bytes for table in server.tables.tables.values())


def remembered_seqs(server, name: str) -> set[int]:  # type: ignore[no-untyped-def]
    return {event["seq"] for event in server.tables.get(name).recent.values()}


def test_remembered_events_are_bounded_server_wide_and_a_trimmed_repeat_comes_from_the_journal():
    async def scenario() -> None:
        async with running_server(rate_limit=0, max_remembered_total_bytes=BOUND,
                                  db=":memory:") as server:
            gms = [await Peer.open(server) for _ in range(TABLES)]
            for number, gm in enumerate(gms):
                await gm.join(table=f"cap{number}", name="MJ", role="gm")
            first: list[dict] = []
            for round_ in range(ROUNDS):  # the tables' rolls interleaved, oldest first
                for number, gm in enumerate(gms):
                    reply = await gm.roll(params={"pool": 5}, id=f"r{number}-{round_}")
                    assert reply["type"] == "outcome", reply
                    if round_ == 0:
                        first.append(reply)
                    # The bound holds after every event, whatever the number of tables.
                    assert remembered_bytes(server) <= BOUND
            total = TABLES * ROUNDS
            kept = sum(len(table.recent) for table in server.tables.tables.values())
            assert 0 < kept < total / 2
            # The newest events are the ones kept; the oldest, of every table, trimmed.
            last = f"cap{TABLES - 1}"
            assert remembered_seqs(server, last) and max(remembered_seqs(server, last)) \
                == server.tables.get(last).seq
            assert first[0]["seq"] not in remembered_seqs(server, "cap0")
            assert server.tables.remembered.bytes == remembered_bytes(server)

            # A repeat of a trimmed request: its original outcome, read from the journal.
            seq_before = server.tables.get("cap0").seq
            again = await gms[0].roll(params={"pool": 5}, id="r0-0")
            assert again["type"] == "outcome" and again.get("duplicate") is True, again
            assert again["seq"] == first[0]["seq"]
            assert again["dice"] == first[0]["dice"]
            assert server.tables.get("cap0").seq == seq_before  # nothing rolled again

            # A table everyone leaves gives its remembered events back to the bound.
            await gms[-1].ws.close()
            for _ in range(200):
                if server.tables.get(last) is None:
                    break
                await asyncio.sleep(0.01)
            assert server.tables.get(last) is None
            assert server.tables.remembered.bytes == remembered_bytes(server)
            for gm in gms[:-1]:
                await gm.ws.close()

    run(scenario())


def test_serve_takes_the_bound_in_mib_and_refuses_a_negative_one():
    from sidecar.cli.parser import build_parser
    from sidecar.config import ServerConfig
    from tests.support.serve import serve_fails

    failed = serve_fails("--db", ":memory:", "--max-remembered-mib", "-1")
    assert failed.returncode == 2 and "--max-remembered-mib" in failed.stderr
    args = build_parser().parse_args(["serve", "--max-remembered-mib", "0.5"])
    assert args.max_remembered_mib == 0.5
    default = build_parser().parse_args(["serve"]).max_remembered_mib
    assert default * 2**20 == ServerConfig().max_remembered_total_bytes
