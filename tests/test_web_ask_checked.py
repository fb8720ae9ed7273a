"""The GM's ask form shows, next to itself and in the page's language, why an ask no
answer could roll is refused (issue 29: an O'Ween's ask with « Caractéristique — » was
sent, accepted, and nobody could answer it). The check is the server's (an ask is
checked when opened as its answers will be before their dice): the form sends what the
GM chose and shows the refusal. Real headless Chromium at 390 px against a real sidecar;
skips like tests/test_web_table.py without Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, open_ask_form


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0) as live:
        yield live


def test_an_ask_nobody_could_answer_is_refused_beside_the_form(
        browser: Any, server: LiveServer) -> None:
    table = "demande-verifiee"
    gm = TablePage(browser, server.http, table=table, name="Morgane", role="gm",
                   token=GM_TOKEN, viewport=(390, 844))
    add_seat(gm, "Léa")

    async def made() -> None:
        async with server.client(table=table, name="MJ", role="gm",
                                 token=server.config.gm_token) as client:
            await client.set_sheet("Aengus", "oweens", {"pep": 2, "fla": 2}, owner="Léa")
    server.call(made())
    page = gm.page
    open_ask_form(gm)
    box = page.locator('#ask-targets input[value="Aengus"]')
    box.wait_for(state="attached")
    box.check()
    page.select_option("#ask-ruleset", "oweens")
    page.fill("#askp-difficulty", "2")
    page.get_by_label("Quel jet (ex. Perception)").fill("Esquiver")
    page.get_by_label("Quel jet (ex. Perception)").press("Enter")
    error = page.locator("#ask-error")
    error.wait_for()
    assert "Caractéristique" in error.text_content(), error.text_content()
    assert "choisissez la caractéristique" in error.text_content()
    assert page.locator("#asks .ask-card").count() == 0
    assert not gm.errors, gm.errors
    gm.close()
