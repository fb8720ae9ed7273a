"""The newcomer's path on the web table (issue 15, item 8), in a real headless Chromium
against a real sidecar: no "null" for a parameter without a description, people's words
rather than keys in French text, a roll's label and mode not carried over to the next roll,
one "MJ" badge on a GM's roll, and a phone where the roll panel covers nothing and the new
roll is in view. Skips like tests/test_web_table.py without Chromium or Playwright.
"""

from __future__ import annotations

import textwrap
from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import gm_page, player_page
from tests.web_checks import covered_controls

PLUGIN = textwrap.dedent('''
    """Bare: a third-party ruleset whose params say nothing about themselves."""
    from sidecar import hookimpl
    from sidecar.model import Outcome

    @hookimpl
    def sidecar_rulesets():
        return [{"name": "nu", "title": "Nu", "version": "0.1", "params": {
            "dice": {"type": "int", "min": 1, "max": 5, "default": 1},
            "style": {"type": "string", "choices": ["a", "b"], "description": None},
            "fast": {"type": "bool", "default": False, "description": None},
        }}]

    @hookimpl
    def sidecar_resolve(roll, dice):
        if roll.ruleset != "nu":
            return None
        dice.roll_many(roll.params["dice"], 6)
        return Outcome(result={"success": True, "margin": 0, "kind": "success",
                               "label": {"fr": "Oui", "en": "Yes"}})
''')


#: Opens the roll form's extension options (open by default; a click would close them).
OPEN_OPTIONS = "() => { document.getElementById('ext-options').open = true; }"

def test_a_parameter_without_a_description_shows_no_null(browser: Any, tmp_path: Any) -> None:
    (tmp_path / "nu.py").write_text(PLUGIN)
    with LiveServer(plugins_dir=str(tmp_path), rate_limit=0) as live:
        page = player_page(browser, live.http, "nu")
        page.page.select_option("#ruleset", "nu")
        page.page.wait_for_selector('[data-param="fast"]')
        shown = page.page.text_content("#roller")
        assert "null" not in shown and "undefined" not in shown
        assert page.page.locator("#roller .help:empty").count() == 0
        page.close()


def test_french_text_says_labels_not_keys(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "mots")
    page.page.select_option("#ruleset", "seuil")
    chips = page.page.eval_on_selector_all("#param-factors .chip span",
                                           "nodes => nodes.map(n => n.textContent)")
    assert "blessure légère" in chips and "stress élevé" in chips and "dopé" in chips
    assert "conseillé par un allié" in chips
    assert not {"blessure legere", "stress eleve", "conseille", "dope"} & set(chips)
    help_text = page.page.text_content('[data-param="factors"] .help')
    assert "blessure légère (+2)" in help_text and "stress_eleve" not in help_text
    # The chip still sends the key the server knows.
    page.fill_params({"factors": ["stress_eleve"]})  # (behind « plus d'options »)
    page.fill_params({"level": 3, "threshold": 13})
    seq = page.roll()
    assert page.state(f"outcomes.find(o => o.seq === {seq}).params.factors") == ["stress_eleve"]
    # A missing parameter is named by its label, in the note and in the error.
    page.page.select_option("#ruleset", "bloodlust")
    page.page.fill("#param-pool", "")
    page.page.click("#roll-button")
    page.page.wait_for_selector("#roll-error:not([hidden])")
    error = page.page.text_content("#roll-error")
    assert "« Réserve de d10 »" in error and "pool" not in error
    assert page.page.evaluate("() => document.activeElement.id") == "param-pool"
    assert page.page.get_attribute("#param-pool", "aria-invalid") == "true"
    page.page.select_option("#ruleset", "seuil")
    page.page.fill("#param-threshold", "")
    page.page.click("#roll-button")
    page.page.wait_for_function(
        "() => document.querySelector('#roll-error').textContent === 'Remplissez : Seuil'")
    assert page.page.evaluate("() => document.activeElement.id") == "param-threshold"
    page.close()


