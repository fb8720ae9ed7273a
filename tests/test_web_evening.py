"""A GM's evening on the phone page (issue 29, items 4–11, 13, 14), in a real headless
Chromium at 390 px against a real sidecar: an O'Ween's roll form that shows what a roll
needs, an opposed ask whose sides show their differences and nothing left from the last
ask, game pickers on the table's game, a raised die as 3→4, the winner in the players'
logs, « le MJ prépare la table » once, quick rolls that say their difficulty, an ask
answered where the player reads, a reload that rejoins, ⚑ explained without hovering.
Skips like tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

import time
from typing import Any

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat

PHONE = (390, 844)
#: The roll form's height at 390 px before issue 29: 3,180 px as a character, 3,413 px
#: without one (every O'Ween's param shown, darts and drinking included).
FORM_AS_CHARACTER = 1600
FORM_WITHOUT_CHARACTER = 1800


def phone_gm(browser: Any, server: LiveServer, table: str) -> TablePage:
    return TablePage(browser, server.http, table=table, name="Morgane", role="gm",
                     token=GM_TOKEN, viewport=PHONE)


def new_character(gm: TablePage, name: str, owner: str | None, **values: int) -> None:
    """The GM makes an O'Ween's character (as the panel's form would send it)."""
    gm.page.evaluate("""([name, owner, values]) => window.sidecarTable.client.request({
        type: "sheet", op: "set", character: name, ruleset: "oweens", owner, values,
        reason: "Création"})""", [name, owner, values])
    gm.page.wait_for_selector(f'#sheet-list .sheet-item[data-character="{name}"]',
                              state="attached")


def oweens_table(browser: Any, server: LiveServer, table: str) -> tuple[TablePage, str, str]:
    """A GM at 390 px, the seats of Aengus and Brann, their O'Ween's characters (Ervald,
    Tam); returns the GM's page and the two seats' links."""
    gm = phone_gm(browser, server, table)
    link = add_seat(gm, "Aengus")
    other = add_seat(gm, "Brann")
    new_character(gm, "Ervald", "Aengus", pep=3, ecl=3, enc=2, fla=2, bonbonus=5)
    new_character(gm, "Tam", "Brann", pep=2, ecl=2, enc=3, fla=3, bonbonus=5)
    return gm, link, other


def phone_player(browser: Any, server: LiveServer, link: str) -> TablePage:
    """A seat's page opened from its link at 390 px, once its character is shown."""
    player = TablePage(browser, server.http, link=link, viewport=PHONE)
    player.page.wait_for_selector("#character:not([hidden])")
    return player


def height(page: TablePage, selector: str) -> float:
    return page.page.eval_on_selector(selector, "n => n.getBoundingClientRect().height")


def new_outcome(page: TablePage, before: int) -> dict[str, Any]:
    page.page.wait_for_function("n => window.sidecarTable.outcomes.length > n", arg=before)
    return page.state("outcomes[window.sidecarTable.outcomes.length - 1]")


# -- item 4: the roll form ---------------------------------------------------------------------

def test_the_oweens_roll_form_shows_what_a_roll_needs(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "formulaire")
    player = phone_player(browser, server, link)
    assert height(player, "#roller") < FORM_AS_CHARACTER
    # Without a character (the GM's own rolls): the dice are asked too.
    gm.page.select_option("#ruleset", "oweens")
    assert height(gm, "#roller") < FORM_WITHOUT_CHARACTER
    page = gm.page
    for shown in ("dice", "difficulty", "augmentations", "bagage"):
        assert page.is_visible(f"#param-{shown}"), shown
    for folded in ("buy_augmentations", "equipment", "drinks", "volleys", "darts_bonus"):
        assert page.is_hidden(f"#param-{folded}"), folded
    # Drinking is a situation that brings its own fields...
    gm.fill_params({"dice": 2, "drinks": 3})
    assert page.input_value("#param-situation") == "drinking"
    assert page.is_visible("#param-hours_dry")
    before = gm.state("outcomes.length")
    page.click("#roll-button")
    drunk = new_outcome(gm, before)["params"]
    assert drunk["drinking"] is True and drunk["drinks"] == 3
    # ...and an ordinary roll sends none of them, though they were typed.
    page.select_option("#param-situation", "")
    assert page.is_hidden("#param-drinks")
    before = gm.state("outcomes.length")
    page.click("#roll-button")
    plain = new_outcome(gm, before)["params"]
    assert plain["drinking"] is False and plain["drinks"] == 0
    # « Plus d'options » says what it holds once something is set in it.
    gm.fill_params({"equipment": 2})
    assert page.text_content("details.more-params summary") == "Plus d'options (1 réglée)"
    gm.fill_params({"adversity": 1})
    assert page.text_content("details.more-params summary") == "Plus d'options (2 réglées)"
    for each in (player, gm):
        each.close()


# -- items 4 and 8: an opposed ask ---------------------------------------------------------------

def open_ask(gm: TablePage, names: list[str]) -> None:
    page = gm.page
    if not page.eval_on_selector("#gm-ask", "n => n.open"):
        page.click("#gm-ask summary")
    for name in names:
        page.check(f'#ask-targets input[value="{name}"]')
    page.select_option("#ask-ruleset", "oweens")


def send_ask(gm: TablePage, label: str) -> dict[str, Any]:
    """Send the ask form; returns the ask as the GM's page holds it."""
    page = gm.page
    before = page.locator("#asks .ask-card").count()
    page.fill("#ask-label", label)
    page.click("#ask-form button[type=submit]")
    # The new card, or the page's refusal (then the test fails with the page's own words).
    page.wait_for_function("""n => document.querySelectorAll('#asks .ask-card').length > n
        || (document.querySelector('#ask-error')?.textContent || '').trim()""", arg=before)
    refused = (page.text_content("#ask-error") or "").strip()
    assert not refused, refused
    return page.evaluate("""(label) => [...window.sidecarTable.asks.values()]
        .find(item => item.event.label === label).event""", label)


def test_an_opposed_asks_sides_show_their_differences_and_nothing_stale(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "opposition-courte")
    for seat in ("Aengus", "Brann"):
        add_seat(gm, seat)
    page = gm.page
    # A first ask, on Flair.
    open_ask(gm, ["Aengus"])
    page.fill("#askp-dice", "3")
    page.select_option("#askp-characteristic", "FLA")
    first = send_ask(gm, "Pister")
    assert first["params"]["characteristic"] == "FLA"
    # The form is as new: nothing of that ask waits, hidden, for the next one.
    assert page.input_value("#askp-characteristic") == ""
    assert page.input_value("#ask-label") == ""
    # An opposition: the common params above, each side only what it may set apart.
    page.uncheck('#ask-targets input[value="Aengus"]')
    open_ask(gm, ["Aengus", "Brann"])
    page.check("#ask-opposed")
    page.fill("#askp-dice", "2")
    sides = page.locator("#ask-sides [data-side]")
    assert sides.count() == 2
    fields = page.eval_on_selector_all("#ask-sides [data-side] .param",
                                       "nodes => nodes.map(n => n.dataset.param)")
    assert len(fields) <= 8 and "drinks" not in fields and "equipment" not in fields
    assert height(gm, "#ask-sides") < 900  # every O'Ween's param per side before: ~6,000 px
    aengus = page.locator('#ask-sides [data-side="Aengus"]')
    aengus.locator("summary").click()  # (each side is one folded line)
    aengus.locator('[id$="-difficulty"]').fill("2")
    ask = send_ask(gm, "Bras de fer")
    to = {target["seat"]: target.get("params") or ask["params"] for target in ask["to"]}
    assert to["Aengus"]["difficulty"] == 2 and to["Brann"]["difficulty"] == 0
    assert all(params["dice"] == 2 for params in to.values())
    assert all(params.get("characteristic") is None for params in to.values()), to
    gm.close()


# -- item 5: the game pickers ----------------------------------------------------------------------

def test_the_gms_game_pickers_show_the_tables_game_and_nothing_red(
        browser: Any, server: LiveServer) -> None:
    gm, *_ = oweens_table(browser, server, "jeu-de-la-table")
    later = phone_gm(browser, server, "jeu-de-la-table")  # a fresh browser: no last game
    for each in (gm, later):
        for picker in ("#ruleset", "#ask-ruleset", "#sheet-ruleset"):
            assert each.page.input_value(picker) == "oweens", picker
    # The odds say what is missing; no field is red before anything is typed.
    later.page.wait_for_function("() => document.getElementById('odds-note').textContent")
    assert later.page.locator("#roll-form [aria-invalid], #roll-form .param.invalid").count() == 0
    # O'Ween's own defaults, nothing carried over from the game shown first (Bloodlust's 6).
    later.page.click("#gm-ask summary")
    assert later.page.input_value("#askp-difficulty") == "0"
    # A game picked by hand stays picked.
    later.page.select_option("#ask-ruleset", "bloodlust")
    new_character(gm, "Nessa", None, pep=2)
    later.page.wait_for_selector('#sheet-list .sheet-item[data-character="Nessa"]',
                                 state="attached")
    assert later.page.input_value("#ask-ruleset") == "bloodlust"
    for each in (gm, later):
        each.close()


def test_without_characters_the_pickers_show_the_last_game_rolled(browser: Any,
                                                                  server: LiveServer) -> None:
    server.roll("derniere-partie", "MJ", "oweens", {"dice": 2})
    gm = phone_gm(browser, server, "derniere-partie")
    gm.page.wait_for_function("() => document.getElementById('ruleset').value === 'oweens'")
    for picker in ("#ask-ruleset", "#sheet-ruleset"):
        assert gm.page.input_value(picker) == "oweens", picker
    # A roll of another game does not take the form from under a GM filling it in.
    gm.fill_params({"dice": 4})
    seq = server.roll("derniere-partie", "MJ", "bloodlust", {"pool": 2})["seq"]
    gm.wait_for_entry(seq)
    assert gm.page.input_value("#ruleset") == "oweens"
    assert gm.page.input_value("#param-dice") == "4"
    gm.close()


# -- item 6: a raised die --------------------------------------------------------------------------

def test_a_raised_die_shows_its_natural_face_and_what_it_became(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "augmentations")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 3, "difficulty": 2, "augmentations": 2})
    gm.page.fill("#manual-dice", "3 1 5")  # physical dice: the faces are the GM's
    seq = gm.roll()
    outcome = gm.state(f"outcomes.find(o => o.seq === {seq})")
    raised = {index: die["raised_to"] for index, die in enumerate(outcome["dice"])
              if die.get("raised_to")}
    assert raised  # two free augmentations on 3 1 5 against 2 raise some die
    dice = gm.page.eval_on_selector_all(
        f'#log .entry[data-seq="{seq}"] .die',
        "nodes => nodes.map(n => [n.querySelector('.face').textContent,"
        " n.querySelector('.raised')?.textContent ?? null])")
    assert [face for face, _ in dice] == ["3", "1", "5"]
    for index, (_, shown) in enumerate(dice):
        assert shown == (f"→{raised[index]}" if index in raised else None), dice
    gm.close()


