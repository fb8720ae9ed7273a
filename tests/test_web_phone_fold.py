"""The roll form on a phone (issue 29, item 4, the newcomer's second evening), in a real
headless Chromium at 390 px against a real sidecar: every built-in game shows what a roll
needs and folds the rest behind « plus d'options » (the ``more`` mark of its params), the
extensions' options are folded, an extension is listed once and only for the game it
applies to, a field's help does not repeat its label, and the odds say neutrally what to
fill in before anything is typed. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat
from tests.test_web_evening import new_character

PHONE = (390, 844)

#: The O'Ween's roll form of a player rolling as a character, nothing unfolded: 1,329 px
#: before (the extensions' options open, Bloodlust's extension listed, helps repeating
#: their labels), 1,457 px in the newcomer's replay.
OWEENS_FOLDED = 1150
#: The same with « Plus d'options » open: 2,702 px before (2,794 px in the replay).
OWEENS_MORE = 2500
#: The GM's form, no character, nothing unfolded, before: d6code 2,270 px (12 fields),
#: the ladder 1,902, Seuil 1,847, Bloodlust 1,520.
FOLDED = {"d6code": 1300, "ladder": 1350, "seuil": 1250, "bloodlust": 1350}


def height(page: TablePage, selector: str = "#roll-form") -> float:
    return page.page.eval_on_selector(selector, "n => n.getBoundingClientRect().height")


def helps_repeating_labels(page: TablePage) -> list[str]:
    """The fields shown in the roll form whose help restates the field's label: the label,
    then « : » or « ( » (« Difficulté (0 à 20…) »), or a longer name then « : »."""
    return page.page.evaluate(r"""() => [...document.querySelectorAll('#roll-form .param')]
        .filter(field => field.checkVisibility())
        .map(field => [field.querySelector('.param-name')?.textContent.replace(/\s*\*$/, '')
                           .trim(), field.querySelector('.help')?.textContent.trim()])
        .filter(([label, help]) => label && help && new RegExp(
            '^' + label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(\\s*[:(]|[^:;,.()]*\\s:)',
            'i').test(help))
        .map(([label, help]) => label + ' → ' + help)""")


def test_the_oweens_form_of_a_player_folds_what_a_roll_rarely_needs(
        browser: Any, server: LiveServer) -> None:
    gm = TablePage(browser, server.http, table="pliage", name="Morgane", role="gm",
                   token=GM_TOKEN, viewport=PHONE)
    link = add_seat(gm, "Aengus")
    new_character(gm, "Ervald", "Aengus", pep=3, ecl=3, enc=2, fla=2, bonbonus=5)
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    page = player.page
    page.wait_for_selector("#character:not([hidden])")
    page.wait_for_selector("#option-sets .option-set", state="attached")
    # The extensions' options are there, folded.
    assert page.eval_on_selector("#ext-options", "n => !n.hidden && !n.open")
    folded = height(player)
    assert folded < OWEENS_FOLDED, f"{folded:.0f} px"
    # Combat is described once (its fieldset), and Bloodlust's extension not at all.
    form = page.text_content("#roll-form")
    assert form.count("Attaque au contact ou à distance") == 1, form
    assert "Échec critique blanc" not in form, form
    assert helps_repeating_labels(player) == []
    page.click("#params details.more-params summary")
    unfolded = height(player)
    assert unfolded < OWEENS_MORE, f"{unfolded:.0f} px"
    assert helps_repeating_labels(player) == []
    for each in (player, gm):
        each.close()


def test_the_other_games_fold_too_and_their_odds_say_what_to_fill_in(
        browser: Any, server: LiveServer) -> None:
    gm = TablePage(browser, server.http, table="pliages", name="Morgane", role="gm",
                   token=GM_TOKEN, viewport=PHONE)
    page = gm.page
    for ruleset, bound in FOLDED.items():
        page.select_option("#ruleset", ruleset)
        page.wait_for_selector("#params details.more-params")
        folded = height(gm)
        assert folded < bound, f"{ruleset}: {folded:.0f} px"
        assert helps_repeating_labels(gm) == [], ruleset
    # What a d6code roll needs is at hand; the rest is folded.
    page.select_option("#ruleset", "d6code")
    for shown in ("code", "skill", "modifier", "difficulty"):
        assert page.is_visible(f"#param-{shown}"), shown
    for folded_param in ("style", "combo", "surcompetence", "opponent"):
        assert page.is_hidden(f"#param-{folded_param}"), folded_param
    # Before anything is typed, the odds say what to fill in — not that something is wrong.
    page.wait_for_function("""() => document.querySelector('#odds-note').textContent
        .includes('Code de compétence')""")
    note = page.text_content("#odds-note")
    assert "obligatoire" not in note and "paramètre" not in note, note
    assert note.startswith("Pour voir les chances"), note
    assert page.locator("#roll-form .invalid, #roll-form [aria-invalid=true]").count() == 0
    # Typed, the odds come.
    gm.fill_params({"code": "3D+1", "difficulty": 10})
    page.wait_for_selector("#odds:not(.stale) .bar")
    gm.close()
