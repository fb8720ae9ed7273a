"""The GM's evening on a phone, third pass (issue 29, a newcomer's final replay), in a real
headless Chromium at 390 px against a real sidecar: a situation that fixes the
characteristic picks it in the form, an ask card is not « terminé » while a decision waits,
no « Jets rapides » heading without buttons, quotes around people's words in the page's
language, a GM's roll as a character headed by the character, and the difficulty picker's
names in English on an English page. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, ask, card
from tests.support.plugins import ALWAYS_OPEN
from tests.test_web_evening import PHONE, new_outcome, oweens_table, phone_gm, phone_player
from tests.test_web_phone_asks import dice_server, switch_language

__all__ = ["dice_server"]  # (the fixture, used here too)


# -- item 1: « Se pinter » is an Encaisse roll ---------------------------------------------------

def test_a_situation_that_fixes_the_characteristic_picks_it(browser: Any,
                                                            server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "se-pinter")
    player = phone_player(browser, server, link)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    player.fill_params({"characteristic": "PEP"})
    player.odds_shown()
    page.select_option("#param-situation", "drinking")
    # The form picks ENC itself and says why next to it (no « Corrigez le formulaire »).
    assert page.input_value("#param-characteristic") == "ENC"
    note = page.locator('[data-param="characteristic"] .fixed-by')
    assert "Se pinter" in note.text_content(), note.text_content()
    page.wait_for_function("""() => !document.getElementById('odds').classList.contains('stale')
        && /%/.test(document.getElementById('odds-success').textContent)""")
    assert "corrig" not in page.text_content("#odds").lower()
    # Back to no situation: the note goes, the choice is free again.
    page.select_option("#param-situation", "")
    assert page.locator('[data-param="characteristic"] .fixed-by').count() == 0
    for each in (player, gm):
        each.close()


# -- item 2: an ask whose answer still waits for its decision --------------------------------------

def test_an_ask_card_says_decision_pending_until_decided_then_done(
        browser: Any, dice_server: LiveServer) -> None:
    gm = TablePage(browser, dice_server.http, table="decision-attendue", name="Morgane",
                   role="gm", token=GM_TOKEN, viewport=PHONE)
    player = TablePage(browser, dice_server.http, link=add_seat(gm, "Aengus"), viewport=PHONE)
    ask_id = ask(gm, ["Aengus"], "Crocheter", ALWAYS_OPEN)
    selector = f'#asks .ask-card[data-ask="{ask_id}"]'
    player.page.click(f"{selector} button.ask-roll")
    line = f'{selector} .ask-line[data-seat="Aengus"]'
    gm.page.wait_for_selector(f'{line}[data-state="answered"]')
    ask_card = gm.page.locator(selector)
    assert "décision en attente" in gm.page.text_content(line)
    assert ask_card.get_attribute("data-state") == "open"
    assert "terminé" not in ask_card.locator(".entry-head").text_content().lower()
    # The GM decides: the line says what was decided, the card is done.
    answer = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")
    card(gm, answer["seq"]).locator('button.choice[data-choice="keep"]').click()
    gm.page.wait_for_selector(f'{selector}[data-state="done"]')
    assert "décision en attente" not in gm.page.text_content(line)
    assert "terminé" in ask_card.locator(".entry-head").text_content().lower()
    for each in (player, gm):
        each.close()


# -- item 3: no heading without buttons --------------------------------------------------------

def test_no_quick_rolls_heading_for_a_character_without_skills(browser: Any,
                                                                server: LiveServer) -> None:
    gm = phone_gm(browser, server, "sans-competence")
    gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet", op: "set",
        character: "Td6code", ruleset: "d6code", owner: null, values: {},
        reason: "Création"})""")
    gm.page.wait_for_selector('#sheet-list .sheet-item[data-character="Td6code"]',
                              state="attached")
    gm.page.select_option("#character-select", "Td6code")
    gm.page.wait_for_function("() => window.sidecarTable.current === 'Td6code'")
    quick = gm.page.locator("#quick-rolls")
    shown = quick.evaluate("n => !n.hidden && n.getClientRects().length > 0")
    assert not shown or quick.locator("button").count() > 0, quick.inner_html()
    gm.close()


# -- item 4: quotes in the page's language --------------------------------------------------------

def test_quotes_around_peoples_words_follow_the_language(browser: Any,
                                                         server: LiveServer) -> None:
    gm = phone_gm(browser, server, "crypte")
    switch_language(gm, "en")
    before = gm.state("outcomes.length")
    gm.page.select_option("#ruleset", "ladder")
    gm.fill_params({"level": 3, "difficulty": 5})
    gm.roll(label="Porte A")
    seq = new_outcome(gm, before)["seq"]
    head = card(gm, seq).locator(".entry-head").text_content()
    assert "“Porte A”" in head and "«" not in head, head
    gm.close()


# -- item 5: a GM's roll as a character ----------------------------------------------------------

def test_a_gms_roll_as_a_character_is_headed_by_the_character(browser: Any,
                                                              server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "mj-en-tant-que")
    page = gm.page
    page.select_option("#character-select", "Ervald")
    before = gm.state("outcomes.length")
    gm.fill_params({"characteristic": "PEP", "difficulty": 2})
    gm.roll(label="Forcer la porte")
    seq = new_outcome(gm, before)["seq"]
    head = card(gm, seq).locator(".entry-head")
    assert head.locator(".who").text_content() == "Ervald"
    text = " ".join(head.text_content().split())
    assert "en tant qu" not in text, text
    assert "par Morgane" in text, text
    gm.close()


# -- item 6: the difficulty picker's names in English -------------------------------------------

def test_the_difficulty_picker_names_levels_in_the_pages_language(browser: Any,
                                                                  server: LiveServer) -> None:
    gm = phone_gm(browser, server, "echelle-en")
    switch_language(gm, "en")
    # (The ladder declares `label_names`; d6code does once the CLI's item adds them.)
    gm.page.select_option("#ruleset", "ladder")
    options = gm.page.locator('[data-param="difficulty"] select.labels option').all_text_contents()
    assert any(text.startswith("Easy") for text in options), options
    assert not any(text.startswith("Facile") for text in options), options
    # d6code's difficulty, once it declares its names (the CLI's item), in English too.
    named = gm.page.evaluate("""() => window.sidecarTable.welcome.rulesets
        .find(r => r.name === "d6code").params.difficulty.label_names""")
    if named:
        gm.page.select_option("#ruleset", "d6code")
        options = gm.page.locator('[data-param="difficulty"] select.labels option'
                                  ).all_text_contents()
        assert not any(text.startswith("Moyen") for text in options), options
    gm.close()
