"""The GM's evening on the phone page, as a newcomer's replay from a clean clone found it
(issue 29, re-run 3), in a real headless Chromium at 390 px against a real sidecar: a
language switch changes no value of the form, the ask form is clean after an ask, the
`dice` roller's two « Cible » fields have their own labels, the log's lines say titles
and only what changed, and an ask that arrives while the player reads far down the log
shows its button where the player is. Skips like tests/test_web_table.py without
Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import TablePage
from tests.test_web_evening import (
    PHONE,
    new_outcome,
    open_ask,
    oweens_table,
    phone_gm,
    send_ask,
)

#: What the form's fields hold, by id (a select's value, a box's state, a text's value).
FORM_VALUES = """() => Object.fromEntries([...document.querySelectorAll(
    '#params input, #params select')].filter(n => n.id).map(
    n => [n.id, n.type === 'checkbox' ? n.checked : n.value]))"""


# -- A: the language switch --------------------------------------------------------------------

def test_switching_the_language_changes_no_value_of_the_form(
        browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "langue")
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    page.click("details.more-params summary")
    assert page.input_value("#param-resistance") == ""
    before = page.evaluate(FORM_VALUES)
    assert page.text_content("details.more-params summary") == "Plus d'options"
    page.click("#lang")
    # Back at the table in English (the page rejoins to hear the server in it).
    page.wait_for_function("""() => document.documentElement.lang === 'en'
        && window.sidecarTable.client?.state === 'open' && !window.sidecarTable.relocalize""")
    page.wait_for_selector("#character:not([hidden])")
    assert page.evaluate(FORM_VALUES) == before
    assert page.text_content("details.more-params summary") == "More options"
    # A change of the character's values (a spend) rebuilds its pickers: still nothing set.
    gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet",
        op: "adjust", character: "Ervald", delta: {bonbonus: -1}, reason: "Test"})""")
    page.wait_for_function("""() => window.sidecarTable.characters.get('Ervald')
        ?.values.bonbonus === 4""")
    assert page.evaluate(FORM_VALUES) == before
    assert page.text_content("details.more-params summary") == "More options"
    for each in (player, gm):
        each.close()


# -- B: the ask form after an ask ----------------------------------------------------------------

def test_after_an_opposed_ask_the_ask_form_is_clean(browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "demande-propre")
    page = gm.page
    open_ask(gm, ["Ervald", "Tam"])
    page.select_option("#askp-characteristic", "ECL")  # (an ask no side could answer is refused)
    page.check("#ask-opposed")
    page.select_option("#ask-mode", "gm")
    send_ask(gm, "Bras de fer")
    # Nothing ticked, no way of asking left on: the next ask starts from nothing.
    assert page.eval_on_selector_all("#ask-targets input:checked", "n => n.length") == 0
    assert not page.is_checked("#ask-opposed")
    assert not page.is_checked("#ask-cooperative")
    assert page.input_value("#ask-mode") == "public"
    assert page.is_hidden("#ask-sides")
    # The newcomer's next ask: one more person ticked, a plain roll of hers alone.
    open_ask(gm, ["Brann"])
    page.select_option("#askp-characteristic", "FLA")
    ask = send_ask(gm, "Écouter")
    assert [target["seat"] for target in ask["to"]] == ["Brann"], ask["to"]
    assert not ask.get("opposed"), ask
    gm.close()


# -- C: the `dice` roller's two « Cible » ------------------------------------------------------

def test_the_dice_rollers_target_fields_have_their_own_labels(
        browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "deux-cibles")
    page = gm.page
    page.select_option("#ruleset", "dice")
    page.wait_for_selector("#roll-target", state="visible")  # characters to aim at
    page.wait_for_selector("#param-target")
    for lang in ("fr", "en"):
        if page.evaluate("() => document.documentElement.lang") != lang:
            page.click("#lang")
            page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
        picker = page.text_content("#roll-target-line span").strip()
        number = page.text_content('#params .param[data-param="target"] label').strip()
        assert picker and number and picker.rstrip(" *") != number.rstrip(" *"), (lang, picker,
                                                                                  number)
        # The labels a person reads to find each field.
        assert page.get_by_label(picker, exact=True).count() == 1, picker
        assert page.get_by_label(number, exact=True).count() == 1, number
    gm.close()


# -- D: the log's lines ------------------------------------------------------------------------

