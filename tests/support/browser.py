"""The web table in Debian's Chromium (Playwright): launching it, a page joined to a table,
and what a person does on the page (roll, decide an open roll, ask, add a seat).

Without Chromium or Playwright the browser tests skip, unless SIDECAR_REQUIRE_BROWSER=1
(set by ``.ci/run``, which installs Debian's chromium-headless-shell) makes that a failure.
The ``browser`` fixture (tests/conftest.py) starts one per test module.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any, NoReturn
from urllib.parse import urlencode

import pytest

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.support.plugins import ALWAYS_OPEN

#: Debian's chromium-headless-shell when installed (``.ci/run`` installs it): the same
#: engine without the desktop browser around it, for half the CPU of a browser test
#: (measured on tests/test_web_table.py: 15 s against 30 s of CPU); else Chromium itself.
CHROMIUM = (os.environ.get("SIDECAR_CHROMIUM") or shutil.which("chromium-headless-shell")
            or shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
# How long a page may take to reach a state. Only a failing test waits this long; CI
# runs on a shared 2-core machine where a roll's round trip has been seen over 10 s.
TIMEOUT_MS = 30_000


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it where the browser is required (CI)."""
    if os.environ.get("SIDECAR_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required but {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def driver() -> Iterator[Any]:
    """Playwright's driver (one per process: the sync API allows no second one at once)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed")
    if not os.path.exists(CHROMIUM):
        unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium-headless-shell)")
    with sync_playwright() as playwright:
        yield playwright


def launch(playwright: Any, *flags: str) -> Any:
    """A headless Chromium (Playwright's Browser) with ``CHROMIUM_FLAGS`` and ``flags``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_FLAGS, *flags])


@contextlib.contextmanager
def chromium(*flags: str) -> Iterator[Any]:
    """A driver and a Chromium of its own, for a script outside the test session."""
    with driver() as playwright:
        browser = launch(playwright, *flags)
        yield browser
        browser.close()


class TablePage:
    """One browser page joined to a table, with the errors it logged."""

    def __init__(self, browser: Any, base: str, *, table: str = "", name: str = "",
                 role: str = "player", token: str | None = None,
                 viewport: tuple[int, int] = (1200, 900), link: str | None = None,
                 joined: bool = True) -> None:
        """Open the page and join (``link``: a seat's link, which joins by itself);
        ``joined=False`` leaves it where it stands (a refused join)."""
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text)
                     if message.type == "error" else None)
        if link is not None:
            self.page.goto(link)
        else:
            query = {"table": table, "name": name, "role": role}
            if token:
                query["token"] = token
            self.page.goto(f"{base}/?{urlencode(query)}")
            self.page.click("#join-form button[type=submit]")
        if joined:
            self.page.wait_for_selector("#table:not([hidden])")

    def state(self, expression: str) -> Any:
        return self.page.evaluate(f"() => window.sidecarTable.{expression}")

    def wait_for_entry(self, seq: int) -> Any:
        return self.page.wait_for_selector(entry_selector(seq))

    def entry(self, seq: int) -> dict[str, Any]:
        """What the log shows for one outcome: kind, faces, label, hidden note."""
        self.wait_for_entry(seq)
        return self.page.evaluate("""(seq) => {
            const entry = document.querySelector(
                `#log .entry[data-seq="${seq}"], #log .entry[data-seqs~="${seq}"]`);
            const kind = entry.querySelector('.kind');
            return {kind: entry.dataset.kind, mode: entry.dataset.mode,
                    faces: [...entry.querySelectorAll('.die .face')]
                        .map(n => Number(n.textContent)),
                    label: kind ? kind.textContent : null,
                    hidden: entry.querySelector('.hidden-note')?.textContent ?? null,
                    text: entry.textContent};
        }""", seq)

    def fill_params(self, values: dict[str, Any]) -> None:
        """Fill the roll form as a person would: a folded field's « plus d'options »
        opened, a situation's switch (O'Ween's `drinking`) chosen as the « Situation »."""
        for name, value in values.items():
            selector = f"#param-{name}"
            if self.page.evaluate("""(name) => {
                    const node = document.getElementById(`param-${name}`);
                    const more = node?.closest('details.more-params');
                    if (more) more.open = true;
                    return Boolean(node?.closest('.param')?.hidden);}""", name):
                self.page.select_option("#param-situation", name if value else "")
                continue
            situation = self.page.evaluate("""(name) => document.getElementById(`param-${name}`)
                ?.closest('.situation-fields')?.dataset.situation ?? null""", name)
            if situation and self.page.input_value("#param-situation") != situation:
                self.page.select_option("#param-situation", situation)
            if isinstance(value, bool):
                self.page.set_checked(selector, value)
            elif isinstance(value, list):
                for choice in value:
                    self.page.check(f'{selector} input[value="{choice}"]')
            elif self.page.eval_on_selector(selector, "n => n.tagName") == "SELECT":
                self.page.select_option(selector, str(value))
            else:
                self.page.fill(selector, str(value))

    def odds_shown(self) -> dict[str, float]:
        self.page.wait_for_selector("#odds:not(.stale) .bar")
        return self.page.evaluate("""() => Object.fromEntries(
            [...document.querySelectorAll('#odds-bars .bar')].map(
                bar => [bar.dataset.kind, Number(bar.dataset.p)]))""")

    def wait_for_odds(self, expected: dict[str, Any]) -> dict[str, float]:
        """The odds the panel shows once it shows ``expected["kinds"]`` (the answer to the
        debounced request for the form as filled, not to a form on the way there)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        with contextlib.suppress(PlaywrightTimeout):
            self.page.wait_for_function("""(kinds) => {
                const bars = [...document.querySelectorAll('#odds:not(.stale) #odds-bars .bar')];
                return bars.length === Object.keys(kinds).length && bars.every(
                    bar => Math.abs(Number(bar.dataset.p) - kinds[bar.dataset.kind]) < 1e-12);
            }""", arg=expected["kinds"])
        return self.odds_shown()  # compared by the caller, which shows the difference

    def roll(self, *, mode: str = "public", label: str = "") -> int:
        """Click the roll button; returns the seq of this page's new outcome."""
        before = self.state("outcomes.length")
        self.page.fill("#roll-label", label)
        self.page.check(f'input[name="mode"][value="{mode}"]')
        self.page.click("#roll-button")
        # The outcome, or the page's refusal: a refused roll fails here with the page's own
        # words instead of a bare time-out.
        self.page.wait_for_function("""n => window.sidecarTable.outcomes.length > n
            || !document.getElementById("roll-error").hidden""", arg=before)
        refused = self.page.evaluate(
            "() => document.getElementById('roll-error').hidden ? null"
            " : document.getElementById('roll-error').textContent")
        assert refused is None, f"the page refused the roll: {refused}"
        return self.state("outcomes[window.sidecarTable.outcomes.length - 1].seq")

    def close(self, *, server_went_away: bool = False) -> None:
        # Leave the table first, as a person closing the tab would: a request the page
        # was about to send (odds after a change) then finds the client closed, instead of
        # a socket the browser is tearing down (Chromium logs that as an error).
        # What the page logged until now is what a person using it met; what a request
        # in flight says once the test closed its client (« closed: connection closed »,
        # seen under a loaded suite) is the test's teardown, not the page's error.
        errors = list(self.errors)
        with contextlib.suppress(Exception):
            self.page.evaluate("() => window.sidecarTable.client?.close()")
        self.context.close()
        if server_went_away:
            # Chromium itself logs each refused reconnection attempt; that is expected
            # while the server is down, and no error of the page's.
            errors = [e for e in errors if "ERR_CONNECTION_REFUSED" not in e]
        assert not errors, errors


