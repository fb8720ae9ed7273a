"""The scene's initiative on the web table (issue 29 follow-up), in a real headless
Chromium at 390 px against a real sidecar: the GM's panel has an « Initiative » action
(pick the characters, who claims, whose bagage counts; send), and the log tells the event
as what it is — the order, who acts together, what a claim cost — in the reader's one
language, live and for a page that joins afterwards (the history), never as a roll card
with a « failure » badge. Skips like tests/test_web_table.py without Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage

PHONE = (390, 844)
LINE = '#log .entry[data-kind="initiative"]'


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0) as live:
        yield live


def _characters(gm: TablePage) -> None:
    for name, pep in (("Garde", 4), ("Aengus", 2), ("Brady", 2)):
        gm.page.evaluate("""([name, pep]) => window.sidecarTable.client.request({
            type: "sheet", op: "set", character: name, ruleset: "oweens", owner: null,
            values: {pep, bonbonus: 3}})""", [name, pep])
        gm.page.wait_for_selector(f'#sheet-list .sheet-item[data-character="{name}"]',
                                  state="attached")


def _line(page: TablePage, seq: int | None = None) -> str:
    selector = LINE if seq is None else f'{LINE}[data-seq="{seq}"]'
    page.page.wait_for_selector(selector)
    return page.page.text_content(selector)


def test_the_gm_orders_the_initiative_from_the_panel_and_the_log_tells_it(
        browser: Any, server: LiveServer) -> None:
    gm = TablePage(browser, server.http, table="auberge", name="MJ", role="gm",
                   token=GM_TOKEN, viewport=PHONE)
    watcher = TablePage(browser, server.http, table="auberge", name="Vue", role="observer",
                        viewport=PHONE)
    _characters(gm)
    page = gm.page
    page.click("#gm-initiative summary")
    for name in ("Garde", "Aengus"):
        page.check(f'#initiative-form input[name="initiative-in"][value="{name}"]')
    # Who takes it is in the scene: ticking « la prend » ticks Brady too.
    page.check('#initiative-form input[name="initiative-claim"][value="Brady"]')
    assert page.is_checked('#initiative-form input[name="initiative-in"][value="Brady"]')
    page.click("#initiative-send")
    line = _line(gm)
    assert "Initiative : Brady, puis Garde, puis Aengus (Brady : −1 BB+)" in line, line
    assert "failure" not in line and "échec" not in line.lower()
    assert page.query_selector(f"{LINE} .badge.verdict, {LINE} .dice") is None
    # The panel fits a phone: nothing wider than the screen.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE[0]
    # Another member, live, in English: one language only.
    watcher.page.click("#lang")
    english = _line(watcher)
    assert "Initiative: Brady, then Garde, then Aengus (Brady: −1 BB+)" in english, english
    assert "puis" not in english
    # Ties act together; a page joining afterwards reads it from the history.
    for name in ("Garde", "Aengus", "Brady"):
        page.check(f'#initiative-form input[name="initiative-in"][value="{name}"]')
    page.uncheck('#initiative-form input[name="initiative-claim"][value="Brady"]')
    page.click("#initiative-send")
    page.wait_for_function(f"() => document.querySelectorAll('{LINE}').length === 2")
    late = TablePage(browser, server.http, table="auberge", name="Tard", role="observer",
                     viewport=PHONE)
    late.page.wait_for_function(f"() => document.querySelectorAll('{LINE}').length === 2")
    texts = late.page.eval_on_selector_all(LINE, "(nodes) => nodes.map((n) => n.textContent)")
    assert any("Initiative : Garde, puis Aengus et Brady ensemble" in t for t in texts), texts
    assert late.page.query_selector('#log .entry[data-kind="outcome"]') is None
    # A refusal (characters of no initiative rule, or none picked) is said in the panel.
    for checkbox in page.query_selector_all('#initiative-form input[name="initiative-in"]'):
        checkbox.uncheck()
    page.click("#initiative-send")
    page.wait_for_selector("#initiative-error:not([hidden])")
    # A claim a sheet cannot pay names whose sheet (it read « Pas assez de « bonbonus » »).
    page.evaluate("""() => window.sidecarTable.client.request({type: "sheet", op: "set",
        character: "Aengus", ruleset: "oweens", owner: null, values: {pep: 2, bonbonus: 0}})""")
    page.check('#initiative-form input[name="initiative-claim"][value="Aengus"]')
    page.click("#initiative-send")
    page.wait_for_function("""() => document.querySelector('#initiative-error')
        ?.textContent.startsWith('Aengus : pas assez de « Bonbonus (BB+) »')""")
    for member in (gm, watcher, late):
        assert member.errors == [], member.errors
        member.close()
