"""The page in English and across a restart (issue 29, newcomer replays): English
typography in the odds and an ask's lines, an ask's log line in natural English (French
with its elision), an opposition's card after a reload in the ruleset's margin words
(« MR 2 »), no unhandled rejection when the server goes away with a request pending,
and no odds asked for a form that cannot have any. Chromium at 390 px against real
servers; skips like tests/test_web_table.py without Chromium."""

from __future__ import annotations

from typing import Any

from tests.helpers import GM_TOKEN
from tests.support.browser import TablePage
from tests.support.serve import free_port, serve_on
from tests.test_web_evening import PHONE

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
