"""Timing a plugin's own hold on the event loop, step by step (sidecar.host.looptime)."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.host import looptime
from sidecar.host.looptime import Timed


async def awaiting(timed: Timed) -> object:
    return await timed


class Clock:
    """The clock :class:`Timed` reads, moved by the test: a step "blocks" for exactly the
    time the test says, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(looptime, "time", clock)
    return clock


def test_a_blocking_step_is_measured_and_the_waiting_is_not(clock: Clock) -> None:
    async def hook(waited: asyncio.Future[None]) -> str:
        await waited              # waiting: while others hold the loop for 200 ms
        clock.advance(0.05)       # blocking: this step holds the loop for 50 ms
        await asyncio.sleep(0)
        clock.advance(0.01)       # a shorter step
        return "fait"

    async def scenario() -> tuple[object, float]:
        waited = asyncio.get_running_loop().create_future()
        timed = Timed(hook(waited))
        task = asyncio.ensure_future(awaiting(timed))
        await asyncio.sleep(0)    # the hook starts, then waits
        clock.advance(0.2)        # someone else's 200 ms
        waited.set_result(None)
        return await task, timed.longest

    result, longest = asyncio.run(scenario())
    assert result == "fait"
    assert longest == pytest.approx(0.05)


def test_someone_elses_block_is_not_this_hooks(clock: Clock) -> None:
    async def patient() -> None:
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def scenario() -> float:
        timed = Timed(patient())
        task = asyncio.ensure_future(awaiting(timed))
        await asyncio.sleep(0)    # the hook starts, then waits
        clock.advance(0.1)        # the loop is held by this test, not by the hook
        await task
        return timed.longest

    assert asyncio.run(scenario()) == 0


def test_results_exceptions_and_cancellation_pass_through():
    async def fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("à moi")

    cleaned = []

    async def forever() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)

    async def scenario() -> None:
        with pytest.raises(ValueError, match="à moi"):
            await Timed(fails())
        task = asyncio.ensure_future(awaiting(Timed(forever())))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert cleaned == [True]  # the hook saw its cancellation
