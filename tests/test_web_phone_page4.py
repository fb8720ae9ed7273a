"""The GM's evening on a phone, fourth pass (issue 29 follow-ups, a newcomer's replay), in a
real headless Chromium at 390 px against a real sidecar: a form sends only what was set or
changed (a cooperative ask's collaborators are the server's to count), a sheet's counter is
a gauge only where the sheet says what full is, and a notation error goes once the field
changes. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.test_web_evening import (
    new_outcome,
    open_ask,
    oweens_table,
    phone_gm,
    phone_player,
    send_ask,
)

#: Every message a page sends, kept in `window.sent` (what the form put on the wire).
RECORD = """() => {
    const client = window.sidecarTable.client;
    window.sent = [];
    const request = client.request.bind(client);
    client.request = (message, ...rest) => {
        window.sent.push(message);
        return request(message, ...rest);
    };
}"""


def sent(page: Any, kind: str) -> dict[str, Any]:
    """The last message of type `kind` the page sent."""
    return page.evaluate("(kind) => window.sent.filter(m => m.type === kind).pop()", kind)


# -- item 1: only what the GM set is sent ----------------------------------------------------

def test_a_cooperative_ask_leaves_the_collaborators_to_the_server(browser: Any,
                                                                 server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "cooperation")
    page = gm.page
    page.evaluate(RECORD)
    open_ask(gm, ["Aengus", "Brann"])
    page.check("#ask-cooperative")
    page.select_option("#askp-characteristic", "ECL")
    page.fill("#askp-difficulty", "2")
    ask = send_ask(gm, "Soulever la charrette")
    params = sent(page, "ask")["params"]
    # What the GM set, and nothing the form only held (« Plus d'options » untouched).
    assert params == {"characteristic": "ECL", "difficulty": 2}, params
    # The server counts them, as for the CLI's ask: one free augmentation each.
    assert ask["params"]["collaborators"] == 1, ask["params"]
    # A value the GM typed, even the default, is theirs: it is sent.
    open_ask(gm, ["Aengus", "Brann"])
    page.check("#ask-cooperative")
    page.select_option("#askp-characteristic", "ECL")
    page.eval_on_selector("#askp-collaborators", "n => n.closest('details').open = true")
    page.fill("#askp-collaborators", "0")
    send_ask(gm, "Seul en fait")
    assert sent(page, "ask")["params"] == {"characteristic": "ECL", "collaborators": 0}
    gm.close()


def test_a_players_roll_sends_only_what_was_set(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "jet-nu")
    player = phone_player(browser, server, link)
    page = player.page
    page.evaluate(RECORD)
    schema = player.state("welcome.rulesets.find(r => r.name === 'oweens').params")
    before = player.state("outcomes.length")
    page.click("#roll-button")
    outcome = new_outcome(player, before)
    params = sent(page, "roll")["params"]
    untouched = {name: value for name, value in params.items()
                 if value == schema[name].get("default", None if value is not False else False)}
    assert not untouched, params
    assert outcome["character"] == "Ervald"
    for each in (player, gm):
        each.close()


# -- item 2: a gauge only where full is known ---------------------------------------------------

def test_a_counter_without_a_known_full_value_shows_no_gauge(browser: Any,
                                                            server: LiveServer) -> None:
    gm = phone_gm(browser, server, "echelle")
    gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet", op: "set",
        character: "Ervald", ruleset: "ladder", owner: null, reason: "Création",
        values: {chance: 1, pv: 3, caracteristiques: {geste: 3}}})""")
    item = '#character-values [data-field="{}"]'
    gm.page.select_option("#character-select", "Ervald")
    gm.page.wait_for_selector(item.format("chance"))
    for field, value in (("chance", "1"), ("pv", "3")):
        line = item.format(field)
        assert gm.page.text_content(f"{line} .value") == value
        assert gm.page.locator(f"{line} meter").count() == 0, field
        assert gm.page.locator(f"{line} .of").count() == 0, field  # (no « / 20 »)
    gm.close()


def test_a_counter_whose_refill_is_its_most_keeps_its_gauge(browser: Any,
                                                            server: LiveServer) -> None:
    gm = phone_gm(browser, server, "volonte")
    gm.page.evaluate("""() => window.sidecarTable.client.request({type: "sheet", op: "set",
        character: "Ulf", ruleset: "bloodlust", owner: null, reason: "Création",
        values: {volonte: 2, volonte_tour: 1}})""")
    gm.page.select_option("#character-select", "Ulf")
    line = '#character-values [data-field="volonte_tour"]'
    gm.page.wait_for_selector(line)
    # A new turn gives it back to 1, its most: 1 / 1 is what full is.
    assert gm.page.eval_on_selector(f"{line} meter", "n => [n.value, n.max]") == [1, 1]
    assert gm.page.locator('#character-values [data-field="volonte"] meter').count() == 0
    gm.close()


# -- item 3: a notation error goes when the field changes ---------------------------------------

def test_a_notation_error_goes_once_the_notation_changes(browser: Any,
                                                        server: LiveServer) -> None:
    gm = phone_gm(browser, server, "notation")
    page = gm.page
    page.select_option("#ruleset", "dice")
    page.fill("#param-expr", "4d6kh5")
    page.click("#roll-button")
    page.wait_for_selector("#roll-error:not([hidden])")
    page.fill("#param-expr", "2d6+3")
    # (The odds of 2d6+3 shown: the form is read as it now is.)
    page.wait_for_function("""() => !document.getElementById('odds').classList.contains('stale')
        && document.querySelectorAll('#odds-bars .bar').length > 0""")
    assert page.is_hidden("#roll-error"), page.text_content("#roll-error")
    gm.close()
