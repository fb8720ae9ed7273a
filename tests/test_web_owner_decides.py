"""The page offers a character's player the choices of a public roll made as that
character (issue 29: the GM's roll as Aengus offered « au choix du joueur » choices Léa
could not take). In a real headless Chromium at 390 px against a real sidecar; a ``gm``
roll as the character, which her seat does not see, shows her nothing to decide. Skips
like tests/test_web_table.py without Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, card, gm_page

OPEN = {"second_chance": True, "target": 12}  # (skill 1: failed, hence open, whatever the die)


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0) as live:
        yield live


def test_the_characters_player_decides_the_gms_public_roll_from_her_page(
        browser: Any, server: LiveServer) -> None:
    table = "joueuse-decide"
    gm = gm_page(browser, server.http, table)
    lea = TablePage(browser, server.http, link=add_seat(gm, "Léa"), viewport=(390, 844))

    async def made() -> None:
        async with server.client(table=table, name="MJ", role="gm",
                                 token=server.config.gm_token) as client:
            await client.set_sheet("Aengus", "luck", {"skill": 1, "luck": 5}, owner="Léa")
    server.call(made())
    lea.page.wait_for_function(
        "() => window.sidecarTable.client.characters.get('Aengus')?.owner === 'Léa'")
    public = server.roll(table, "MJ", "luck", OPEN, character="Aengus", dice=[1])
    assert public["open"] is True
    buttons = card(lea, public["seq"]).locator(".choices-open button.choice")
    buttons.first.wait_for()
    assert buttons.all_text_contents() == ["Relancer", "Garder (par défaut)"]
    card(lea, public["seq"]).locator('button.choice[data-choice="keep"]').click()
    lea.page.wait_for_selector(f'#log .entry[data-seq="{public["seq"]}"] .decided')
    assert card(lea, public["seq"]).locator(".decided").text_content() \
        == "Décidé : Garder — par Léa"
    # A gm roll as Aengus: not shown to her seat, nothing for her to decide.
    secret = server.roll(table, "MJ", "luck", OPEN, character="Aengus", dice=[1], mode="gm")
    assert secret["open"] is True
    gm.wait_for_entry(secret["seq"])
    assert lea.page.locator("#log button.choice").count() == 0
    assert not lea.errors, lea.errors
    for page in (gm, lea):
        page.close()
