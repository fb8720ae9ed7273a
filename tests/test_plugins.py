"""The plugin host: discovery, hook isolation, failing plugins, and per-table state."""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from pathlib import Path

import pytest

from sidecar import hookspecs
from sidecar.dice import ManualDice
from sidecar.pipeline import RollPipeline
from sidecar.plugins import HOOK_NAMES, PluginHost, PluginLoadError, default_host
from tests.helpers import peers, run, running_server

ROOT = Path(__file__).resolve().parent.parent

EXTRA_DIE = '''
"""Adds one die to bloodlust pools when options.extra_die is set."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_roll(roll):
    if roll.ruleset == "bloodlust" and roll.options.get("extra_die"):
        roll.params["pool"] += 1
'''

FAILING_EXTENSION = '''
"""Breaks on purpose, after touching the params."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_roll(roll):
    roll.params["pool"] = 40
    raise RuntimeError("boom")

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    outcome.result["success"] = True
    raise ValueError("kaput")
'''

INVALIDATING_EXTENSION = '''
"""Leaves params invalid and results malformed."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_roll(roll):
    roll.params["difficulty"] = 99

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    outcome.result["kind"] = "fabulous"
'''

FAILING_RULESET = '''
"""A ruleset that cannot count."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "cassé", "title": "Cassé", "version": "0",
             "params": {"n": {"type": "int", "default": 1}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    if roll.ruleset == "cassé":
        dice.roll(6)
        if roll.params["n"] == 1:
            raise ZeroDivisionError("oops")
        return {"result": {"success": "maybe"}}
'''

COIN = '''
"""Pile ou face: the twenty-line ruleset of the README."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "coin", "title": {"fr": "Pile ou face", "en": "Coin toss"},
             "version": "1.0",
             "params": {"call": {"type": "string", "choices": ["pile", "face"],
                                 "required": True}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    if roll.ruleset != "coin":
        return None
    side = "pile" if dice.roll(2) == 1 else "face"
    won = side == roll.params["call"]
    return {"result": {"success": won, "margin": 0 if won else -1,
                       "kind": "success" if won else "failure",
                       "label": {"fr": side, "en": "tails" if side == "pile" else "heads"}}}

@hookimpl
def sidecar_render_text(roll, outcome, locale):
    if roll.ruleset == "coin":
        return f"{roll.by['name']} lance une pièce : {outcome.result['label'][locale]}"
'''

COUNTER = '''
"""Counts the rolls of each table in its per-table state."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    roll.state["count"] = roll.state.get("count", 0) + 1
    outcome.result["table_roll_number"] = roll.state["count"]
'''


