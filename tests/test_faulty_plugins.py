"""Faulty plugins (issue #5): raising, garbage, blocking, never finishing, meddling.

Rolls keep resolving for everyone; the faulty plugin is named in ``notes``; after 5
failures within 60 s it is disabled for the rest of the run, and the log, ``welcome``, the
``plugins`` request and ``sidecar plugins --url`` say so.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time

import pytest

from tests.helpers import Peer, peers, run, running_server
from tests.test_plugins import write_plugins

BLOCKING = '''
"""Blocks for ten seconds on every roll (until the test releases it)."""
import threading
from sidecar import hookimpl

RELEASE = threading.Event()

@hookimpl
def sidecar_modify_roll(roll):
    RELEASE.wait(10)
'''

NEVER_FINISHES = '''
"""An async hook that never returns."""
import asyncio
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    await asyncio.Event().wait()
'''

ASYNC_GOOD = '''
"""A well-behaved async extension."""
import asyncio
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    await asyncio.sleep(0)
    outcome.notes.append("async ok")
'''

MEDDLING = '''
"""Changes what extensions may not change."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_roll(roll):
    if roll.options.get("meddle") == "ruleset":
        roll.ruleset = "ladder"
    if roll.options.get("meddle") == "by":
        roll.by["name"] = "Quelqu'un d'autre"

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("meddle") == "dice":
        outcome.dice[0]["face"] = 10
    if roll.options.get("meddle") == "applied":
        outcome.applied.append("someone")
'''

LATE_WRITER = '''
"""Misses its deadline, then writes into the roll it was given."""
import threading
from sidecar import hookimpl

DONE = threading.Event()

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    threading.Event().wait(0.6)
    roll.params["pool"] = 99
    outcome.result["kind"] = "critical"
    DONE.set()