# -- item 7: who won, in the players' logs ---------------------------------------------------------

def test_the_players_logs_show_who_won_a_public_opposition(browser: Any,
                                                          server: LiveServer) -> None:
    gm, link, brann_link = oweens_table(browser, server, "vainqueur")
    aengus = phone_player(browser, server, link)
    brann = TablePage(browser, server.http, link=brann_link, viewport=PHONE)
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Ervald", "Tam"], ruleset: "oweens", opposed: true,
        params: {characteristic: "PEP", difficulty: 0}, label: "Bras de fer",
        mode: "public", options: {}}).then(reply => reply.ask)""")
    for page in (aengus, brann):
        page.page.click(f'#asks .ask-card[data-ask="{ask_id}"] button.ask-roll')
    gm_winner = gm.page.locator(f'#asks .ask-card[data-ask="{ask_id}"] .ask-winner')
    # An O'Ween's roll may stay open for its roller's decision after the dice (the dice
    # are the server's): the ask settles once each side has decided, so each takes the
    # default its card offers, until the GM's card shows the winner.
    deadline = time.monotonic() + 30
    while not gm_winner.is_visible():
        assert time.monotonic() < deadline, "the opposition never settled"
        for page in (aengus, brann):
            default = page.page.locator("#log button.choice.default")
            if default.count():
                default.first.click()
        gm.page.wait_for_timeout(50)
    for page in (aengus, brann):
        line = page.page.locator("#log .entry .ask-winner")
        line.wait_for()
        assert line.text_content() == gm_winner.text_content()
    for page in (aengus, brann, gm):
        page.close()


# -- item 9: the GM's preparation ------------------------------------------------------------------

def test_a_players_log_says_the_gm_prepares_the_table_once(browser: Any,
                                                           server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "preparation")
    player = phone_player(browser, server, link)
    player.page.wait_for_selector("#log .entry-prep")
    log = player.page.text_content("#log")
    assert "jet secret" not in log
    assert player.page.locator("#log .entry-prep").count() == 1
    assert "le MJ prépare la table" in player.page.text_content("#log .entry-prep")
    # Once the table plays, a roll the player does not see is said as one: the history page
    # that looked at its seq did not name it a note.
    server.roll("preparation", "MJ", "oweens", {"dice": 1})
    secret = server.roll("preparation", "MJ", "oweens", {"dice": 1}, mode="gm")["seq"]
    last = server.roll("preparation", "MJ", "oweens", {"dice": 1})["seq"]
    player.wait_for_entry(last)
    player.page.wait_for_selector(f'#log .entry-secret[data-seq="{secret}"] .secret-note')
    player.page.wait_for_function("""seq => document.querySelector(`#log .entry-secret[data-seq="${
        seq}"] .secret-note`).textContent === 'jet secret'""", arg=secret)
    for page in (player, gm):
        page.close()


def _gap_lines(page: TablePage, first: int, last: int) -> list[tuple[int, str, str, int]]:
    """The log's lines strictly between two seqs, oldest first: (seq, kind, text, count)."""
    lines = page.page.evaluate("""() => [...document.querySelectorAll('#log .entry')].reverse()
        .map(n => [Number(n.dataset.seq), n.dataset.kind, n.textContent,
                   Number(n.dataset.count || 1)])""")
    return [tuple(line) for line in lines if first < line[0] < last]


