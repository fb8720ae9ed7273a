"""The table in the WebSocket URL's query (``…/ws?table=<name>``), which clients add so that
a load balancer hashing on it sends every member of one table to the same process
(docs/DEPLOY.md §4). The server ignores the query: ``hello``'s ``table`` is the one joined.

The load balancers themselves are tested in ``tests/test_deploy_configs.py``; the
JavaScript client in ``tests/js/urls.test.mjs``; the page here, in a real Chromium."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from websockets.asyncio.client import connect

from sidecar.client import SidecarClient, table_url
from sidecar.server.connections import SidecarServer
from tests.helpers import PLAYER_TOKEN, Peer, run, running_server
from tests.live_server import LiveServer
from tests.support.browser import TIMEOUT_MS

#: A name with everything a query could mistake: spaces, accents, ``&``, ``#``, ``+``, ``=``.
HARD_NAME = "Crypte d'été & #2 +=ok"
#: Its encoding, byte for byte (the JavaScript client's test expects the same).
HARD_QUERY = "table=Crypte%20d%27%C3%A9t%C3%A9%20%26%20%232%20%2B%3Dok"


@pytest.mark.parametrize(("url", "expected"), [
    ("ws://a:1/ws", f"ws://a:1/ws?{HARD_QUERY}"),
    ("ws://a:1/ws?", f"ws://a:1/ws?{HARD_QUERY}"),
    ("wss://a/ws?lang=fr", f"wss://a/ws?lang=fr&{HARD_QUERY}"),
    ("wss://a/ws?lang=fr&", f"wss://a/ws?lang=fr&{HARD_QUERY}"),
    ("ws://a:1/ws#x", f"ws://a:1/ws?{HARD_QUERY}#x"),
    # A table named in the URL already is left as it is (whatever it says).
    ("ws://a:1/ws?table=autre", "ws://a:1/ws?table=autre"),
    ("ws://a:1/ws?x=1&table=", "ws://a:1/ws?x=1&table="),
])
def test_the_table_goes_into_the_query_once(url: str, expected: str) -> None:
    assert table_url(url, HARD_NAME) == expected


def test_the_query_decodes_to_the_name() -> None:
    for name in (HARD_NAME, "démo", "a/b?c", "100%", "~-._!*'()"):
        query = urlsplit(table_url("ws://a/ws", name)).query
        assert parse_qs(query) == {"table": [name]}
        # Nothing but unreserved characters and escapes: no proxy rewrites it.
        assert all(c.isascii() and (c.isalnum() or c in "-._~%=") for c in query), query


def _paths(server: SidecarServer) -> list[str]:
    """The request paths of the WebSocket connections open on ``server``."""
    return [connection.request.path for connection in server.server.connections
            if connection.request is not None]


def test_the_client_opens_each_url_with_its_table() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            other = server.url.replace("127.0.0.1", "localhost", 1)
            client = SidecarClient([server.url, other], table=HARD_NAME, name="Aengus",
                                   token=PLAYER_TOKEN)
            async with client:
                assert client.welcome["table"] == HARD_NAME
                assert client.urls == [server.url, other]  # as given
                assert _paths(server) == [f"/ws?{HARD_QUERY}"]
                outcome = await client.roll("bloodlust", {"pool": 2})
                assert outcome["type"] == "outcome"
            # The second URL gets it too (the first one refusing: nothing listens there).
            dead = SidecarClient(["ws://127.0.0.1:9/ws", other], table=HARD_NAME,
                                 name="Ysolde", token=PLAYER_TOKEN)
            async with dead:
                assert dead.url == other
                assert _paths(server) == [f"/ws?{HARD_QUERY}"]

    run(scenario())


def test_the_hello_names_the_table_not_the_url() -> None:
    """A ``?table=`` that differs from ``hello`` changes nothing: the member joins the table
    of ``hello``, sees its rolls, and none of the other's."""
    async def scenario() -> None:
        async with running_server() as server:
            # What a browser that kept an old link would open.
            ws_url = server.url + "?table=" + "autre%20table"
            peer = Peer(await connect(ws_url, compression=None))
            welcome = await peer.join(table="crypte", name="Aengus")
            assert welcome["type"] == "welcome" and welcome["table"] == "crypte"
            assert _paths(server) == ["/ws?table=autre%20table"]
            async with SidecarClient(server.url, table="crypte", name="Ysolde",
                                     token=PLAYER_TOKEN) as same, \
                    SidecarClient(server.url, table="autre table", name="Morgane",
                                  token=PLAYER_TOKEN) as other:
                rolled = await same.roll("bloodlust", {"pool": 1})
                # The URL's table sees nothing of it; the hello's table does.
                seen = await peer.recv_type("outcome")
                assert seen["seq"] == rolled["seq"] and seen["table"] == "crypte"
                assert (await other.history())["events"] == []
            await peer.close()

    run(scenario())


def test_the_page_opens_its_socket_with_the_table(browser: Any) -> None:
    """The web page (app.js builds the JS client with ``wsUrl()``) opens ``/ws?table=…``."""
    with LiveServer(rate_limit=0) as server:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            opened: list[str] = []
            page.on("websocket", lambda socket: opened.append(socket.url))
            query = urlencode({"table": HARD_NAME, "name": "Aengus", "role": "player",
                               "token": PLAYER_TOKEN})
            page.goto(f"{server.http}/?{query}")
            page.click("#join-form button[type=submit]")
            page.wait_for_selector("#table:not([hidden])")
            assert page.evaluate("() => window.sidecarTable.welcome.table") == HARD_NAME
            assert opened == [f"{server.url}?{HARD_QUERY}"]
        finally:
            context.close()
