"""How long a plugin's coroutine holds the event loop, step by step.

An ``async def`` hook shares the event loop with every table: between two ``await``\\ s its
code runs alone, and a blocking call there (``time.sleep``, a heavy computation) freezes
the whole server. Measuring the hook's wall time cannot tell that apart from waiting — it
also counts the time *other* code held the loop — so :class:`Timed` drives the coroutine
itself and times each of its steps: what it measures is this plugin's own hold on the
loop, and nobody else's.

Driving a coroutine by hand is kept for this one reason: without it a ``time.sleep`` in
an ``async def`` hook goes unblamed and its changes are kept
(``tests/test_faulty_plugins.py::test_an_async_hook_that_blocks_the_loop_is_blamed_and_disabled``
fails when :class:`Timed` is replaced by a plain ``await``).
"""

from __future__ import annotations

import time
from collections.abc import Coroutine, Generator
from typing import Any


class Timed:
    """Await ``coroutine``, recording in :attr:`longest` (seconds) its longest step.

    ``await Timed(plugin_hook(...))`` behaves as ``await plugin_hook(...)``: same result,
    same exceptions, cancellation passed through.
    """

    __slots__ = ("coroutine", "longest")

    def __init__(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        self.coroutine = coroutine
        self.longest = 0.0

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine = self.coroutine
        value: Any = None
        error: BaseException | None = None
        clock = time.perf_counter
        while True:
            start = clock()
            try:
                if error is None:
                    yielded = coroutine.send(value)
                else:
                    yielded = coroutine.throw(error)
            except StopIteration as done:
                self._count(clock() - start)
                return done.value
            except BaseException:
                self._count(clock() - start)
                raise
            self._count(clock() - start)
            try:
                value, error = (yield yielded), None
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # e.g. the task's cancellation: into the hook
                value, error = None, exc

    def _count(self, step: float) -> None:
        if step > self.longest:
            self.longest = step
