"""The web page at a table larger than one welcome (issue 25, item 9), in Chromium.

The welcome carries the first page of characters and of open asks (``characters_more``,
``asks_more``): the page lists the rest, shows every ask's card and every character, and
after a dropped connection (a new welcome, again the first page only) closes none of the
asks that are on a later page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import Peer
from tests.live_server import LiveServer
from tests.support.browser import gm_page

SEATS = [f"{i:02d} " + "Siège-" * 10 + "x" for i in range(50)]
CHARACTERS = [f"{i:04d} " + "Personnage " * 5 + "yyyy" for i in range(400)]
ASKS = 30
TABLE = "grande"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0) as live:
        live.call(_build(live))
        yield live


async def _build(live: LiveServer) -> None:
    gm = await Peer.open(live.server)
    await gm.join(table=TABLE, role="gm", name="MJ")
    for number, name in enumerate(SEATS):
        await gm.request({"type": "seat", "id": f"s{number}", "op": "add", "name": name})
    for number, name in enumerate(CHARACTERS):
        await gm.request({"type": "sheet", "id": f"c{number}", "op": "set", "character": name,
                          "ruleset": "bloodlust", "owner": SEATS[number % 50], "values": {}})
    for number in range(ASKS):
        reply = await gm.request({"type": "ask", "id": f"a{number}", "op": "open",
                                  "to": SEATS, "ruleset": "bloodlust", "params": {"pool": 1},
                                  "label": f"Demande {number}"})
        assert reply["type"] == "ask", reply
    await gm.close()


async def _cancel_last(live: LiveServer) -> str:
    gm = await Peer.open(live.server)
    await gm.join(table=TABLE, role="gm", name="MJ")
    listed = await gm.request({"type": "ask", "id": "l", "op": "list", "after": 0,
                               "limit": 500})
    last = listed["asks"][-1]["ask"]
    await gm.request({"type": "ask", "id": "c", "op": "cancel", "ask": last})
    await gm.close()
    return last


def test_the_gms_page_shows_every_ask_and_character_and_keeps_them_after_a_drop(
        browser: Any, server: LiveServer) -> None:
    gm = gm_page(browser, server.http, TABLE)
    assert gm.state("welcome.asks_more") is True
    assert gm.state("welcome.characters_more") is True
    assert gm.state("welcome.asks.length") < ASKS
    gm.page.wait_for_function(
        "([asks, characters]) => window.sidecarTable.asks.size === asks"
        " && window.sidecarTable.characters.size === characters", arg=[ASKS, len(CHARACTERS)])
    gm.page.wait_for_function("n => document.querySelectorAll('.ask-card').length === n",
                              arg=ASKS)
    assert gm.page.evaluate("() => [...window.sidecarTable.asks.values()]"
                            ".every((item) => !item.closed)")
    # A dropped connection: a new welcome (the first page again); the asks on later pages
    # stay open, every character stays.
    gm.page.evaluate("() => { window.before = window.sidecarTable.welcome;"
                     " window.sidecarTable.client.dropConnection(); }")
    gm.page.wait_for_function("() => window.sidecarTable.welcome !== window.before"
                              " && window.sidecarTable.unlistedAsks === null")
    assert gm.page.evaluate("() => [...window.sidecarTable.asks.values()]"
                            ".filter((item) => !item.closed).length") == ASKS
    assert gm.state("characters.size") == len(CHARACTERS)
    # An ask of a later page cancelled by another GM: its card says so.
    cancelled = server.call(_cancel_last(server))
    gm.page.wait_for_function("id => window.sidecarTable.asks.get(id)?.closed === 'cancelled'",
                              arg=cancelled)
    assert not gm.errors, gm.errors
    gm.close()
