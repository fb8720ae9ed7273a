"""The command line's ``--option ext.key=value``, typed from ``welcome.options``, through a
real ``sidecar serve`` process (issue 15); ``sidecar plugins`` lists the options."""

from __future__ import annotations

import json
import re

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar


def roll(server: ServeProcess, *args: str):
    return sidecar("roll", *args, "--url", server.url, "--role", "gm", "--token", GM_TOKEN,
                   "--json")


def test_typed_options_reach_the_roll_and_bad_ones_are_named():
    with ServeProcess() as server:
        aimed = roll(server, "oweens", "dice=4", "difficulty=2", "--dice", "6,5,4",
                     "--option", "combat.options=viser", "--option", "combat.zone=tête",
                     "--option", "combat.opponent_pep=2", "--option", "combat.attack=melee")
        assert aimed.returncode == 0, aimed.stderr
        outcome = json.loads(aimed.stdout)
        combat = outcome["result"]["combat"]
        assert combat["aimed"] and combat["zone"] == "tête" and combat["cost"] == 1
        assert outcome["params"]["dice"] == 3 and outcome["params"]["difficulty"] == 2

        botch = roll(server, "bloodlust", "pool=1", "--dice", "1", "--option", "blank_botch=yes")
        assert botch.returncode == 0, botch.stderr
        assert json.loads(botch.stdout)["result"]["blank_botch"] is True

        unknown = roll(server, "bloodlust", "pool=2", "--option", "nope={}")
        assert unknown.returncode == 1 and "invalid_params" in unknown.stderr
        assert "options.nope" in unknown.stderr and "extension inconnue" in unknown.stderr

        wrong_ruleset = roll(server, "oweens", "dice=2", "--option", "blank_botch=yes")
        assert wrong_ruleset.returncode == 1 and "options.blank_botch" in wrong_ruleset.stderr

        out_of_range = roll(server, "oweens", "dice=2", "--option", "combat.opponent_pep=99")
        assert out_of_range.returncode == 1
        assert "options.combat.opponent_pep" in out_of_range.stderr

        # Told before anything is sent, in one line: the key and the known ones.
        misspelt = roll(server, "oweens", "dice=2", "--option", "combat.viser=yes")
        assert misspelt.returncode == 2
        assert "combat.viser" in misspelt.stderr and "connues : attack" in misspelt.stderr
        assert "Traceback" not in misspelt.stderr
        unclear = roll(server, "bloodlust", "pool=2", "--option", "blank_botch=peut-être")
        assert unclear.returncode == 2 and "blank_botch=oui" in unclear.stderr

        # A running server's plugins, with their options.
        remote = sidecar("plugins", "--url", server.url, "--token", GM_TOKEN)
        assert remote.returncode == 0, remote.stderr
        assert "combat.options=<liste : assommer (1)" in remote.stdout


def test_plugins_lists_each_extensions_options():
    listed = sidecar("plugins")
    assert listed.returncode == 0, listed.stderr
    # The types in the run's language too (issue 29: no « <string: …> » in French).
    assert "combat.opponent_pep=<entier 0–50>" in listed.stdout
    assert "combat.attack=<texte : melee (au contact), ranged (à distance)>" in listed.stdout
    assert "desarmer (3)" in listed.stdout and "jeux de règles : oweens" in listed.stdout
    assert "blank_botch.enabled=<booléen" in listed.stdout
    assert not re.search(r"<(string|int|list|bool)\b", listed.stdout), listed.stdout
    english = sidecar("plugins", "--locale", "en")
    assert "combat.opponent_pep=<int 0–50>" in english.stdout
    assert "combat.attack=<string: melee, ranged>" in english.stdout
    as_json = json.loads(sidecar("plugins", "--json").stdout)
    combat = next(p for p in as_json if p["name"] == "combat")
    assert combat["options"]["params"]["options"]["cost"]["charger"] == 2


def test_odds_take_options_too():
    plain = sidecar("odds", "oweens", "dice=4", "difficulty=2", "--json")
    aimed = sidecar("odds", "oweens", "dice=4", "difficulty=2", "--json",
                    "--option", "combat.options=viser")
    assert plain.returncode == 0 and aimed.returncode == 0, aimed.stderr
    # Viser costs a die: the odds are those of 3 dice.
    assert json.loads(aimed.stdout)["p_success"] < json.loads(plain.stdout)["p_success"]
    bad = sidecar("odds", "oweens", "dice=4", "--option", "combat.options=voler")
    assert bad.returncode == 1 and "options.combat.options" in bad.stderr


def test_serve_refuses_an_unusable_option_description_naming_the_plugin(tmp_path):
    (tmp_path / "broken.py").write_text(
        "from sidecar import hookimpl\n\n"
        "@hookimpl\ndef sidecar_options():\n"
        "    return {'params': {'feint': {'type': 'bool', 'cost': 'one'}}}\n\n"
        "@hookimpl\ndef sidecar_modify_roll(roll):\n    pass\n")
    served = sidecar("serve", "--port", "0", "--db", ":memory:", "--gm-token", GM_TOKEN,
                     "--plugins-dir", str(tmp_path), "--locale", "en")
    assert served.returncode != 0
    assert "plugin 'broken', sidecar_options" in served.stderr
    assert "option 'feint', key 'cost': the cost of a bool is an integer" in served.stderr
    listed = sidecar("plugins", "--plugins-dir", str(tmp_path), "--locale", "en")
    assert listed.returncode != 0 and "plugin 'broken'" in listed.stderr


def test_dotted_keys_and_a_json_object_merge_in_either_order():
    """``--option combat.options=viser --option 'combat={"zone":"bras"}'`` once dropped
    the Viser the first option asked for."""
    from sidecar.host.options import parse_options
    from sidecar.host.plugins import default_host

    described = default_host().option_descriptions()
    for texts in (["combat.options=viser", 'combat={"zone": "bras"}'],
                  ['combat={"zone": "bras"}', "combat.options=viser"]):
        assert parse_options(texts, described) == {
            "combat": {"options": ["viser"], "zone": "bras"}}, texts
