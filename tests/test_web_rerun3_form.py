"""The phone page's form and sheet after a newcomer's third replay of the GM's evening
(issue 29, re-run 3), in a real headless Chromium at 390 px against a real sidecar: a roll
as a character offers no « Moi seul » (the server refuses it), an error in the form follows
a language switch, English texts use the English colon, a roll that did nothing to its
target says nothing of it, and a reserve reads at a glance. Skips like
tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import TablePage
from tests.test_web_evening import PHONE, new_outcome, oweens_table, phone_gm

MODE = "() => document.querySelector('input[name=\"mode\"]:checked').value"


def to_english(page: TablePage) -> None:
    """Switch the page to English and wait until it is back at the table."""
    page.page.click("#lang")
    page.page.wait_for_function("""() => document.documentElement.lang === 'en'
        && window.sidecarTable.client?.state === 'open' && !window.sidecarTable.relocalize""")


# -- 1: « Moi seul » is not offered where the server refuses it ----------------------------------

def test_a_roll_as_a_character_offers_no_self_and_falls_back(browser: Any,
                                                             server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "moi-seul")
    page = gm.page
    alone = 'input[name="mode"][value="self"]'
    # Without a character, aimed at nobody: « Moi seul » is a choice.
    assert page.is_enabled(alone)
    page.check(alone)
    # Rolling as Ervald: no longer offered, said in words a phone shows (not a tooltip),
    # and the form falls back to a mode the server takes.
    page.select_option("#character-select", "Ervald")
    page.wait_for_selector(f"{alone}:disabled")
    assert page.evaluate(MODE) == "gm"
    assert page.is_visible("#mode-note")
    assert "personnage" in page.text_content("#mode-note")
    # A quick roll takes the form's mode: accepted.
    before = gm.state("outcomes.length")
    page.locator('#quick-rolls button[data-choice="ECL"]').click()
    outcome = new_outcome(gm, before)
    assert outcome["mode"] == "gm" and outcome["character"] == "Ervald"
    assert page.is_hidden("#roll-error")
    # Back to no character: « Moi seul » again; aimed at a character, not.
    page.select_option("#character-select", "")
    page.wait_for_selector(f"{alone}:enabled")
    assert page.is_hidden("#mode-note")
    page.check(alone)
    page.fill("#roll-target", "Tam")
    page.wait_for_selector(f"{alone}:disabled")
    assert page.evaluate(MODE) == "gm" and page.is_visible("#mode-note")
    # A player rolling as their character never sees it offered.
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    player.page.wait_for_selector("#character:not([hidden])")
    assert player.page.is_disabled(alone)
    assert player.page.is_visible("#mode-note")
    for each in (player, gm):
        each.close()


# -- 2: an error shown in the form, after a language switch ------------------------------------

def test_an_error_in_the_forms_follows_the_language(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "erreur-langue")
    page = gm.page
    page.select_option("#ruleset", "dice")
    page.click("#roll-button")  # no expression typed: refused by the page itself
    page.wait_for_selector("#roll-error:not([hidden])")
    assert page.text_content("#roll-error").startswith("Remplissez")
    page.click("#gm-ask summary")
    page.click("#ask-form button[type=submit]")  # nobody ticked
    page.wait_for_selector("#ask-error:not([hidden])")
    assert page.text_content("#ask-error").startswith("Cochez")
    to_english(gm)
    assert page.text_content("#roll-error").startswith("Fill in"), page.text_content(
        "#roll-error")
    assert page.text_content("#ask-error").startswith("Tick"), page.text_content("#ask-error")
    # A refusal the server wrote (in the language of the join) is not left in French.
    page.click("#lang")
    page.wait_for_function("""() => document.documentElement.lang === 'fr'
        && window.sidecarTable.client?.state === 'open' && !window.sidecarTable.relocalize""")
    page.select_option("#ruleset", "oweens")
    page.click("#roll-button")  # no dice, no character: the server refuses
    page.wait_for_function("""() => !document.getElementById('roll-error').hidden
        && document.getElementById('roll-error').textContent.startsWith('paramètre')""")
    to_english(gm)
    assert page.is_hidden("#roll-error") or "paramètre" not in page.text_content("#roll-error")
    gm.close()


# -- 3: the English colon ------------------------------------------------------------------------

def test_the_english_page_writes_the_english_colon(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "deux-points")
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    french = page.eval_on_selector_all("#param-characteristic option",
                                       "nodes => nodes.map(n => n.textContent)")
    assert "Peps (PEP) : 3" in french, french
    to_english(player)
    page.wait_for_selector("#character:not([hidden])")
    english = page.eval_on_selector_all("#param-characteristic option",
                                        "nodes => nodes.map(n => n.textContent)")
    assert any(text.startswith("Peps (PEP): 3") for text in english), english
    # Nothing of the form or the character panel keeps a French « : ».
    for where in ("#roller", "#character"):
        text = page.evaluate(f"""() => [...document.querySelectorAll('{where} *')]
            .flatMap(n => [...n.childNodes]).filter(n => n.nodeType === 3)
            .map(n => n.textContent).join('|')""")
        assert " : " not in text, (where, text[max(0, text.find(" : ") - 200):][:300])
    for each in (player, gm):
        each.close()


# -- 4: a roll that did nothing to its target --------------------------------------------------

def test_a_roll_that_did_nothing_to_its_target_says_nothing_of_it(browser: Any,
                                                                  server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "sans-effet")
    outcome = server.roll("sans-effet", "MJ", "oweens", {"dice": 2}, targets=["Ervald"])
    assert outcome["targets"] == ["Ervald"] and not any(
        (outcome.get("effects") or {}).values()), outcome
    gm.wait_for_entry(outcome["seq"])
    entry = f'#log .entry[data-seq="{outcome["seq"]}"]'
    assert gm.page.locator(f"{entry} .effects").count() == 0
    assert "sans effet" not in gm.page.text_content(entry)
    gm.close()


# -- 5: a reserve at a glance ------------------------------------------------------------------

def test_a_players_reserve_reads_at_a_glance(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "reserve")
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    page = player.page
    reserve = '#character-values .sheet-value[data-field="reserve_pep"]'
    page.wait_for_selector(reserve)
    # Ervald's PEP is 3: his PEP reserve is full, 3 of 3, no « (0 = pleine) » to decode.
    assert page.text_content(f"{reserve} .field-label") == "Réserve PEP"
    assert page.text_content(f"{reserve} .value") == "3"
    assert page.text_content(f"{reserve} .of") == "/ 3"
    assert page.eval_on_selector(f"{reserve} meter", "n => [n.value, n.max]") == [3, 3]
    # Two points lost: 1 of 3 left.
    gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet",
        op: "adjust", character: "Ervald", delta: {reserve_pep: -2}, reason: "Test"})""")
    page.wait_for_selector(f'{reserve}[data-value="-2"]')
    assert page.text_content(f"{reserve} .value") == "1"
    assert page.eval_on_selector(f"{reserve} meter", "n => [n.value, n.max]") == [1, 3]
    for each in (player, gm):
        each.close()
