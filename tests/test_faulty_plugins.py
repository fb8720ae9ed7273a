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
from tests.support.plugins import plugin_status, write_plugins

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
    if roll.options.get("meddling") == "ruleset":
        roll.ruleset = "ladder"
    if roll.options.get("meddling") == "by":
        roll.by["name"] = "Quelqu'un d'autre"

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("meddling") == "dice":
        outcome.dice[0]["face"] = 10
    if roll.options.get("meddling") == "applied":
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
    raise RuntimeError("cassé")

@hookimpl
def sidecar_odds(roll):
    return "beaucoup"
'''


def plugin_module(name: str):
    return sys.modules[f"sidecar_dir_plugin_{name}"]


def test_blocking_sync_plugin_never_blocks_the_table(tmp_path, caplog):
    """48 rolls from 4 tables while a sync plugin blocks its threads: every roll is
    answered, the plugin holds at most its bound of threads, is disabled after 5 failures,
    and the event loop answers other requests while the plugin is still blocked."""
    directory = write_plugins(tmp_path / "p", blocking=BLOCKING)

    async def scenario():
        async with running_server(plugins_dir=str(directory), rate_limit=0) as server:
            clients = [await Peer.open(server) for _ in range(5)]
            for i, peer in enumerate(clients):
                await peer.join(table=f"t{i}", name=f"J{i}")
            info = server.host.plugins["blocking"]
            outcomes: list[dict] = []
            held: list[int] = []

            async def rolls(peer: Peer, count: int) -> None:
                for _ in range(count):
                    outcome = await peer.roll()
                    assert outcome["type"] == "outcome", outcome
                    outcomes.append(outcome)
                    held.append(info.in_flight)

            roll_task = asyncio.gather(*(rolls(peer, 12) for peer in clients[1:]))
            # While the plugin's threads are blocked, a request that touches no plugin is
            # answered: the event loop is free.
            while info.in_flight == 0:
                await asyncio.sleep(0.01)
            reply = await clients[0].request({"type": "history", "id": "p"})
            assert reply["type"] == "history"
            assert info.in_flight > 0 and not plugin_module("blocking").RELEASE.is_set()
            await roll_task
            assert len(outcomes) == 48 and max(held) <= server.host.max_threads_per_plugin
            blamed = [o for o in outcomes if any("blocking" in n for n in o["notes"])]
            # Disabled at the 5th failure; rolls already past the host's list (one per
            # other table at most) may still count one each.
            assert 5 <= len(blamed) <= 5 + 3, len(blamed)
            assert any("already has" in n for o in blamed for n in o["notes"])
            status = {p["name"]: p for p in server.host.status()}
            assert status["blocking"]["disabled"] is True
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
            outcome = await peer.roll()
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
                                    options={"meddling": meddle})
            assert outcome["ruleset"] == "bloodlust" and outcome["by"]["name"] == "MJ"
            assert [d["face"] for d in outcome["dice"]] == [3, 4]
            assert outcome["applied"] == []
            assert any("meddling" in n and field in n for n in outcome["notes"])
    run(scenario())


def test_a_late_thread_cannot_change_a_sent_outcome(tmp_path):
    directory = write_plugins(tmp_path / "p", late=LATE_WRITER)

    async def scenario():
        # (The product's deadline: the late writer sleeps 0.6 s past it.)
        async with running_server(plugins_dir=str(directory), plugin_timeout=0.25) as server, \
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
    from sidecar.host.plugins import default_host

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
    from tests.support.serve import ServeProcess, sidecar

    directory = write_plugins(tmp_path / "p", bancal=GARBAGE_ODDS)
    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:") as server:
        for _ in range(5):
            sidecar("roll", "bancal", "--url", server.url, "--token", "player-secret-token")
        shown = sidecar("plugins", "--url", server.url, "--token", "player-secret-token")
        assert shown.returncode == 0
        line = next(line for line in shown.stdout.splitlines() if line.startswith("bancal"))
        assert "DÉSACTIVÉ" in line and "échecs récents" in shown.stdout
        english = sidecar("plugins", "--url", server.url, "--token", "player-secret-token",
                          "--locale", "en")
        line = next(line for line in english.stdout.splitlines() if line.startswith("bancal"))
        assert "DISABLED" in line and "recent failures" in english.stdout


# -- issue 14: plugins that try to stop the server, hold the loop, or poison the journal ----

EXITING = '''
"""A sync extension that calls sys.exit() (in its worker thread)."""
import sys
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    sys.exit(3)
'''

INTERRUPTING = '''
"""An async extension raising KeyboardInterrupt on the event loop."""
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    raise KeyboardInterrupt("stop everything")
'''

CANCELLING = '''
"""An async extension raising CancelledError of its own (nobody cancelled it)."""
import asyncio
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_roll(roll):
    raise asyncio.CancelledError()
