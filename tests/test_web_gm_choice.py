"""A choice marked ``gm`` on the web table (PROTOCOL.md §7.6, extension): in a real headless
Chromium against a real sidecar, the ladder's « réussi, mais… » shows as buttons on the
GM's card only; the player's card says the decision is awaited, and both cards say what
the GM decided. Skips like tests/test_web_table.py without Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import card, gm_page, player_page

ALWAYS_FAILS = {"level": 3, "difficulty": 13, "chance": 2}  # (its luck offered: keep)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0) as live:
        yield live


def test_the_gm_only_choice_is_a_button_for_the_gm_alone(browser: Any,
                                                         server: LiveServer) -> None:
    table = "reussi-mais"
    gm = gm_page(browser, server.http, table)
    player = player_page(browser, server.http, table)
    player.page.select_option("#ruleset", "ladder")
    player.fill_params(ALWAYS_FAILS)
    seq = player.roll(label="Sauter la crevasse")
    # The player's own luck first: their buttons.
    keep = card(player, seq).locator('button.choice[data-choice="keep"]')
    keep.click()
    player.page.wait_for_function(
        "seq => window.sidecarTable.outcomes.some(o => o.reacts_to === seq)", arg=seq)
    second = player.state(f"outcomes.find(o => o.reacts_to === {seq}).seq")
    # Now the GM's choice: buttons on the GM's card, none on the player's.
    gm.wait_for_entry(second)
    buttons = card(gm, second).locator(".choices-open button.choice")
    buttons.first.wait_for()
    assert [b.get_attribute("data-choice") for b in buttons.all()] == [
        "success_at_cost", "fail"]
    player.wait_for_entry(second)
    card(player, second).locator(".awaiting").wait_for()
    assert card(player, second).locator("button.choice").count() == 0
    card(gm, second).locator('button.choice[data-choice="success_at_cost"]').click()
    for page in (player, gm):
        page.page.wait_for_function(
            "seq => window.sidecarTable.outcomes.some(o => o.reacts_to === seq)", arg=second)
        decision = page.state(f"outcomes.find(o => o.reacts_to === {second})")
        assert decision["choice"] == "success_at_cost"
        assert decision["result"]["success_at_cost"] is True
        # The decision's card says what the GM decided; the buttons are gone.
        line = card(page, decision["seq"]).locator('.decided[data-choice="success_at_cost"]')
        line.wait_for()
        assert "par Morgane" in line.text_content()
        assert card(page, second).locator("button.choice").count() == 0
        # One roll, one card: the player's luck, then the GM's choice, both said on it.
        roll = page.state(f"outcomes.find(o => o.seq === {seq}).roll")
        cards = page.page.eval_on_selector_all("#log li.entry", """(nodes, roll) => nodes
            .filter(n => n.dataset.roll === roll).map(n => [n.dataset.seq, n.dataset.seqs,
            [...n.querySelectorAll('.decided')].map(d => d.dataset.choice)])""", roll)
        assert cards == [[str(seq), f"{seq} {second} {decision['seq']}",
                          ["keep", "success_at_cost"]]], cards
    for page in (player, gm):
        page.close()
