"""The GM's ask form and the ask cards on a phone (issue 29, the GM's evening at 390 px), in
a real headless Chromium against a real sidecar: the people an ask goes to flow several to a
line (short names, each still a thumb's target), and an ask card's refusal follows the
language switch. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, ask, gm_page
from tests.test_web_evening import PHONE, oweens_table

#: The four targets' box (two seats, their two characters) at 390 px: 233 px before, one
#: line each (each chip carried its hint, « personnage d'Aengus », as wide as the form);
#: two lines of 44 px chips, the hint under the name, after (94 px; a margin for fonts).
FOUR_TARGETS = 110
#: A touch target's least height (the chips are 2.75 rem: 44 px).
THUMB = 40


def chip_boxes(page: TablePage) -> list[dict[str, float]]:
    return page.page.eval_on_selector_all("#ask-targets label", """labels => labels.map(
        n => { const r = n.getBoundingClientRect();
               return {top: Math.round(r.top), height: r.height, width: r.width}; })""")


def test_the_ask_forms_targets_flow_several_to_a_line(browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "puces")
    page = gm.page
    page.click("#gm-ask summary")
    page.wait_for_function("document.querySelectorAll('#ask-targets label').length === 4")
    boxes = chip_boxes(gm)
    height = page.eval_on_selector("#ask-targets", "n => n.getBoundingClientRect().height")
    assert height <= FOUR_TARGETS, f"{height:.0f} px: {boxes}"
    assert len({box["top"] for box in boxes}) <= 2, boxes
    assert all(box["height"] >= THUMB for box in boxes), boxes
    # Still saying who each is (a seat, whose character), and each box ticks by its name.
    text = page.text_content("#ask-targets")
    assert "Ervald" in text and "Aengus" in text, text
    page.click('#ask-targets label:has(input[value="Ervald"])')
    assert page.is_checked('#ask-targets input[value="Ervald"]')
    # Nothing wider than the phone: no sideways scroll.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    gm.close()


@pytest.fixture(scope="module")
def dice_server(luck_plugins: Path) -> Iterator[LiveServer]:
    """A table where players throw their own dice (an answer's faces can be refused)."""
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0, allow_player_dice=True) as live:
        yield live


def switch_language(player: TablePage, lang: str) -> None:
    """Click the switch; back once the page has rejoined in `lang`."""
    player.page.click("#lang")
    player.page.wait_for_function("""lang => document.documentElement.lang === lang
        && window.sidecarTable.client?.state === 'open' && !window.sidecarTable.relocalize""",
                                  arg=lang)


def test_an_ask_cards_refusal_follows_the_language_switch(browser: Any,
                                                          dice_server: LiveServer) -> None:
    gm = gm_page(browser, dice_server.http, "refus-bilingue")
    player = TablePage(browser, dice_server.http, link=add_seat(gm, "Aengus"), viewport=PHONE)
    ask_id = ask(gm, ["Aengus"], "Perception", {"target": 4, "skill": 0})
    card = f'#asks .ask-card[data-ask="{ask_id}"]'
    page = player.page
    field = page.locator(f"{card} input.ask-dice")
    field.wait_for()
    # A 9 on a d6: the server refuses it, in French (the page's language).
    field.fill("9")
    page.click(f"{card} button.ask-roll")
    page.wait_for_selector(f"{card} .error")
    french = page.text_content(f"{card} .error")
    switch_language(player, "en")
    english = page.text_content(f"{card} .error")
    assert english != french, english
    assert "face" in english.lower() and "dé" not in english.lower(), (french, english)
    # The page's own words (not numbers typed) follow the way back too.
    field = page.locator(f"{card} input.ask-dice")
    field.fill("six")
    page.click(f"{card} button.ask-roll")
    page.wait_for_function("""sel => document.querySelector(sel)?.textContent
        .startsWith('Physical dice')""", arg=f"{card} .error")
    switch_language(player, "fr")
    assert page.text_content(f"{card} .error").startswith("Dés physiques"), \
        page.text_content(f"{card} .error")
    assert page.get_attribute(f"{card} input.ask-dice", "aria-invalid") == "true"
    for each in (player, gm):
        each.close()


def answered_ask(browser: Any, server: LiveServer,
                 table: str) -> tuple[TablePage, TablePage, str, str]:
    """A GM's phone page asks its seat Aengus for a Perception roll, which Aengus answers
    from his phone with a 6: the pages, the ask's id and the selector of his line on the
    GM's card, once it says answered."""
    gm = TablePage(browser, server.http, table=table, name="Morgane", role="gm",
                   token=GM_TOKEN, viewport=PHONE)
    player = TablePage(browser, server.http, link=add_seat(gm, "Aengus"), viewport=PHONE)
    ask_id = ask(gm, ["Aengus"], "Perception", {"target": 4, "skill": 0})
    card = f'#asks .ask-card[data-ask="{ask_id}"]'
    player.page.locator(f"{card} input.ask-dice").fill("6")
    player.page.click(f"{card} button.ask-roll")
    line = f'{card} .ask-line[data-seat="Aengus"]'
    gm.page.wait_for_selector(f'{line}[data-state="answered"]')
    return gm, player, ask_id, line


