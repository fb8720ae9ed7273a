"""What tables remember of their requests has a server-wide bound
(``max_remembered_total_bytes``, issue 28): past a quarter of it the oldest events of any
table are let go of (their request ids kept, with their seqs), past all of it the oldest ids are
dropped; a repeat of either is answered from the journal, with the original outcome."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.table.remembered import KEY_BYTES
from tests.helpers import Peer, run, running_server

TABLES = 12
ROUNDS = 6  # 72 outcomes of 5 dice, about 1 KB each as journaled


def remembered_bytes(server) -> int:  # type: ignore[no-untyped-def]
    """What every table in memory holds, counted as the bound counts it (the test's
    memory figure, independent of the bound's own count)."""
    return sum(table.recent_bytes + KEY_BYTES * len(getattr(table, "recalled", ()))
               for table in server.tables.tables.values())


def remembered_seqs(server, name: str) -> set[int]:  # type: ignore[no-untyped-def]
    return {event["seq"] for event in server.tables.get(name).recent.values()}


@pytest.mark.parametrize(("bound", "oldest"), [
    (24 * 1024, "recalled"),  # ids all kept: the oldest events only are let go of
    (4 * 1024, "dropped"),    # the oldest ids dropped too
])
def test_what_tables_remember_is_bounded_server_wide_and_a_trimmed_repeat_comes_from_the_journal(
        bound: int, oldest: str):
    async def scenario() -> None:
        async with running_server(rate_limit=0, max_remembered_total_bytes=bound,
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
                    assert remembered_bytes(server) <= bound
            whole = sum(len(table.recent) for table in server.tables.tables.values())
            assert 0 < whole < TABLES * ROUNDS / 4
            # The newest events are the ones kept whole; the oldest, of every table, not.
            last = f"cap{TABLES - 1}"
            assert max(remembered_seqs(server, last)) == server.tables.get(last).seq
            assert first[0]["seq"] not in remembered_seqs(server, "cap0")
            cap0 = server.tables.get("cap0")
            key = ("MJ", "gm", '"r0-0"')  # (how the journal files a request id: JSON)
            assert key not in cap0.recent
            if oldest == "recalled":  # every id known: no request asks the journal
                assert key in cap0.recalled
                assert len(cap0.recalled) == ROUNDS - len(cap0.recent)
                assert not cap0.forgot and not cap0.needs_journal_lookup()
            else:  # the oldest ids dropped: this table asks the journal about any new one
                assert key not in cap0.recalled
                assert cap0.forgot and cap0.needs_journal_lookup()
            assert server.tables.remembered.bytes == remembered_bytes(server)

            # A repeat of a trimmed request: its original outcome, read from the journal.
            seq_before = cap0.seq
            again = await gms[0].roll(params={"pool": 5}, id="r0-0")
            assert again["type"] == "outcome" and again.get("duplicate") is True, again
            assert again["seq"] == first[0]["seq"]
            assert again["dice"] == first[0]["dice"]
            assert cap0.seq == seq_before  # nothing rolled again
            # ...and a new request is rolled, not taken for a repeat.
            fresh = await gms[0].roll(params={"pool": 5}, id="r0-new")
            assert fresh["type"] == "outcome" and "duplicate" not in fresh
            assert cap0.seq == seq_before + 1

            # A table everyone leaves gives what it remembered back to the bound.
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


def test_entries_of_events_a_table_let_go_of_do_not_pile_up():
    """A busy table under its own bound empties its memory again and again while the
    server-wide bound is never reached: the order's entries for events gone are compacted,
    so the order stays within SLACK of what is really remembered."""
    from types import SimpleNamespace

    from sidecar.table.remembered import SLACK, RememberedEvents

    table = SimpleNamespace(name="busy", recent={}, recalled={}, recent_bytes=0,
                            forgot=False, trims=0)
    bound = RememberedEvents(1 << 30, {"busy": table})
    longest = 0
    for seq in range(1, 20 * SLACK):
        if len(table.recent) == 10:  # the table's own bound: it forgets everything
            bound.released(len(table.recent), table.recent_bytes, len(table.recalled))
            table.recent.clear()
            table.recent_bytes = 0
        key = ("MJ", "gm", str(seq))
        table.recent[key] = {"seq": seq}
        table.recent_bytes += 100
        bound.added(table, key, table.recent[key], 100)
        longest = max(longest, len(bound._events))
    assert bound.count == len(table.recent) and bound.bytes == table.recent_bytes
    assert longest <= 2 * 10 + SLACK + 1
