"""The web table in a real headless Chromium, against a real sidecar on a loopback port.

Chromium is Debian's (`/usr/bin/chromium-headless-shell`, else `/usr/bin/chromium`),
driven by Playwright. Without it these tests skip, unless SIDECAR_REQUIRE_BROWSER=1 (set
by `.ci/run`, which installs it) makes that a failure.
"""

from __future__ import annotations

import http.client
import re
import textwrap
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.live_server import LiveServer
from tests.support.browser import TablePage, gm_page, odds_entries, player_page

# -- plain HTTP: what the page is served with (no browser needed) ------------------------------

def _get(base: str, path: str) -> tuple[int, http.client.HTTPMessage, bytes]:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, response.headers, body


def test_page_and_its_files_are_served_by_the_sidecar(server: LiveServer) -> None:
    status, headers, body = _get(server.http, "/?table=crypte&token=x")
    assert status == 200
    assert headers.get_all("Content-Length") == [str(len(body))]
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    host = urlsplit(server.http).netloc
    assert f"connect-src 'self' ws://{host} wss://{host};" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    page = body.decode()
    # Everything the page loads comes from the sidecar itself: no CDN.
    for url in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert url.startswith("/static/"), url
        assert _get(server.http, url)[0] == 200, url
    status, headers, body = _get(server.http, "/static/sidecar-client.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert headers["Access-Control-Allow-Origin"] == "*"  # a Foundry page may import it
    assert b"export class SidecarClient" in body
    assert _get(server.http, "/static/vendor/msgpack.mjs")[0] == 200


def test_a_strange_host_header_does_not_reach_the_policy() -> None:
    from sidecar.server.webassets import PAGE_POLICY, page_policy
    assert page_policy("192.168.1.20:8765").count("ws://192.168.1.20:8765") == 1
    assert page_policy("[::1]:8765").count("wss://[::1]:8765") == 1
    for hostile in ("evil; script-src *", "a b", None, "x" * 300):
        assert page_policy(hostile) == PAGE_POLICY


@pytest.mark.parametrize("path", ["/static/../server.py", "/static/%2e%2e/server.py",
                                  "/static/vendor/msgpack.LICENSE", "/nothing", "/static/"])
def test_only_shipped_web_files_are_served(server: LiveServer, path: str) -> None:
    assert _get(server.http, path)[0] == 404


# -- the browser -----------------------------------------------------------------------------

def test_two_pages_at_one_table_both_show_a_roll(browser: Any, server: LiveServer) -> None:
    player = player_page(browser, server.http, "deux")
    gm = gm_page(browser, server.http, "deux")
    player.page.wait_for_selector("#presence .member:has-text('Morgane')")
    player.page.select_option("#ruleset", "oweens")
    player.fill_params({"dice": 4, "difficulty": 3})
    expected = server.odds("deux", "oweens", {"dice": 4, "difficulty": 3})
    assert player.wait_for_odds(expected) == odds_entries(expected)
    seq = player.roll(label="Escalader le mur")
    mine, theirs = player.entry(seq), gm.entry(seq)
    outcome = player.state(f"outcomes.find(o => o.seq === {seq})")
    assert mine["faces"] == theirs["faces"] == [die["face"] for die in outcome["dice"]]
    assert len(mine["faces"]) == 4
    assert mine["label"] == theirs["label"] == outcome["result"]["label"]["fr"]
    assert mine["kind"] == outcome["result"]["kind"]
    assert "Escalader le mur" in theirs["text"] and "Aengus" in theirs["text"]
    player.close()
    gm.close()


BUILTIN_FORMS = {
    "oweens": {"dice": 5, "difficulty": 4, "augmentations": 1, "bagage": True},
    "bloodlust": {"pool": 6, "difficulty": 7, "willpower": True},
    "ladder": {"level": 5, "difficulty": 9, "reroll": True},
    "d6code": {"code": "4D+2", "difficulty": 15, "twin": True, "style": "libre"},
    "seuil": {"level": 3, "threshold": 22, "factors": ["stress_bas", "conseille"]},
}


@pytest.mark.parametrize("ruleset", sorted(BUILTIN_FORMS))
def test_each_builtin_ruleset_form_renders_and_rolls(browser: Any, server: LiveServer,
                                                     ruleset: str) -> None:
    page = player_page(browser, server.http, f"form-{ruleset}")
    page.page.select_option("#ruleset", ruleset)
    described = page.state(f"welcome.rulesets.find(r => r.name === '{ruleset}').params")
    for name, spec in described.items():  # one field per described parameter
        assert page.page.locator(f"#param-{name}").count() == 1, name
        shown = page.page.text_content(f'[data-param="{name}"] .param-name')
        assert shown.rstrip(" *") == spec["label"]["fr"], name  # French names, not ids
    page.fill_params(BUILTIN_FORMS[ruleset])
    expected = server.odds("x", ruleset, BUILTIN_FORMS[ruleset])
    shown = page.wait_for_odds(expected)
    assert shown == odds_entries(expected)
    assert sum(shown.values()) == pytest.approx(1.0)
    seq = page.roll(label=f"essai {ruleset}")
    outcome = page.state(f"outcomes.find(o => o.seq === {seq})")
    assert outcome["ruleset"] == ruleset
    for name, value in BUILTIN_FORMS[ruleset].items():
        assert outcome["params"][name] == value, name
    shown_entry = page.entry(seq)
    assert shown_entry["label"] == outcome["result"]["label"]["fr"]
    assert shown_entry["faces"] == [die["face"] for die in outcome["dice"]]
    page.close()


def test_named_levels_fill_the_number(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "labels")
    page.page.select_option("#ruleset", "ladder")
    page.page.fill("#param-level", "4")
    page.page.select_option('[data-param="difficulty"] select.labels', "9")
    assert page.page.input_value("#param-difficulty") == "9"
    seq = page.roll()
    assert page.state(f"outcomes.find(o => o.seq === {seq}).params.difficulty") == 9
    page.close()


def test_invalid_params_are_shown_on_the_field(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "invalid")
    page.page.select_option("#ruleset", "d6code")
    page.page.fill("#param-code", "quatre dés")
    page.page.fill("#param-difficulty", "15")
    page.page.wait_for_selector('.param.invalid[data-param="code"]')
    note = page.page.text_content("#odds-note")
    # Named as people know it (its label), never by its key.
    assert "« Code de compétence »" in note and "'code'" not in note
    page.page.click("#roll-button")
    page.page.wait_for_selector("#roll-error:not([hidden])")
    assert "« Code de compétence »" in page.page.text_content("#roll-error")
    assert page.state("outcomes.length") == 0
    # The focus goes to the field in error, marked for assistive technologies.
    assert page.page.evaluate("() => document.activeElement.id") == "param-code"
    assert page.page.get_attribute("#param-code", "aria-invalid") == "true"
    page.page.fill("#param-code", "4D+1")
    page.page.wait_for_selector('#param-code:not([aria-invalid])')
    page.close()


def test_blind_roll_is_hidden_to_the_player_and_whole_to_the_gm(browser: Any,
                                                                 server: LiveServer) -> None:
    player = player_page(browser, server.http, "aveugle")
    gm = gm_page(browser, server.http, "aveugle")
    other = player_page(browser, server.http, "aveugle", name="Brann")
    player.page.select_option("#ruleset", "bloodlust")
    player.fill_params({"pool": 5})
    seq = player.roll(mode="blind", label="Fouiller la pièce")
    hidden = player.entry(seq)
    assert hidden["kind"] == "hidden" and hidden["faces"] == [] and hidden["label"] is None
    assert "seul le MJ" in hidden["hidden"]
    whole = gm.entry(seq)
    assert len(whole["faces"]) == 5 and whole["kind"] in (
        "botch", "failure", "narrow", "success", "critical")
    assert whole["mode"] == "blind"
    # The other player gets nothing about it but that it happened: once the next public
    # roll is there (the server sends a table's events in order), the blind one was not.
    marker = server.roll("aveugle", "MJ", "bloodlust", {"pool": 1})["seq"]
    other.wait_for_entry(marker)
    assert other.state(f"outcomes.some(o => o.seq === {seq})") is False
    assert other.entry(seq)["kind"] == "secret"
    for page in (player, gm, other):
        page.close()


def _log_lines(page: TablePage) -> list[tuple[int, str, str]]:
    """The log, oldest first: (seq, kind, text) of each line."""
    return page.page.evaluate("""() => [...document.querySelectorAll('#log .entry')].reverse()
        .map(n => [Number(n.dataset.seq), n.dataset.kind, n.textContent])""")


def test_other_players_secret_rolls_show_as_a_discreet_line(browser: Any,
                                                             server: LiveServer) -> None:
    table = "secrets"
    player = player_page(browser, server.http, table)
    first = server.roll(table, "MJ", "bloodlust", {"pool": 2})["seq"]
    hidden = [server.roll(table, "MJ", "bloodlust", {"pool": 2}, mode=mode)["seq"]
              for mode in ("gm", "blind", "self")]
    player.page.select_option("#ruleset", "seuil")
    player.fill_params({"level": 2, "threshold": 13})
    mine = player.roll(mode="self")  # the player's own secret roll is a roll on their page
    last = server.roll(table, "MJ", "bloodlust", {"pool": 2})["seq"]
    assert [first, *hidden, mine, last] == list(range(first, last + 1))
    player.wait_for_entry(last)
    player.page.wait_for_function("""() => [...document.querySelectorAll(
        '#log .entry-secret .secret-note')].every(n => n.textContent === 'jet secret')""")
    lines = _log_lines(player)
    # The three consecutive hidden rolls: one line, their seqs, no count of rolls (issue 29:
    # a hidden roll and its decision are two seqs, never to be read as two rolls).
    assert [(seq, kind) for seq, kind, _ in lines if kind == "secret"] == [(hidden[0], "secret")]
    assert [seq for seq, _, _ in lines] == [first, hidden[0], mine, last]
    # (Rolls, the history page that looked at their seqs said: no « ou note du MJ ».)
    assert [text for _, kind, text in lines if kind == "secret"] == [
        f"jet secret#{hidden[0]}–{hidden[-1]}"]
    # A page joining later learns the same from the history, up to the join's seq: a hidden
    # roll after the last one it can see counts too.
    tail = server.roll(table, "MJ", "bloodlust", {"pool": 2}, mode="gm")["seq"]
    late = player_page(browser, server.http, table, name="Brann")
    late.page.wait_for_selector(f'#log .entry-secret[data-seq="{tail}"]')
    assert [seq for seq, kind, _ in _log_lines(late) if kind == "secret"] == [hidden[0], tail]
    assert late.page.get_attribute(f'#log .entry-secret[data-seq="{hidden[0]}"]',
                                   "data-seqs") == " ".join(map(str, [*hidden, mine]))
    late.page.click("#lang")
    late.page.wait_for_selector(
        f'#log .entry-secret[data-seq="{tail}"] .secret-note:text-is("secret roll")')
    # A long run is one line too, which claims no count.
    run = [server.roll(table, "MJ", "bloodlust", {"pool": 1}, mode="self")["seq"]
           for _ in range(11)]
    after = server.roll(table, "MJ", "bloodlust", {"pool": 1})["seq"]
    player.wait_for_entry(after)
    line = player.page.locator(f'#log .entry-secret[data-seq="{tail}"]')
    assert line.get_attribute("data-count") == "12"  # the gm roll and the 11 self rolls
    player.page.wait_for_function("""seq => document.querySelector(`#log .entry-secret[data-seq="${
        seq}"] .secret-note`)?.textContent === 'jet secret'""", arg=tail)
    assert line.text_content() == f"jet secret#{tail}–{after - 1}"
    assert run[-1] == after - 1
    for page in (player, late):
        page.close()


def test_gm_enters_physical_dice_and_players_cannot(browser: Any, server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "physique")
    player = player_page(browser, server.http, "physique")
    assert player.page.is_hidden("#manual")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 4, "difficulty": 3})
    assert "dés" in gm.page.text_content("#dice-order")
    gm.page.fill("#manual-dice", "6 6 1, 3")
    seq = gm.roll()
    assert gm.entry(seq)["faces"] == [6, 6, 1, 3]
    assert player.entry(seq)["faces"] == [6, 6, 1, 3]
    # Too few dice: the server's bad_dice message, shown to the GM; nothing rolled.
    gm.page.fill("#manual-dice", "6 6")
    gm.page.click("#roll-button")
    gm.page.wait_for_selector("#roll-error:not([hidden])")
    assert "4" in gm.page.text_content("#roll-error")
    gm.close()
    player.close()