def test_the_gms_notes_during_the_game_say_what_they_are(browser: Any,
                                                         server: LiveServer) -> None:
    """Issue 29 re-run: a seat added and a sheet set after the first roll read « le MJ
    prépare la table » in a player's log (not « note du MJ »: nobody wrote a note), live and
    after a reload, never « jet secret »; a secret roll stays « jet secret ou note du MJ »."""
    table = "notes-mj"
    gm, link, _ = oweens_table(browser, server, table)
    player = phone_player(browser, server, link)
    first = server.roll(table, "MJ", "oweens", {"dice": 1})["seq"]
    player.wait_for_entry(first)
    add_seat(gm, "Ida")
    new_character(gm, "Orla", "Ida", pep=2)
    secret = server.roll(table, "MJ", "oweens", {"dice": 1}, mode="gm")["seq"]
    last = server.roll(table, "MJ", "oweens", {"dice": 1})["seq"]
    notes = list(range(first + 1, secret))
    assert len(notes) >= 2  # the seat, the sheet

    def check() -> None:
        player.wait_for_entry(last)
        player.page.wait_for_selector(f'#log .entry-note[data-seq="{notes[0]}"]')
        lines = _gap_lines(player, first, last)
        # One line for the GM's consecutive notes, one for the secret roll.
        assert [(seq, kind, count) for seq, kind, _, count in lines] == [
            (notes[0], "note", len(notes)), (secret, "secret", 1)], lines
        # (What it is: the GM at work on the table, not a note anyone wrote.)
        assert "le MJ prépare la table ×2" in lines[0][2], lines
        assert "jet secret" not in lines[0][2] and "note" not in lines[0][2], lines
        assert lines[1][2].startswith("jet secret#"), lines  # a roll: no note there

    check()
    player.page.reload()
    check()
    for page in (player, gm):
        page.close()


