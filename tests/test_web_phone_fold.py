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
#: The same with « Plus d'options » open: 2,702 px before (2,794 px in the replay); 2,522
#: once the fields' helps said which action drains a reserve and the odds became one
#: column on a phone (the third replay's fixes: a line or two of words, not a field).
OWEENS_MORE = 2560
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


#: The GM's ask form at 390 px, « En opposition » ticked, two O'Ween's characters picked:
#: 2,173 px in the newcomer's replay (« Dés » first, though each sheet gives the dice, and
#: every side's fields open), 2,074 px here before; 1,280 px after (a margin for fonts).
OPPOSED_ASK = 1350


def test_an_opposed_ask_of_characters_shows_what_it_needs_and_sends_the_same_params(
        browser: Any, server: LiveServer) -> None:
    from tests.support.browser import open_ask_form
    from tests.test_web_evening import oweens_table, phone_player
    gm, link, _ = oweens_table(browser, server, "demande-pliee")
    player = phone_player(browser, server, link)
    page = gm.page
    open_ask_form(gm)
    for name in ("Ervald", "Tam"):
        page.check(f'#ask-targets input[value="{name}"]')
    page.select_option("#ask-ruleset", "oweens")
    page.check("#ask-opposed")
    page.wait_for_selector('#ask-sides [data-side="Tam"]')
    tall = height(gm, "#ask-form")
    assert tall < OPPOSED_ASK, f"{tall:.0f} px"
    # Characters roll with their sheets' dice: what the ask needs comes first.
    assert page.is_hidden("#askp-dice")
    assert page.is_visible("#askp-characteristic") and page.is_visible("#askp-difficulty")
    # A side's difference, set in its own folded line, then sent.
    page.select_option("#askp-characteristic", "ECL")
    page.fill("#askp-difficulty", "4")
    tam = page.locator('#ask-sides [data-side="Tam"]')
    tam.locator("summary").click()
    tam.locator('[id$="-difficulty"]').fill("2")
    assert "1" in tam.locator("summary").text_content()
    page.fill("#ask-label", "Bras de fer")
    page.click("#ask-form button[type=submit]")
    # The players' page receives it with the params the unfolded form sent.
    player.page.wait_for_function("""() => [...(window.sidecarTable.asks?.values() ?? [])]
        .some(item => item.event.label === 'Bras de fer')""")
    event = player.page.evaluate("""() => [...window.sidecarTable.asks.values()]
        .find(item => item.event.label === 'Bras de fer').event""")
    # (The server fills in the game's defaults: the rest of the params are those.)
    asked = {name: event["params"].get(name) for name in ("characteristic", "difficulty", "dice")}
    assert asked == {"characteristic": "ECL", "difficulty": 4, "dice": None}, event
    sides = {target["character"]: target["params"] for target in event["to"]}
    assert sides["Ervald"] == event["params"], event
    assert sides["Tam"] == {**event["params"], "difficulty": 2}, event
    for each in (player, gm):
        each.close()
