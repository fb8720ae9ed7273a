"""Moving a table between a SQLite journal and Redis (``export --whole``, ``import``),
both ways, with the real command line, a real journal file and a real redis-server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import Peer, run, running_server
from tests.support.serve import sidecar


async def _play(server) -> dict:
    """A table with what a move must keep: rolls with ids, a secret roll, a seat, a
    character with spent luck. Returns what the checks need."""
    gm = await Peer.open(server)
    await gm.join(table="crypte", role="gm", name="MJ")
    seat = await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Zoé"})
    await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Zed",
                      "ruleset": "seuil", "values": {}})
    first = await gm.roll(id="first")
    await gm.roll(mode="gm")
    await gm.close()
    return {"token": seat["token"], "first": first}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_table_moves_from_sqlite_to_redis_and_back_unchanged(tmp_path, redis_server):
    db = tmp_path / "night.db"

    async def before() -> dict:
        async with running_server(db=str(db)) as server:
            return await _play(server)
    played = run(before())

    whole = tmp_path / "crypte.jsonl"
    done = sidecar("export", "--table", "crypte", "--db", str(db), "--whole", "-o", str(whole))
    assert done.returncode == 0, done.stderr
    head, *events = _lines(whole)
    assert head["type"] == "sidecar-table" and head["last_seq"] == len(events) == 4
    assert "Zoé" in head["records"]["seat"] and "Zed" in head["records"]["character"]
    assert events[2]["request_id"] == "first"

    moved = sidecar("import", str(whole), "--store", redis_server.url)
    assert moved.returncode == 0, moved.stderr
    assert "4" in moved.stderr
    again = sidecar("import", str(whole), "--store", redis_server.url)
    assert again.returncode == 1 and "crypte" in again.stderr  # never over a table

    async def after() -> None:
        async with running_server(store=redis_server.url) as server:
            # The seat's link still works, the history is the same, the id is a repeat.
            player = await Peer.open(server)
            welcome = await player.join(table="crypte", name="Zoé", token=played["token"])
            assert welcome["seq"] == 4
            gm = await Peer.open(server)
            await gm.join(table="crypte", role="gm", name="MJ")
            repeat = await gm.roll(id="first")
            assert repeat["duplicate"] is True and repeat["dice"] == played["first"]["dice"]
            listed = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert [c["character"] for c in listed["characters"]] == ["Zed"]
            assert (await gm.roll())["seq"] == 5
            await player.close()
            await gm.close()
    run(after())

    back = tmp_path / "back.jsonl"
    done = sidecar("export", "--table", "crypte", "--store", redis_server.url, "--whole",
                   "-o", str(back))
    assert done.returncode == 0, done.stderr
    head2, *events2 = _lines(back)
    assert head2["last_seq"] == 5 and events2[:4] == events
    # ...and into a new journal file, under another name.
    db2 = tmp_path / "other.db"
    moved = sidecar("import", str(back), "--db", str(db2), "--table", "crypte-2")
    assert moved.returncode == 0, moved.stderr
    out = tmp_path / "out.jsonl"
    done = sidecar("export", "--table", "crypte-2", "--db", str(db2), "--whole", "-o", str(out))
    assert done.returncode == 0, done.stderr
    head3, *events3 = _lines(out)
    assert head3["records"] == head2["records"] and head3["state"] == head2["state"]
    assert [{**e, "table": "crypte"} for e in events3] == events2

    # A plain export (what `sidecar verify` reads) from Redis: events, no request ids.
    plain = sidecar("export", "--table", "crypte", "--store", redis_server.url)
    assert plain.returncode == 0, plain.stderr
    rows = [json.loads(line) for line in plain.stdout.splitlines()]
    assert [r["seq"] for r in rows] == [1, 2, 3, 4, 5]
    assert all("request_id" not in r for r in rows)


def test_import_refuses_what_is_not_a_whole_export(tmp_path, redis_server):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"type": "outcome", "seq": 1, "table": "t"}) + "\n")
    done = sidecar("import", str(plain), "--store", redis_server.url)
    assert done.returncode == 1 and "--whole" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    gap = tmp_path / "gap.jsonl"
    gap.write_text("\n".join(json.dumps(x) for x in (
        {"type": "sidecar-table", "format": 1, "table": "t", "last_seq": 2, "state": {},
         "records": {}},
        {"type": "outcome", "seq": 2, "table": "t"})) + "\n")
    done = sidecar("import", str(gap), "--db", str(tmp_path / "x.db"))
    assert done.returncode == 1 and "n° 1" in done.stderr, done.stderr  # (French by default)


def test_export_from_an_unreachable_redis_says_so_in_one_line(tmp_path):
    from tests.support.serve import free_port

    done = sidecar("export", "--table", "t", "--store", f"redis://127.0.0.1:{free_port()}/0")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Redis" in done.stderr
