"""Timing a plugin's own hold on the event loop, step by step (sidecar.looptime)."""

from __future__ import annotations

import asyncio
import time

import pytest

from sidecar.looptime import Timed


async def awaiting(timed: Timed) -> object:
    return await timed


def test_a_blocking_step_is_measured_and_the_waiting_is_not():
    async def hook() -> str:
        await asyncio.sleep(0.2)  # waiting: not a hold on the loop
        time.sleep(0.05)          # blocking: one step of at least 50 ms
        await asyncio.sleep(0)
        return "fait"

    async def scenario() -> tuple[object, float]:
        timed = Timed(hook())
        return await timed, timed.longest

    result, longest = asyncio.run(scenario())
    assert result == "fait"
    assert 0.05 <= longest < 0.2


def test_someone_elses_block_is_not_this_hooks():
    async def patient() -> None:
        await asyncio.sleep(0.01)

    async def scenario() -> float:
        timed = Timed(patient())
        task = asyncio.ensure_future(awaiting(timed))
        await asyncio.sleep(0)  # the hook starts, then waits
        time.sleep(0.1)         # the loop is held by this test, not by the hook
        await task
        return timed.longest

    assert asyncio.run(scenario()) < 0.05


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
