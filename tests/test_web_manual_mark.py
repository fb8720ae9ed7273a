"""Physical dice marked on the web table's cards (issue 29, replay 2): the GM types
« 5 » in « Dés physiques »; the player's log, on a phone (390 px), marks that roll
« dés physiques (tous) — saisis par Morgane », whole on the screen, and marks no drawn roll.
A ladder reroll that drew a new pair on a typed pair marks the typed dice only, on the
dice and in words, « dés 1–2 saisis par Morgane » (issue 29 follow-up).
Real Chromium, real sidecar; skips like tests/test_web_table.py without Chromium or
Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, card, gm_page

PASS = {"target": 4, "skill": 0}
FAILS = {"level": 1, "difficulty": 60}  # the ladder: always fails, the roll opens


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0) as live:
        yield live


def test_a_phone_marks_the_faces_the_gm_typed(browser: Any, server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "des-saisis")
    player = TablePage(browser, server.http, link=add_seat(gm, "Léa"), viewport=(390, 844))
    gm.page.select_option("#ruleset", "luck")
    gm.fill_params(PASS)
    gm.page.fill("#manual-dice", "5")
    typed = gm.roll(label="Grimper")
    gm.page.fill("#manual-dice", "")
    drawn = gm.roll(label="Nager")
    player.wait_for_entry(drawn)
    mark = player.page.locator(f'#log .entry[data-seq="{typed}"] .manual-mark')
    assert mark.text_content() == "dés physiques (tous) — saisis par Morgane"
    assert mark.is_visible()
    box = mark.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert player.page.locator(f'#log .entry[data-seq="{drawn}"] .manual-mark').count() == 0
    assert gm.page.locator(f'#log .entry[data-seq="{typed}"] .manual-mark').count() == 1
    assert player.page.locator(f'#log .entry[data-seq="{typed}"] .die.die-typed').count() == 1
    assert player.page.locator(f'#log .entry[data-seq="{drawn}"] .die-typed').count() == 0
    for page in (player, gm):
        page.close()


def test_a_decision_drawing_new_faces_marks_the_typed_dice_only(browser: Any,
                                                                 server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "relance-saisie")
    player = TablePage(browser, server.http, link=add_seat(gm, "Léa"), viewport=(390, 844))
    gm.page.select_option("#ruleset", "ladder")
    gm.fill_params(FAILS)
    gm.page.fill("#manual-dice", "1 2")
    seq = gm.roll(label="Sauter")
    gm.page.fill("#manual-dice", "")
    card(gm, seq).locator('button.choice[data-choice="reroll"]').click()
    faces = card(gm, seq).locator("input.faces")
    faces.wait_for()
    faces.press("Enter")  # (empty: the server draws the new pair)
    gm.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    decided = gm.state(f"outcomes.find(o => o.reacts_to === {seq})")
    assert len(decided["dice"]) == 4 and decided["manual"]["dice"] == [0, 1], decided
    player.wait_for_entry(decided["seq"])
    # (The decision is drawn on the open roll's card: one roll, one card.)
    entry = f'#log .entry[data-seqs~="{decided["seq"]}"]'
    mark = player.page.locator(f"{entry} .manual-mark")
    assert mark.text_content() == "dés 1–2 saisis par Morgane"
    box = mark.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    typed = player.page.eval_on_selector_all(
        f"{entry} .dice > .die", "dice => dice.map(d => d.classList.contains('die-typed'))")
    assert typed == [True, True, False, False]
    for page in (player, gm):
        page.close()
