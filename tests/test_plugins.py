"""The plugin host: discovery, hook isolation, failing plugins, and per-table state."""

from __future__ import annotations

import asyncio
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from sidecar import hookspecs
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import HOOK_NAMES, PluginLoadError, default_host
from tests.helpers import Peer, peers, run, running_server
from tests.support.plugins import write_plugins

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
    dice.roll(6)
    if roll.params["n"] == 1:
        raise ZeroDivisionError("oops")
    return {"result": {"success": "maybe"}}
'''

COIN = '''
"""Pile ou face: the twenty-line ruleset of docs/PLUGINS.md."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "coin", "title": {"fr": "Pile ou face", "en": "Coin toss"},
             "version": "1.0",
             "params": {"call": {"type": "string", "choices": ["pile", "face"],
                                 "required": True}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    side = "pile" if dice.roll(2) == 1 else "face"
    won = side == roll.params["call"]
    return {"result": {"success": won, "margin": 0 if won else -1,
                       "kind": "success" if won else "failure",
                       "label": {"fr": side, "en": "tails" if side == "pile" else "heads"}}}

@hookimpl
def sidecar_render_text(roll, outcome, locale):
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
     "plugin 'typo' implements unknown hook sidecar_resolv"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_modify_roll(rol):\n    pass\n',
     "plugin 'typo'"),
    ('import nonexistent_module_xyz\n', "plugin 'typo'"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_rulesets():\n'
     '    return [{"name": "bloodlust"}]\n', "already provided by plugin 'bloodlust'"),
    ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_rulesets():\n'
     '    return [{"name": "x", "params": {"a": {"type": "float"}}}]\n',
     "parameter 'a', key 'type': unknown type 'float'"),
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


GREEDY = '''
"""A ruleset written without any 'if roll.ruleset != ...' guard: owner-only hooks must make
that harmless. Its own hooks break on purpose if they are ever called for another ruleset."""
from sidecar import hookimpl

CALLS = []

@hookimpl
def sidecar_rulesets():
    return [{"name": "greedy", "params": {}}]

@hookimpl
def sidecar_resolve(roll, dice):
    CALLS.append(("resolve", roll.ruleset))
    if roll.ruleset != "greedy":
        raise RuntimeError("greedy resolved someone else's roll")
    dice.roll(6)
    return {"result": {"success": True, "margin": 0, "kind": "success",
                       "label": {"fr": "à moi", "en": "mine"}}}

@hookimpl
def sidecar_odds(roll):
    CALLS.append(("odds", roll.ruleset))
    return {"p_success": 1.0, "kinds": {"success": 1.0}}

@hookimpl
def sidecar_render_text(roll, outcome, locale):
    CALLS.append(("text", roll.ruleset))
    return "GREEDY TEXT"
'''


def test_a_ruleset_without_guards_only_gets_its_own_rolls_on_a_real_server(tmp_path):
    """`sidecar serve --plugins-dir` with a guard-less ruleset: bloodlust and oweens rolls
    and odds are answered by their owners, with their own texts, and nobody is blamed."""
    from tests.support.serve import ServeProcess

    directory = write_plugins(tmp_path / "p", greedy=GREEDY)

    async def scenario(url: str) -> None:
        peer = await Peer.open(type("S", (), {"url": url}))
        try:
            await peer.join(role="gm", name="MJ")
            blood = await peer.roll("bloodlust", {"pool": 2}, dice=[6, 6])
            assert blood["type"] == "outcome" and blood["result"]["net"] == 2
            assert blood["text"].startswith("MJ — 2d10 diff. 6") and blood["notes"] == []
            oweens = await peer.roll("oweens", {"dice": 2, "difficulty": 1}, dice=[6, 3])
            assert oweens["type"] == "outcome" and "GREEDY" not in oweens["text"]
            assert oweens["notes"] == []
            odds = await peer.request({"type": "odds", "id": "o", "ruleset": "bloodlust",
                                       "params": {"pool": 3}})
            assert odds["type"] == "odds" and odds["p_success"] < 1.0
            mine = await peer.roll("greedy", {}, dice=[4])
            assert mine["text"] == "GREEDY TEXT"
            status = await peer.request({"type": "plugins", "id": "s"})
            by_name = {p["name"]: p for p in status["plugins"]}
            for name in ("greedy", "bloodlust", "oweens"):
                assert by_name[name]["recent_failures"] == 0, by_name[name]
        finally:
            await peer.close()

    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:") as server:
        run(scenario(server.url))
        assert server.stop() == 0


def test_render_text_goes_to_the_owner_first_then_to_the_others(tmp_path):
    """A plugin answering every render_text never replaces an owner's text; it writes the
    text of a ruleset whose owner gives none."""
    loud = ('from sidecar import hookimpl\n@hookimpl(tryfirst=True)\n'
            'def sidecar_render_text(roll, outcome, locale):\n    return "LOUD " + locale\n')
    silent = ('from sidecar import hookimpl\n@hookimpl\ndef sidecar_rulesets():\n'
              '    return [{"name": "mute", "params": {}}]\n'
              '@hookimpl\ndef sidecar_resolve(roll, dice):\n'
              '    return {"result": {"success": True, "margin": 0, "kind": "success",'
              ' "label": {"fr": "oui", "en": "yes"}}}\n'
              '@hookimpl\ndef sidecar_render_text(roll, outcome, locale):\n    return None\n')
    directory = write_plugins(tmp_path / "p", loud=loud, silent=silent)
    host = default_host(directory)
    pipeline = RollPipeline(host)
    own = asyncio.run(pipeline.run(pipeline.prepare("bloodlust", {"pool": 2}), dice=[6, 6]))
    assert own.text["fr"].startswith("? — 2d10 diff. 6") and "LOUD" not in own.text["en"]
    other = asyncio.run(pipeline.run(pipeline.prepare("mute", {})))
    assert other.text == {"fr": "LOUD fr", "en": "LOUD en"}


@pytest.mark.parametrize("marker", ["wrapper=True", "hookwrapper=True"])
def test_hook_wrappers_are_refused_at_load_naming_plugin_and_hook(tmp_path, marker):
    """The host calls implementations one at a time: a wrapper would load and never run."""
    source = (f'from sidecar import hookimpl\n@hookimpl({marker})\n'
              'def sidecar_modify_outcome(roll, outcome):\n    return (yield)\n')
    directory = write_plugins(tmp_path / "p", wrapping=source)
    with pytest.raises(PluginLoadError) as refused:
        default_host(directory)
    assert "plugin 'wrapping'" in str(refused.value)
    assert "sidecar_modify_outcome" in str(refused.value) and "wrapper" in str(refused.value)


def test_tryfirst_and_trylast_set_the_order_of_extensions(tmp_path):
    def source(tag: str, opts: str) -> str:
        return (f'from sidecar import hookimpl\n@hookimpl({opts})\n'
                'def sidecar_modify_outcome(roll, outcome):\n'
                f'    outcome.notes.append("{tag}")\n')
    # Registered in file-name order a, b, c: pluggy calls the last registered first,
    # tryfirst before and trylast after everyone.
    directory = write_plugins(tmp_path / "p", a=source("a-first", "tryfirst=True"),
                              b=source("b", ""), c=source("c-last", "trylast=True"),
                              d=source("d", ""))
    pipeline = RollPipeline(default_host(directory))
    resolution = asyncio.run(pipeline.run(pipeline.prepare("bloodlust", {"pool": 2}),
                                          dice=[4, 4]))
    mine = [n for n in resolution.outcome.notes if n in ("a-first", "b", "c-last", "d")]
    assert mine == ["a-first", "d", "b", "c-last"]


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


def test_every_hook_is_documented_in_hookspecs_the_plugin_guide_and_protocol_doc():
    guide = (ROOT / "docs" / "PLUGINS.md").read_text()
    spec = (ROOT / "protocol" / "PROTOCOL.md").read_text()
    for name in HOOK_NAMES:
        doc = getattr(hookspecs, name).__doc__ or ""
        assert len(doc.strip()) > 40, f"{name} needs a docstring"
        assert name in guide or name in spec, f"{name} is documented in neither doc"


RECORDER_ANSWERS = {
    "sidecar_rulesets": [{"name": "probe", "params": {}}],
    "sidecar_resolve": {"result": {"success": True, "margin": 1, "kind": "success",
                                   "label": {"fr": "oui", "en": "yes"}},
                        "choices": [{"name": "ok", "label": {"fr": "ok", "en": "ok"},
                                     "dice": 0}]},
    "sidecar_react": {"result": {"success": True, "margin": 2, "kind": "success",
                                 "label": {"fr": "oui", "en": "yes"}}},
    "sidecar_initiative": {"order": [["P"]], "spend": {}},
    "sidecar_odds": {"p_success": 0.5, "kinds": {"success": 0.5, "failure": 0.5}},
    "sidecar_render_text": "probe text",
}


def recorder_source() -> str:
    """A plugin implementing every hook of hookspecs, with the spec's own arguments, that
    records each call (and answers what the probe ruleset needs)."""
    lines = ["from sidecar import hookimpl", "from tests.test_plugins import RECORDER_ANSWERS",
             "CALLS = []"]
    for name in HOOK_NAMES:
        args = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        lines += ["@hookimpl", f"def {name}({args}):", f"    CALLS.append({name!r})",
                  f"    return RECORDER_ANSWERS.get({name!r})"]
    return "\n".join(lines) + "\n"


def test_every_hook_has_a_test(tmp_path):
    """Every hook of hookspecs is called through the real host by a real server, driven
    over the wire: a new hook nobody calls, or a hook the pipeline stops calling, fails."""
    directory = write_plugins(tmp_path / "p", recorder=recorder_source())

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (gm,):
            await gm.join(role="gm")
            outcome = await gm.roll("probe", {})
            assert outcome["type"] == "outcome" and outcome["text"] == "probe text"
            decided = await gm.request({"type": "react", "id": "k", "roll": outcome["roll"],
                                        "choice": "ok"})
            assert decided["result"]["margin"] == 2
            made = await gm.request({"type": "sheet", "id": "c", "op": "set",
                                     "character": "P", "ruleset": "probe", "values": {}})
            assert made["type"] == "sheet", made
            as_p = await gm.roll("probe", {}, character="P")  # (declares its most spent)
            assert as_p["type"] == "outcome" and as_p["character"] == "P", as_p
            order = await gm.request({"type": "initiative", "id": "i", "characters": ["P"]})
            assert order["order"] == [["P"]], order
            odds = await gm.request({"type": "odds", "id": "o", "ruleset": "probe"})
            assert odds["type"] == "odds" and odds["p_success"] == 0.5
            blood = await gm.roll("bloodlust", {"pool": 2})
            assert blood["applied"] == [] and blood["notes"] == []

    run(scenario())
    calls = sys.modules["sidecar_dir_plugin_recorder"].CALLS
    for name in HOOK_NAMES:
        assert name in calls, f"{name} is never called through the host: drive it here"
    # Owner-only hooks went to the recorder for its own ruleset only.
    assert calls.count("sidecar_resolve") == 2 and calls.count("sidecar_odds") == 1
    # Declared before the roll as P only: not for the rolls without a character (nor
    # the decision on one), nor for bloodlust's (a ruleset declares for its own only).
    assert calls.count("sidecar_max_spend") == 1


SEQUENCE: list[str] = []


def sequenced(tag: str, opts: str, fail: bool) -> str:
    return (f'''
import asyncio
from sidecar import hookimpl
from tests.test_plugins import SEQUENCE

@hookimpl({opts})
async def sidecar_modify_outcome(roll, outcome):
    SEQUENCE.append("{tag} start")
    outcome.notes.append("{tag} was here")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    SEQUENCE.append("{tag} end")
    if {fail}:
        raise RuntimeError("{tag} breaks")
''')


def test_host_calls_one_implementation_at_a_time(tmp_path):
    """Extensions run one after the other (never interleaved, even async), each isolated:
    the first one's raise undoes only its own changes and does not stop the second."""
    directory = write_plugins(tmp_path / "p", a=sequenced("a", "tryfirst=True", True),
                              b=sequenced("b", "", False))
    SEQUENCE.clear()
    pipeline = RollPipeline(default_host(directory))
    resolution = asyncio.run(pipeline.run(pipeline.prepare("bloodlust", {"pool": 2}),
                                          dice=[4, 4]))
    assert SEQUENCE == ["a start", "a end", "b start", "b end"]
    notes = resolution.outcome.notes
    assert "b was here" in notes and "a was here" not in notes
    assert any("'a' failed" in note["en"] and "a breaks" in note["en"]
               for note in notes if isinstance(note, dict))
    assert resolution.outcome.applied == ["b"]
    assert [f.plugin for f in resolution.failures] == ["a"]


def test_the_plugins_an_epoch_records_leave_out_one_disabled_since():
    """``versions()`` (what a verifiable epoch records of the rules) is built once, and
    again when a plugin is disabled: a roll after that is not judged by the old list."""
    host = default_host()
    assert host.versions()["combat"]
    host.disable("combat", "a test")
    assert "combat" not in host.versions()