def test_switching_to_english(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "langue")
    page.page.select_option("#ruleset", "seuil")
    page.fill_params({"level": 2, "threshold": 13})
    seq = page.roll()
    page.page.click("#lang")
    assert page.page.text_content("#roller h2") == "Roll the dice"
    label = page.state(f"outcomes.find(o => o.seq === {seq}).result.label.en")
    assert page.entry(seq)["label"] == label
    # It rejoined in English (with resume): the server now answers in English.
    page.page.wait_for_function("() => window.sidecarTable.client.state === 'open'")
    assert page.state("client.locale") == "en"
    assert page.page.input_value("#param-level") == "2"  # the form survived the switch
    page.close()


def test_reconnects_and_resumes_after_a_server_restart(browser: Any, tmp_path: Any) -> None:
    with LiveServer(db=str(tmp_path / "journal.db"), rate_limit=0) as live:
        page = player_page(browser, live.http, "reprise")
        first = live.roll("reprise", "MJ", "bloodlust", {"pool": 3})
        page.wait_for_entry(first["seq"])
        # No retry on its own before the rolls below are made: the browser saying it is
        # back online makes it try at once.
        page.page.evaluate("() => { window.sidecarTable.client.minDelay = 600_000; }")
        live.stop()
        page.page.wait_for_selector("#status.status-reconnecting")
        live.start()
        missed = [live.roll("reprise", "MJ", "bloodlust", {"pool": 2})["seq"] for _ in range(3)]
        page.page.evaluate("() => window.dispatchEvent(new Event('online'))")
        for seq in missed:
            page.wait_for_entry(seq)
        page.page.wait_for_selector("#status.status-open")
        assert page.state("welcome.replayed") == 3  # they came from the journal, by resume
        assert page.state("outcomes.map(o => o.seq)") == [first["seq"], *missed]
        page.close(server_went_away=True)


