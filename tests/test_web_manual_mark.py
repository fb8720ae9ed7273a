"""Physical dice marked on the web table's cards (issue 29, replay 2): the GM types
« 5 » in « Dés physiques »; the player's log, on a phone (390 px), marks that roll
« dés physiques — saisis par Morgane », whole on the screen, and marks no drawn roll.
Real Chromium, real sidecar; skips like tests/test_web_table.py without Chromium or
Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, gm_page

PASS = {"target": 4, "skill": 0}


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
    assert mark.text_content() == "dés physiques — saisis par Morgane"
    assert mark.is_visible()
    box = mark.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert player.page.locator(f'#log .entry[data-seq="{drawn}"] .manual-mark').count() == 0
    assert gm.page.locator(f'#log .entry[data-seq="{typed}"] .manual-mark').count() == 1
    for page in (player, gm):
        page.close()