'''

EXITING_RULESET = '''
"""A ruleset whose resolve exits and whose text raises SystemExit inline."""
import sys
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "sortie", "params": {}}]

@hookimpl
async def sidecar_resolve(roll, dice):
    raise SystemExit(0)
'''


def test_no_exception_from_a_plugin_stops_a_real_server(tmp_path):
    """sys.exit() in a sync hook, KeyboardInterrupt and CancelledError raised by async
    hooks, SystemExit from a ruleset: each is that plugin's failure, noted and counted
    until it is disabled; the server keeps running and the roller keeps its connection."""
    from tests.support.serve import ServeProcess

    directory = write_plugins(tmp_path / "p", exiting=EXITING, interrupting=INTERRUPTING,
                              cancelling=CANCELLING, sortie=EXITING_RULESET)

    async def scenario(url: str) -> None:
        peer = await Peer.connect(url)
        await peer.join(role="gm", name="MJ")
        for attempt in range(6):
            outcome = await peer.roll(params={"pool": 2}, dice=[6, 7])
            assert outcome["type"] == "outcome", outcome
            assert outcome["result"]["net"] == 2  # nothing of theirs was kept
            noted = " ".join(outcome["notes"])
            for name, why in (("exiting", "SystemExit"), ("interrupting", "KeyboardInterrupt"),
                              ("cancelling", "CancelledError")):
                assert (name in noted and why in noted) == (attempt < 5), (attempt, noted)
        refused = await peer.roll("sortie", {})
        assert refused["code"] == "plugin_error" and "SystemExit" in refused["message"]
        status = await plugin_status(peer)
        for name in ("exiting", "interrupting", "cancelling"):
            assert status[name]["disabled"] is True, status[name]
            assert status[name]["recent_failures"] == 5
        assert status["sortie"]["recent_failures"] == 1
        assert (await peer.roll())["type"] == "outcome"  # same connection, still served
        await peer.close()

    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:") as server:
        run(scenario(server.url))
        assert server.proc.poll() is None  # still running
        assert server.stop() == 0


def test_only_the_servers_own_cancellation_propagates(tmp_path):
    """Cancelling the task running a roll (the server shutting down) cancels it, and is
    nobody's failure; a CancelledError raised by the plugin is the plugin's failure."""
    waiting = ('import asyncio\nfrom sidecar import hookimpl\nARMED = []\n'
               '@hookimpl\nasync def sidecar_modify_roll(roll):\n'
               '    if ARMED:\n        ARMED[0].set()\n        await asyncio.sleep(30)\n')
    from sidecar.host.pipeline import RollPipeline
    from sidecar.host.plugins import default_host

    # 'waiting' is registered after 'cancelling' (file names in order): it runs first.
    directory = write_plugins(tmp_path / "p", waiting=waiting, cancelling=CANCELLING)
    host = default_host(directory)
    host.timeout = 60
    pipeline = RollPipeline(host)

    async def scenario():
        started = asyncio.Event()
        plugin_module("waiting").ARMED.append(started)
        task = asyncio.create_task(pipeline.run(pipeline.prepare("bloodlust", {"pool": 2})))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()
        assert not host.plugins["waiting"].failures
        assert not host.plugins["cancelling"].failures  # never reached
        plugin_module("waiting").ARMED.clear()
        resolution = await pipeline.run(pipeline.prepare("bloodlust", {"pool": 2}))
        assert [f.plugin for f in resolution.failures] == ["cancelling"]
        assert "CancelledError" in resolution.failures[0].error
        assert len(host.plugins["cancelling"].failures) == 1

    run(scenario())


LOOP_BLOCKER = '''
"""An async hook that blocks the event loop (time.sleep instead of await)."""
import time
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    time.sleep(0.3)
    outcome.notes.append("slept")