def player_page(browser: Any, base: str, table: str, name: str = "Aengus",
                **kwargs: Any) -> TablePage:
    return TablePage(browser, base, table=table, name=name, role="player",
                     token=PLAYER_TOKEN, **kwargs)


def gm_page(browser: Any, base: str, table: str, name: str = "Morgane") -> TablePage:
    return TablePage(browser, base, table=table, name=name, role="gm", token=GM_TOKEN)


def odds_entries(odds: dict[str, Any]) -> dict[str, float]:
    return {kind: pytest.approx(p, abs=1e-12) for kind, p in odds["kinds"].items()}


# -- what a person does on the page --------------------------------------------------------

def roll_open(page: TablePage, mode: str = "public") -> int:
    """Roll the `luck` roll that always fails and stays open; returns its seq."""
    page.page.select_option("#ruleset", "luck")
    page.fill_params(ALWAYS_OPEN)
    return page.roll(mode=mode, label="Crocheter")


def entry_selector(seq: int) -> str:
    """The log's card for an outcome's seq: its own, or the open roll's card a decision is
    drawn on (`data-seqs`, PROTOCOL.md §7.6: one roll, one card)."""
    return f'#log .entry[data-seq="{seq}"], #log .entry[data-seqs~="{seq}"]'


def card(page: TablePage, seq: int) -> Any:
    return page.page.locator(entry_selector(seq))


