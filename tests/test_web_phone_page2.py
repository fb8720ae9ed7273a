"""The GM's evening on a phone, second pass (issue 29, the page's items found by a
newcomer's replay and the docs' screenshots), in a real headless Chromium at 390 px against
a real sidecar: the ask form's two « opposition » boxes named apart, the epoch button in the
switched language, no stale figure next to a form's error, a game picker that fits, whom an
opposed ask is against on the player's card, reserves as « 2 / 3 » (and never asked of a new
character), the odds' parts under their headline, and dice labels with room. Skips like
tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, open_ask_form
from tests.test_web_evening import PHONE, new_character, oweens_table, phone_gm, phone_player
from tests.test_web_phone_asks import switch_language


def field_name(page: TablePage, selector: str) -> str:
    """The name a person reads beside a field (its label's text, without the help)."""
    return page.page.eval_on_selector(selector, """n => (n.closest('.param')
        ?.querySelector('.param-name') ?? n.closest('label'))?.textContent.trim()""")


# -- item 1: two boxes, two names -------------------------------------------------------------

def test_the_ask_forms_two_opposition_boxes_have_names_a_gm_cannot_confuse(
        browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "deux-oppositions")
    page = gm.page
    for lang in ("fr", "en"):
        if lang == "en":
            switch_language(gm, "en")
        open_ask_form(gm)
        page.select_option("#ask-ruleset", "oweens")
        page.wait_for_selector("#askp-contest", state="attached")
        asked = field_name(gm, "#ask-opposed")
        contest = field_name(gm, "#askp-contest")
        # (« En opposition » and « En opposition (chaque camp ses paramètres) » before.)
        assert not asked.startswith(contest) and not contest.startswith(asked), (asked, contest)
        assert "oppos" not in contest.lower(), contest  # the ask's box is the opposition
    gm.close()


# -- item 2: the epoch button follows the switch --------------------------------------------------

@pytest.fixture(scope="module")
def provable() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0, dice="provable") as live:
        yield live


def test_the_epoch_button_follows_the_language_switch(browser: Any,
                                                      provable: LiveServer) -> None:
    gm = phone_gm(browser, provable, "epoque-bilingue")
    button = gm.page.locator("#epoch-end")
    button.wait_for(state="attached")
    assert button.text_content().startswith("Clore"), button.text_content()
    switch_language(gm, "en")
    assert button.text_content().startswith("End the epoch"), button.text_content()
    switch_language(gm, "fr")
    assert button.text_content().startswith("Clore"), button.text_content()
    gm.close()


# -- item 3: no figure beside an error -----------------------------------------------------------

def test_odds_that_do_not_match_the_form_show_no_figure(browser: Any,
                                                        server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "chances-perimees")
    player = phone_player(browser, server, link)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    player.fill_params({"characteristic": "FLA"})
    player.odds_shown()
    assert "%" in page.text_content("#odds-success")
    # Drinking is an Encaisse roll: the form picks ENC (tests/test_web_phone_page3.py); set
    # back to FLA, the form is wrong as it stands.
    page.select_option("#param-situation", "drinking")
    page.select_option("#param-characteristic", "FLA")
    page.wait_for_function("""() => document.getElementById('odds').classList.contains('stale')
        && /ENC/.test(document.getElementById('odds-note').textContent)""")
    odds = page.eval_on_selector("#odds", """n => ({headline: n.querySelector('#odds-success')
        .textContent, rows: n.querySelectorAll('#odds-bars .bar').length,
        note: n.querySelector('#odds-note').textContent})""")
    assert "%" not in odds["headline"] and odds["rows"] == 0, odds
    assert "corrig" in odds["note"].lower(), odds  # says the form is to be fixed first
    for each in (player, gm):
        each.close()


# -- item 4: the « Jeu » picker fits -----------------------------------------------------------

def test_the_game_picker_fits_a_phone(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "jeu-etroit")
    page = gm.page
    page.select_option("#ruleset", "ladder")
    # Each option's text, in the select's font, fits its box (less its arrow and padding).
    overflowing = page.eval_on_selector("#ruleset", """select => {
        const style = getComputedStyle(select);
        const room = select.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
        const context = document.createElement('canvas').getContext('2d');
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        return [...select.options].filter(o => context.measureText(o.text).width > room)
            .map(o => o.text); }""")
    assert overflowing == [], overflowing
    # The full name is said elsewhere, whole.
    assert "niveau et meilleur dé" in page.text_content("#roll-form")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    gm.close()


# -- item 5: an opposed ask says against whom ------------------------------------------------------

