"""Seats and characters on the web table (PROTOCOL.md §7), in a real headless Chromium
against a real sidecar: the GM's panel makes seats and characters, a player's page sits
down from its link and rolls as its character, every page that may see it follows the
values. Skips like tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers import PLAYER_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat, gm_page, player_page

#: A ruleset with a sheet: two characteristics to pick from (choices naming sheet fields), a
#: map of skills (a free `skill` param picks one of them), a luck counter a push spends.
PLUGIN = textwrap.dedent('''
    """Jetons: a small ruleset whose rolls read a character sheet and spend luck."""
    from sidecar import hookimpl
    from sidecar.model import Outcome

    @hookimpl
    def sidecar_rulesets():
        return [{"name": "jetons", "title": {"fr": "Jetons", "en": "Tokens"}, "version": "0.1",
                 "params": {
            "stat": {"type": "string", "choices": ["force", "agilite"], "default": "force",
                     "label": {"fr": "Caractéristique", "en": "Characteristic"}},
            "skill": {"type": "string", "default": "",
                      "label": {"fr": "Compétence", "en": "Skill"}},
            "dice": {"type": "int", "min": 1, "max": 9, "default": 2,
                     "label": {"fr": "Dés", "en": "Dice"}},
            "push": {"type": "bool", "default": False,
                     "label": {"fr": "Forcer (1 chance)", "en": "Push (1 luck)"}},
        }}]

    @hookimpl
    def sidecar_sheet(ruleset):
        if ruleset != "jetons":
            return None
        return {
            "force": {"type": "int", "min": 1, "max": 5, "default": 2,
                      "label": {"fr": "Force", "en": "Strength"}},
            "agilite": {"type": "int", "min": 1, "max": 5, "default": 2,
                        "label": {"fr": "Agilité", "en": "Agility"}},
            "skills": {"type": "map", "values": "int", "default": {},
                       "label": {"fr": "Compétences", "en": "Skills"}},
            "luck": {"type": "int", "min": 0, "max": 5, "default": 3, "resource": True,
                     "refill": "rest", "label": {"fr": "Chance", "en": "Luck"}},
        }

    @hookimpl
    def sidecar_resolve(roll, dice):
        if roll.ruleset != "jetons":
            return None
        params, sheet = roll.params, roll.sheet
        if sheet is None:
            count = params["dice"]
        else:
            count = sheet[params["stat"]] + sheet["skills"].get(params["skill"], 0)
        faces = dice.roll_many(max(1, min(count, 9)), 6)
        hits = sum(1 for face in faces if face >= 4)
        success = hits >= 1
        return Outcome(result={"success": success, "margin": hits - 1, "hits": hits,
                               "kind": "success" if success else "failure",
                               "label": {"fr": "Touché" if success else "Raté",
                                         "en": "Hit" if success else "Miss"}},
                       spend={"luck": 1} if params["push"] else {})

    @hookimpl
    def sidecar_max_spend(roll, choice):
        # The most a roll may spend, declared before the dice (contract §7, 1.2): a push
        # the sheet cannot pay is refused before any die is drawn.
        if roll.ruleset == "jetons" and choice is None and roll.params["push"]:
            return {"luck": 1}
        return None
''')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "jetons.py").write_text(PLUGIN)
    with LiveServer(plugins_dir=str(plugins), rate_limit=0) as live:
        yield live


# -- what the pages do -----------------------------------------------------------------------

def create_character(gm: TablePage, name: str, owner: str | None, values: dict[str, Any],
                     skills: dict[str, int] | None = None) -> None:
    page = gm.page
    if not page.eval_on_selector("#gm-characters", "n => n.open"):
        page.click("#gm-characters summary")
    page.click("#sheet-new")
    page.select_option("#sheet-ruleset", "jetons")
    page.get_by_label("Nom du personnage").fill(name)
    if owner:
        page.wait_for_selector(f'#sheet-owner option[value="{owner}"]', state="attached")
        page.select_option("#sheet-owner", owner)
    for field, value in values.items():
        page.fill(f"#sheet-{field}", str(value))
    for index, (skill, level) in enumerate((skills or {}).items()):
        page.click("#sheet-skills .map-add")
        row = page.locator("#sheet-skills .map-row").nth(index)
        row.get_by_label("nom").fill(skill)
        row.get_by_label("valeur").fill(str(level))
    page.click("#sheet-form button[type=submit]")
    page.wait_for_selector(f'#sheet-list .sheet-item[data-character="{name}"]')


def shown_value(page: TablePage, field: str) -> str:
    return page.page.get_attribute(f'#character-values .sheet-value[data-field="{field}"]',
                                   "data-value")


def wait_for_value(page: TablePage, field: str, value: Any, where: str = "#character-values"
                   ) -> None:
    page.page.wait_for_selector(
        f'{where} .sheet-value[data-field="{field}"][data-value="{value}"]')


def last_seq(page: TablePage) -> int:
    return page.state("outcomes[window.sidecarTable.outcomes.length - 1].seq")


# -- the tests -------------------------------------------------------------------------------

def test_a_seat_link_joins_rolls_as_its_character_and_both_pages_follow(
        browser: Any, server: LiveServer) -> None:
    table = "crypte"
    gm = gm_page(browser, server.http, table)
    link = add_seat(gm, "Aengus")
    parts = urlsplit(link)
    assert parts.fragment.startswith("token=") and "table=crypte" in parts.query
    # The QR code is the server's SVG, shown by the page (its policy allows data: images).
    qr = gm.page.locator('.seat[data-seat="Aengus"] img.qr')
    assert qr.get_attribute("src").startswith("data:image/svg+xml")
    gm.page.wait_for_function(
        "() => document.querySelector('.seat[data-seat=\"Aengus\"] img.qr').naturalWidth > 0")

    player = TablePage(browser, server.http, link=link, viewport=(390, 844))
    assert player.state("welcome.seat") is True
    # The token is read, then gone from the address bar and from this history entry.
    token = parts.fragment.removeprefix("token=")
    assert token not in player.page.url and "#" not in player.page.url
    assert token not in player.page.evaluate("() => location.href + history.state")
    gm.page.wait_for_selector('.seat[data-seat="Aengus"].online')

    create_character(gm, "Aengus le Brave", "Aengus", {"force": 3, "agilite": 1, "luck": 2},
                     skills={"escalade": 2})
    # The seat's page sees its character at once, and rolls as it.
    player.page.wait_for_selector("#character:not([hidden])")
    assert player.page.input_value("#character-select") == "Aengus le Brave"
    wait_for_value(player, "luck", 2)
    assert player.page.is_disabled("#ruleset")
    assert player.page.input_value("#ruleset") == "jetons"
    assert player.page.locator("#param-dice").count() == 1  # not on the sheet: still asked
    # The skill is picked among the character's, with its level.
    assert player.page.eval_on_selector_all(
        "#param-skill option", "ns => ns.map(n => n.textContent)") == ["—", "escalade (2)"]
    player.page.select_option("#param-skill", "escalade")
    player.page.check("#param-push")
    # One tap on a characteristic of the sheet rolls.
    before = player.state("outcomes.length")
    player.page.click('#quick-rolls button[data-choice="force"]')
    player.page.wait_for_function("n => window.sidecarTable.outcomes.length > n", arg=before)
    seq = last_seq(player)
    outcome = player.state(f"outcomes.find(o => o.seq === {seq})")
    assert outcome["character"] == "Aengus le Brave"
    assert outcome["params"]["stat"] == "force" and outcome["params"]["skill"] == "escalade"
    assert len(outcome["dice"]) == 5  # force 3 + escalade 2, from the sheet
    assert outcome["spent"] == {"luck": 1} and outcome["sheet"]["luck"] == 1
    # Both pages show the spend on the card and the new value.
    for page in (player, gm):
        page.wait_for_entry(seq)
        spent = page.page.locator(f'#log .entry[data-seq="{seq}"] .spent-item[data-field="luck"]')
        assert spent.text_content() == "Chance −1 → 1"
    wait_for_value(player, "luck", 1)
    wait_for_value(gm, "luck", 1, where='#sheet-list .sheet-item[data-character="Aengus le Brave"]')

    # A third page under the seat's name with the shared player token is refused, and told
    # how to get the seat.
    third = player_page(browser, server.http, table, name="Aengus", joined=False)
    third.page.wait_for_selector("#join-error:not([hidden])")
    assert "demandez-le au MJ" in third.page.text_content("#join-error")
    assert third.page.is_hidden("#table")
    for page in (player, gm, third):
        page.close()


def test_a_seats_secret_roll_stays_with_the_seat_and_the_gm(browser: Any,
                                                              server: LiveServer) -> None:
    table = "secrets-de-place"
    gm = gm_page(browser, server.http, table)
    seat = TablePage(browser, server.http, link=add_seat(gm, "Aengus"))
    # Another page with the shared token, under another name.
    other = player_page(browser, server.http, table, name="Brann")
    seat.page.select_option("#ruleset", "jetons")
    seat.fill_params({"dice": 3})
    mine = seat.roll(mode="self")
    for_gm = seat.roll(mode="gm")
    assert gm.entry(for_gm)["mode"] == "gm"
    marker = server.roll(table, "MJ", "jetons", {"dice": 1})["seq"]
    other.wait_for_entry(marker)
    for seq in (mine, for_gm):
        assert other.state(f"outcomes.some(o => o.seq === {seq})") is False
        assert other.entry(seq)["kind"] == "secret"
    assert seat.entry(mine)["mode"] == "self"
    for page in (seat, gm, other):
        page.close()


def test_gm_adjusts_with_a_reason_and_the_player_sees_it(browser: Any,
                                                         server: LiveServer) -> None:
    table = "ajuster"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Brann"))
    create_character(gm, "Brann", "Brann", {"luck": 1})
    wait_for_value(player, "luck", 1)
    gm.page.select_option("#adjust-character", "Brann")
    gm.page.select_option("#adjust-field", "luck")
    gm.page.fill("#adjust-delta", "1")
    gm.page.fill("#adjust-reason", "Bonne idée")
    gm.page.click("#adjust-form button[type=submit]")
    wait_for_value(player, "luck", 2)
    note = player.page.locator('#log .entry-sheet[data-op="adjust"]')
    note.wait_for()
    assert "Bonne idée" in note.text_content() and "Chance 1 → 2" in note.text_content()
    # Past the maximum: `insufficient`, said plainly, nothing changed.
    gm.page.fill("#adjust-delta", "5")
    gm.page.click("#adjust-form button[type=submit]")
    gm.page.wait_for_selector("#adjust-error:not([hidden])")
    assert "« Chance » ne peut dépasser son maximum" in gm.page.text_content("#adjust-error")
    assert shown_value(player, "luck") == "2"
    # A rest refills luck to its default (3) for every character.
    gm.page.select_option("#adjust-character", "")
    gm.page.click("#adjust-rest")
    player.page.wait_for_selector('#log .entry-sheet[data-op="refill"]')
    wait_for_value(player, "luck", 3)
    for page in (player, gm):
        page.close()


def test_not_enough_luck_is_said_plainly_and_nothing_is_rolled(browser: Any,
                                                               server: LiveServer) -> None:
    table = "a-sec"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Cass"))
    create_character(gm, "Cass", "Cass", {"luck": 0})
    wait_for_value(player, "luck", 0)
    player.page.check("#param-push")
    player.page.click("#roll-button")
    player.page.wait_for_selector("#roll-error:not([hidden])")
    message = player.page.text_content("#roll-error")
    assert "Pas assez de « Chance »" in message and "0" in message
    assert player.state("outcomes.length") == 0
    # In English too.
    player.page.click("#lang")
    player.page.wait_for_function("() => window.sidecarTable.client.state === 'open'")
    player.page.click("#roll-button")
    player.page.wait_for_selector("#roll-error:has-text('Not enough “Luck”')")
    for page in (player, gm):
        page.close()


def test_a_blind_roll_as_a_character_shows_no_spend_to_its_roller(browser: Any,
                                                                  server: LiveServer) -> None:
    table = "aveugle-fiche"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Dana"))
    create_character(gm, "Dana", "Dana", {"luck": 2})
    wait_for_value(player, "luck", 2)
    player.page.check("#param-push")
    seq = player.roll(mode="blind")
    assert player.entry(seq)["kind"] == "hidden"
    assert player.page.locator(f'#log .entry[data-seq="{seq}"] .spent').count() == 0
    assert shown_value(player, "luck") == "2"  # the roller learns nothing from the sheet
    gm.wait_for_entry(seq)
    assert gm.page.locator(
        f'#log .entry[data-seq="{seq}"] .spent-item[data-field="luck"]').text_content() \
        == "Chance −1 → 1"
    for page in (player, gm):
        page.close()


def test_a_new_link_closes_the_old_one_and_the_page_says_what_to_do(browser: Any,
                                                                     server: LiveServer) -> None:
    table = "nouveau-lien"
    gm = gm_page(browser, server.http, table)
    old = add_seat(gm, "Eli")
    player = TablePage(browser, server.http, link=old)
    # A reload of the seat's page sits down again (the token is kept for the tab).
    player.page.reload()
    player.page.wait_for_selector("#table:not([hidden])")
    assert player.state("welcome.seat") is True
    gm.page.click('.seat[data-seat="Eli"] button.rotate')
    gm.page.wait_for_function(
        "old => document.querySelector('.seat[data-seat=\"Eli\"] input.seat-link')?.value "
        "!== old", arg=old)
    new = gm.page.input_value('.seat[data-seat="Eli"] input.seat-link')
    player.page.wait_for_selector("#join:not([hidden])")
    assert "demandez au MJ le lien" in player.page.text_content("#join-error")
    again = TablePage(browser, server.http, link=new)
    assert again.state("welcome.seat") is True
    # Removing takes two clicks; the seat's page is closed.
    remove = gm.page.locator('.seat[data-seat="Eli"] button.remove')
    remove.click()
    remove.click()
    gm.page.wait_for_selector('.seat[data-seat="Eli"]', state="detached")
    again.page.wait_for_selector("#join:not([hidden])")
    for page in (gm, player, again):
        page.close()


def test_links_made_in_another_tab_are_not_shown(browser: Any, server: LiveServer) -> None:
    table = "autre-onglet"
    gm = gm_page(browser, server.http, table)
    add_seat(gm, "Finn")
    other_gm = gm_page(browser, server.http, table, name="Nora")
    other_gm.page.click("#gm-seats summary")
    other_gm.page.wait_for_selector('.seat[data-seat="Finn"] .no-link')
    assert other_gm.page.locator('.seat[data-seat="Finn"] input.seat-link').count() == 0
    for page in (gm, other_gm):
        page.close()


def test_seat_panel_fits_a_phone(browser: Any, server: LiveServer) -> None:
    table = "telephone"
    gm = gm_page(browser, server.http, table)
    link = add_seat(gm, "Gwen")
    create_character(gm, "Gwen", "Gwen", {"luck": 3}, skills={"escalade": 1, "nage": 2})
    player = TablePage(browser, server.http, link=link, viewport=(390, 844))
    player.page.wait_for_selector("#character:not([hidden])")
    # The one-tap rolls are on the first screen, above the long form.
    box = player.page.locator("#quick-rolls button").first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    width = player.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    for page in (gm, player):
        page.close()


def test_shared_token_players_have_no_character_panel(browser: Any, server: LiveServer) -> None:
    page = TablePage(browser, server.http, table="sans-place", name="Hugo", role="player",
                     token=PLAYER_TOKEN)
    assert page.page.is_hidden("#character") and page.page.is_hidden("#gm-panel")
    page.close()


def test_gm_edits_then_removes_a_character_and_its_seat_follows(browser: Any,
                                                               server: LiveServer) -> None:
    table = "modifier"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Iris"))
    create_character(gm, "Iris", "Iris", {"force": 2}, skills={"nage": 1})
    wait_for_value(player, "force", 2)
    gm.page.click('#sheet-list .sheet-item[data-character="Iris"] button.edit')
    # The editor holds the character as it is; only the ruleset and name are fixed.
    assert gm.page.is_disabled("#sheet-ruleset")
    assert gm.page.input_value("#sheet-force") == "2"
    assert gm.page.input_value("#sheet-owner") == "Iris"
    assert gm.page.locator("#sheet-skills .map-row .map-key").input_value() == "nage"
    gm.page.fill("#sheet-force", "4")
    gm.page.locator("#sheet-skills .map-row").first.get_by_label("valeur").fill("3")
    gm.page.get_by_label("Raison (pour le journal)").fill("Entraînement")
    gm.page.click("#sheet-form button[type=submit]")
    wait_for_value(player, "force", 4)
    player.page.wait_for_selector(
        '#character-values .sheet-value[data-field="skills"] li[data-key="nage"]:has-text("3")')
    # A value out of the sheet's bounds is refused on its field, nothing changed.
    gm.page.fill("#sheet-force", "9")
    gm.page.click("#sheet-form button[type=submit]")
    gm.page.wait_for_selector('#sheet-fields .param.invalid[data-param="force"]')
    assert shown_value(player, "force") == "4"
    # Removed: gone from the seat's page, which rolls as nobody again.
    remove = gm.page.locator('#sheet-list .sheet-item[data-character="Iris"] button.remove')
    remove.click()
    remove.click()
    player.page.wait_for_selector("#character", state="hidden")
    assert player.state("current") == "" and not player.page.is_disabled("#ruleset")
    for page in (gm, player):
        page.close()


def test_every_control_of_the_new_panels_has_a_name(browser: Any, server: LiveServer) -> None:
    """Labels for screen readers and voice control, on a phone-sized GM page too."""
    table = "etiquettes"
    gm = gm_page(browser, server.http, table)
    gm.page.set_viewport_size({"width": 390, "height": 844})
    add_seat(gm, "Jade")
    create_character(gm, "Jade", "Jade", {"luck": 2}, skills={"nage": 1})
    gm.page.select_option("#character-select", "Jade")
    gm.page.click('#sheet-list .sheet-item[data-character="Jade"] button.edit')
    unnamed = gm.page.evaluate("""() => [...document.querySelectorAll(
        '#character input, #character select, #character button, #gm-panel input, '
        + '#gm-panel select, #gm-panel button, #roller input, #roller select')]
        .filter(n => n.offsetParent !== null && n.type !== 'radio' && n.type !== 'checkbox'
                 && !(n.labels && n.labels.length) && !n.getAttribute('aria-label')
                 && !n.getAttribute('aria-labelledby') && !n.textContent.trim())
        .map(n => n.outerHTML.slice(0, 80))""")
    assert unnamed == []
    width = gm.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the GM's panel scrolls sideways on a phone ({width}px)"
    gm.close()