def test_the_label_and_the_mode_are_for_one_roll(browser: Any, server: LiveServer) -> None:
    page = player_page(browser, server.http, "une-fois")
    page.page.select_option("#ruleset", "oweens")
    page.fill_params({"dice": 2})
    seq = page.roll(mode="blind", label="Fouiller la pièce")
    assert page.entry(seq)["mode"] == "blind"
    assert page.page.input_value("#roll-label") == ""
    assert page.page.is_checked('input[name="mode"][value="public"]')
    page.page.click("#roll-button")
    page.page.wait_for_function("() => window.sidecarTable.outcomes.length === 2")
    second = page.state("outcomes[1]")
    assert second["mode"] == "public" and second.get("label", "") == ""
    page.close()


def test_a_gms_roll_for_the_gm_has_one_mj_badge(browser: Any, server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "badge")
    gm.page.select_option("#ruleset", "oweens")
    gm.fill_params({"dice": 2})
    seq = gm.roll(mode="gm")
    badges = gm.page.eval_on_selector_all(f'#log .entry[data-seq="{seq}"] .badge',
                                          "nodes => nodes.map(n => n.textContent)")
    assert len(badges) == len(set(badges)), badges
    assert "MJ" in badges
    gm.close()


ROLL_CONTROLS = ("#roll-form input, #roll-form select, #roll-form textarea, "
                 "#roll-form summary, #roll-form button")


def test_on_a_phone_nothing_covers_the_focused_control_and_the_roll_is_in_view(
        browser: Any, server: LiveServer) -> None:
    page = gm_page(browser, server.http, "telephone")
    page.page.set_viewport_size({"width": 390, "height": 844})
    page.page.select_option("#ruleset", "oweens")
    page.fill_params({"dice": 3, "difficulty": 2})
    page.page.evaluate(OPEN_OPTIONS)
    assert covered_controls(page, ROLL_CONTROLS) == []
    # The newest outcome is on the screen after "Lancer !", in the page's own scroll (no
    # second scroll box for the log).
    for _ in range(3):
        page.page.locator("#roll-button").scroll_into_view_if_needed()
        seq = page.roll()
        page.page.wait_for_function("""(seq) => {
            const entry = document.querySelector(`#log .entry[data-seq="${seq}"]`);
            if (!entry) return false;
            const box = entry.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight;
        }""", arg=seq)
    log = page.page.eval_on_selector("#log", "n => getComputedStyle(n).overflowY")
    assert log == "visible"
    width = page.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    page.close()


def test_on_a_desktop_nothing_covers_the_focused_control(browser: Any,
                                                         server: LiveServer) -> None:
    page = gm_page(browser, server.http, "bureau")
    page.page.set_viewport_size({"width": 1280, "height": 600})
    page.page.select_option("#ruleset", "oweens")
    page.page.evaluate(OPEN_OPTIONS)
    assert covered_controls(page, ROLL_CONTROLS) == []
    page.close()



def test_on_a_desktop_rolling_leaves_the_form_where_it_is(browser: Any,
                                                          server: LiveServer) -> None:
    """Side by side, the new roll is at the top of the log already: the page does not jump
    away from the button (the next roll is one click away)."""
    page = gm_page(browser, server.http, "bureau-stable")
    page.page.set_viewport_size({"width": 1280, "height": 500})
    page.page.select_option("#ruleset", "oweens")
    page.fill_params({"dice": 2})
    in_view = """() => { const box = document.getElementById('roll-button')
        .getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; }"""
    for count in (1, 2):
        page.page.locator("#roll-button").scroll_into_view_if_needed()
        page.page.click("#roll-button")
        page.page.wait_for_function("n => window.sidecarTable.outcomes.length === n", arg=count)
        page.wait_for_entry(page.state(f"outcomes[{count - 1}].seq"))
        # (Not the exact scrollY: the odds panel above the button may change its height by
        # a line as the form resets and its odds come back; what matters is that the page,
        # settled, still shows the button — a page that scrolled away stays away.)
        try:
            page.page.wait_for_function(in_view, timeout=5000)
        except Exception:
            raise AssertionError("the page jumped away from the roll button") from None
    page.close()
