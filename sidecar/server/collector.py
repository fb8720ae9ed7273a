"""The cyclic garbage collector's policy for a long-running server: pauses that do not
grow with the number of connections (issue 28).

CPython's full (generation 2) collection walks every tracked object that is not frozen;
each connection keeps about 110 of them alive (its tasks, coroutines, futures, buffers),
so with thousands of players a full collection held the event loop for 270 ms of CPU
at 3,000 connections — every roll arriving meanwhile waited, which is what the p99 was.
Objects that survived a full collection are, for the most part, the live connections and
tables: :class:`CollectorPolicy` freezes them (``gc.freeze()``) after each full
collection, so the next one walks only what was made since. Frozen objects that later
become cyclic garbage (a closed connection's reference cycles) would never be freed:
every ``thaw_every`` seconds the policy unfreezes everything instead, the next full
collection frees them (one long pause per period), and freezing resumes after it.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any


class CollectorPolicy:
    """Freeze what survives each full collection; thaw everything once per ``thaw_every``
    seconds (``None``: never freeze again after start-up, the policy before issue 28)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, thaw_every: float | None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.loop = loop
        self.thaw_every = thaw_every
        self.clock = clock
        self.thawed_at = clock()
        #: Full collections seen, freezes and thaws made (for the logs and the tests).
        self.full_collections = self.freezes = self.thaws = 0

    def install(self) -> None:
        """Freeze everything loaded so far (plugins, modules, the server itself: it lives
        as long as the process) and follow the full collections from now on."""
        gc.freeze()
        if self.thaw_every is not None:
            gc.callbacks.append(self._on_collection)

    def uninstall(self) -> None:
        """Stop following the collections (the server is stopping)."""
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        # Any thread may run a collection (plugin workers allocate too): the decision is
        # taken on the event loop's thread, outside the collector.
        if phase == "stop" and info.get("generation") == 2:
            try:
                self.loop.call_soon_threadsafe(self.after_full_collection)
            except RuntimeError:  # the loop is closed: the server is gone
                self.uninstall()

    def after_full_collection(self) -> None:
        """A full collection ended: freeze its survivors, or, once a period, thaw."""
        self.full_collections += 1
        assert self.thaw_every is not None
        if self.clock() - self.thawed_at >= self.thaw_every:
            gc.unfreeze()
            self.thawed_at = self.clock()
            self.thaws += 1
        else:
            gc.freeze()
            self.freezes += 1
