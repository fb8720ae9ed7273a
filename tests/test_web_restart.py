"""The web table across a restart of ``sidecar serve`` (issue 29, item 12): a page that
reconnects learns what the new welcome describes (a plugin loaded since), without a reload,
keeping the game and values in its form; and a `dice` total without a target shows its
distribution only (item 17), in Chromium against real ``sidecar serve`` processes."""

from __future__ import annotations

from typing import Any

from tests.support.browser import gm_page, player_page
from tests.support.plugins import write_plugins
from tests.support.serve import free_port, serve_on

#: A ruleset the page has never seen, installed while the server is down.
COINS = '''
from sidecar import hookimpl
from sidecar.model import Outcome


@hookimpl
def sidecar_rulesets():
    return [{"name": "pieces", "title": {"fr": "Pile ou face", "en": "Coin flips"},
             "version": "0.1",
             "params": {"coins": {"type": "int", "min": 1, "max": 9, "default": 3}}}]


@hookimpl
def sidecar_resolve(roll, dice):
    faces = dice.roll_many(roll.params["coins"], 2)
    won = 1 in faces
    return Outcome(result={"success": won, "margin": 0, "kind": "success" if won else "failure",
                           "label": {"fr": "Gagné" if won else "Perdu",
                                     "en": "Won" if won else "Lost"}})
'''


def test_a_reconnecting_page_learns_a_plugin_loaded_since(browser: Any, tmp_path: Any) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    port, journal = free_port(), tmp_path / "journal.db"
    server = serve_on(port, journal, "--plugins-dir", str(plugins))
    base = server.url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    try:
        gm = gm_page(browser, base, "reprise")
        player = player_page(browser, base, "reprise")
        for page in (gm, player):
            assert page.page.locator('#ruleset option[value="pieces"]').count() == 0
            page.page.select_option("#ruleset", "oweens")
            page.fill_params({"dice": 4})
            # No retry on its own while the server is down: the test says when it is back.
            page.page.evaluate("() => { window.sidecarTable.client.minDelay = 600_000; }")
        server.stop()
        for page in (gm, player):
            page.page.wait_for_selector("#status.status-reconnecting")
        write_plugins(plugins, pieces=COINS)
        server = serve_on(port, journal, "--plugins-dir", str(plugins))
        for page in (gm, player):
            page.page.evaluate("() => window.dispatchEvent(new Event('online'))")
            page.page.wait_for_selector("#status.status-open")
            # The new game in every picker, without a reload; the form as it was.
            page.page.wait_for_selector('#ruleset option[value="pieces"]', state="attached")
            assert page.page.input_value("#ruleset") == "oweens"
            assert page.page.input_value("#param-dice") == "4"
        for picker in ("#ask-ruleset", "#sheet-ruleset"):
            assert gm.page.locator(f'{picker} option[value="pieces"]').count() == 1
        player.page.select_option("#ruleset", "pieces")
        assert player.page.input_value("#param-coins") == "3"
        seq = player.roll()
        assert player.state(f"outcomes.find(o => o.seq === {seq}).ruleset") == "pieces"
        for page in (gm, player):
            page.close(server_went_away=True)
    finally:
        server.stop()


def test_dice_odds_without_a_target_show_the_distribution_only(browser: Any,
                                                                tmp_path: Any) -> None:
    server = serve_on(free_port(), tmp_path / "journal.db")
    base = server.url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    try:
        page = player_page(browser, base, "des", viewport=(390, 844))
        page.page.select_option("#ruleset", "dice")
        page.fill_params({"expr": "2d6"})
        page.page.wait_for_selector("#odds:not(.stale) #odds-dist .column", state="attached")
        assert page.page.locator("#odds-dist .column").count() == 11
        # No « 100 % de réussite », no row of kinds at 0 %: no verdict without a target.
        assert not page.page.is_visible("#odds-success")
        assert not page.page.is_visible("#odds-bars")
        assert not page.page.is_visible("#odds-stack")
        page.fill_params({"target": 8})
        page.page.wait_for_function(
            "() => document.querySelector('#odds-success').textContent.includes('42')")
        assert page.page.is_visible("#odds-success") and page.page.is_visible("#odds-bars")
        page.close()
    finally:
        server.stop()
