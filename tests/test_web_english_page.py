"""The page in English and across a restart (issue 29, newcomer replays): English
typography in the odds and an ask's lines, an ask's log line in natural English (French
with its elision), an opposition's card after a reload in the ruleset's margin words
(« MR 2 »), no unhandled rejection when the server goes away with a request pending,
and no odds asked for a form that cannot have any. Chromium at 390 px against real
servers; skips like tests/test_web_table.py without Chromium."""

from __future__ import annotations

import re
from typing import Any

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat
from tests.support.serve import free_port, serve_on
from tests.test_web_evening import PHONE, new_character, oweens_table, phone_gm, phone_player
from tests.test_web_phone_asks import switch_language


def odds_texts(page: TablePage) -> list[str]:
    """The odds' headline and each row's figure, once they are shown."""
    page.page.wait_for_selector("#odds:not(.stale) .bar")
    return page.page.evaluate("""() => [document.getElementById('odds-success').textContent,
        ...[...document.querySelectorAll('#odds-bars .bar-value')].map(n => n.textContent)]""")


PERCENTS = """() => import('/static/oddsview.js').then(
    m => [0, 1, 0.0004, 0.05, 0.333].map(p => m.percent(p)))"""


# -- item 1: English typography in the odds --------------------------------------------------------

def test_the_odds_percentages_follow_the_pages_typography(browser: Any,
                                                          server: LiveServer) -> None:
    gm = phone_gm(browser, server, "pourcents")
    page = gm.page
    page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 3, "difficulty": 1})
    french = odds_texts(gm)
    assert re.fullmatch(r"\d+(,\d)? % de réussite", french[0]), french
    assert all(re.fullmatch(r"(< )?\d+(,\d)? %", text) for text in french[1:]), french
    assert page.evaluate(PERCENTS) == ["0 %", "100 %", "< 0,1 %", "5,0 %", "33 %"]
    switch_language(gm, "en")
    gm.fill_params({"difficulty": 2})
    english = odds_texts(gm)
    assert re.fullmatch(r"\d+(\.\d)?% \S.*", english[0]), english
    assert all(re.fullmatch(r"(< )?\d+(\.\d)?%", text) for text in english[1:]), english
    assert page.evaluate(PERCENTS) == ["0%", "100%", "< 0.1%", "5.0%", "33%"]
    gm.close()


# -- items 2 and 3: an ask's log line in English, and in French ------------------------------------

def open_ask(gm: TablePage, request: dict[str, Any]) -> int:
    """The GM asks (as the page's client sends it); the seq of its log line, once shown."""
    seq = gm.page.evaluate("""request => window.sidecarTable.client.request({type: "ask",
        op: "open", mode: "public", options: {}, ...request}).then(reply => reply.seq)""",
                           request)
    gm.wait_for_entry(seq)
    return seq


def ask_line(gm: TablePage, seq: int) -> dict[str, str]:
    line = gm.page.locator(f'#log .entry-ask[data-seq="{seq}"]')
    return {"op": line.locator(".op").text_content(),
            "label": line.locator(".target").text_content(),
            "sides": line.locator(".ask-sides-what").text_content()
            if line.locator(".ask-sides-what").count() else "",
            "text": line.text_content()}


def test_an_asks_log_line_reads_as_its_language_writes(browser: Any,
                                                      server: LiveServer) -> None:
    gm = phone_gm(browser, server, "demandes-anglaises")
    for seat in ("Aengus", "Brann"):
        add_seat(gm, seat)
    new_character(gm, "Éric", "Aengus", pep=3, ecl=3, enc=2, fla=2, bonbonus=5)
    new_character(gm, "Tam", "Brann", pep=2, ecl=2, enc=3, fla=3, bonbonus=5)
    climb = {"to": ["Éric"], "ruleset": "oweens",
             "params": {"characteristic": "ECL", "difficulty": 1}}
    french = ask_line(gm, open_ask(gm, {**climb, "label": "Escalade"}))
    assert (french["op"], french["label"]) == ("demande à Éric un jet", "« Escalade »"), french
    opposed = {"to": ["Éric", "Tam"], "ruleset": "oweens", "opposed": True,
               "params": {"characteristic": "PEP"}, "label": "Bras de fer",
               "each": {"Éric": {"difficulty": 2}}}
    sides = ask_line(gm, open_ask(gm, opposed))["sides"]
    assert " ; " in sides, sides  # (French typography: a space before the semicolon)
    switch_language(gm, "en")
    english = ask_line(gm, open_ask(gm, {**climb, "label": "Climb"}))
    assert (english["op"], english["label"]) == ("asks Éric for a roll:", "“Climb”"), english
    assert " of " not in english["text"], english
    sides = ask_line(gm, open_ask(gm, {**opposed, "label": "Arm wrestling"}))["sides"]
    assert "; " in sides and " ; " not in sides and " : " not in sides, sides
    gm.close()


# -- item 4: an opposition's card after a reload ---------------------------------------------------