def test_a_request_as_the_socket_closes_waits_for_the_reconnection(browser: Any,
                                                                    server: LiveServer) -> None:
    """The odds asked while the connection is closing (before the browser says it closed)
    are not written to a dead socket (Chromium logs that as an error): they fail once the
    page is back, and the page asks again."""
    page = player_page(browser, server.http, "fermeture")
    code = page.page.evaluate("""() => {
        const client = window.sidecarTable.client;
        client._ws.close(4000, "test");
        return client.odds("bloodlust", {pool: 2}).then(() => "answered", (e) => e.code);
    }""")
    assert code == "closed"
    page.page.wait_for_function("() => window.sidecarTable.client.state === 'open'")
    page.close()  # and nothing in the console


def test_refused_on_reconnection_goes_back_to_the_join_form(browser: Any) -> None:
    with LiveServer(rate_limit=0) as live:
        page = player_page(browser, live.http, "jetons")
        page.page.evaluate("() => { window.sidecarTable.client.minDelay = 50; }")
        live.stop()
        live.start(player_token="nouveau-jeton")  # restarted with new tokens
        page.page.wait_for_selector("#join:not([hidden])")
        message = page.page.text_content("#join-error")
        assert "rejoignez-la" in message and "jeton" in message.lower()
        page.page.fill("#join-token", "nouveau-jeton")
        page.page.click("#join-form button[type=submit]")
        page.page.wait_for_selector("#table:not([hidden])")
        assert page.state("client.state") == "open"
        page.close(server_went_away=True)