'''

GARBAGE_ODDS = '''
"""A ruleset whose odds are garbage and whose resolve raises."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "bancal", "params": {}}]

@hookimpl
def sidecar_resolve(roll, dice):
    if roll.ruleset == "bancal":
        raise RuntimeError("cassé")

@hookimpl
def sidecar_odds(roll):
    if roll.ruleset == "bancal":
        return "beaucoup"
'''


def plugin_module(name: str):
    return sys.modules[f"sidecar_dir_plugin_{name}"]


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def test_blocking_sync_plugin_never_blocks_the_table(tmp_path, caplog):
    directory = write_plugins(tmp_path / "p", blocking=BLOCKING)

    async def scenario():
        async with running_server(plugins_dir=str(directory), rate_limit=0) as server:
            clients = [await Peer.open(server) for _ in range(5)]
            for i, peer in enumerate(clients):
                await peer.join(table=f"t{i}", name=f"J{i}")
            latencies: list[float] = []

            async def rolls(peer: Peer, count: int) -> None:
                for _ in range(count):
                    start = time.perf_counter()
                    outcome = await peer.roll()
                    latencies.append(time.perf_counter() - start)
                    assert outcome["type"] == "outcome", outcome

            # While the plugin blocks, a request that touches no plugin is answered at
            # once: the event loop is free.
            async def probe() -> float:
                start = time.perf_counter()
                reply = await clients[0].request({"type": "history", "id": "p"})
                assert reply["type"] == "history"
                return time.perf_counter() - start

            roll_task = asyncio.gather(*(rolls(peer, 12) for peer in clients[1:]))
            await asyncio.sleep(0.05)
            probe_time = await probe()
            await roll_task
            assert probe_time < 0.2, probe_time
            assert len(latencies) == 48
            assert p99(latencies) < 0.3, sorted(latencies)[-5:]
            status = {p["name"]: p for p in server.host.status()}
            assert status["blocking"]["disabled"] is True
            assert "took longer than" in status["blocking"]["last_error"]
            welcome = await (await Peer.open(server)).join(name="Late")
            assert "blocking" not in [e["name"] for e in welcome["extensions"]]
            for peer in clients:
                await peer.close()

    with caplog.at_level(logging.INFO, logger="sidecar"):
        try:
            run(scenario())
        finally:
            plugin_module("blocking").RELEASE.set()
    assert any("plugin blocking disabled for the rest of the run" in r.getMessage()
               for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)


def test_async_hook_that_never_finishes_is_skipped_and_noted(tmp_path):
    directory = write_plugins(tmp_path / "p", stuck=NEVER_FINISHES, polite=ASYNC_GOOD)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            start = time.perf_counter()
            outcome = await peer.roll()
            assert time.perf_counter() - start < 1.0
            assert outcome["type"] == "outcome"
            assert any("stuck" in note and "took longer" in note for note in outcome["notes"])
            assert "async ok" in outcome["notes"] and outcome["applied"] == ["polite"]
    run(scenario())


@pytest.mark.parametrize("meddle,field", [("ruleset", "roll.ruleset"), ("by", "roll.by"),
                                          ("dice", "outcome.dice"),
                                          ("applied", "outcome.applied")])
def test_meddling_with_what_plugins_may_not_change_is_undone(tmp_path, meddle, field):
    directory = write_plugins(tmp_path / "p", meddling=MEDDLING)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (gm,):
            await gm.join(role="gm", name="MJ")
            outcome = await gm.roll(params={"pool": 2}, dice=[3, 4],
                                    options={"meddle": meddle})
            assert outcome["ruleset"] == "bloodlust" and outcome["by"]["name"] == "MJ"
            assert [d["face"] for d in outcome["dice"]] == [3, 4]
            assert outcome["applied"] == []
            assert any("meddling" in n and field in n for n in outcome["notes"])
    run(scenario())


def test_a_late_thread_cannot_change_a_sent_outcome(tmp_path):
    directory = write_plugins(tmp_path / "p", late=LATE_WRITER)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (gm,):
            await gm.join(role="gm")
            outcome = await gm.roll(params={"pool": 2}, dice=[2, 3], id="once")
            assert outcome["result"]["kind"] == "failure"
            await asyncio.to_thread(plugin_module("late").DONE.wait, 5)
            await asyncio.sleep(0.05)
            again = await gm.roll(params={"pool": 2}, dice=[2, 3], id="once")
            assert again["duplicate"] is True
            assert again["params"]["pool"] == 2 and again["result"]["kind"] == "failure"
            journaled = server.tables.get("t").recent
            assert all(e["params"]["pool"] == 2 for e in journaled.values())
    run(scenario())


def test_failing_ruleset_and_garbage_odds_are_reported_then_disabled(tmp_path):
    directory = write_plugins(tmp_path / "p", bancal=GARBAGE_ODDS)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            odds = await peer.request({"type": "odds", "id": "o", "ruleset": "bancal"})
            assert odds["code"] == "plugin_error" and "invalides" in odds["message"]
            codes = [(await peer.roll("bancal", {}))["code"] for _ in range(6)]
            assert codes == ["plugin_error"] * 6
            last = await peer.roll("bancal", {})
            assert last["details"]["disabled"] is True and "désactivé" in last["message"]
            status = await peer.request({"type": "plugins", "id": "s"})
            bancal = next(p for p in status["plugins"] if p["name"] == "bancal")
            assert bancal["disabled"] and bancal["recent_failures"] >= 5
            builtin = next(p for p in status["plugins"] if p["name"] == "bloodlust")
            assert not builtin["disabled"]
            assert (await peer.roll())["type"] == "outcome"  # everything else still works
    run(scenario())


def test_failures_outside_the_window_do_not_disable(tmp_path):
    from sidecar.plugins import default_host

    directory = write_plugins(tmp_path / "p", bancal=GARBAGE_ODDS)
    host = default_host(directory)
    host.failure_window = 0.05
    for _ in range(8):
        host.record_failure("bancal", "boom")
        time.sleep(0.02)
    assert "bancal" not in host.disabled
    host.failure_window = 60
    for _ in range(5):
        host.record_failure("bancal", "boom")
    assert "bancal" in host.disabled
    for _ in range(10):
        host.record_failure("bloodlust", "boom")  # built-ins are never disabled
    assert "bloodlust" not in host.disabled


def test_cli_plugins_url_shows_disabled_plugins(tmp_path):
    from tests.test_cli import ServeProcess, sidecar

    directory = write_plugins(tmp_path / "p", bancal=GARBAGE_ODDS)
    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:") as server:
        for _ in range(5):
            sidecar("roll", "bancal", "--url", server.url, "--token", "player-secret-token")
        shown = sidecar("plugins", "--url", server.url, "--token", "player-secret-token")
        assert shown.returncode == 0
        line = next(line for line in shown.stdout.splitlines() if line.startswith("bancal"))
        assert "DISABLED" in line and "recent failures" in shown.stdout
