"""Takes the web table's screenshots in docs/ (run after changing the page):

    .venv/bin/python docs/screenshots.py

Needs Debian's chromium and the test extra (playwright). A real sidecar runs on a loopback
port; a GM and two players roll at one table; the GM gives Léa a seat and her O'Ween's
character Aengus; Léa's page, joined from the seat's link, is captured on a laptop-sized and a
phone-sized screen (and on the phone just after rolling,
web-table-phone-rolled.png), and the GM's panel (the seat's link and QR code, the characters) in
web-table-gm.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.live_server import LiveServer  # noqa: E402
from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

DOCS = Path(__file__).resolve().parent
ROLLS = [
    ("Morgane", "bloodlust", {"pool": 6, "difficulty": 7}, "Intimider le garde", "public"),
    ("Brann", "ladder", {"level": 5, "difficulty": 7, "reroll": True}, "Crocheter la serrure",
     "public"),
    ("Brann", "bloodlust", {"pool": 5, "difficulty": 6, "willpower": True}, "Résister",
     "public"),
    ("Morgane", "d6code", {"code": "4D+2", "difficulty": 15, "twin": True}, "Piloter", "public"),
    ("Brann", "seuil", {"level": 3, "threshold": 22}, "Fouiller la crypte", "blind"),
    ("Ysolde", "oweens", {"dice": 5, "difficulty": 4}, "Escalader le mur", "public"),
]


#: Léa's character Aengus, as the GM's page sets it (fields the O'Ween's sheet lacks are left out).
AENGUS = {"pep": 2, "ecl": 3, "enc": 3, "fla": 2, "reserve_ecl": -1, "bonbonus": 4,
          "bagages": ["marin-pêcheur"], "blessures": 1}


def seat_and_character(gm: Page) -> str:
    """The GM adds Léa's seat from the panel and gives her a character, Aengus (a seat and
    a character of one name read « Aengus ⚑ ×2 … en tant qu'Aengus »); returns the seat's
    link."""
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


def main() -> None:
    with LiveServer(rate_limit=0) as live, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for name, ruleset, params, label, mode in ROLLS:
            live.roll("crypte", name, ruleset, params, role="gm" if name == "Morgane"
                      else "player", label=label, mode=mode)
        gm = browser.new_page(viewport={"width": 1280, "height": 1300})
        # The GM's link (its token after #) joins by itself.
        gm.goto(f"{live.http}/?table=crypte&name=Morgane&role=gm#token={live.config.gm_token}")
        gm.wait_for_selector("#table:not([hidden])")
        link = seat_and_character(gm)
        contexts = []
        for size, path in (((1280, 860), "web-table.png"), ((390, 844), "web-table-phone.png")):
            context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                          device_scale_factor=2 if size[0] < 500 else 1)
            contexts.append(context)
            page = context.new_page()
            page.goto(link)
            page.wait_for_selector("#table:not([hidden])")
            page.wait_for_selector("#log .entry")
            page.wait_for_selector("#character:not([hidden])")
            page.fill("#param-difficulty", "3")
            page.fill("#roll-label", "Forcer la porte")
            page.wait_for_selector("#odds:not(.stale) .bar")
            page.evaluate("() => window.scrollTo(0, 0)")
            page.wait_for_timeout(500)
            page.screenshot(path=str(DOCS / path))
            if size[0] < 500:
                # On a phone, after "Lancer !": the new roll is on the screen, under the
                # button (the page scrolls to it; nothing sticky covers the form).
                before = page.evaluate("() => window.sidecarTable.outcomes.length")
                page.click("#roll-button")
                page.wait_for_function("n => window.sidecarTable.outcomes.length > n",
                                       arg=before)
                page.wait_for_timeout(800)
                page.screenshot(path=str(DOCS / "web-table-phone-rolled.png"))
        # Léa is at the table (her pages are open): the panel says so.
        gm.click("#gm-characters summary")
        gm.wait_for_selector('.seat[data-seat="Léa"].online')
        gm.wait_for_timeout(500)
        gm.locator("#gm-panel").screenshot(path=str(DOCS / "web-table-gm.png"))
        for context in contexts:
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