def test_a_players_opposed_ask_card_names_the_other_side(browser: Any,
                                                         server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "contre-qui")
    player = phone_player(browser, server, link)
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Ervald", "Tam"], ruleset: "oweens", opposed: true,
        params: {characteristic: "PEP", difficulty: 0}, label: "Bras de fer",
        mode: "public", options: {}}).then(reply => reply.ask)""")
    card = player.page.locator(f'#asks .ask-card[data-ask="{ask_id}"]')
    card.wait_for()
    against = card.locator(".ask-against")
    assert "Tam" in against.text_content() and "Ervald" not in against.text_content()
    for each in (player, gm):
        each.close()


# -- item 6: reserves as what is left ------------------------------------------------------------

def test_reserves_read_as_what_is_left_and_a_new_character_is_not_asked_one(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "reserves")
    new_character(gm, "Ervald", None, pep=3, ecl=3, enc=2, fla=2, reserve_ecl=-1)
    page = gm.page
    page.select_option("#character-select", "Ervald")
    quick = page.locator('#quick-rolls button[data-choice="ECL"] .quick-what')
    quick.wait_for()
    assert quick.text_content() == "ECL 2 / 3", quick.text_content()
    # The roll form's help does not say every roll drains the reserve.
    help_ = page.text_content("#param-characteristic >> xpath=ancestor::*[contains("
                              "concat(' ', @class, ' '), ' param ')][1]")
    assert "qui se vide" not in help_, help_
    # A new character starts full: its form asks no reserve.
    page.click("#gm-characters summary")
    page.select_option("#sheet-ruleset", "oweens")
    page.wait_for_selector("#sheet-pep", state="attached")
    assert page.locator('[id^="sheet-reserve_"]').count() == 0
    # Editing one asks what is left, and sends the sheet's gap.
    page.click('#sheet-list .sheet-item[data-character="Ervald"] button.edit')
    field = page.locator("#sheet-reserve_ecl")
    assert field.input_value() == "2"
    assert "/ 3" in field.locator("xpath=ancestor::*[contains(concat(' ', @class, ' '),"
                                  " ' param ')][1]").text_content()
    field.fill("1")
    page.click("#sheet-form button[type=submit]")
    page.wait_for_function("""() => window.sidecarTable.characters.get('Ervald')
        .values.reserve_ecl === -2""")
    # The adjustments' field list says it so too (« Réserve ECL (0 = pleine) (-1) » before).
    page.select_option("#adjust-character", "Ervald")
    option = page.text_content('#adjust-field option[value="reserve_ecl"]')
    assert option == "Réserve ECL (1 / 3)", option
    gm.close()


# -- item 7: the odds' parts -----------------------------------------------------------------------

def test_the_odds_rows_read_as_parts_of_the_headline(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "parts")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 5, "difficulty": 4})
    gm.odds_shown()
    parts = gm.page.locator("#odds-bars .odds-parts")
    assert parts.text_content().startswith("dont"), parts.text_content()
    kinds = parts.locator(".bar").evaluate_all("bars => bars.map(b => b.dataset.kind)")
    assert kinds == ["narrow", "success", "critical"], kinds
    rest = gm.page.eval_on_selector_all("#odds-bars .bar:not(.odds-parts .bar)",
                                        "bars => bars.map(b => b.dataset.kind)")
    assert sorted(rest) == ["botch", "failure"], rest
    gm.close()


# -- item 8: dice labels with room ---------------------------------------------------------------

def test_dice_labels_neither_crowd_nor_touch_the_verdict(browser: Any,
                                                         server: LiveServer) -> None:
    gm = phone_gm(browser, server, "etiquettes")
    # (A 6 counts twice in O'Ween's: its die says « ×2 », given as physical dice.)
    for ruleset, params, dice in (
            ("d6code", {"code": "4D+2", "difficulty": 15, "twin": True}, None),
            ("oweens", {"dice": 2, "difficulty": 3}, [6, 3])):
        gm.page.evaluate("""([ruleset, params, dice]) => window.sidecarTable.client.roll({
            ruleset, params, options: {}, mode: "public", label: ruleset,
            ...(dice ? {dice} : {})})""", [ruleset, params, dice])
    gm.page.wait_for_function("document.querySelectorAll('#log .entry .die-role').length >= 2")
    boxes = gm.page.eval_on_selector_all("#log .entry:has(.die-role)", """entries =>
        entries.map(entry => {
            const box = n => n.getBoundingClientRect();
            return {labels: [...entry.querySelectorAll('.die-role')].map(n => {
                        const r = box(n); return [r.left, r.right, r.bottom]; }),
                    verdict: box(entry.querySelector('.result .kind')).top}; })""")
    counts = sorted(len(entry["labels"]) for entry in boxes)
    assert counts[0] == 1 and counts[1] >= 2, boxes  # ×2; the twins (and their reroll)
    for entry in boxes:
        labels = sorted(entry["labels"])
        for (_, right, _), (left, _, _) in zip(labels, labels[1:], strict=False):
            assert left - right >= 4, entry  # (« jumeau jumeau » ran together)
        assert all(entry["verdict"] - bottom >= 4 for _, _, bottom in labels), entry
    gm.close()