def write_plugins(directory: Path, **sources: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (directory / f"{name}.py").write_text(textwrap.dedent(source))
    return directory


# -- discovery ---------------------------------------------------------------------------


def test_builtins_are_registered_through_the_entry_point_group():
    host = default_host()
    for name in ("oweens", "ladder", "bloodlust", "d6code", "seuil", "blank_botch", "combat"):
        assert host.plugins[name].source == "package vtt-sidecar"
    for ruleset in ("oweens", "ladder", "bloodlust", "d6code", "seuil"):
        assert host.ruleset_owner(ruleset) == ruleset
    extensions = [e["name"] for e in host.extension_listing()]
    assert "blank_botch" in extensions and "combat" in extensions
    assert not set(extensions) & {"oweens", "ladder", "bloodlust", "d6code", "seuil"}


def test_third_party_entry_point_is_discovered(tmp_path, monkeypatch):
    """A package installed elsewhere on sys.path, found only through its metadata."""
    (tmp_path / "tp_coin.py").write_text(textwrap.dedent(COIN))
    dist = tmp_path / "tp_coin-2.5.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tp-coin\nVersion: 2.5\n")
    (dist / "entry_points.txt").write_text("[sidecar]\ncoin = tp_coin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        host = default_host()
        assert host.plugins["coin"].source == "package tp-coin"
        assert host.plugins["coin"].version == "2.5"
        assert "coin" in host.rulesets
    finally:
        sys.modules.pop("tp_coin", None)


def test_plugins_dir_plugin_changes_a_roll(tmp_path):
    directory = write_plugins(tmp_path / "p", extra_die=EXTRA_DIE)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            welcome = await peer.join()
            assert "extra_die" in [e["name"] for e in welcome["extensions"]]
            plain = await peer.roll(params={"pool": 3})
            assert len(plain["dice"]) == 3 and plain["applied"] == []
            changed = await peer.roll(params={"pool": 3}, options={"extra_die": True})
            assert len(changed["dice"]) == 4 and changed["params"]["pool"] == 4
            assert changed["applied"] == ["extra_die"]
    run(scenario())


def test_third_party_ruleset_from_plugins_dir_with_its_own_text(tmp_path):
    directory = write_plugins(tmp_path / "p", coin=COIN)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join(role="gm", name="MJ")
            outcome = await peer.roll("coin", {"call": "pile"}, dice=[1])
            assert outcome["result"]["success"] is True
            assert outcome["text"] == "MJ lance une pièce : pile"
            assert outcome["dice"] == [{"sides": 2, "face": 1}]
            lost = await peer.roll("coin", {"call": "pile"}, dice=[2])
            assert lost["result"]["kind"] == "failure"
            bad = await peer.roll("coin", {"call": "tranche"})
            assert bad["code"] == "invalid_params"
    run(scenario())


@pytest.mark.parametrize("source,needle", [
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_resolv(roll, dice):\n    pass\n',
     "plugin 'typo' implements unknown hook(s) sidecar_resolv"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_modify_roll(rol):\n    pass\n',
     "plugin 'typo'"),
    ('import nonexistent_module_xyz\n', "plugin 'typo'"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_rulesets():\n'
     '    return [{"name": "bloodlust"}]\n', "already provided by plugin 'bloodlust'"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_rulesets():\n'
     '    return [{"name": "x", "params": {"a": {"type": "float"}}}]\n', "type must be one of"),
])
def test_bad_plugins_are_refused_at_load_with_their_name(tmp_path, source, needle):
    directory = tmp_path / "p"
    directory.mkdir()
    (directory / "typo.py").write_text(source)
    with pytest.raises(PluginLoadError) as refused:
        default_host(directory)
    assert needle in str(refused.value)


def test_plugin_name_collision_is_refused(tmp_path):
    directory = write_plugins(tmp_path / "p", bloodlust=EXTRA_DIE)
    with pytest.raises(PluginLoadError, match="already taken"):
        default_host(directory)


# -- isolation ---------------------------------------------------------------------------


def test_failing_extension_is_left_out_with_a_note_and_its_changes_undone(tmp_path):
    directory = write_plugins(tmp_path / "p", failing=FAILING_EXTENSION)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join(role="gm")
            outcome = await peer.roll(params={"pool": 3}, dice=[1, 2, 3])
            assert outcome["type"] == "outcome"
            assert outcome["params"]["pool"] == 3          # the modify_roll change undone
            assert outcome["result"]["success"] is False   # the modify_outcome change undone
            assert outcome["result"]["kind"] == "botch"
            assert outcome["applied"] == []
            notes = " ".join(outcome["notes"])
            assert "failing" in notes and "boom" in notes and "kaput" in notes
            assert (await peer.roll(params={"pool": 2}))["seq"] == 2
    run(scenario())


def test_extension_leaving_things_invalid_is_undone(tmp_path):
    directory = write_plugins(tmp_path / "p", invalidating=INVALIDATING_EXTENSION)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            outcome = await peer.roll(params={"pool": 3, "difficulty": 7})
            assert outcome["params"]["difficulty"] == 7
            assert outcome["result"]["kind"] != "fabulous"
            assert len(outcome["notes"]) == 2
    run(scenario())


