"""Takes the screenshots of « Une soirée de MJ » (docs/SOIREE.md), run after changing the page:

    .venv-test/bin/python docs/soiree_screenshots.py

Needs Debian's chromium and the test extra (playwright). A real sidecar runs on a loopback
port; the GM's page (laptop-sized) gives Léa a seat and Aengus, an O'Ween's character; Léa's
page (a phone, 390 px) joins from the seat's link, rolls as his character, then gets the
GM's asked roll and answers it; the GM's ask card fills. Each step is one PNG in docs/,
named ``soiree-N-….png``: look at each one after a run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from docs.screenshots import AENGUS  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402
from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

DOCS = Path(__file__).resolve().parent
#: What the GM asks of Aengus: the O'Ween's roll the evening's text describes.
ASK = {"type": "ask", "op": "open", "to": ["Aengus"], "ruleset": "oweens",
       "params": {"characteristic": "ECL", "difficulty": 3}, "label": "Escalader le mur",
       "mode": "public"}


def seat_and_character(gm: Page) -> str:
    """The GM adds Léa's seat from the panel and gives her Aengus, an O'Ween's character
    (as the page's « Nouveau personnage » form sends it); returns the seat's link."""
    gm.click("#gm-seats summary")
    gm.fill("#seat-name", "Léa")
    gm.click("#seat-form button[type=submit]")
    link = gm.locator('.seat[data-seat="Léa"] input.seat-link')
    link.wait_for()
    gm.evaluate("""(values) => {
        const sheet = window.sidecarTable.welcome.rulesets.find(r => r.name === "oweens").sheet;
        const known = Object.fromEntries(Object.entries(values).filter(([k]) => k in sheet));
        return window.sidecarTable.client.request({type: "sheet", op: "set",
            character: "Aengus", ruleset: "oweens", owner: "Léa", values: known,
            reason: "Création"});
    }""", AENGUS)
    gm.wait_for_selector('#sheet-list .sheet-item[data-character="Aengus"]', state="attached")
    return link.input_value()


def shot(page: Page, name: str, selector: str | None = None) -> None:
    """One PNG in docs/: the element ``selector``, or what the screen shows."""
    page.wait_for_timeout(400)  # the page's own transitions (the odds bars) end
    if selector:
        page.locator(selector).screenshot(path=str(DOCS / name))
    else:
        page.screenshot(path=str(DOCS / name))


def main() -> None:
    with LiveServer(rate_limit=0) as live, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        # Warm-up: a roll of the GM's, so the logs are not empty.
        live.roll("crypte", "Morgane", "oweens", {"dice": 4, "difficulty": 2},
                  role="gm", label="Ouvrir la séance", mode="public")
        gm = browser.new_page(viewport={"width": 1280, "height": 1100})
        # The GM's link (its token after #) joins by itself.
        gm.goto(f"{live.http}/?table=crypte&name=Morgane&role=gm#token={live.config.gm_token}")
        gm.wait_for_selector("#table:not([hidden])")
        link = seat_and_character(gm)
        shot(gm, "soiree-1-seat.png", '.seat[data-seat="Léa"]')

        phone = browser.new_context(viewport={"width": 390, "height": 844},
                                    device_scale_factor=2)
        player = phone.new_page()
        player.goto(link)
        player.wait_for_selector("#table:not([hidden])")
        player.wait_for_selector("#character:not([hidden])")
        player.fill("#param-difficulty", "3")
        player.fill("#roll-label", "Forcer la porte")
        player.wait_for_selector("#odds:not(.stale) .bar")
        player.evaluate("() => window.scrollTo(0, 0)")
        shot(player, "soiree-2-roll.png")
        # Rolled until a roll stays open with a purchase to offer (a failure short of its
        # difficulty, which BB+ can mend): that is the moment the evening describes.
        for _ in range(8):
            before = player.evaluate("() => window.sidecarTable.outcomes.length")
            player.click("#roll-button")
            player.wait_for_function("n => window.sidecarTable.outcomes.length > n", arg=before)
            player.wait_for_timeout(300)
            if player.locator("#log .choice:not(.default)").count():
                break
        # From the odds down (no line of the form cut in half at the top), the roll's card below.
        player.evaluate("""() => window.scrollTo(0, document.querySelector('#odds')
            .getBoundingClientRect().top + window.scrollY - 12)""")
        shot(player, "soiree-3-rolled.png")
        if player.locator("#log .choice:not(.default)").count():
            player.locator("#log .choice:not(.default)").first.click()
            player.wait_for_selector("#log .decided")

        gm.evaluate("(ask) => window.sidecarTable.client.request(ask)", ASK)
        player.wait_for_selector("#asks-card:not([hidden]) .ask-roll")
        player.locator("#asks-card").scroll_into_view_if_needed()
        shot(player, "soiree-4-player.png")
        before = player.evaluate("() => window.sidecarTable.outcomes.length")
        player.click("#asks .ask-roll")
        gm.wait_for_selector('#asks .ask-line[data-state="answered"]')
        # Léa's answer may stay open (BB+ could buy it up): she keeps it, so the GM's card
        # shows the answer as it ends, not « décision en attente ».
        player.wait_for_function("n => window.sidecarTable.outcomes.length > n", arg=before)
        player.wait_for_timeout(300)
        if player.locator("#log .entry:not(:has(.decided)) .choice.default").count():
            player.locator("#log .entry:not(:has(.decided)) .choice.default").first.click()
            gm.wait_for_function("""() => !document.querySelector('#asks .ask-answer')
                .textContent.includes('attente')""")
        shot(gm, "soiree-5-ask.png", "#asks-card")
        phone.close()
        browser.close()


if __name__ == "__main__":
    main()
