"""Extension options are described and checked (issue 15): ``welcome.options`` carries each
extension's description, and the server refuses a roll whose ``options`` name an unknown
extension or key, a value of the wrong type or range, or an extension that does not apply
to the roll's ruleset — ``invalid_params`` naming the extension and the key, French first.
Through a real server on a loopback port."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from sidecar.host.options import parse_option
from sidecar.host.plugins import PluginLoadError, default_host
from tests.helpers import peers, run, running_server
from tests.support.plugins import write_plugins

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def host(monkeypatch):
    """The built-ins and the boss example (registered as a third-party plugin is)."""
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "boss-weak-points"))
    boss = importlib.import_module("boss_weak_points")
    host = default_host()
    host.register(boss, "boss", version="1.0.0", source="package sidecar-boss-weak-points")
    host.check_options()
    return host


def refused(reply, extension, key=None):
    assert reply["type"] == "error" and reply["code"] == "invalid_params", reply
    param = f"options.{extension}" + (f".{key}" if key else "")
    assert reply["details"] == {"param": param}, reply
    assert param in reply["message"]
    return reply["message"]


def test_welcome_describes_every_extensions_options(host):
    async def scenario():
        async with running_server(host) as server, peers(server, 1) as (gm,):
            welcome = await gm.join(role="gm", name="MJ")
            options = {o["name"]: o for o in welcome["options"]}
            assert set(options) == {"combat", "blank_botch", "boss"}
            combat = options["combat"]
            assert combat["rulesets"] == ["oweens"]
            assert combat["params"]["options"]["cost"]["desarmer"] == 3
            assert combat["params"]["opponent_pep"]["type"] == "int"
            assert options["blank_botch"]["rulesets"] == ["bloodlust"]
            assert options["boss"]["rulesets"] is None
            assert options["boss"]["params"]["weak_points"]["type"] == "map"
    run(scenario())


def test_bad_options_are_invalid_params_naming_extension_and_key(host):
    async def scenario():
        async with running_server(host) as server, peers(server, 1) as (gm,):
            await gm.join(role="gm", name="MJ", locale="fr")
            oweens = {"dice": 3, "difficulty": 2}
            message = refused(await gm.roll("oweens", oweens, options={"nope": {}}), "nope")
            assert "extension inconnue" in message  # French first, for a French client
            message = refused(await gm.roll("oweens", oweens,
                                            options={"combat": {"viser": True}}),
                              "combat", "viser")
            assert "clé inconnue" in message and "options" in message
            refused(await gm.roll("oweens", oweens, options={"boss": {"armour": 2}}),
                    "boss", "armour")
            refused(await gm.roll("oweens", oweens, options={"boss": {"armor": "deux"}}),
                    "boss", "armor")
            refused(await gm.roll("oweens", oweens, options={"combat": {"opponent_pep": 99}}),
                    "combat", "opponent_pep")
            refused(await gm.roll("oweens", oweens, options={"combat": {"options": ["voler"]}}),
                    "combat", "options")
            refused(await gm.roll("oweens", oweens,
                                  options={"boss": {"weak_points": {"oeil": "x"}}}),
                    "boss", "weak_points")
            for modifiers in ([1, 99], ["loin"], {"distance": 99}, 3):
                refused(await gm.roll("oweens", oweens,
                                      options={"combat": {"ranged_modifiers": modifiers}}),
                        "combat", "ranged_modifiers")
            refused(await gm.roll("oweens", oweens, options={"blank_botch": True}),
                    "blank_botch")
            message = refused(await gm.roll("oweens", oweens, options={"blank_botch": {}}),
                              "blank_botch")
            assert "ne s'applique pas" in message and "bloodlust" in message
            refused(await gm.roll("bloodlust", {"pool": 2},
                                  options={"combat": {"options": ["viser"]}}), "combat")
            # Odds are checked alike; nothing was rolled: the next roll is seq 1.
            odds = await gm.request({"type": "odds", "id": "o", "ruleset": "oweens",
                                     "params": oweens, "options": {"combat": {"x": 1}}})
            refused(odds, "combat", "x")
            first = await gm.roll("oweens", oweens)
            assert first["type"] == "outcome" and first["seq"] == 1
    run(scenario())


def test_english_readers_get_english(host):
    async def scenario():
        async with running_server(host) as server, peers(server, 1) as (gm,):
            await gm.join(role="gm", name="GM", locale="en")
            reply = await gm.roll("oweens", {"dice": 3}, options={"combat": {"viser": True}})
            assert "unknown key" in refused(reply, "combat", "viser")
    run(scenario())


def test_good_options_are_applied(host):
    async def scenario():
        async with running_server(host) as server, peers(server, 1) as (gm,):
            await gm.join(role="gm", name="MJ")
            aimed = await gm.roll("oweens", {"dice": 4, "difficulty": 2}, dice=[6, 5, 4],
                                  options={"combat": {"options": ["Viser"], "zone": "tête"}})
            assert aimed["type"] == "outcome", aimed
            assert aimed["params"]["difficulty"] == 2 and aimed["params"]["dice"] == 3
            combat = aimed["result"]["combat"]
            assert combat["aimed"] and combat["options"] == ["viser"] and combat["cost"] == 1
            assert "combat" in aimed["applied"]
            armoured = await gm.roll("oweens", {"dice": 3, "difficulty": 1}, dice=[6, 6, 6],
                                     options={"boss": {"armor": 2}})
            assert armoured["result"]["boss"]["armor"] == 2, armoured
            assert any("Armure du boss 2" in note for note in armoured["notes"])
            botch = await gm.roll("bloodlust", {"pool": 1}, dice=[1],
                                  options={"blank_botch": {}})
            assert botch["result"].get("blank_botch") is True, botch
    run(scenario())


def test_an_extension_without_a_description_still_gets_its_settings(tmp_path):
    free = '''
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("free"):
        outcome.notes.append(f"free: {roll.options['free']!r}")
'''
    directory = write_plugins(tmp_path / "p", free=free)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (gm,):
            welcome = await gm.join(role="gm", name="MJ")
            assert "free" not in [o["name"] for o in welcome["options"]]
            outcome = await gm.roll(options={"free": [1, "two"]})
            assert "free: [1, 'two']" in outcome["notes"], outcome
            refused(await gm.roll(options={"freee": 1}), "freee")
    run(scenario())


BAD_DESCRIPTIONS = {
    "not a map": "[]",
    "params missing": '{"label": "x"}',
    "bad type": '{"params": {"k": {"type": "float"}}}',
    "bad cost": '{"params": {"k": {"type": "string", "cost": 2}}}',
    "bad default": '{"params": {"k": {"type": "int", "max": 3, "default": 9}}}',
    "bad rulesets": '{"rulesets": "oweens", "params": {}}',
    "unknown key": '{"params": {}, "colour": "red"}',
}


@pytest.mark.parametrize("why", BAD_DESCRIPTIONS)
def test_a_bad_description_fails_at_start_up_naming_the_plugin(tmp_path, why):
    plugin = f'''
from sidecar import hookimpl

@hookimpl
def sidecar_options():
    return {BAD_DESCRIPTIONS[why]}

@hookimpl
def sidecar_modify_roll(roll):
    pass
'''
    directory = write_plugins(tmp_path / "p", broken=plugin)
    with pytest.raises(PluginLoadError, match="plugin 'broken', sidecar_options"):
        default_host(directory)


def test_command_line_options_are_typed_from_the_description(host):
    described = host.option_descriptions()
    options: dict = {}
    for text in ("combat.options=viser", "combat.options=charger", "combat.opponent_pep=3",
                 "combat.initiative=oui", "boss.weak_points={\"oeil\": 3}", "blank_botch=yes",
                 "free={\"a\": 1}"):
        parse_option(text, described, options)
    assert options == {"combat": {"options": ["viser", "charger"], "opponent_pep": 3,
                                  "initiative": True},
                       "boss": {"weak_points": {"oeil": 3}}, "blank_botch": {},
                       "free": {"a": 1}}
    parse_option("blank_botch=no", described, options)
    assert "blank_botch" not in options
    with pytest.raises(ValueError, match="unknown key of combat"):
        parse_option("combat.viser=yes", described, options)
    with pytest.raises(ValueError, match="combat.key=value"):
        parse_option("combat=maybe", described, options)


def test_the_python_client_offers_and_types_options(host):
    from sidecar.client import SidecarClient, SidecarError
    from tests.helpers import GM_TOKEN

    async def scenario():
        async with running_server(host) as server:
            client = SidecarClient(server.url, table="py", name="MJ", role="gm",
                                   token=GM_TOKEN)
            await client.connect()
            try:
                assert [o["name"] for o in client.options_for("oweens")] == ["combat", "boss"]
                assert [o["name"] for o in client.options_for("bloodlust")] == [
                    "blank_botch", "boss"]
                options = client.parse_options(["combat.options=viser", "combat.zone=oeil",
                                                "boss.armor=2", "boss.weak_points={\"oeil\": 3}"])
                outcome = await client.roll("oweens", {"dice": 4, "difficulty": 1},
                                            dice=[6, 6, 6], options=options)
                assert outcome["result"]["combat"]["aimed"]
                assert outcome["result"]["boss"]["hit_weak_point"], outcome
                with pytest.raises(SidecarError) as refused_:
                    await client.roll("oweens", {"dice": 2}, options={"boss": {"arm": 1}})
                assert refused_.value.details == {"param": "options.boss.arm"}
            finally:
                await client.close()
    run(scenario())