# -- item 10: quick rolls --------------------------------------------------------------------------

def test_quick_rolls_say_the_difficulty_they_roll_against(browser: Any,
                                                         server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "jets-rapides")
    player = phone_player(browser, server, link)
    quick = player.page.locator('#quick-rolls button[data-choice="ECL"]')
    quick.wait_for()
    assert "Difficulté 0" in quick.text_content()
    player.fill_params({"difficulty": 3})
    player.page.wait_for_function("""() => document.querySelector(
        '#quick-rolls button[data-choice="ECL"]').textContent.includes('Difficulté 3')""")
    before = player.state("outcomes.length")
    quick.click()
    params = new_outcome(player, before)["params"]
    assert params["characteristic"] == "ECL" and params["difficulty"] == 3
    for page in (player, gm):
        page.close()


# -- item 11: an ask where the player reads ------------------------------------------------------

def test_an_asked_player_reads_what_is_asked_and_answers_from_the_log(
        browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "demande-au-journal")
    player = phone_player(browser, server, link)
    # The player reads the log, far below the top of the page.
    player.page.evaluate("() => document.getElementById('log-live').scrollIntoView()")
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Ervald"], ruleset: "oweens", label: "Escalade",
        params: {characteristic: "ECL", difficulty: 4}, mode: "public", options: {}})
        .then(reply => reply.ask)""")
    card = player.page.locator(f'#asks .ask-card[data-ask="{ask_id}"]')
    card.locator("button.ask-roll").wait_for()
    assert "Caractéristique ECL · Difficulté 4" in card.text_content()
    line = player.page.locator('#log .entry-ask[data-op="open"]')
    assert "Caractéristique ECL · Difficulté 4" in line.text_content()
    button = line.locator("button.ask-roll-here")
    # On the log's first screen, where the player reads (the newest line is on top).
    below_the_log_top = player.page.evaluate("""() => document.querySelector(
        '#log .entry-ask .ask-roll-here').getBoundingClientRect().bottom
        - document.getElementById('log-live').getBoundingClientRect().top""")
    assert 0 < below_the_log_top <= PHONE[1] / 2, below_the_log_top
    before = player.state("outcomes.length")
    button.click()
    answer = new_outcome(player, before)
    assert answer["answers"] == ask_id and answer["params"]["difficulty"] == 4
    line.locator("button.ask-roll-here").wait_for(state="detached")
    for page in (player, gm):
        page.close()


# -- item 13: a reload ---------------------------------------------------------------------------

def test_a_reloaded_shared_link_page_rejoins_by_itself(browser: Any, server: LiveServer) -> None:
    link = f"{server.http}/?table=recharger#token={PLAYER_TOKEN}"
    page = TablePage(browser, server.http, link=link, joined=False, viewport=PHONE)
    page.page.fill("#join-name", "Aengus")
    page.page.click("#join-form button[type=submit]")
    page.page.wait_for_selector("#table:not([hidden])")
    page.page.reload()
    page.page.wait_for_selector("#table:not([hidden])")  # no second « Rejoindre »
    page.page.wait_for_function("() => window.sidecarTable.client?.state === 'open'")
    assert page.state("welcome.table") == "recharger" and page.state("client.name") == "Aengus"
    assert "status-open" in page.page.get_attribute("#status", "class")
    page.close()


# -- item 14: ⚑ ----------------------------------------------------------------------------------

def test_the_seat_flag_is_explained_on_the_page(browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "drapeau")
    player = TablePage(browser, server.http, link=add_seat(gm, "Aengus"), viewport=PHONE)
    for page in (gm, player):
        page.page.wait_for_selector("#presence .member-seat")
        legend = page.page.locator("#presence-legend")
        assert legend.is_visible() and "⚑" in legend.text_content()
        assert "place" in legend.text_content()
    for page in (player, gm):
        page.close()
