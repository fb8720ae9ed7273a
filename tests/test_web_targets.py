"""Targets on the web table (contract §8, issue 26 « Clients »), in a real headless Chromium
at 390 px against a real sidecar: the roll form's target picker (one line, folded while
there is nobody to aim at), the target's card changing live on its owner's phone (with the
roll, or with a `sheet` event when the roll is hidden from them), the GM seeing both sides
and who already acted this turn, an ask aimed at the GM's NPC.

The `duel` test ruleset (tests/js/plugins/duel.py): each target takes the die's face in
wounds, and the difficulty is the first target's defence. Skips like tests/test_web_table.py
without Chromium or Playwright.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GM_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TablePage, add_seat

PHONE = (390, 844)
PLUGINS = str(Path(__file__).resolve().parent / "js" / "plugins")
#: One line of the form at 390 px (a label and a field side by side), with its gap.
ONE_LINE = 60


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(plugins_dir=PLUGINS, rate_limit=0) as live:
        yield live


def new_character(gm: TablePage, name: str, owner: str | None, **values: int) -> None:
    """The GM makes a `duel` character (as the panel's form would send it)."""
    gm.page.evaluate("""([name, owner, values]) => window.sidecarTable.client.request({
        type: "sheet", op: "set", character: name, ruleset: "duel", owner, values})""",
                     [name, owner, values])
    gm.page.wait_for_selector(f'#sheet-list .sheet-item[data-character="{name}"]',
                              state="attached")


def duel_table(browser: Any, server: LiveServer, table: str
               ) -> tuple[TablePage, TablePage, TablePage]:
    """The GM (on a computer), Aengus's and Brady's phones (their seats' links), their
    characters (Brady: defence 5, 2 wounds) and the GM's NPC, the Ogre."""
    gm = TablePage(browser, server.http, table=table, name="Morgane", role="gm",
                   token=GM_TOKEN)
    links = {name: add_seat(gm, name) for name in ("Aengus", "Brady")}
    new_character(gm, "Aengus", "Aengus")
    new_character(gm, "Brady", "Brady", defense=5, wounds=2)
    new_character(gm, "Ogre", None, defense=3)
    gm.page.select_option("#ruleset", "duel")
    phones = [TablePage(browser, server.http, link=links[name], viewport=PHONE)
              for name in ("Aengus", "Brady")]
    for phone in phones:
        phone.page.wait_for_selector("#character:not([hidden])")
    return gm, phones[0], phones[1]


def height(page: TablePage, selector: str) -> float:
    return page.page.eval_on_selector(selector, "n => n.getBoundingClientRect().height")


def roll(page: TablePage, *, mode: str = "public") -> dict[str, Any]:
    """Roll the form as it stands; returns this page's copy of the outcome."""
    seq = page.roll(mode=mode)
    return page.state(f"outcomes.find(o => o.seq === {seq})")


def card_value(page: TablePage, field: str) -> str | None:
    return page.page.get_attribute(f'#character-values .sheet-value[data-field="{field}"]',
                                   "data-value")


def wait_for_card(page: TablePage, field: str, value: int) -> None:
    page.page.wait_for_selector(
        f'#character-values .sheet-value[data-field="{field}"][data-value="{value}"]')


def test_a_blow_aimed_at_brady_changes_his_card_on_his_phone(browser: Any,
                                                             server: LiveServer) -> None:
    gm, aengus, brady = duel_table(browser, server, "duel-phone")
    page = aengus.page
    # Nobody to aim at yet (Aengus's page knows only Aengus): the picker is folded.
    assert page.is_hidden("#roll-target")
    folded = height(aengus, "#roller")
    # Brady rolls in public as Brady: now Aengus's page knows whom it may aim at, one line.
    roll(brady)
    page.wait_for_selector("#roll-target", state="visible")
    assert height(aengus, "#roller") - folded <= ONE_LINE
    assert page.get_attribute("#roll-target", "list") == "target-names"
    assert page.evaluate("() => [...document.querySelectorAll('#target-names option')]"
                         ".map(o => o.value)") == ["Brady"]
    assert page.text_content("#roll-target-line").strip().startswith("Cible")
    # Aimed at Brady: the quick roll says against whom (his sheet gives the difficulty),
    # not « Difficulté … »; a player's odds read no sheet but their own (PROTOCOL.md
    # §8.2), so they stay those of the default defence (4: 3 chances in 6).
    page.fill("#roll-target", "Brady")
    page.wait_for_function("() => document.querySelector('#quick-rolls .quick-against')"
                           ".textContent === 'Contre Brady'")
    page.wait_for_function("() => document.querySelector('#odds-success').textContent"
                           ".startsWith('50 %')")
    hit = roll(aengus)
    face = hit["dice"][0]["face"]
    assert hit["targets"] == ["Brady"] and hit["effects"] == {"Brady": {"wounds": face}}
    assert "target_sheets" not in hit
    # The roller's log says what was dealt, not Brady's sheet; the picker is emptied.
    line = page.text_content(f'#log .entry[data-seq="{hit["seq"]}"] .effects')
    assert "Contre Brady :" in line and f"Blessures de Brady : +{face}" in line
    assert page.input_value("#roll-target") == ""
    page.wait_for_function("() => document.querySelector('#odds-success').textContent"
                           ".startsWith('50 %')")  # the odds no longer against Brady
    # Brady's phone: his card changes at once, and his log says before → after.
    wait_for_card(brady, "wounds", 2 + face)
    assert f"Blessures de Brady : 2 → {2 + face}" in brady.page.text_content(
        f'#log .entry[data-seq="{hit["seq"]}"] .effects')
    # A blow hidden from Brady (Aengus and the GM only): his card changes all the same.
    page.fill("#roll-target", "Brady")
    hidden = roll(aengus, mode="gm")
    wait_for_card(brady, "wounds", 2 + face + hidden["dice"][0]["face"])
    # His log says what it is in words (never the raw key), the roll's seq as its reason.
    notice = '#log .entry[data-kind="sheet"][data-op="effect"]'
    brady.page.wait_for_selector(notice)
    assert brady.page.text_content(f"{notice} .op") == "effet du jet"
    assert brady.page.text_content(f"{notice} .why").startswith("#")
    # The GM sees both sides: the roller and the target in the log, Aengus flagged as
    # having acted this turn, Brady's new wounds in the panel; a new turn clears the flag.
    gm.wait_for_entry(hit["seq"])
    assert f"Blessures de Brady : 2 → {2 + face}" in gm.page.text_content(
        f'#log .entry[data-seq="{hit["seq"]}"]')
    gm.page.click("#gm-characters summary")
    acted = '#sheet-list .sheet-item[data-character="Aengus"] .badge.acted'
    gm.page.wait_for_selector(acted)
    assert gm.page.text_content(acted) == "a agi ce tour"  # (« A AGI », uppercase, read as cut off)
    assert gm.page.is_visible('#sheet-list .sheet-item[data-character="Brady"] .badge.acted')
    assert gm.page.is_hidden('#sheet-list .sheet-item[data-character="Ogre"] .badge.acted')
    gm.page.wait_for_selector('#sheet-list .sheet-item[data-character="Brady"] '
                              f'.sheet-value[data-field="wounds"]'
                              f'[data-value="{2 + face + hidden["dice"][0]["face"]}"]')
    # Reloaded, the GM's page still says it (the welcome's characters carry `acted`).
    gm.page.reload()
    gm.page.wait_for_selector("#table:not([hidden])")
    if not gm.page.eval_on_selector("#gm-characters", "n => n.open"):
        gm.page.click("#gm-characters summary")
    gm.page.wait_for_selector(acted)
    gm.page.click("#turn-next")
    gm.page.wait_for_selector(acted, state="detached")
    for each in (aengus, brady, gm):
        each.close()


def test_the_gm_aims_at_an_npc_and_asks_a_player_to_hit_it(browser: Any,
                                                          server: LiveServer) -> None:
    gm, aengus, brady = duel_table(browser, server, "duel-npc")
    page = gm.page
    # The GM's picker offers every character, its NPC said to be one.
    offered = page.evaluate("() => [...document.querySelectorAll('#target-names option')]"
                            ".map(o => [o.value, o.label])")
    assert [name for name, _ in offered] == ["Aengus", "Brady", "Ogre"]
    assert dict(offered)["Ogre"].startswith("PNJ")
    # A name that is no character of the table: refused, the field marked, nothing rolled.
    page.fill("#roll-target", "Personne")
    page.click("#roll-button")
    page.wait_for_selector("#roll-error:not([hidden])")
    assert "pas de personnage « Personne »" in page.text_content("#roll-error")
    assert page.get_attribute("#roll-target", "aria-invalid") == "true"
    page.fill("#roll-target", "Ogre")
    hit = roll(gm)
    face = hit["dice"][0]["face"]
    assert f"Blessures d'Ogre : 0 → {face}" in page.text_content(
        f'#log .entry[data-seq="{hit["seq"]}"] .effects')
    # A blow that changes nothing (a wall already at its most wounds) says nothing of it
    # (issue 29: « Contre Mur : sans effet » on every such card told no one anything).
    new_character(gm, "Mur", None, defense=1, wounds=20)
    page.fill("#roll-target", "Mur")
    wall = roll(gm)
    gm.wait_for_entry(wall["seq"])
    assert page.locator(f'#log .entry[data-seq="{wall["seq"]}"] .effects').count() == 0
    # An ask aimed at the Ogre: Aengus's card says against whom; his answer hits it.
    if not page.eval_on_selector("#gm-ask", "n => n.open"):
        page.click("#gm-ask summary")
    page.check('#ask-targets input[value="Aengus"]')
    page.select_option("#ask-ruleset", "duel")
    page.fill("#ask-target", "Ogre")
    page.fill("#ask-label", "Frapper l'ogre")
    page.click("#ask-form button[type=submit]")
    aengus.page.wait_for_selector(".ask-card .ask-aimed")
    assert aengus.page.text_content(".ask-card .ask-aimed") == "Contre Ogre"
    assert page.input_value("#ask-target") == ""
    before = aengus.state("outcomes.length")
    aengus.page.click(".ask-card .ask-roll")
    aengus.page.wait_for_function("n => window.sidecarTable.outcomes.length > n", arg=before)
    answer = aengus.state("outcomes[window.sidecarTable.outcomes.length - 1]")
    assert answer["targets"] == ["Ogre"] and answer["result"]["difficulty"] == 3
    gm.page.click("#gm-characters summary")
    gm.page.wait_for_selector('#sheet-list .sheet-item[data-character="Ogre"] '
                              '.sheet-value[data-field="wounds"]'
                              f'[data-value="{face + answer["dice"][0]["face"]}"]')
    for each in (aengus, brady, gm):
        each.close()