PLUGIN = textwrap.dedent('''
    """A third-party ruleset the page has never heard of: coin flips."""
    from sidecar import hookimpl
    from sidecar.model import Outcome

    @hookimpl
    def sidecar_rulesets():
        return [{"name": "pieces", "title": {"fr": "Pile ou face", "en": "Coin flips"},
                 "version": "0.1", "params": {
            "coins": {"type": "int", "min": 1, "max": 9, "required": True,
                      "labels": {"Peu": 2, "Beaucoup": 7},
                      "description": {"fr": "Pièces lancées", "en": "Coins flipped"}},
            "side": {"type": "string", "choices": ["pile", "face"], "default": "pile",
                     "description": {"fr": "Le côté gagnant", "en": "Winning side"}},
            "double": {"type": "bool", "default": False,
                       "description": {"fr": "Il en faut deux", "en": "Two needed"}},
            "omens": {"type": "list", "choices": ["corbeau", "lune"], "default": [],
                      "max_items": 2, "description": {"fr": "Présages", "en": "Omens"}},
        }}]

    @hookimpl
    def sidecar_resolve(roll, dice):
        if roll.ruleset != "pieces":
            return None
        faces = dice.roll_many(roll.params["coins"], 2)
        wins = sum(1 for face in faces if face == (1 if roll.params["side"] == "pile" else 2))
        need = 2 if roll.params["double"] else 1
        success = wins >= need
        return Outcome(result={"success": success, "margin": wins - need,
                               "kind": "success" if success else "failure",
                               "label": {"fr": "Gagné" if success else "Perdu",
                                         "en": "Won" if success else "Lost"},
                               "wins": wins, "omens": roll.params["omens"]})
''')


