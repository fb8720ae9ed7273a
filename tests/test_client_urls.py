"""Clients given several server URLs (processes serving the same tables): the Python
client joins through the first that answers, moves to the next URL when its connection
drops or its server stops, and resumes there with every event received exactly once; the
command line's ``--url`` takes several.

Without a shared store two servers do not share tables, so "another process" is played by
the same server under another name (``127.0.0.1`` and ``localhost``) or by one server
stopped and started again on its port with its journal, with a dead address in between."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli.connect import url_texts
from sidecar.cli.main import main
from sidecar.client import SidecarClient, SidecarError
from sidecar.server.connections import SidecarServer
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, run, running_server, start_server
from tests.live_server import LiveServer
from tests.support.serve import free_port


def _dead() -> str:
    """A WebSocket URL nothing listens at (connecting is refused)."""
    return f"ws://127.0.0.1:{free_port()}/ws"


def _by_name(server: SidecarServer) -> str:
    """The same server under another name, as a second process's address would be."""
    return server.url.replace("127.0.0.1", "localhost", 1)


def _client(urls: str | list[str], name: str, **kwargs: Any) -> SidecarClient:
    kwargs.setdefault("role", "player")
    kwargs.setdefault("token", GM_TOKEN if kwargs["role"] == "gm" else PLAYER_TOKEN)
    return SidecarClient(urls, table=kwargs.pop("table", "urls"), name=name, **kwargs)


async def _collect(stream: Any, until: int, timeout: float = 20) -> list[int]:
    """The seqs of ``stream`` up to ``until`` included (bounded by ``timeout``)."""
    seqs: list[int] = []
    async with asyncio.timeout(timeout):
        while not seqs or seqs[-1] < until:
            seqs.append((await anext(stream))["seq"])
    return seqs


async def _rejoined(client: SidecarClient, url: str, timeout: float = 20) -> None:
    """Wait until ``client`` is joined again, through ``url``."""
    async with asyncio.timeout(timeout):
        while not (client._ready.is_set() and client.url == url):
            await asyncio.sleep(0.02)


def test_one_url_or_several() -> None:
    one = SidecarClient("ws://127.0.0.1:1/ws", table="t", name="n")
    assert one.urls == ["ws://127.0.0.1:1/ws"] and one.url == "ws://127.0.0.1:1/ws"
    several = SidecarClient(("ws://a:1/ws", "ws://b:1/ws"), table="t", name="n")
    assert several.urls == ["ws://a:1/ws", "ws://b:1/ws"] and several.url == "ws://a:1/ws"
    for wrong in ([], [""]):
        with pytest.raises(ValueError):
            SidecarClient(wrong, table="t", name="n")


def test_the_first_url_refused_joins_through_the_next() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            urls = [_dead(), _dead(), server.url]
            async with _client(urls, "Aengus") as client:
                assert client.url == server.url and client.welcome["type"] == "welcome"
                outcome = await client.roll("bloodlust", {"pool": 2})
                assert outcome["seq"] == client.last_seq
    run(scenario())


def test_when_no_url_answers_connect_raises_the_last_failure() -> None:
    async def scenario() -> None:
        urls = [_dead(), _dead()]
        client = _client(urls, "Aengus", reconnect=True)
        with pytest.raises(OSError):
            await client.connect()
        assert client.url == urls[-1]
    run(scenario())


def test_a_refusal_for_good_is_not_tried_on_the_next_url() -> None:
    """A wrong token is wrong on every process (they share tokens): no other URL helps."""
    async def scenario() -> None:
        async with running_server() as server:
            client = _client([server.url, _dead()], "Mallory", role="gm", token="wrong")
            with pytest.raises(SidecarError) as error:
                await client.connect()
            assert error.value.code == "forbidden" and client.url == server.url
    run(scenario())