def open_ask_form(gm: TablePage) -> None:
    if not gm.page.eval_on_selector("#gm-ask", "n => n.open"):
        gm.page.click("#gm-ask summary")


def ask(gm: TablePage, names: list[str], label: str, params: dict[str, Any],
        *, each: dict[str, dict[str, Any]] | None = None, mode: str = "public") -> str:
    """The GM asks from the panel; returns the ask's id (its card's)."""
    page = gm.page
    open_ask_form(gm)
    before = page.locator("#asks .ask-card").count()
    for name in names:
        box = page.locator(f'#ask-targets input[value="{name}"]')
        box.wait_for(state="attached")
        box.check()
    page.select_option("#ask-ruleset", "luck")
    for name, value in params.items():
        if isinstance(value, bool):
            page.set_checked(f"#askp-{name}", value)
        else:
            page.fill(f"#askp-{name}", str(value))
    if each:
        page.check("#ask-opposed")
        for name, values in each.items():
            side = page.locator(f'#ask-sides [data-side="{name}"]')
            side.locator("summary").click()  # (each side is one folded line)
            for param, value in values.items():
                side.locator(f'[id$="-{param}"]').fill(str(value))
    page.select_option("#ask-mode", mode)
    page.get_by_label("Quel jet (ex. Perception)").fill(label)
    page.get_by_label("Quel jet (ex. Perception)").press("Enter")  # the keyboard is enough
    page.wait_for_function("n => document.querySelectorAll('#asks .ask-card').length > n",
                           arg=before)
    return page.locator("#asks .ask-card").first.get_attribute("data-ask")


def add_seat(gm: TablePage, name: str) -> str:
    """The GM adds a seat from the panel; returns the link it shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    page = gm.page
    # Opened, not clicked: the page may open the panel by itself a moment after joining (a
    # table without seats yet), and a click then would close it again (seen under load).
    try:
        page.wait_for_function("""() => {
            const panel = document.getElementById("gm-seats");
            if (panel && !panel.open) panel.open = true;
            return document.getElementById("seat-name")?.checkVisibility(); }""")
    except PlaywrightTimeout:
        pytest.fail(f"no seat form: table shown {page.is_visible('#table')}, join error "
                    f"{page.text_content('#join-error')!r}, seats open "
                    f"{page.eval_on_selector('#gm-seats', 'n => n.open')}, page errors "
                    f"{gm.errors}")
    page.get_by_label("Nom du joueur").fill(name)
    page.get_by_label("Nom du joueur").press("Enter")  # the keyboard is enough
    link = page.locator(f'.seat[data-seat="{name}"] input.seat-link')
    link.wait_for()
    return link.input_value()
