"""Small slips of the phone page (issue 29 follow-up), in a real headless Chromium at 390 px
against a real sidecar: a raised die's tooltip says its face then what it became
(« d6 : 5, relevé à 6 », not « d6 — augmenté à 5→6 »); an opposed ask's side that has
nothing of its own to set is no fold that opens on nothing. Skips like
tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import add_seat
from tests.support.plugins import write_plugins
from tests.test_web_evening import open_ask, oweens_table, phone_gm, send_ask

#: A game whose only param is a switch: an opposed side has nothing of its own to set.
COIN = '''
from sidecar import hookimpl
from sidecar.model import Outcome

@hookimpl
def sidecar_rulesets():
    return [{"name": "pile", "title": "Pile ou face", "version": "1.0",
             "params": {"pipee": {"type": "bool", "default": False}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    if roll.ruleset != "pile":
        return None
    face = dice.roll(2)
    return Outcome(result={"kind": "success" if face == 2 else "failure"}, text=str(face))
'''


def test_a_raised_dies_tooltip_says_its_face_then_what_it_became(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "infobulle")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 3, "difficulty": 2, "augmentations": 2})
    gm.page.fill("#manual-dice", "3 1 5")  # physical dice: the faces are the GM's
    seq = gm.roll()
    outcome = gm.state(f"outcomes.find(o => o.seq === {seq})")
    titles = gm.page.eval_on_selector_all(f'#log .entry[data-seq="{seq}"] .die',
                                          "nodes => nodes.map(n => n.title)")
    raised = [(index, die) for index, die in enumerate(outcome["dice"]) if die.get("raised_to")]
    assert raised
    for index, die in raised:
        title = titles[index]
        assert title.startswith(f"d6 : {die['face']}, "), title
        assert f"relevé à {die['raised_to']}" in title and "→" not in title, title
    gm.close()


def test_an_opposed_sides_fold_never_opens_on_nothing(browser: Any, server: LiveServer) -> None:
    gm, *_ = oweens_table(browser, server, "camps-vides")
    page = gm.page
    open_ask(gm, ["Ervald", "Tam"])
    page.check("#ask-opposed")
    page.locator("#ask-sides [data-side]").first.wait_for()
    sides = page.eval_on_selector_all("#ask-sides [data-side]", """nodes => nodes.map(n => ({
        side: n.dataset.side, fold: n.tagName === 'DETAILS',
        fields: [...n.querySelectorAll('.param')].filter(p => !p.hidden
            && getComputedStyle(p).display !== 'none').length}))""")
    assert [side["side"] for side in sides] == ["Ervald", "Tam"]
    for side in sides:
        assert not side["fold"] or side["fields"] > 0, sides
    gm.close()


def test_a_side_with_nothing_of_its_own_to_set_is_no_empty_fold(
        browser: Any, tmp_path: Path) -> None:
    with LiveServer(plugins_dir=str(write_plugins(tmp_path / "plugins", pile=COIN)),
                    rate_limit=0) as live:
        gm = phone_gm(browser, live, "pile-ou-face")
        for seat in ("Aengus", "Brann"):
            add_seat(gm, seat)
        page = gm.page
        if not page.eval_on_selector("#gm-ask", "n => n.open"):
            page.click("#gm-ask summary")
        for name in ("Aengus", "Brann"):
            page.check(f'#ask-targets input[value="{name}"]')
        page.select_option("#ask-ruleset", "pile")
        page.check("#ask-opposed")
        page.locator("#ask-sides [data-side]").first.wait_for()
        sides = page.eval_on_selector_all("#ask-sides [data-side]", """nodes => nodes.map(n =>
            ({side: n.dataset.side, tag: n.tagName, text: n.textContent,
              fields: n.querySelectorAll('.param').length}))""")
        # Each side one plain line that says it rolls as above: nothing to open.
        assert [(side["side"], side["tag"], side["fields"]) for side in sides] == [
            ("Aengus", "P", 0), ("Brann", "P", 0)], sides
        assert sides[0]["text"] == "Camp d'Aengus — comme au-dessus", sides
        ask = send_ask(gm, "Pile ou face")  # (and the ask goes as it stands)
        assert ask["opposed"] is True and len(ask["to"]) == 2, ask
        gm.close()


def test_a_hint_never_repeats_its_own_label_in_either_language(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "bagage")
    page = gm.page
    page.select_option("#ruleset", "oweens")
    hint = "#param-bagage-help"
    assert page.text_content(hint) == "+1 dé, augmentations à 1 BB+"
    page.click("#lang")  # the English page: "Relevant background: …" under its label
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.select_option("#ruleset", "oweens")
    assert page.text_content('label:has(#param-bagage) .param-name') == "Relevant background"
    assert page.text_content(hint) == "+1 die, augmentations cost 1 BB+"
    gm.close()
