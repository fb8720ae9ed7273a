"""The GM's ask form and the ask cards on a phone (issue 29, the GM's evening at 390 px), in
a real headless Chromium against a real sidecar: the people an ask goes to flow several to a
line (short names, each still a thumb's target), and an ask card's refusal follows the
language switch. Skips like tests/test_web_table.py without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import TablePage
from tests.test_web_evening import PHONE, oweens_table

#: The four targets' box (two seats, their two characters) at 390 px: 233 px before, one
#: line each (each chip carried its hint, « personnage d'Aengus », as wide as the form);
#: two lines of 44 px chips, the hint under the name, after (94 px; a margin for fonts).
FOUR_TARGETS = 110
#: A touch target's least height (the chips are 2.75 rem: 44 px).
THUMB = 40


def chip_boxes(page: TablePage) -> list[dict[str, float]]:
    return page.page.eval_on_selector_all("#ask-targets label", """labels => labels.map(
        n => { const r = n.getBoundingClientRect();
               return {top: Math.round(r.top), height: r.height, width: r.width}; })""")


def test_the_ask_forms_targets_flow_several_to_a_line(browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "puces")
    page = gm.page
    page.click("#gm-ask summary")
    page.wait_for_function("document.querySelectorAll('#ask-targets label').length === 4")
    boxes = chip_boxes(gm)
    height = page.eval_on_selector("#ask-targets", "n => n.getBoundingClientRect().height")
    assert height <= FOUR_TARGETS, f"{height:.0f} px: {boxes}"
    assert len({box["top"] for box in boxes}) <= 2, boxes
    assert all(box["height"] >= THUMB for box in boxes), boxes
    # Still saying who each is (a seat, whose character), and each box ticks by its name.
    text = page.text_content("#ask-targets")
    assert "Ervald" in text and "Aengus" in text, text
    page.click('#ask-targets label:has(input[value="Ervald"])')
    assert page.is_checked('#ask-targets input[value="Ervald"]')
    # Nothing wider than the phone: no sideways scroll.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    gm.close()
