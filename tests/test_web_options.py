"""The web table's extension options, in a real headless Chromium against a real sidecar
(issue 15): one fieldset per extension built from ``welcome.options``, only those that
apply to the chosen ruleset, costs shown, and what is checked reaches the roll."""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.support.browser import gm_page


def shown_extensions(page: Any) -> list[str]:
    return page.page.eval_on_selector_all(
        "#option-sets .option-set", "nodes => nodes.map(n => n.dataset.extension)")


def test_option_fieldsets_follow_the_ruleset_and_reach_the_roll(browser: Any,
                                                                 server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "options")
    page = gm.page
    page.select_option("#ruleset", "oweens")
    assert shown_extensions(gm) == ["combat"]
    assert page.is_hidden("#options-free")  # every extension here describes its options
    page.click("#ext-options summary")  # (folded: a phone's form shows what a roll needs)
    # Fields appear once the extension is turned on; each option shows its cost.
    assert page.is_hidden("#option-combat-fields")
    page.check("#option-combat-on")
    assert page.is_visible("#option-combat-fields")
    chip = page.text_content('#option-combat-options label:has(input[value="desarmer"])')
    assert "Désarmer" in chip and "coût 3" in chip
    page.select_option("#ruleset", "bloodlust")
    assert shown_extensions(gm) == ["blank_botch"]
    page.select_option("#ruleset", "oweens")
    assert shown_extensions(gm) == ["combat"]

    gm.fill_params({"dice": 4, "difficulty": 2})
    page.check("#option-combat-on")
    page.check('#option-combat-options input[value="viser"]')
    page.fill("#option-combat-zone", "tête")
    page.fill("#manual-dice", "6 5 4")
    seq = gm.roll()
    outcome = gm.state(f"outcomes.find(o => o.seq === {seq})")
    assert outcome["params"]["difficulty"] == 2 and outcome["params"]["dice"] == 3
    combat = outcome["result"]["combat"]
    assert combat["aimed"] and combat["zone"] == "tête" and combat["options"] == ["viser"]
    assert "combat" in outcome["applied"]

    # A list of integers is typed as "1, 2": a ranged attack's D is 3 + the worst.
    # (The difficulty left empty: a GM's typed one would win over the attack's table.)
    page.uncheck('#option-combat-options input[value="viser"]')
    page.fill("#param-difficulty", "")
    page.select_option("#option-combat-attack", "ranged")
    page.fill("#option-combat-ranged_modifiers", "1, 2")
    page.fill("#manual-dice", "6 5 4 3")
    seq = gm.roll()
    ranged = gm.state(f"outcomes.find(o => o.seq === {seq})")
    assert ranged["params"]["difficulty"] == 5, ranged["params"]

    # A value the server refuses is shown on its field.
    page.fill("#option-combat-opponent_pep", "99")
    page.click("#roll-button")
    page.wait_for_selector("#roll-error:not([hidden])")
    shown = page.text_content("#roll-error")
    assert "« Peps de l'adversaire » : doit être ≤ 50" in shown, shown  # (its label)
    assert "opponent_pep" not in shown and "opponent pep" not in shown, shown
    page.wait_for_selector('.param.invalid[data-param="options.combat.opponent_pep"]')
    gm.close()


def test_english_labels_and_a_kept_choice_across_languages(browser: Any,
                                                           server: LiveServer) -> None:
    gm = gm_page(browser, server.http, "options-en")
    page = gm.page
    page.select_option("#ruleset", "oweens")
    page.click("#ext-options summary")
    page.check("#option-combat-on")
    page.check('#option-combat-options input[value="charger"]')
    page.click("#lang")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.wait_for_selector("#option-combat-on:checked")
    chip = page.text_content('#option-combat-options label:has(input[value="charger"])')
    assert "Charge" in chip and "cost 2" in chip
    assert page.is_checked('#option-combat-options input[value="charger"]')
    gm.close()


FREE = '''
"""Takes settings it does not describe."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if "free" in roll.options:
        outcome.notes.append(f"free: {roll.options['free']!r}")
'''


def test_extensions_without_a_description_keep_a_json_box(browser: Any,
                                                          tmp_path: Any) -> None:
    (tmp_path / "free.py").write_text(FREE)
    with LiveServer(plugins_dir=str(tmp_path), rate_limit=0) as live:
        gm = gm_page(browser, live.http, "free")
        page = gm.page
        page.select_option("#ruleset", "bloodlust")
        gm.fill_params({"pool": 2})
        page.click("#ext-options summary")
        assert page.is_visible("#options-free") and shown_extensions(gm) == ["blank_botch"]
        # Listed once: the extension without a fieldset; blank_botch has its own.
        listed = page.text_content("#extensions-list")
        assert "Takes settings" in listed and "Échec critique blanc" not in listed, listed
        # Bad JSON is caught by the page, before anything is sent.
        page.fill("#options", "{oops")
        page.click("#roll-button")
        page.wait_for_selector("#roll-error:not([hidden])")
        assert "JSON" in page.text_content("#roll-error")
        page.fill("#options", '{"free": {"x": 1}}')
        page.check("#option-blank_botch-on")
        gm.fill_params({"pool": 2})
        seq = gm.roll()
        outcome = gm.state(f"outcomes.find(o => o.seq === {seq})")
        assert "free: {'x': 1}" in outcome["notes"]
        gm.close()