def test_a_third_party_ruleset_gets_a_form(browser: Any, tmp_path: Any) -> None:
    (tmp_path / "pieces.py").write_text(PLUGIN)
    with LiveServer(plugins_dir=str(tmp_path), rate_limit=0) as live:
        page = player_page(browser, live.http, "pieces")
        page.page.select_option("#ruleset", "pieces")
        assert page.page.eval_on_selector("#param-coins", "n => n.type") == "number"
        assert page.page.eval_on_selector("#param-side", "n => n.tagName") == "SELECT"
        assert page.page.eval_on_selector("#param-double", "n => n.type") == "checkbox"
        assert page.page.locator("#param-omens input[type=checkbox]").count() == 2
        assert "Pièces lancées" in page.page.text_content('[data-param="coins"]')
        page.page.select_option('[data-param="coins"] select.labels', "7")
        page.fill_params({"side": "face", "double": True, "omens": ["lune"]})
        # No sidecar_odds in this plugin: the page says so instead of drawing bars.
        page.page.wait_for_function("() => document.querySelector('#odds-note').textContent !== ''")
        seq = page.roll()
        outcome = page.state(f"outcomes.find(o => o.seq === {seq})")
        assert outcome["params"] == {"coins": 7, "side": "face", "double": True,
                                     "omens": ["lune"]}
        assert page.entry(seq)["faces"] == [die["face"] for die in outcome["dice"]]
        assert len(outcome["dice"]) == 7
        page.close()


def test_the_page_fits_a_phone(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "mobile", viewport=(390, 844))
    page.page.select_option("#ruleset", "oweens")
    page.fill_params({"dice": 3})
    page.roll()
    width = page.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    page.close()


def test_extension_options_and_notes(browser: Any, server: LiveServer) -> None:
    """Options typed for an extension reach it; its note shows in everyone's log."""
    gm = gm_page(browser, server.http, "notes")
    player = player_page(browser, server.http, "notes")
    gm.page.select_option("#ruleset", "bloodlust")
    gm.fill_params({"pool": 3})
    gm.page.click("#ext-options summary")  # (folded at first)
    gm.page.check("#option-blank_botch-on")  # its fieldset, built from welcome.options
    gm.page.fill("#manual-dice", "1 2 3")  # no success and a 1: an échec critique
    seq = gm.roll()
    outcome = gm.state(f"outcomes.find(o => o.seq === {seq})")
    assert outcome["applied"] == ["blank_botch"] and outcome["notes"]
    for page in (gm, player):
        page.wait_for_entry(seq)
        shown = page.page.eval_on_selector_all(
            f'#log .entry[data-seq="{seq}"] .note', "nodes => nodes.map(n => n.textContent)")
        assert shown == outcome["notes"]
    gm.close()
    player.close()
