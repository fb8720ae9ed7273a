"""Takes the web table's screenshots in docs/ (run after changing the page):

    .venv/bin/python docs/screenshots.py

Needs Debian's chromium and the test extra (playwright). A real sidecar runs on a loopback
port; a GM and two players roll at one table, then a player's page is captured on a
laptop-sized and a phone-sized screen.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.live_server import LiveServer  # noqa: E402
from tests.test_web_table import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402

DOCS = Path(__file__).resolve().parent
ROLLS = [
    ("Morgane", "bloodlust", {"pool": 6, "difficulty": 7}, "Intimider le garde", "public"),
    ("Brann", "ladder", {"level": 5, "difficulty": 7, "reroll": True}, "Crocheter la serrure",
     "public"),
    ("Brann", "bloodlust", {"pool": 5, "difficulty": 6, "willpower": True}, "Résister",
     "public"),
    ("Morgane", "d6code", {"code": "4D+2", "difficulty": 15, "twin": True}, "Piloter", "public"),
    ("Brann", "seuil", {"level": 3, "threshold": 22}, "Fouiller la crypte", "blind"),
    ("Aengus", "oweens", {"dice": 5, "difficulty": 4}, "Escalader le mur", "public"),
]


def main() -> None:
    with LiveServer(rate_limit=0) as live, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for name, ruleset, params, label, mode in ROLLS:
            live.roll("crypte", name, ruleset, params, role="gm" if name == "Morgane"
                      else "player", label=label, mode=mode)
        for size, path in (((1280, 860), "web-table.png"), ((390, 844), "web-table-phone.png")):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]},
                                    device_scale_factor=2 if size[0] < 500 else 1)
            page.goto(f"{live.http}/?table=crypte&name=Aengus&token={live.config.player_token}")
            page.click("#join-form button[type=submit]")
            page.wait_for_selector("#log .entry")
            page.select_option("#ruleset", "oweens")
            page.fill("#param-dice", "5")
            page.fill("#param-difficulty", "4")
            page.fill("#param-augmentations", "1")
            page.fill("#roll-label", "Forcer la porte")
            page.wait_for_selector("#odds:not(.stale) .bar")
            page.wait_for_timeout(500)
            page.screenshot(path=str(DOCS / path))
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
