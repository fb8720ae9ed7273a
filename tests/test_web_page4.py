"""Issue 29, the last newcomer replay's page items, in a real headless Chromium at 390 px
against a real sidecar: a hidden roll and its decision are one « jet secret » line to the
others (never two rolls, nor a hint that it was open); an ask with no label says what it
asks (« Lancer : Flair (FLA) »), else its game, unquoted; « +1 autre demande »; a required
field's tooltip in the page's language only. Skips like tests/test_web_table.py without
Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat
from tests.test_web_evening import PHONE, oweens_table, phone_gm, phone_player

OPEN = {"second_chance": True, "target": 12}  # (skill 1: failed, hence open, whatever the die)


@pytest.fixture(scope="module")
def server(luck_plugins: Path) -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=str(luck_plugins), rate_limit=0) as live:
        yield live


def _secret_lines(page: TablePage, first: int, last: int) -> list[tuple[int, str, str, int]]:
    """The log's lines for seqs strictly between `first` and `last`: (seq, kind, text, count)."""
    lines = page.page.evaluate("""() => [...document.querySelectorAll('#log .entry')].reverse()
        .map(n => [Number(n.dataset.seq), n.dataset.kind, n.textContent,
                   Number(n.dataset.count || 1)])""")
    return [tuple(line) for line in lines if first < line[0] < last]


# -- 1: a hidden roll and its decision, one line --------------------------------------------------

def test_a_hidden_roll_and_its_decision_are_one_secret_line_to_the_others(
        browser: Any, server: LiveServer) -> None:
    table = "jet-decide-secret"
    gm = phone_gm(browser, server, table)
    add_seat(gm, "Léa")
    tom = TablePage(browser, server.http, link=add_seat(gm, "Tom"), viewport=PHONE)

    async def play() -> tuple[int, int, int, int]:
        async with server.client(table=table, name="MJ", role="gm",
                                 token=server.config.gm_token) as client:
            await client.set_sheet("Aengus", "luck", {"skill": 1, "luck": 5}, owner="Léa")
            first = (await client.roll("luck", {"target": 1}, dice=[1]))["seq"]
            hidden = await client.roll("luck", OPEN, character="Aengus", dice=[1], mode="gm")
            assert hidden["open"] is True
            decided = await client.react(hidden, "keep")
            last = (await client.roll("luck", {"target": 1}, dice=[1]))["seq"]
            return first, hidden["seq"], decided["seq"], last
    first, hidden, decided, last = server.call(play())
    assert decided == hidden + 1 == last - 1

    def check(page: TablePage) -> None:
        page.wait_for_entry(last)
        page.page.wait_for_function(f"""() => document.querySelector(
            '#log .entry-secret[data-seq="{hidden}"] .secret-note')?.textContent
            === 'jet secret'""")
        lines = _secret_lines(page, first, last)
        # One line, the seqs it stands for, no count of rolls (the decision says nothing).
        assert [(seq, kind, count) for seq, kind, _, count in lines] == [
            (hidden, "secret", 2)], lines
        assert lines[0][2] == f"jet secret#{hidden}–{decided}", lines

    check(tom)
    late = TablePage(browser, server.http, link=add_seat(gm, "Ida"), viewport=PHONE)
    check(late)  # (from the history the page opens with)
    late.page.click("#lang")
    late.page.wait_for_selector(f'#log .entry-secret[data-seq="{hidden}"] '
                                '.secret-note:text-is("secret roll")')
    for page in (tom, late, gm):
        page.close()


# -- 2 and 3: an ask with no label; two asks waiting -----------------------------------------------

def _ask(gm: TablePage, to: list[str], params: dict[str, Any], label: str = "") -> str:
    return gm.page.evaluate("""([to, params, label]) => window.sidecarTable.client.request({
        type: "ask", op: "open", to, ruleset: "oweens", label, params, mode: "public",
        options: {}}).then(reply => reply.ask)""", [to, params, label])


def test_an_ask_without_a_label_says_what_it_asks(browser: Any, server: LiveServer) -> None:
    gm, link, _ = oweens_table(browser, server, "sans-libelle")
    player = phone_player(browser, server, link)
    for number in range(30):  # (a log to read far under the asks' cards and lines)
        last = server.roll("sans-libelle", "MJ", "dice", {"expr": "2d6"}, label=f"Jet {number}")
    player.wait_for_entry(last["seq"])
    asked = _ask(gm, ["Ervald"], {"characteristic": "FLA", "difficulty": 2})
    card = f'#asks .ask-card[data-ask="{asked}"]'
    button = player.page.locator(f"{card} button.ask-roll")
    button.wait_for()
    assert button.text_content() == "Lancer : Flair (FLA)"
    assert player.page.text_content(f"{card} .entry-head .what") == "Flair (FLA)"
    # No characteristic: the game, never quoted as if it were a label.
    bare = _ask(gm, ["Ervald"], {"dice": 2})
    head = f'#asks .ask-card[data-ask="{bare}"] .entry-head'
    gm.page.wait_for_selector(head)
    assert gm.page.text_content(f"{head} .who") == "Jet demandé :"
    assert gm.page.text_content(f"{head} .what") == "O'Ween's"
    button = player.page.locator(f'#asks .ask-card[data-ask="{bare}"] button.ask-roll')
    button.wait_for()
    assert button.text_content() == "Lancer : O'Ween's"
    # A label stays the ask's name, quoted.
    named = _ask(gm, ["Ervald"], {"characteristic": "FLA"}, label="Pister")
    head = f'#asks .ask-card[data-ask="{named}"] .entry-head'
    gm.page.wait_for_selector(head)
    assert gm.page.text_content(f"{head} .who") == "Jet demandé"
    assert gm.page.text_content(f"{head} .what") == "« Pister »"
    # Three asks waiting, read far down: the bar says « +2 autres demandes »; one answered,
    # « +1 autre demande ».
    page = player.page
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    notice = page.locator("#ask-notice .hint")
    notice.wait_for()
    assert notice.text_content() == " (+2 autres demandes en haut de la page)"
    page.locator(f'#asks .ask-card[data-ask="{named}"] button.ask-roll').click()
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("""() => document.querySelector('#ask-notice .hint')?.textContent
        === ' (+1 autre demande en haut de la page)'""")
    page.click("#lang")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("""() => document.querySelector('#ask-notice .hint')?.textContent
        === ' (+1 other ask at the top of the page)'""")
    assert page.text_content("#ask-notice button") == "Roll: O'Ween's"  # (the newest)
    assert page.text_content(f"{card} button.ask-roll") == "Roll: Flair (FLA)"
    for each in (player, gm):
        each.close()


# -- 4: a required field's tooltip in the page's language ------------------------------------------

def test_a_required_fields_tooltip_is_in_the_pages_language(browser: Any,
                                                            server: LiveServer) -> None:
    gm = phone_gm(browser, server, "obligatoire")
    page = gm.page
    titles = "() => [...document.querySelectorAll('#roller .required')].map(n => n.title)"
    page.select_option("#ruleset", "dice")
    assert set(page.evaluate(titles)) == {"obligatoire"}
    page.click("#lang")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.select_option("#ruleset", "seuil")
    assert set(page.evaluate(titles)) == {"required"}
    gm.close()
