"""Open rolls and asked rolls on the web table (PROTOCOL.md §7.4–7.6), in a real headless
Chromium against a real sidecar: an open roll's choices are buttons on its card for the
roller and the GM (a blind roll's roller is not even told it is open), the decision
replaces them; the GM asks a seat for a roll, the player answers from the card, the GM's
card shows the answer; sessions in the log. Skips like tests/test_web_table.py without
Chromium or Playwright.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import (
    TablePage,
    add_seat,
    ask,
    card,
    gm_page,
    open_ask_form,
    player_page,
    roll_open,
)


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0) as live:
        yield live


# -- open rolls ------------------------------------------------------------------------------

def test_an_open_roll_is_decided_from_a_button_and_both_cards_say_so(
        browser: Any, server: LiveServer) -> None:
    table = "ouverte"
    gm = gm_page(browser, server.http, table)
    player = player_page(browser, server.http, table, viewport=(390, 844))
    seq = roll_open(player)
    for page in (player, gm):
        buttons = card(page, seq).locator(".choices-open button.choice")
        buttons.first.wait_for()
        assert buttons.all_text_contents() == ["Relancer", "Garder (par défaut)"]
        default = card(page, seq).locator("button.choice.default")
        assert default.get_attribute("data-choice") == "keep"
        assert "reste" in card(page, seq).locator(".expires").text_content()
    # The player decides from the keyboard: the decision is drawn on the card, the buttons go.
    keep = card(player, seq).locator('button.choice[data-choice="keep"]')
    keep.focus()
    keep.press("Enter")
    for page in (player, gm):
        page.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
        assert card(page, seq).locator("button.choice").count() == 0
        assert card(page, seq).locator(".decided").text_content() == "Décidé : Garder — par Aengus"
        decision = page.state(f"outcomes.find(o => o.reacts_to === {seq})")
        assert decision["choice"] == "keep" and decision["reacted_by"]["name"] == "Aengus"
        assert card(page, decision["seq"]).locator(".decided").text_content() \
            == "Décidé : Garder — par Aengus"
    # Another player's open roll: the GM decides it, the roller's card says by whom.
    other = player_page(browser, server.http, table, name="Brann")
    second = roll_open(other)
    gm.wait_for_entry(second)
    card(gm, second).locator('button.choice[data-choice="keep"]').click()
    other.page.wait_for_selector(f'#log .entry[data-seq="{second}"] .decided')
    assert "par Morgane" in card(other, second).locator(".decided").text_content()
    for page in (player, gm, other):
        page.close()


def test_the_gm_decides_with_physical_dice_asked_for_the_choice(
        browser: Any, server: LiveServer) -> None:
    table = "ouverte-physique"
    gm = gm_page(browser, server.http, table)
    player = player_page(browser, server.http, table)
    seq = roll_open(player)
    gm.wait_for_entry(seq)
    card(gm, seq).locator('button.choice[data-choice="reroll"]').click()
    # The reroll draws one die: the GM's page (physical dice on) asks for its face.
    faces = card(gm, seq).locator("input.faces")
    faces.wait_for()
    assert faces.evaluate("n => document.activeElement === n")
    faces.fill("6 6")  # one too many: bad_dice, said plainly, the roll stays open
    faces.press("Enter")
    gm.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decide-error')
    assert card(gm, seq).locator("button.choice").count() == 2
    card(gm, seq).locator("input.faces").fill("6")
    card(gm, seq).locator("input.faces").press("Enter")
    player.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    decision = player.state(f"outcomes.find(o => o.reacts_to === {seq})")
    assert decision["choice"] == "reroll" and decision["dice"][-1]["face"] == 6
    assert "Relancer — par Morgane" in card(player, seq).locator(".decided").text_content()
    for page in (player, gm):
        page.close()


def test_a_blind_rolls_roller_is_told_nothing_of_its_decision(browser: Any,
                                                             server: LiveServer) -> None:
    table = "ouverte-aveugle"
    gm = gm_page(browser, server.http, table)
    player = player_page(browser, server.http, table)
    seq = roll_open(player, mode="blind")
    gm.wait_for_entry(seq)
    # Neither buttons nor « en attente »: whether it is open would tell how it went.
    nothing = "button, .awaiting, .decided"
    assert card(player, seq).locator(nothing).count() == 0
    card(gm, seq).locator('button.choice[data-choice="keep"]').click()
    gm.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
    assert card(gm, seq).locator(".decided").text_content() == "Décidé : Garder — par Morgane"
    later = roll_open(gm)  # once the player has it, she has all that came before
    player.wait_for_entry(later)
    assert card(player, seq).locator(nothing).count() == 0
    assert player.state(f"outcomes.filter(o => o.reacts_to === {seq}).length") == 0
    for page in (player, gm):
        page.close()


def test_time_running_out_is_said_on_the_card(browser: Any, luck_plugins: Path) -> None:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0, react_timeout=0.5) as live:
        player = player_page(browser, live.http, "minuteur")
        seq = roll_open(player)
        player.page.wait_for_selector(f'#log .entry[data-seq="{seq}"] .decided')
        assert card(player, seq).locator(".decided").text_content() == "Temps écoulé : Garder"
        assert card(player, seq).locator("button.choice").count() == 0
        player.close()


def test_a_decision_the_sheet_cannot_pay_is_refused_plainly(browser: Any,
                                                             server: LiveServer) -> None:
    table = "sans-chance"
    gm = gm_page(browser, server.http, table)
    gm.page.evaluate("""() => window.sidecarTable.client.setSheet(
        {character: "Nyx", ruleset: "luck", values: {luck: 0, skill: 0}})""")
    gm.page.wait_for_selector('#character-select option[value="Nyx"]', state="attached")
    gm.page.select_option("#character-select", "Nyx")
    gm.page.wait_for_selector("#roll-as:not([hidden])")
    gm.fill_params({"target": 7, "cost": 0, "second_chance": True})
    seq = gm.roll()
    # The reroll costs a luck point Nyx does not have: said plainly, the roll stays open.
    card(gm, seq).locator('button.choice[data-choice="reroll"]').click()
    faces = card(gm, seq).locator("input.faces")  # physical dice on: empty, the server rolls
    faces.wait_for()
    faces.press("Enter")
    error = card(gm, seq).locator(".decide-error")
    error.wait_for()
    assert error.text_content() == "Pas assez de « Chance » : il y en a 0, il en faut 1."
    assert card(gm, seq).locator("button.choice").count() == 2
    gm.close()


# -- asked rolls -----------------------------------------------------------------------------

def test_the_gm_asks_a_roll_the_player_answers_from_the_card(browser: Any,
                                                           server: LiveServer) -> None:
    table = "demande"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Aengus"), viewport=(390, 844))
    ask_id = ask(gm, ["Aengus"], "Perception", {"target": 1})
    line = gm.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-line[data-seat="Aengus"]')
    assert line.get_attribute("data-state") == "waiting"
    assert "en attente" in line.text_content()
    # The player's page gets the card; a reload (a new join) restores it from the welcome.
    button = player.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    button.wait_for()
    player.page.reload()
    button.wait_for()
    assert button.text_content() == "Lancer : Perception"
    button.click()
    gm.page.wait_for_selector(
        f'#asks .ask-card[data-ask="{ask_id}"][data-state="done"] .ask-line[data-state="answered"]')
    assert "Réussite" in line.text_content()  # target 1: always
    answer = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")
    assert answer["by"]["name"] == "Aengus" and answer["label"] == "Perception"
    assert answer["params"]["target"] == 1
    player.page.wait_for_selector(f'#asks .ask-card[data-ask="{ask_id}"]', state="detached")
    # Everyone's log says the GM asked.
    note = player.page.locator('#log .entry-ask[data-op="open"]')
    assert "demande à Aengus un jet" in note.text_content() and "Perception" in note.text_content()

    # A second ask, cancelled by the GM: the player's card goes.
    second = ask(gm, ["Aengus"], "Vigilance", {"target": 4})
    player.page.locator(f'#asks .ask-card[data-ask="{second}"] button.ask-roll').wait_for()
    gm.page.click(f'#asks .ask-card[data-ask="{second}"] button.ask-cancel')
    gm.page.wait_for_selector(f'#asks .ask-card[data-ask="{second}"][data-state="cancelled"]')
    player.page.wait_for_selector(f'#asks .ask-card[data-ask="{second}"]', state="detached")
    # The GM removes the closed cards once read.
    for ask_id_ in (second, ask_id):
        gm.page.click(f'#asks .ask-card[data-ask="{ask_id_}"] button.ask-dismiss')
    gm.page.wait_for_selector("#asks-card", state="hidden")
    for page in (player, gm):
        page.close()


def test_a_character_is_asked_and_its_seat_answers_as_it_in_english(
        browser: Any, server: LiveServer) -> None:
    table = "demande-personnage"
    gm = gm_page(browser, server.http, table)
    player = TablePage(browser, server.http, link=add_seat(gm, "Bob"))
    gm.page.evaluate("""() => window.sidecarTable.client.setSheet(
        {character: "Ysolde", ruleset: "luck", owner: "Bob", values: {skill: 5}})""")
    open_ask_form(gm)
    ask_id = ask(gm, ["Ysolde"], "Perception", {"target": 6})
    card_ = player.page.locator(f'#asks .ask-card[data-ask="{ask_id}"]')
    card_.locator("button.ask-roll").wait_for()
    assert "en tant qu'Ysolde" in card_.text_content()
    # In English (the page rejoins to have the server speak it): the card in its words.
    player.page.click("#lang")
    button = card_.locator("button.ask-roll")
    button.wait_for()
    assert button.text_content() == "Roll: Perception"
    button.click()
    line = gm.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-line[data-seat="Bob"]')
    gm.page.wait_for_selector(
        f'#asks .ask-card[data-ask="{ask_id}"] .ask-line[data-state="answered"]')
    assert line.text_content().startswith("Ysolde (Bob) — ")
    answer = gm.state(f"outcomes.find(o => o.answers === '{ask_id}')")
    assert answer["character"] == "Ysolde" and answer["result"]["success"] is True  # 5 + d6 ≥ 6
    for page in (player, gm):
        page.close()


def test_an_opposed_ask_shows_the_winner_on_the_gms_card(browser: Any,
                                                         server: LiveServer) -> None:
    table = "opposition"
    gm = gm_page(browser, server.http, table)
    alice = TablePage(browser, server.http, link=add_seat(gm, "Alice"))
    bob = TablePage(browser, server.http, link=add_seat(gm, "Bob"))
    # Each side its own target: Alice always succeeds (1), Bob always fails (7).
    ask_id = ask(gm, ["Alice", "Bob"], "Bras de fer", {"target": 4},
                 each={"Alice": {"target": 1}, "Bob": {"target": 7}})
    for page in (alice, bob):
        page.page.click(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    winner = gm.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-winner')
    winner.wait_for()
    assert winner.text_content() == "Vainqueur : Alice"
    for page in (alice, bob, gm):
        page.close()


# -- sessions and turns, the panel's accessibility ---------------------------------------------

def test_a_new_session_shows_in_every_log(browser: Any, server: LiveServer) -> None:
    table = "seances"
    gm = gm_page(browser, server.http, table)
    player = player_page(browser, server.http, table)
    gm.page.get_by_role("button", name="Nouvelle séance").click()
    for page in (gm, player):
        note = page.page.locator("#log .entry-session")
        note.wait_for()
        assert "séance n° 1 commencée" in note.text_content()
    assert gm.page.is_hidden("#gm-table-error")
    # "Nouveau tour" refills what is once per turn (the sheet's `focus`) for every character.
    gm.page.evaluate("""() => window.sidecarTable.client.setSheet(
        {character: "Nyx", ruleset: "luck", values: {focus: 0}})""")
    gm.page.wait_for_selector('#sheet-list .sheet-item[data-character="Nyx"]', state="attached")
    gm.page.click("#turn-next")
    refill = gm.page.locator('#log .entry-sheet[data-op="refill"]')
    refill.wait_for()
    assert "focus 0 → 1" in refill.text_content()
    for page in (player, gm):
        page.close()


def test_every_control_of_the_asks_and_choices_has_a_name(browser: Any,
                                                         server: LiveServer) -> None:
    table = "etiquettes-demandes"
    gm = gm_page(browser, server.http, table)
    gm.page.set_viewport_size({"width": 390, "height": 844})
    add_seat(gm, "Jade")
    open_ask_form(gm)
    gm.page.check('#ask-targets input[value="Jade"]')
    gm.page.check("#ask-opposed")
    seq = roll_open(gm)
    card(gm, seq).locator("button.choice").first.wait_for()
    unnamed = gm.page.evaluate("""() => [...document.querySelectorAll(
        '#gm-panel input, #gm-panel select, #gm-panel button, #log button, #log input, '
        + '#asks button')]
        .filter(n => n.offsetParent !== null && n.type !== 'radio' && n.type !== 'checkbox'
                 && !(n.labels && n.labels.length) && !n.getAttribute('aria-label')
                 && !n.getAttribute('aria-labelledby') && !n.textContent.trim())
        .map(n => n.outerHTML.slice(0, 80))""")
    assert unnamed == []
    width = gm.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    gm.close()