def test_log_lines_say_titles_and_only_what_changed(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "lignes")
    page = gm.page
    # As the panel's form sends a new Bloodlust character: its dice pools empty.
    page.evaluate("""() => window.sidecarTable.client.request({type: "sheet", op: "set",
        character: "Oona", ruleset: "bloodlust", owner: null,
        values: {groupements: {}, volonte: 3}, reason: "Création"})""")
    line = page.locator('#log .entry-sheet[data-kind="sheet"]').first
    line.wait_for()
    text = line.text_content()
    assert "Oona" in text
    assert "— → —" not in text, text
    # Each field named has a value or changed.
    for change in line.locator(".change").all_text_contents():
        assert not change.endswith("—"), change
    outcome = server.roll("lignes", "MJ", "oweens", {"dice": 2},
                          options={"combat": {}})
    assert "combat" in outcome["applied"]
    applied = gm.entry(outcome["seq"])["text"]
    assert "Combat (O'Ween's)" in applied, applied
    assert "Extensions : combat" not in applied, applied
    gm.close()


def test_an_epochs_line_keeps_its_number_apart(browser: Any) -> None:
    with LiveServer(rate_limit=0, dice="provable") as provable:
        gm = phone_gm(browser, provable, "epoque")
        provable.roll("epoque", "MJ", "dice", {"expr": "2d6"})
        gm.page.click("#epoch-end")
        # The reveal's line (the commitment's, « Dés engagés », may be in the log too: the
        # epoch opened before the roll, and the new one after the reveal).
        line = gm.page.locator('#log .entry-epoch', has_text="révélée")
        line.locator(".seq").wait_for()
        gap = gm.page.evaluate("""() => {
            const line = [...document.querySelectorAll('#log .entry-epoch')]
                .find(each => each.textContent.includes('révélée'));
            const seq = line.querySelector('.seq').getBoundingClientRect();
            const rects = line.querySelector('.note-text').getClientRects();
            const text = rects[rects.length - 1];
            return seq.top >= text.bottom - 1 ? null : seq.left - text.right;}""")
        # Side by side, a space apart (on another line is apart too).
        assert gap is None or gap >= 4, (gap, line.text_content())
        # One event, not « 1 événements ».
        assert "(1 événement)" in line.text_content(), line.text_content()
        gm.close()


# -- E: an ask that arrives while the player reads far down --------------------------------------

def test_an_ask_shows_its_button_where_the_player_reads(browser: Any,
                                                        server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "loin-dans-le-journal")
    for number in range(40):
        server.roll("loin-dans-le-journal", "MJ", "dice", {"expr": "2d6"},
                    label=f"Jet {number}")
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    page.wait_for_function("() => document.querySelectorAll('#log .entry').length > 30")
    page.evaluate("() => window.scrollTo(0, 4000)")
    page.wait_for_function("() => window.scrollY === 4000")
    # The line the player is reading, and where it stands on the screen.
    reading = page.evaluate("""() => {
        const line = [...document.querySelectorAll('#log .entry')].find(n => {
            const box = n.getBoundingClientRect();
            return box.top > 100 && box.bottom < innerHeight - 200;});
        return {seq: line.dataset.seq, top: line.getBoundingClientRect().top};}""")
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Ervald"], ruleset: "oweens", label: "Escalade",
        params: {characteristic: "ECL", difficulty: 4}, mode: "public", options: {}})
        .then(reply => reply.ask)""")
    page.wait_for_selector(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    # A button « Lancer : Escalade » in view, on the screen the player reads.
    page.wait_for_function("""() => [...document.querySelectorAll('button')].some(b => {
        const box = b.getBoundingClientRect();
        return b.textContent.startsWith('Lancer') && b.offsetParent !== null
            && box.top >= 0 && box.bottom <= innerHeight && box.height > 0;})""")
    # What the player was reading has not moved (by more than a few pixels: a line above may
    # change its height by a fraction of a line as it settles; without the fix, 493 px).
    now = page.evaluate(f"""() => document.querySelector(
        '#log .entry[data-seq="{reading["seq"]}"]').getBoundingClientRect().top""")
    assert abs(now - reading["top"]) <= 20, (reading, now)
    before = player.state("outcomes.length")
    page.locator("#ask-notice button").click()
    answer = new_outcome(player, before)
    assert answer["answers"] == ask_id
    page.wait_for_selector("#ask-notice", state="hidden")
    for each in (player, gm):
        each.close()