'''


def test_an_async_hook_that_blocks_the_loop_is_blamed_and_disabled(tmp_path):
    directory = write_plugins(tmp_path / "p", sleeper=LOOP_BLOCKER)

    async def scenario():
        async with running_server(plugins_dir=str(directory), plugin_timeout=0.1) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            notes = [(await peer.roll())["notes"] for _ in range(3)]
            assert "slept" not in notes[0]  # its changes are not kept
            assert any("sleeper" in n and "held the event loop" in n for n in notes[0])
            # past its whole deadline in one step it froze every table: disabled at once
            assert notes[1:] == [[], []]
            assert server.host.plugins["sleeper"].disabled
    run(scenario())


SPINNER = '''
"""A sync hook blocked far past its deadline in C code (until released)."""
import threading
from sidecar import hookimpl

RELEASE = threading.Event()
RUNNING = []

@hookimpl
def sidecar_odds(roll):
    RUNNING.append(1)
    try:
        RELEASE.wait()  # blocked until released: it keeps its thread meanwhile
    finally:
        RUNNING.pop()

@hookimpl
def sidecar_rulesets():
    return [{"name": "lourd", "params": {}}]
'''


def test_a_plugin_holds_a_bounded_number_of_threads(tmp_path):
    """Calls past their deadline keep their thread; past the bound further calls fail at
    once, as that plugin's failures, without starting a thread."""
    directory = write_plugins(tmp_path / "p", spinner=SPINNER)

    async def scenario():
        async with running_server(plugins_dir=str(directory), plugin_timeout=0.05,
                                  rate_limit=0) as server, peers(server, 1) as (peer,):
            await peer.join()
            module = plugin_module("spinner")
            bound = server.host.max_threads_per_plugin
            replies = [await peer.request({"type": "odds", "id": i, "ruleset": "lourd"})
                       for i in range(5)]
            assert [r["code"] for r in replies] == ["plugin_error"] * 5
            assert len(module.RUNNING) == bound == server.host.plugins["spinner"].in_flight
            busy = [r for r in replies if "PluginBusy" in r["message"]]
            assert len(busy) == 5 - bound
            assert server.host.plugins["spinner"].disabled
            module.RELEASE.set()
            while server.host.plugins["spinner"].in_flight:
                await asyncio.sleep(0.01)
            assert module.RUNNING == []

    try:
        run(scenario())
    finally:
        plugin_module("spinner").RELEASE.set()


LOCKED_SPINNER = '''
"""A sync hook that computes in pure Python, a lock held, far past its deadline."""
import threading
from sidecar import hookimpl

LOCK = threading.Lock()
RELEASE = threading.Event()
ENDED = []

@hookimpl
def sidecar_odds(roll):
    with LOCK:
        n = 0
        while not RELEASE.is_set():  # pure Python: any injected exception lands in here
            n += 1
        ENDED.append("in order")

@hookimpl
def sidecar_rulesets():
    return [{"name": "verrou", "params": {}}]
