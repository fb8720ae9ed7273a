"""Physical dice typed on the web table's cards (issue 12): an asked roll answered from its
card with the faces the player threw, and an open roll's choice that draws dice, at a table
that lets players use their own dice (``allow_player_dice``). Real Chromium, real sidecar;
skips like tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, ask, card, gm_page, roll_open


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0, allow_player_dice=True) as live:
        yield live


def test_the_player_answers_an_ask_with_the_faces_they_threw(browser: Any,
                                                            server: LiveServer) -> None:
    table = "demande-physique"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Aengus"), viewport=(390, 844))
    ask_id = ask(gm, ["Aengus"], "Perception", {"target": 4, "skill": 0})
    field = player.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] input.ask-dice')
    field.wait_for()
    assert player.page.get_by_label("Dés physiques (facultatif)").count() >= 1
    # Not numbers: said on the card, the field marked, nothing sent.
    field.fill("six")
    player.page.click(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    player.page.wait_for_selector(f'#asks .ask-card[data-ask="{ask_id}"] .error')
    assert field.get_attribute("aria-invalid") == "true"
    assert gm.state(f"outcomes.filter(o => o.answers === '{ask_id}').length") == 0
    # A 3 against 4: the failure comes from the face typed, on both pages.
    field.fill("3")
    player.page.click(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    line = gm.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-line[data-seat="Aengus"]')
    gm.page.wait_for_selector(f'#asks .ask-card[data-ask="{ask_id}"] '
                              '.ask-line[data-state="answered"]')
    assert "Échec" in line.text_content()
    answer = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")
    assert [die["face"] for die in answer["dice"]] == [3]
    # A 6 on the next ask: a success, from the face typed again.
    second = ask(gm, ["Aengus"], "Vigilance", {"target": 4, "skill": 0})
    player.page.locator(f'#asks .ask-card[data-ask="{second}"] input.ask-dice').fill("6")
    player.page.click(f'#asks .ask-card[data-ask="{second}"] button.ask-roll')
    gm.page.wait_for_selector(f'#asks .ask-card[data-ask="{second}"] '
                              '.ask-line[data-state="answered"]')
    assert "Réussite" in gm.page.locator(
        f'#asks .ask-card[data-ask="{second}"] .ask-line').text_content()
    answer = gm.state(f"outcomes.find(o => o.answers === '{second}')")
    assert [die["face"] for die in answer["dice"]] == [6]
    for page in (player, gm):
        page.close()


def test_the_player_types_the_faces_of_a_choice_that_draws_dice(browser: Any,
                                                               server: LiveServer) -> None:
    table = "choix-physique"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Brann"))
    player.page.fill("#manual-dice", "1")  # the first throw, a sure failure: the roll opens
    seq = roll_open(player)
    assert player.state(f"outcomes.find(o => o.seq === {seq}).dice[0].face") == 1
    card(player, seq).locator('button.choice[data-choice="reroll"]').click()
    faces = card(player, seq).locator("input.faces")
    faces.wait_for()
    faces.fill("6")
    faces.press("Enter")
    gm.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    decision = gm.state(f"outcomes.find(o => o.reacts_to === {seq})")
    assert decision["choice"] == "reroll" and decision["dice"][-1]["face"] == 6
    for page in (player, gm):
        page.close()
