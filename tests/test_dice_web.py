"""The web table builds the ``dice`` ruleset's form from its params description alone: a
text field for ``expr`` (its example as placeholder), a number for ``target``, the odds
panel following the form, and a roll shown with its dice. Real Chromium, real server."""

from __future__ import annotations

from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import odds_entries, player_page


def test_the_dice_form_renders_from_its_description_and_rolls(browser: Any,
                                                              server: LiveServer
                                                              ) -> None:
    page = player_page(browser, server.http, "des")
    page.page.select_option("#ruleset", "dice")
    expr = page.page.locator("#param-expr")
    assert expr.get_attribute("type") == "text"
    assert expr.get_attribute("placeholder") == "2d6+3"
    assert page.page.locator("#param-target").get_attribute("type") == "number"
    assert page.page.text_content('[data-param="expr"] .param-name').rstrip(" *") == \
        "Expression"
    params = {"expr": "4d6kh3+1", "target": 13}
    page.fill_params(params)
    expected = server.odds("des", "dice", params)
    assert page.wait_for_odds(expected) == odds_entries(expected)
    seq = page.roll(label="Force")
    outcome = page.state(f"outcomes.find(o => o.seq === {seq})")
    assert outcome["params"] == params and outcome["result"]["expr"] == "4d6kh3+1"
    shown = page.entry(seq)
    assert shown["faces"] == [die["face"] for die in outcome["dice"]]
    assert shown["label"] == outcome["result"]["label"]["fr"]
    assert "Total" in shown["text"]
    assert page.errors == [], page.errors
    page.close()


@pytest.mark.parametrize("bad", ["4d6kh5"])
def test_a_bad_expression_is_shown_on_its_field(browser: Any, server: LiveServer,
                                                bad: str) -> None:
    page = player_page(browser, server.http, "des-faux")
    page.page.select_option("#ruleset", "dice")
    page.page.fill("#param-expr", bad)
    page.page.wait_for_selector('.param.invalid[data-param="expr"]')
    page.close()
