"""A PC against the GM's NPC on the page (issue 29 follow-up), at 390 px in a real
headless Chromium against a real sidecar: the ask form offers the NPC (« PNJ »), the
GM's card a button « Lancer pour Krull » that rolls the NPC's side, and every log names
the NPC when it wins (« Vainqueur : Krull », not « Personne ne réussit »). Skips like
tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, open_ask_form
from tests.test_web_evening import PHONE, phone_gm

#: A touch target's least height (the chips and buttons are 2.75 rem: 44 px).
THUMB = 40


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """Players throw their own dice here: the seed's faces are typed."""
    with LiveServer(rate_limit=0, allow_player_dice=True) as live:
        yield live


def sheet(gm: TablePage, name: str, owner: str | None) -> None:
    """The GM makes a d6code character (as the panel's form would send it)."""
    gm.page.evaluate("""([name, owner]) => window.sidecarTable.client.request({
        type: "sheet", op: "set", character: name, ruleset: "d6code", owner, values: {}})""",
                     [name, owner])
    gm.page.wait_for_selector(f'#sheet-list .sheet-item[data-character="{name}"]',
                              state="attached")


def test_the_gm_rolls_the_npcs_side_from_the_card_and_the_npc_wins(
        browser: Any, server: LiveServer) -> None:
    """Seed 003's duel, Krull the GM's NPC: Strengal 3D+5 rolls 11 → 16, Krull 4D+1 rolls
    18 → 19 and wins."""
    gm = phone_gm(browser, server, "pnj")
    link = add_seat(gm, "Léa")
    sheet(gm, "Strengal", "Léa")
    sheet(gm, "Krull", None)
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    # The form offers the NPC, said to be one.
    open_ask_form(gm)
    chip = gm.page.locator('#ask-targets label:has(input[value="Krull"])')
    chip.wait_for()
    assert "PNJ" in chip.text_content(), chip.text_content()
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Strengal", "Krull"], ruleset: "d6code", opposed: true,
        params: {difficulty: 0}, each: {Strengal: {code: "3D+5"}, Krull: {code: "4D+1"}},
        label: "Bras de fer", mode: "public", options: {}}).then(reply => reply.ask)""")
    card = f'#asks .ask-card[data-ask="{ask_id}"]'
    # The player's card names the NPC among the other sides.
    against = player.page.locator(f"{card} .ask-against")
    against.wait_for()
    assert "Krull" in against.text_content(), against.text_content()
    player.page.locator(f"{card} input.ask-dice").fill("3,4,4")
    player.page.click(f"{card} button.ask-roll")
    # The GM's card: the NPC's line waits, with its own button.
    gm.page.wait_for_selector(f'{card} .ask-line[data-seat="Léa"][data-state="answered"]')
    button = gm.page.get_by_role("button", name="Lancer pour Krull")
    button.wait_for()
    box = button.bounding_box()
    assert box is not None and box["height"] >= THUMB, box
    assert box["x"] + box["width"] <= PHONE[0], box
    gm.page.locator(f"{card} input.ask-dice").fill("5,5,4,4")
    button.click()
    winner = gm.page.locator(f"{card} .ask-winner")
    winner.wait_for()
    assert winner.text_content() == "Vainqueur : Krull"
    assert gm.page.get_attribute(f'{card} .ask-line[data-npc="Krull"]',
                                 "data-state") == "answered"
    assert gm.page.locator(f"{card} button.ask-roll-npc").count() == 0
    # The player's log names the NPC winner too.
    line = player.page.locator("#log .entry .ask-winner")
    line.wait_for()
    assert line.text_content() == "Vainqueur : Krull"
    for page in (gm, player):
        assert page.page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        assert not page.errors, page.errors
        page.close()
