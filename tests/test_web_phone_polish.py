"""The GM's evening on a phone, polish (issue 29), in a real headless Chromium at 390 px
against a real sidecar: a reserve's spend line as what is left (« Réserve ENC −1 → 2 / 3 »),
the adjust form's « Valeur » select that fits, the difficulty picker's names in English in
English, the odds' rows one aligned list, and a secret roll said « jet secret » where the
page can know it is one. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import TablePage
from tests.test_web_evening import PHONE, new_character, oweens_table, phone_gm, phone_player
from tests.test_web_phone_asks import switch_language

#: The text of each option of a select that does not fit its box (less its padding).
OVERFLOWING = """select => {
    const style = getComputedStyle(select);
    const room = select.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return [...select.options].filter(o => context.measureText(o.text).width > room)
        .map(o => o.text); }"""


def roll(page: TablePage, **request: Any) -> int:
    """A roll sent as the page's client sends one; its seq."""
    return page.page.evaluate("""request => window.sidecarTable.client.roll({options: {},
        mode: "public", label: "", ...request}).then(outcome => outcome.seq)""", request)


# -- 1a: a reserve's spend line ---------------------------------------------------------------

def test_a_reserves_spend_line_says_what_is_left(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "depense-reserve")
    new_character(gm, "Ervald", None, pep=3, ecl=3, enc=3, fla=2, bonbonus=1)
    # ENC 3 against 2, [4, 2, 1]: one success, ME 1, a lost contest: one point of ENC lost.
    seq = roll(gm, ruleset="oweens", character="Ervald", dice=[4, 2, 1],
               params={"characteristic": "ENC", "difficulty": 2, "contest": True})
    gm.wait_for_entry(seq)
    item = gm.page.locator(f'#log .entry[data-seq="{seq}"] .spent-item[data-field="reserve_enc"]')
    # (« Réserve ENC −1 → -1 » before: the gap after the arrow.)
    assert item.text_content() == "Réserve ENC −1 → 2 / 3", item.text_content()
    gm.close()


# -- 1c: the adjust form's « Valeur » fits --------------------------------------------------------

def test_the_adjust_forms_field_select_fits_a_phone(browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "valeur-etroite")
    page = gm.page
    page.click("#gm-characters summary")
    page.select_option("#adjust-character", "Ervald")
    assert "Réserve PEP (3 / 3)" in page.eval_on_selector(
        "#adjust-field", "s => [...s.options].map(o => o.text)")
    assert page.eval_on_selector("#adjust-field", OVERFLOWING) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    gm.close()


# -- 2: the difficulty picker in English -----------------------------------------------------------

def test_the_difficulty_picker_names_its_levels_in_the_pages_language(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "difficultes")
    page = gm.page
    for ruleset, field, french, english, value in (
            ("ladder", "difficulty", "Pas évident (7)", "Not obvious (7)", "7"),
            ("seuil", "threshold", "Moyen (22)", "Average (22)", "22")):
        for lang, name in (("fr", french), ("en", english)):
            if lang != page.evaluate("document.documentElement.lang"):
                switch_language(gm, lang)
            page.select_option("#ruleset", ruleset)
            picker = page.locator(f"#param-{field} ~ select.labels, "
                                  f"#param-{field} + select.labels").first
            picker.wait_for(state="attached")
            texts = picker.evaluate("s => [...s.options].map(o => [o.text, o.value])")
            assert [name, value] in texts, texts
            # The number is what the form sends, whatever the name read.
            picker.select_option(value)
            assert page.input_value(f"#param-{field}") == value
    gm.close()


# -- 3: the odds, one aligned list -----------------------------------------------------------------

def test_the_odds_rows_are_one_aligned_list_on_a_phone(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "chances-alignees")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 5, "difficulty": 4})
    gm.odds_shown()
    rows = gm.page.eval_on_selector_all("#odds-bars .bar", """bars => bars.map(bar => {
        const label = bar.querySelector('.bar-label'), value = bar.querySelector('.bar-value');
        const lines = label.getBoundingClientRect().height
            / parseFloat(getComputedStyle(label).lineHeight || '16');
        return {kind: bar.dataset.kind, text: label.textContent,
                lines: label.getClientRects().length === 1 && lines < 1.5 ? 1 : 2,
                right: Math.round(value.getBoundingClientRect().right),
                left: Math.round(bar.querySelector('.swatch').getBoundingClientRect().left)};
    })""")
    assert len(rows) == 5, rows
    assert all(row["lines"] == 1 for row in rows), rows  # « Échec critique » on one line
    assert len({row["right"] for row in rows}) == 1, rows  # every figure in one column
    failures = [row["left"] for row in rows if row["kind"] in ("botch", "failure")]
    assert len(set(failures)) == 1, rows
    # O'Ween's rows say its own words (`kind_labels`), as its roll's badge does.
    words = {row["kind"]: row["text"] for row in rows}
    assert words["botch"] == "Bourde" and words["critical"] == "Coup d'éclat", rows
    gm.page.select_option("#ruleset", "bloodlust")
    gm.fill_params({"pool": 3})
    gm.page.wait_for_function("""() => document.querySelector(
        '#odds-bars .bar[data-kind=botch] .bar-label')?.textContent === 'Échec critique'""")
    gm.close()


# -- 4: a secret roll said so ----------------------------------------------------------------------

def test_a_secret_roll_in_a_players_log_is_said_to_be_one(browser: Any,
                                                         server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "jet-secret")
    player = phone_player(browser, server, link)
    params = {"dice": 2, "difficulty": 3}
    hidden = roll(gm, ruleset="oweens", params=params, mode="blind")
    shown = roll(gm, ruleset="oweens", params=params)
    # Live (the gap learnt from a one-event history page), then after a reload (the
    # history the page opens with).
    reloaded = TablePage(browser, server.http, link=link, viewport=PHONE)
    for page in (player, reloaded):
        page.wait_for_entry(shown)
        line = page.page.locator(f'#log .entry[data-seq="{hidden}"]')
        page.page.wait_for_function("""seq => document.querySelector(
            `#log .entry[data-seq="${seq}"] .secret-note`)?.textContent === 'jet secret'""",
                                    arg=hidden)
        assert line.get_attribute("data-kind") == "secret"
    # The GM's notes stay what they are (the table prepared), never « jet secret ».
    assert player.page.text_content("#log .entry-prep .secret-note") == "le MJ prépare la table"
    for each in (gm, player, reloaded):
        each.close()