def test_failing_ruleset_answers_plugin_error_and_server_keeps_serving(tmp_path):
    directory = write_plugins(tmp_path / "p", broken=FAILING_RULESET)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 2) as (peer, other):
            await peer.join()
            await other.join(name="Other")
            raised = await peer.roll("cassé", {"n": 1})
            assert raised["code"] == "plugin_error" and raised["details"]["ruleset"] == "cassé"
            garbage = await peer.roll("cassé", {"n": 2})
            assert garbage["code"] == "plugin_error" and "success" in garbage["message"]
            assert await other.quiet() == []
            assert server.tables.get("t").seq == 0
            assert (await peer.roll())["seq"] == 1
    run(scenario())


def test_a_raising_ruleset_does_not_break_other_rulesets(tmp_path):
    """A third-party sidecar_resolve that raises on every roll, even not its own."""
    source = ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_resolve(roll, dice):\n'
              '    raise RuntimeError("greedy")\n')
    directory = tmp_path / "p"
    directory.mkdir()
    (directory / "greedy.py").write_text(source)
    host = default_host(directory)
    pipeline = RollPipeline(host)
    resolution = asyncio.run(pipeline.run(pipeline.prepare("bloodlust", {"pool": 2}),
                                          dice=[6, 6]))
    assert resolution.outcome.result["net"] == 2
    assert any("greedy" in note for note in resolution.outcome.notes)


# -- per-table state ---------------------------------------------------------------------


def test_extension_state_is_kept_per_table_and_not_changed_by_refused_rolls(tmp_path):
    directory = write_plugins(tmp_path / "p", counter=COUNTER)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 2) as (a, b):
            await a.join(table="nord", role="gm")
            await b.join(table="sud")
            assert (await a.roll())["result"]["table_roll_number"] == 1
            assert (await a.roll(params={"pool": 2}, dice=[1]))["code"] == "bad_dice"
            assert (await a.roll())["result"]["table_roll_number"] == 2
            assert (await b.roll())["result"]["table_roll_number"] == 1
    run(scenario())


def test_pipeline_runs_without_a_socket():
    host = default_host()
    pipeline = RollPipeline(host)
    roll = pipeline.prepare("bloodlust", {"pool": 5}, by={"name": "A", "role": "gm"})
    resolution = asyncio.run(pipeline.run(roll, dice=[3, 3, 8, 7, 10]))
    assert resolution.outcome.result["degree"] == "complète"
    assert resolution.text["fr"].startswith("A — 5d10 diff. 6")


# -- the hooks are documented and tested -----------------------------------------------


def test_every_hook_is_documented_in_hookspecs_readme_and_protocol_doc():
    readme = (ROOT / "README.md").read_text()
    spec = (ROOT / "protocol" / "PROTOCOL.md").read_text()
    for name in HOOK_NAMES:
        doc = getattr(hookspecs, name).__doc__ or ""
        assert len(doc.strip()) > 40, f"{name} needs a docstring"
        assert name in readme or name in spec, f"{name} is documented in neither doc"


def test_every_hook_has_a_test():
    tests = "".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))
    plugin_sources = "".join(p.read_text() for p in (ROOT / "plugins").glob("*.py"))
    for name in HOOK_NAMES:
        # Either a test plugin implements it, or a test calls it through the host.
        assert re.search(rf"def {name}\(", tests + plugin_sources), name
        assert name in tests or name.replace("sidecar_", "") in tests, name


def test_host_calls_one_implementation_at_a_time():
    host = PluginHost()
    host.load_entry_points()
    impls = host.implementations("sidecar_resolve")
    assert {"oweens", "ladder", "bloodlust", "d6code", "seuil"} <= {
        impl.plugin_name for impl in impls}
    impls = [impl for impl in impls if impl.plugin_name == "bloodlust"]
    source = ManualDice([4, 4])
    outcome = host.call(impls[0], roll=RollPipeline(host).prepare("bloodlust", {"pool": 2}),
                        dice=source)
    assert outcome.result["kind"] == "failure"