def test_a_drop_moves_to_the_next_url_and_resumes_exactly_once() -> None:
    """A player is dropped twice during a GM's flood of rolls, each time with a roll of its
    own cut off: it skips the dead address, rejoins through the next one, resumes, and sees
    every seq once, in order; its cut-off rolls keep their ids and are rolled once."""

    async def scenario() -> None:
        async with running_server(rate_limit=0) as server:
            urls = [server.url, _dead(), _by_name(server)]
            async with _client(urls, "Aengus", reconnect=True) as player, \
                    _client(server.url, "Morgane", role="gm") as gm:
                stream = _journaled(player.events())
                stop = asyncio.Event()

                async def flood() -> list[int]:
                    rolled: list[int] = []
                    while not stop.is_set() and len(rolled) < 2000:
                        rolled.append((await gm.roll("bloodlust", {"pool": 1}))["seq"])
                    return rolled

                flooding = asyncio.create_task(flood())
                seqs: list[int] = []
                mine: list[dict[str, Any]] = []
                for turn, expected in enumerate((urls[2], urls[0])):
                    seqs += await _collect(stream, (seqs[-1] if seqs else 0) + 5)
                    cut = asyncio.create_task(
                        player.roll("oweens", {"dice": 2}, id=f"cut-off-{turn}"))
                    await asyncio.sleep(0)  # the frame is written…
                    await player.drop()     # …and the connection dies under it
                    await _rejoined(player, expected)
                    mine.append(await asyncio.wait_for(cut, 20))
                    # (Its replayed copy, or the answer to its re-sending: either way once.)
                    assert mine[-1]["id"] == f"cut-off-{turn}"
                stop.set()
                flooded = await flooding
                seqs += await _collect(stream, max(flooded[-1], *(m["seq"] for m in mine)))
                # Every event of the table once, in order, none missing.
                listed = await _all_seqs(gm)
                assert seqs == listed == list(range(1, len(listed) + 1))
                assert {m["seq"] for m in mine} <= set(seqs)
                again = await player.roll("oweens", {"dice": 2}, id="cut-off-0")
                assert again["duplicate"] is True and again["seq"] == mine[0]["seq"]
    run(scenario())


async def _all_seqs(client: SidecarClient) -> list[int]:
    """Every seq of the table's journal as ``client`` sees it, page after page."""
    seqs: list[int] = []
    page = {"more": True, "next": 0}
    while page["more"]:
        page = await client.history(after=page["next"], limit=500)
        seqs += [event["seq"] for event in page["events"]]
    return seqs


async def _journaled(stream: Any) -> Any:
    """The journaled events of ``stream`` (presence skipped)."""
    async for event in stream:
        if "seq" in event:
            yield event


def test_a_server_that_stops_mid_session_is_left_for_the_next_url(tmp_path: Path) -> None:
    """The server goes away; the client tries the next URLs in turn (a dead one among them)
    until the table is served again — the same journal on the same port, as another
    process of a shared store would serve it — and resumes: the rolls it missed arrive
    once each, in order, then it carries on live."""

    async def scenario() -> None:
        db = str(tmp_path / "journal.db")
        first = await start_server(db=db)
        port = first.port
        urls = [first.url, _dead(), _by_name(first)]
        client = _client(urls, "Aengus", reconnect=True)
        await client.connect()
        stream = _journaled(client.events())
        before = [(await client.roll("bloodlust", {"pool": 2}))["seq"] for _ in range(2)]
        assert await _collect(stream, before[-1]) == before
        await first.stop()
        second = await start_server(db=db, port=port)
        try:
            async with _client(second.url, "Morgane", role="gm") as gm:
                missed = [(await gm.roll("bloodlust", {"pool": 2}))["seq"] for _ in range(4)]
            assert await _collect(stream, missed[-1]) == missed
            assert missed[0] == before[-1] + 1
            assert client.url != urls[1]
            live = await client.roll("bloodlust", {"pool": 1})
            assert live["seq"] == missed[-1] + 1
            assert await _collect(stream, live["seq"]) == [live["seq"]]
            await client.close()
        finally:
            await second.stop()
    run(scenario())


# -- the command line ------------------------------------------------------------------------

def test_url_texts_repeated_comma_separated_or_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert url_texts(["a:1", "b:2, c:3", " "]) == ["a:1", "b:2", "c:3"]
    assert url_texts("a:1,b:2") == ["a:1", "b:2"]
    monkeypatch.setenv("SIDECAR_URL", "x:1,y:2")
    assert url_texts(None) == ["x:1", "y:2"]
    monkeypatch.delenv("SIDECAR_URL")
    assert url_texts(None) == ["ws://127.0.0.1:8765/ws"]