def test_an_oppositions_card_after_a_reload_words_margins_as_its_game(
        browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "marges")
    aengus = phone_player(browser, server, link)
    ask_id = gm.page.evaluate("""() => window.sidecarTable.client.request({type: "ask",
        op: "open", to: ["Ervald", "Tam"], ruleset: "oweens", opposed: true,
        params: {characteristic: "PEP", difficulty: 1}, label: "Bras de fer",
        mode: "public", options: {}}).then(reply => reply.ask)""")
    card = f'#asks .ask-card[data-ask="{ask_id}"]'
    aengus.page.click(f"{card} button.ask-roll")
    line = f'{card} .ask-line[data-seat="Aengus"]'
    gm.page.wait_for_selector(f'{line}[data-state="answered"]')
    # Rolls enough after it that a page opened now knows that answer only as the ask's side
    # (its `answered`), not as an outcome of the log it loads (its last 50 events).
    gm.page.evaluate("""async () => { for (let i = 0; i < 50; i += 1) {
        await window.sidecarTable.client.roll({ruleset: "dice", params: {expr: "1d6"},
            options: {}, mode: "public", label: ""}); } }""")
    gm.close()
    again = phone_gm(browser, server, "marges")
    again.page.wait_for_selector(f'{line}[data-state="answered"]')
    side = again.state(f"asks.get('{ask_id}').answers.get('Aengus')")
    assert side.get("type") != "outcome" and isinstance(side["margin"], int), side
    text = again.page.text_content(line)
    word = "MR" if side["success"] else "ME"
    shown = side["margin"] if side["success"] else -side["margin"]
    assert f"{word} {shown}" in text and "marge" not in text, (side, text)
    for each in (aengus, again):
        each.close()

# -- item 5: a request pending at a restart ------------------------------------------------------

def test_a_request_pending_at_a_restart_leaves_no_error_in_the_console(
        browser: Any, tmp_path: Any) -> None:
    """A clean stop of a provable table reveals its epoch: the page asks the history to check
    its rolls just as the server goes away. That request fails at the reconnection (« connection
    lost before the reply »): the page says nothing of it (its badge says it was offline)."""
    port, journal = free_port(), tmp_path / "journal.db"
    server = serve_on(port, journal, "--dice", "provable")
    base = server.url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    try:
        gm = TablePage(browser, base, table="coupure", name="Morgane", role="gm",
                       token=GM_TOKEN, viewport=PHONE)
        page = gm.page
        page.select_option("#ruleset", "oweens")
        gm.fill_params({"dice": 3})
        gm.roll()
        epochs = "() => document.querySelectorAll('#log .entry-epoch').length"
        before = page.evaluate(epochs)
        # No retry on its own while the server is down: the test says when it is back.
        page.evaluate("() => { window.sidecarTable.client.minDelay = 600_000; }")
        server.stop()
        page.wait_for_selector("#status.status-reconnecting")
        # (The epoch revealed at the stop: the page checks its rolls against the history.)
        page.wait_for_function(f"() => ({epochs})() > {before}")
        server = serve_on(port, journal, "--dice", "provable")
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        page.wait_for_selector("#status.status-open")
        page.wait_for_function("() => window.sidecarTable.client._pending.size === 0")
        page.wait_for_timeout(300)  # (an unhandled rejection is reported after a tick)
        gm.close(server_went_away=True)
    finally:
        server.stop()


# -- item 6: odds asked only for a form that can have some -----------------------------------------

def test_the_gms_phone_page_asks_no_odds_the_server_must_refuse(browser: Any,
                                                                 tmp_path: Any) -> None:
    """The GM's evening on a phone: joining, picking each game, filling a roll field by
    field, emptying a required one. Each odds request the page sends is one the server
    answers (a refused one is a line in the host's log for nothing)."""
    server = serve_on(free_port(), tmp_path / "journal.db")
    base = server.url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    try:
        gm = TablePage(browser, base, table="cotes", name="Morgane", role="gm",
                       token=GM_TOKEN, viewport=PHONE)
        page = gm.page
        page.evaluate("""() => { const client = window.sidecarTable.client;
            const odds = client.odds.bind(client);
            window.refusedOdds = [];
            client.odds = (...args) => odds(...args).catch((error) => {
                window.refusedOdds.push([args[0], JSON.stringify(args[1]), error.code,
                                         error.message]);
                throw error; }); }""")
        for ruleset in page.eval_on_selector_all("#ruleset option", "o => o.map(n => n.value)"):
            if ruleset:
                page.select_option("#ruleset", ruleset)
                page.wait_for_timeout(400)  # (the page's debounce: its odds request, if any)
        page.select_option("#ruleset", "oweens")
        gm.fill_params({"dice": 3})
        gm.odds_shown()
        page.fill("#param-dice", "")
        page.wait_for_timeout(400)
        # What the odds wait for is said, in the field's words, nothing red.
        assert "Dés" in page.text_content("#odds-note"), page.text_content("#odds-note")
        assert page.get_attribute("#param-dice", "aria-invalid") != "true"
        refused = page.evaluate("() => window.refusedOdds")
        assert refused == [], "\n".join(map(str, refused))
        gm.close()
    finally:
        server.stop()
