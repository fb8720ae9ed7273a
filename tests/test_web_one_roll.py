"""An open roll and its decision are ONE roll in every log (issue 29 follow-up, #33/#34 on
a player's phone): in a real headless Chromium at 390 px against a real sidecar, the
player who decided, another player and the GM each see one card for the roll — the open
card, updated with what was decided — live, after a reload, and for someone joining
later (from the history). Skips like
tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, card, player_page, roll_open

PHONE = (390, 844)


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0) as live:
        yield live


def cards_of(page: TablePage, roll: str) -> list[dict[str, Any]]:
    """The log's cards for one roll id: their seqs and their « Décidé » lines."""
    return page.page.eval_on_selector_all(
        "#log li.entry", """(nodes, roll) => nodes.filter(n => n.dataset.roll === roll)
            .map(n => ({seq: n.dataset.seq, seqs: n.dataset.seqs ?? null,
                        decided: [...n.querySelectorAll('.decided')].map(d => d.textContent)}))""",
        roll)


def decided(page: TablePage, seq: int) -> dict[str, Any]:
    page.page.wait_for_function(
        "seq => window.sidecarTable.outcomes.some(o => o.reacts_to === seq)", arg=seq)
    return page.state(f"outcomes.find(o => o.reacts_to === {seq})")


def test_an_open_roll_and_its_decision_are_one_card_for_everyone(
        browser: Any, server: LiveServer) -> None:
    table = "un-seul-jet"
    gm = TablePage(browser, server.http, table=table, name="Morgane", role="gm",
                   token=GM_TOKEN, viewport=PHONE)
    aengus = player_page(browser, server.http, table, viewport=PHONE)
    brann = player_page(browser, server.http, table, name="Brann", viewport=PHONE)
    seq = roll_open(aengus)
    roll = aengus.state(f"outcomes.find(o => o.seq === {seq}).roll")
    for page in (gm, brann):
        page.wait_for_entry(seq)
    card(aengus, seq).locator('button.choice[data-choice="keep"]').click()
    expected = "Décidé : Garder — par Aengus"
    for page in (aengus, brann, gm):
        decision = decided(page, seq)
        page.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
        # One card, the open one's place and number, saying the decision once.
        assert cards_of(page, roll) == [{"seq": str(seq), "seqs": f"{seq} {decision['seq']}",
                                         "decided": [expected]}]
    # After a reload (the roll comes back from the history): still one card.
    aengus.page.reload()
    aengus.page.wait_for_function("() => window.sidecarTable.client?.state === 'open'")
    decision = decided(aengus, seq)
    aengus.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    assert cards_of(aengus, roll) == [{"seq": str(seq), "seqs": f"{seq} {decision['seq']}",
                                       "decided": [expected]}]
    # Someone joining afterwards (both from the history's page): one card as well.
    clara = player_page(browser, server.http, table, name="Clara", viewport=PHONE)
    decided(clara, seq)
    clara.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    assert cards_of(clara, roll) == [{"seq": str(seq), "seqs": f"{seq} {decision['seq']}",
                                      "decided": [expected]}]
    for page in (aengus, brann, gm, clara):
        page.close()


def test_an_open_roll_decided_by_default_is_one_card_too(browser: Any, luck_plugins: Path) -> None:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0, react_timeout=0.5) as live:
        table = "un-seul-jet-minuteur"
        gm = TablePage(browser, live.http, table=table, name="Morgane", role="gm",
                       token=GM_TOKEN, viewport=PHONE)
        aengus = player_page(browser, live.http, table, viewport=PHONE)
        brann = player_page(browser, live.http, table, name="Brann", viewport=PHONE)
        seq = roll_open(aengus)
        roll = aengus.state(f"outcomes.find(o => o.seq === {seq}).roll")
        for page in (aengus, brann, gm):
            decision = decided(page, seq)
            page.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
            assert cards_of(page, roll) == [{"seq": str(seq), "seqs": f"{seq} {decision['seq']}",
                                             "decided": ["Temps écoulé : Garder"]}]
        for page in (aengus, brann, gm):
            page.close()
