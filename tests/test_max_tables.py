"""``serve --max-tables``: a real ``sidecar serve`` holding at most N open tables refuses
the GM who opens table N+1 plainly (French first for a French client), logs it once, and
takes new tables again once one is closed (issue 28, item 1)."""

from __future__ import annotations

from tests.helpers import GM_TOKEN, Peer, run
from tests.support.serve import ServeProcess


def test_the_gm_opening_one_table_too_many_is_told_and_the_log_says_it_once():
    with ServeProcess("--db", ":memory:", "--max-tables", "2", "--log-level", "info") as server:
        async def scenario() -> None:
            first, second = await Peer.connect(server.url), await Peer.connect(server.url)
            await first.join(table="a", role="gm", token=GM_TOKEN)
            await second.join(table="b", role="gm", token=GM_TOKEN)
            late = await Peer.connect(server.url)
            for attempt in range(5):  # refused every time, logged once
                await late.send({"type": "hello", "protocol": 1, "table": f"c{attempt}",
                                 "name": "Morgane", "role": "gm", "token": GM_TOKEN,
                                 "locale": "fr"})
                refused = await late.recv()
                assert refused["type"] == "error" and refused["code"] == "too_large"
                assert refused["details"] == {"limit": "tables", "max_tables": 2}
                assert "2 tables" in refused["message"]
                assert "réessayez" in refused["message"]  # what to do, in French
            # A table already open still takes members: the limit counts tables.
            player = await Peer.connect(server.url)
            await player.join(table="a", name="Aengus")
            # Once a table is closed (its last member gone), a new one may open.
            await second.close()
            await player.request({"type": "plugins", "id": "sync"})
            opened = None
            for attempt in range(500):  # (each a round trip: no sleep, bounded)
                await late.send({"type": "hello", "protocol": 1, "table": "c",
                                 "name": "Morgane", "role": "gm", "token": GM_TOKEN})
                opened = await late.recv()
                if opened["type"] == "welcome":
                    break
                assert opened["details"]["limit"] == "tables"
                await first.request({"type": "plugins", "id": f"wait{attempt}"})
            assert opened is not None and opened["type"] == "welcome", opened
        run(scenario())
        server.stop_checked()
    log = "".join(server.errors)
    assert log.count("--max-tables") == 1, log
    assert "2 tables" in log


def test_max_tables_below_one_is_a_usage_error():
    from tests.support.serve import serve_fails
    failed = serve_fails("--db", ":memory:", "--max-tables", "0")
    assert failed.returncode == 2 and "--max-tables" in failed.stderr