'''


def test_a_call_past_its_deadline_is_abandoned_never_interrupted_inside_its_lock(tmp_path):
    """Plugins are trusted code guarded against bugs, not malice: past its deadline a sync
    call is answered for (``plugin_error``) and left to end in its own time, never
    interrupted — an exception raised into its thread could land while it holds a lock.
    The table is answered meanwhile, and the call ends its critical section in order."""
    directory = write_plugins(tmp_path / "p", locked=LOCKED_SPINNER)

    async def scenario():
        async with running_server(plugins_dir=str(directory), plugin_timeout=0.05,
                                  rate_limit=0) as server, peers(server, 1) as (peer,):
            await peer.join()
            module = plugin_module("locked")
            reply = await peer.request({"type": "odds", "id": 1, "ruleset": "verrou"})
            assert reply["code"] == "plugin_error" and "PluginTimeout" in reply["message"]
            assert (await peer.roll())["type"] == "outcome"  # the table goes on meanwhile
            assert server.host.plugins["locked"].in_flight == 1  # still running
            module.RELEASE.set()
            for _ in range(500):  # wait (bounded) for the abandoned call to end
                if not server.host.plugins["locked"].in_flight:
                    break
                await asyncio.sleep(0.01)
            assert module.ENDED == ["in order"] and not module.LOCK.locked()

    try:
        run(scenario())
    finally:
        plugin_module("locked").RELEASE.set()


STUCK_FOREVER = '''
"""A sync hook that never returns."""
import threading
from sidecar import hookimpl

@hookimpl
def sidecar_modify_roll(roll):
    threading.Event().wait()
'''


def test_a_plugin_stuck_forever_does_not_hold_up_shutdown(tmp_path):
    from tests.support.serve import ServeProcess

    directory = write_plugins(tmp_path / "p", stuck=STUCK_FOREVER)

    async def scenario(url: str) -> None:
        peer = await Peer.connect(url)
        await peer.join()
        outcome = await peer.roll()
        assert any("stuck" in n and "took longer" in n for n in outcome["notes"])
        await peer.close()

    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:",
                      "--plugin-timeout", "0.1") as server:
        run(scenario(server.url))
        # SIGTERM: the stuck worker thread is abandoned, the process exits (stop() waits a
        # bounded time and raises if it does not).
        assert server.stop() == 0


HUGE = '''
"""Returns values that JSON takes but MessagePack cannot carry, or odds that are not."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "enorme", "params": {"how": {"type": "string", "default": "result"}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    how = roll.params["how"]
    result = {"success": True, "margin": 0, "kind": "success",
              "label": {"fr": "oui", "en": "yes"}}
    if how == "result":
        result["extra"] = {"deep": [2 ** 64]}
    if how == "margin":
        result["margin"] = -(2 ** 63) - 1
    if how == "state":
        roll.state["n"] = 2 ** 70
    if how == "dice":
        return {"result": result, "dice": [{"sides": 6, "face": 2 ** 65}]}
    if how == "notes":
        return {"result": result, "notes": [2 ** 64]}
    return {"result": result}

@hookimpl
def sidecar_odds(roll):
    how = roll.params["how"]
    if how == "text":
        return {"p_success": 0.5, "kinds": {"success": "half"}}
    if how == "huge":
        return {"p_success": 0.5, "kinds": {"success": 10 ** 400}}
    if how == "nan":
        return {"p_success": float("nan"), "kinds": {}}
    if how == "above":
        return {"p_success": 0.5, "kinds": {"success": 1.5}}
    if how == "distribution":
        return {"p_success": 0.5, "kinds": {"success": 0.5}, "distribution": [2 ** 64]}
    return {"p_success": 0.5, "kinds": {"success": 0.5, "failure": 0.5}}
'''

POISONING_EXTENSION = '''
"""An extension that puts an integer above 2**64 into the result and into its state."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("poison") == "result":
        outcome.result["big"] = 2 ** 64
    if roll.options.get("poison") == "state":
        roll.state["big"] = -(2 ** 64)
