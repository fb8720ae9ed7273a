"""The GM's evening on the phone page, as a newcomer's second run found it (issue 29 re-run,
items A, B, D, F, H, J), in a real headless Chromium at 390 px against a real sidecar: the
log in one language after a switch, extensions by their titles, a cooperative
ask from the panel whose best roll names its character, no stale odds beside an error, a
seat opened twice listed once. Skips like tests/test_web_table.py without Chromium.
(G, a GM's link that joins by itself: tests/test_web_token_links.py.)
"""

from __future__ import annotations

import time
from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import TablePage, open_ask_form
from tests.test_web_evening import (
    PHONE,
    new_character,
    new_outcome,
    oweens_table,
    phone_gm,
    phone_player,
)


def test_switching_the_language_redraws_the_earlier_rolls_in_it(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "langue")
    gm.page.select_option("#ruleset", "dice")
    gm.fill_params({"expr": "2d6"})
    before = gm.state("outcomes.length")
    gm.page.click("#roll-button")
    rolled = new_outcome(gm, before)
    assert "Total : " in rolled["text"]  # French, as the page joined
    gm.page.click("#lang")
    # Back in English: the earlier roll's text too, not only the labels around it.
    gm.page.wait_for_function("""seq => window.sidecarTable.outcomes.some(
        o => o.seq === seq && o.text.includes("Total: "))""", arg=rolled["seq"])
    gm.page.wait_for_function("""seq => document.querySelector(
        `#log .entry[data-seq="${seq}"]`)?.textContent.includes("Total: ")""",
                              arg=rolled["seq"])
    assert "Total : " not in gm.page.locator(f'#log .entry[data-seq="{rolled["seq"]}"]') \
        .text_content()
    gm.close()


def test_no_stale_odds_beside_an_error_and_extensions_by_their_titles(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "titres")
    page = gm.page
    page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 3, "difficulty": 2})
    page.wait_for_function("() => document.querySelector('#odds-success').textContent")
    # Another game, whose odds cannot be computed yet: it says why, and the figures of
    # O'Ween's are gone, not left beside it (a value being typed only dims them).
    page.select_option("#ruleset", "ladder")
    page.wait_for_function("() => document.querySelector('#odds-note').textContent")
    assert page.text_content("#odds-success") == ""
    assert page.locator("#odds-bars > *").count() == 0
    # Bloodlust's extension is not named on a ladder roll; on a Bloodlust roll, by its title.
    assert "Échec critique blanc" not in page.text_content("#roll-form")
    page.select_option("#ruleset", "bloodlust")
    extension = page.text_content("#option-sets")
    assert "Échec critique blanc" in extension and "blank_botch" not in extension, extension
    gm.close()


def test_a_cooperative_ask_from_the_panel_names_the_best_character(
        browser: Any, server: LiveServer) -> None:
    gm, link, other = oweens_table(browser, server, "cooperation")
    players = [TablePage(browser, server.http, link=each, viewport=PHONE)
               for each in (link, other)]
    page = gm.page
    open_ask_form(gm)
    for name in ("Ervald", "Tam"):
        box = page.locator(f'#ask-targets input[value="{name}"]')
        box.wait_for(state="attached")
        box.check()
    page.select_option("#ask-ruleset", "oweens")
    page.check("#ask-opposed")
    page.check("#ask-cooperative")  # one or the other
    assert not page.is_checked("#ask-opposed")
    page.select_option("#askp-characteristic", "ECL")
    page.fill("#askp-difficulty", "2")
    page.get_by_label("Quel jet (ex. Perception)").fill("Pousser le chariot")
    page.click("#ask-form button[type=submit]")
    page.wait_for_selector("#asks .ask-card")
    ask_id = page.locator("#asks .ask-card").first.get_attribute("data-ask")
    assert "coopération" in page.locator(f'#asks .ask-card[data-ask="{ask_id}"]').text_content()
    for player in players:
        before = player.state("outcomes.length")
        player.page.locator(f"#ask-roll-{ask_id}").click()
        new_outcome(player, before)
    best = page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-best')
    # An O'Ween's answer may stay open for a purchase (the server's dice): the ask settles
    # once each side decided, so each takes its card's default (as test_web_evening does).
    deadline = time.monotonic() + 30
    while not best.is_visible():
        assert time.monotonic() < deadline, "the cooperation never settled"
        for player in players:
            default = player.page.locator("#log button.choice.default")
            if default.count():
                default.first.click()
        page.wait_for_timeout(50)
    text = best.text_content()
    assert text.startswith("Le meilleur jet compte : ") and ("Ervald" in text or "Tam" in text)
    assert "Aengus" not in text and "Brann" not in text, text
    # Every log that received it says it too, by the character.
    players[0].page.wait_for_selector("#log .ask-best")
    for each in (*players, gm):
        each.close()


def test_a_seat_open_twice_is_listed_once(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "deux-fois")
    phone = phone_player(browser, server, link)
    laptop = TablePage(browser, server.http, link=link)
    gm.page.wait_for_function("""() => window.sidecarTable.presence
        .filter(m => m.name === "Aengus").length === 2""")
    listed = gm.page.locator("#presence .member", has_text="Aengus")
    assert listed.count() == 1
    assert "×2" in listed.text_content()
    for each in (phone, laptop, gm):
        each.close()


def test_a_purchase_the_sheet_cannot_pay_any_more_is_not_offered(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "achats")
    new_character(gm, "Ervald", None, ecl=2, bonbonus=4)

    def open_roll() -> dict[str, Any]:
        # The GM's own faces (2, 2): no success against 3, two augmentations (4 BB+) help.
        return gm.page.evaluate("""() => window.sidecarTable.client.roll({ruleset: "oweens",
            params: {characteristic: "ECL", difficulty: 3}, character: "Ervald",
            dice: [2, 2]})""")

    roll = open_roll()
    gm.page.locator(f"#choice-{roll['roll']}-buy_2").wait_for()
    # While it is open, Ervald's BB+ go (another roll's purchase, the GM's hand): the
    # purchase the sheet cannot pay any more is offered no more, only « Garder ».
    gm.page.evaluate("""() => window.sidecarTable.client.adjustSheet({character: "Ervald",
        delta: {bonbonus: -4}})""")
    gm.page.locator(f"#choice-{roll['roll']}-buy_2").wait_for(state="detached")
    assert gm.page.locator(f"#choice-{roll['roll']}-keep").is_visible()
    gm.close()