def test_the_gms_card_says_each_answer_once(browser: Any, dice_server: LiveServer) -> None:
    """The card names who answered and the ask's label: an answer's line gives its result
    without the text's heading again (« Aengus — Bourde — Léa — Escalader le mur : …
    Bourde ! » in the screenshots before), its verdict once."""
    gm, player, ask_id, line = answered_ask(browser, dice_server, "carte-nette")
    text = gm.page.text_content(line)
    answer = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")
    assert answer["text"].startswith("Aengus — Perception"), answer["text"]  # (what it was)
    assert text.count("Aengus") == 1 and "Perception" not in text, text
    verdict = answer["result"]["label"]["fr"]
    assert text.count(verdict) == 1, (text, verdict)
    for each in (player, gm):
        each.close()


def test_a_new_characters_log_line_gives_its_values(browser: Any, server: LiveServer) -> None:
    """A character made by the GM: its log line says « Peps (PEP) 2 », not « — → 2 » (a
    change from nothing, as the screenshots showed it)."""
    gm, _, _ = oweens_table(browser, server, "nouveau-perso")
    line = gm.page.locator('#log .entry-sheet:has(.target:text-is("Ervald"))').first
    line.wait_for()
    changes = line.locator(".change").all_text_contents()
    assert changes and not [change for change in changes if "—" in change or "→" in change], \
        changes
    assert "Peps (PEP) 3" in changes, changes
    # A reserve as the panel shows it (what is left of the score), not its gap to it
    # (« Réserve ECL (0 = pleine) -1 », the panel saying « Réserve ECL 2 / 3 »).
    assert "Réserve PEP 3 / 3" in changes, changes
    spent = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet",
        op: "adjust", character: "Ervald", delta: {reserve_pep: -1}, reason: "Test"})""")
    gm.wait_for_entry(spent["seq"])
    assert gm.page.locator(f'#log .entry[data-seq="{spent["seq"]}"] .change') \
        .all_text_contents() == ["Réserve PEP 3 → 2 / 3"]
    gm.close()


def test_the_gms_card_answers_follow_the_language_switch(browser: Any,
                                                         dice_server: LiveServer) -> None:
    """An answer on the GM's card is the server's text in the join's language: switching FR
    → EN left « … 2D contre 3 : 1 réussite, ME 2 » in French on the card (the log's lines
    were in English). The card says it in the new language, as the log does."""
    gm, player, ask_id, line = answered_ask(browser, dice_server, "carte-bilingue")
    french = gm.page.text_content(line)
    french_text = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")["text"]
    switch_language(gm, "en")
    # The log's line in English (its history page in): the cards are drawn with it.
    gm.page.wait_for_function("""([id, before]) => window.sidecarTable.outcomes
        .find(o => o.answers === id)?.text !== before""", arg=[ask_id, french_text])
    english_text = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")["text"]
    english = gm.page.text_content(line)
    # (« Aengus — Success — Réussite » before: the verdict in English, the text in French)
    said = english_text.split(":", 1)[-1].strip(), french_text.split(":", 1)[-1].strip()
    assert said[0] in english and said[1] not in english, (french, english, english_text)
    switch_language(gm, "fr")
    gm.page.wait_for_function("""([id, before]) => window.sidecarTable.outcomes
        .find(o => o.answers === id)?.text === before""", arg=[ask_id, french_text])
    assert gm.page.text_content(line) == french
    for each in (player, gm):
        each.close()


def test_an_answer_from_the_card_comes_into_view(browser: Any, dice_server: LiveServer) -> None:
    """Issue 29 item 11: on a phone the ask card is at the top and the log far below it
    (~1,900 px in the newcomer's replay); answering from the card made the card vanish and
    showed nothing. The answer's line of the log is brought into the viewport."""
    gm, player, ask_id, _ = answered_ask(browser, dice_server, "reponse-visible")
    page = player.page
    entry = f'#log .entry[data-answers="{ask_id}"]'
    page.wait_for_selector(entry)
    # Answered from the top of the page: the log starts below the first screen.
    assert page.evaluate("document.getElementById('log').getBoundingClientRect().top"
                         " + window.scrollY") > PHONE[1] / 2
    page.wait_for_function("""sel => { const r = document.querySelector(sel)
        .getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }""",
                           arg=entry, timeout=5000)
    for each in (player, gm):
        each.close()
