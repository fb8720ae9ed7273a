"""The garbage collector's policy of ``sidecar serve`` (issue 28): what survives a full
collection is frozen, so the next one walks only what was made since; once a period
everything is thawed, so that frozen objects that became cyclic garbage are freed.

The collector is the process's own: each test restores it (unfrozen, callback removed)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from sidecar.server.collector import CollectorPolicy


class Node:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def full_collection(loop: asyncio.AbstractEventLoop) -> None:
    """A full collection, and the policy's turn on the loop that follows it."""
    gc.collect(2)
    loop.run_until_complete(asyncio.sleep(0))


def walked(obj: object) -> bool:
    """Whether the next full collection walks ``obj`` (frozen objects are not listed)."""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def policy(loop: asyncio.AbstractEventLoop) -> Iterator[tuple[CollectorPolicy, Clock]]:
    clock = Clock()
    policy = CollectorPolicy(loop, thaw_every=600.0, clock=clock)
    policy.install()
    yield policy, clock
    policy.uninstall()
    gc.unfreeze()


def test_survivors_of_a_full_collection_are_not_walked_again(loop, policy) -> None:
    policy, _ = policy
    live = Node()  # a connection's objects, made after start-up and still in use
    assert walked(live)
    full_collection(loop)
    assert policy.freezes == 1
    assert not walked(live), "what survived a full collection is walked by every next one"
    made_since = Node()
    assert walked(made_since)


def test_frozen_garbage_is_freed_after_a_thaw(loop, policy) -> None:
    policy, clock = policy
    closed = Node()  # a connection's cycle, frozen while it was live, then closed
    gone = weakref.ref(closed)
    full_collection(loop)
    del closed
    full_collection(loop)
    assert gone() is not None  # frozen: the collector does not see it
    clock.now += 600
    full_collection(loop)  # the period is over: everything thawed
    assert policy.thaws == 1
    gc.collect(2)
    assert gone() is None, "frozen garbage must be freed once a period"


def test_no_thaw_period_keeps_the_start_up_freeze_only(loop) -> None:
    policy = CollectorPolicy(loop, thaw_every=None)
    policy.install()
    try:
        live = Node()
        full_collection(loop)
        assert policy.freezes == 0 and walked(live)
    finally:
        policy.uninstall()
        gc.unfreeze()


GC_WATCH = '''
"""Says in each outcome's notes how many objects the server's collector has frozen;
a roll labelled "collect" runs a full collection first."""
import gc
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.label == "collect":
        gc.collect()
    outcome.notes.append(f"frozen={gc.get_freeze_count()}")
'''


def test_a_real_serve_freezes_what_survives_its_full_collections(tmp_path) -> None:
    """``sidecar serve`` itself follows the policy: after a full collection in the server's
    process, what survived it is frozen (before issue 28 only the start-up was)."""
    from tests.helpers import Peer, run
    from tests.support.plugins import write_plugins
    from tests.support.serve import ServeProcess

    def frozen(outcome: dict) -> int:
        assert outcome["type"] == "outcome", outcome
        return next(int(n.split("=")[1]) for n in outcome["notes"] if n.startswith("frozen="))

    async def scenario(url: str) -> tuple[int, int]:
        peer = await Peer.connect(url)
        await peer.join(role="gm", name="MJ")
        before = frozen(await peer.roll(label="count"))
        await peer.roll(label="collect")
        after = frozen(await peer.roll(label="count"))
        await peer.close()
        return before, after

    directory = write_plugins(tmp_path / "p", gcwatch=GC_WATCH)
    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:",
                      "--trust", "gcwatch") as server:
        before, after = run(scenario(server.url))
        assert server.stop() == 0
    assert after > before, (before, after)