def test_cli_roll_with_several_urls_each_read_as_one_url_is(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--url`` repeated and comma-separated; every form one ``--url`` takes (HOST:PORT, a
    page's http:// link with its table and token) works for each of them."""
    with LiveServer() as server:
        port = server.server.port
        dead = free_port()
        page = f"http://localhost:{port}/?table=lien&token={PLAYER_TOKEN}"
        code = main(["roll", "bloodlust", "pool=2", "--json",
                     "--url", f"127.0.0.1:{dead},{page}", "--url", server.url])
        outcome = json.loads(capsys.readouterr().out)
        assert code == 0 and outcome["table"] == "lien" and len(outcome["dice"]) == 2
        code = main(["roll", "bloodlust", "pool=1", "--token", PLAYER_TOKEN, "--json",
                     "--url", f"ws://127.0.0.1:{dead}/ws", "--url", f"127.0.0.1:{port}"])
        assert code == 0 and json.loads(capsys.readouterr().out)["seq"] == 1
    other = free_port()
    code = main(["roll", "bloodlust", "pool=1", "--url", f"127.0.0.1:{dead},127.0.0.1:{other}"])
    error = capsys.readouterr().err
    assert code == 3 and "rien n'écoute sur" in error
    assert f"127.0.0.1:{dead}, 127.0.0.1:{other} :" in error
    code = main(["roll", "bloodlust", "pool=1", "--url", f"127.0.0.1:{dead},ftp://nope"])
    assert code == 3 and "ftp://nope" in capsys.readouterr().err


def test_cli_watch_goes_on_through_the_next_url_when_its_server_stops(tmp_path: Path) -> None:
    """``sidecar watch`` with a dead address between two names of one server: the server
    stops and comes back (its journal, its port); every roll is printed once, in order."""
    with LiveServer(db=str(tmp_path / "journal.db")) as server:
        port = server.server.port
        watch = subprocess.Popen(
            [sys.executable, "-m", "sidecar.cli.main", "watch", "--table", "veille", "--role", "gm",
             "--token", GM_TOKEN, "--url", f"127.0.0.1:{port}",
             "--url", f"127.0.0.1:{free_port()},http://localhost:{port}/"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in watch.stdout],
                         daemon=True).start()

        def printed(count: int) -> list[int]:
            seqs: list[int] = []
            while len(seqs) < count:
                found = re.match(r"#(\d+) ", lines.get(timeout=20))
                if found:
                    seqs.append(int(found.group(1)))
            return seqs

        try:
            assert lines.get(timeout=20).startswith("table veille")
            before = [server.roll("veille", "Morgane", "bloodlust", {"pool": 1})["seq"]
                      for _ in range(2)]
            assert printed(2) == before
            server.stop()
            server.start()
            missed = [server.roll("veille", "Morgane", "bloodlust", {"pool": 1})["seq"]
                      for _ in range(3)]
            assert printed(3) == missed == [before[-1] + 1 + i for i in range(3)]
            live = server.roll("veille", "Morgane", "bloodlust", {"pool": 1})["seq"]
            assert printed(1) == [live]
            with pytest.raises(queue.Empty):  # and nothing printed twice
                while True:
                    if re.match(r"#\d+ ", lines.get(timeout=0.5)):
                        raise AssertionError("a roll printed twice")
        finally:
            watch.terminate()
            watch.wait(10)


def test_epoch_and_initiative_events_count_as_journaled_for_resume() -> None:
    """The server journals them: a client must yield them and resume after them (else a
    reconnect replays them again, or the next process's resume starts too early)."""
    from tests.helpers import Peer

    async def scenario() -> None:
        async with running_server(dice="provable") as server:
            async with _client(server.url, "Aengus") as client:
                stream = _journaled(client.events())
                gm = await Peer.open(server)
                await gm.join(table="urls", role="gm", name="MJ")
                ended = await gm.request({"type": "epoch", "id": "e", "op": "end"})
                assert ended["type"] == "epoch"
                async with asyncio.timeout(10):
                    event = await anext(stream)
                    while event["type"] != "epoch":
                        event = await anext(stream)
                assert client.last_seq == event["seq"] == ended["seq"]
                await gm.close()
    run(scenario())


def test_a_table_behind_what_the_client_saw_is_followed_from_its_seq() -> None:
    """Its store lost events (docs/DEPLOY.md): the next events reuse numbers this client
    saw; dropping them as old would hide them."""
    async def scenario() -> None:
        async with running_server() as server:
            async with _client(server.url, "Aengus", resume=99, table="behind") as client:
                assert client.welcome["seq"] < 99 and client.last_seq == client.welcome["seq"]
                async with _client(server.url, "MJ", role="gm", table="behind") as gm:
                    rolled = await gm.roll("bloodlust", {"pool": 1})
                seen = await _collect(_journaled(client.events()), rolled["seq"])
                assert seen == [rolled["seq"]]
    run(scenario())