'''


def test_what_plugins_return_is_validated_before_it_is_stored(tmp_path):
    """Integers outside MessagePack's range anywhere in result, dice, notes or state, and
    malformed odds, are the plugin's failure (plugin_error or a note), never stored: the
    table's history and resume keep working for MessagePack clients."""
    from tests.support.serve import ServeProcess

    # Two copies of the ruleset: each is disabled after its first 5 failures.
    directory = write_plugins(tmp_path / "p", enorme=HUGE, poison=POISONING_EXTENSION,
                              cotes=HUGE.replace('"enorme"', '"cotes"'))

    async def scenario(url: str) -> None:
        peer = await Peer.connect(url)
        await peer.join(role="gm", name="MJ")
        for how in ("result", "margin", "state", "dice", "notes"):
            reply = await peer.roll("enorme", {"how": how})
            assert reply["type"] == "error" and reply["code"] == "plugin_error", (how, reply)
        for how in ("text", "huge", "nan", "above", "distribution"):
            reply = await peer.request({"type": "odds", "id": how, "ruleset": "cotes",
                                        "params": {"how": how}})
            assert reply["code"] == "plugin_error" and "invalides" in reply["message"], how
        for poison in ("result", "state"):
            outcome = await peer.roll(params={"pool": 2}, options={"poison": poison})
            assert outcome["type"] == "outcome" and "big" not in outcome["result"]
            assert any("poison" in n and "2**64" in n for n in outcome["notes"]), poison
        status = await plugin_status(peer)
        for name in ("enorme", "cotes"):
            assert status[name]["recent_failures"] == 5 and status[name]["disabled"], name
        assert status["poison"]["recent_failures"] == 2
        history = await peer.request({"type": "history", "id": "h"})
        assert history["type"] == "history", history
        await peer.close()
        again = await Peer.connect(url)
        await again.join(role="gm", name="MJ2", resume=0)
        replayed = await again.recv_type("outcome")
        assert replayed["seq"] == 1
        await again.close()

    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:") as server:
        run(scenario(server.url))
        assert server.stop() == 0


TEXTLESS_RULESET = '''
"""A third-party ruleset that writes no text of its own."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "muet", "params": {}}]

@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    return {"result": {"success": face > 3, "margin": face - 4, "kind": "success"
                       if face > 3 else "failure", "label": {"fr": "fait", "en": "done"}}}
'''


def test_a_ruleset_without_texts_gets_the_default_and_asks_no_other_ruleset(tmp_path):
    directory = write_plugins(tmp_path / "p", muet=TEXTLESS_RULESET)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            await peer.join(name="Aengus")
            for _ in range(3):
                outcome = await peer.roll("muet", {})
                assert outcome["type"] == "outcome", outcome
                assert outcome["text"] == "Aengus — fait" and outcome["notes"] == []
            # the built-in rulesets were not asked for a text they cannot write
            assert all(not info.failures for info in server.host.plugins.values())
    run(scenario())


TRUSTED_MAP_RULESET = '''
"""A ruleset the operator trusts (--trust) that answers with maps, one of them malformed."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "carte", "params": {"ok": {"type": "bool", "default": True}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    if not roll.params["ok"]:
        return {"result": "pas une carte"}
    return {"result": {"success": True, "margin": face, "kind": "success",
                       "label": {"fr": "oui", "en": "yes"}}}
'''


def test_a_trusted_ruleset_answering_a_malformed_map_gets_plugin_error(tmp_path):
    directory = write_plugins(tmp_path / "p", carte=TRUSTED_MAP_RULESET)

    async def scenario():
        async with running_server(plugins_dir=str(directory),
                                  trusted_plugins=("carte",)) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            good = await peer.roll("carte", {})
            assert good["type"] == "outcome" and good["dice"][0]["sides"] == 6, good
            bad = await peer.roll("carte", {"ok": False})
            assert bad["type"] == "error" and bad["code"] == "plugin_error", bad
            assert (await peer.roll("carte", {}))["type"] == "outcome"  # and it goes on
    run(scenario())
