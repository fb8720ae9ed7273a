"""Worker threads for the sync hooks of untrusted plugins, which may never return.

A ``ThreadPoolExecutor`` joins its threads when the interpreter exits, so one plugin call
stuck forever would keep a stopped server from exiting. These workers are daemon threads:
on shutdown a stuck call is abandoned, not waited for. Nothing is ever injected into a
running call (an exception raised into a thread can land inside a lock it holds): a call
past its deadline keeps its thread until it returns. How many calls one plugin may hold
at once is bounded by the caller (see ``PluginCaller.max_threads_per_plugin``), so
abandoned calls cannot pile up.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class DaemonWorkers:
    """A small pool of daemon threads running one callable at a time each."""

    def __init__(self, max_workers: int = 32, name: str = "sidecar-plugin") -> None:
        self.max_workers = max_workers
        self.name = name
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue())
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run ``fn()`` in a worker thread; its result or exception (any ``BaseException``)
        lands in the returned future."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the plugin workers are shut down")
            self._jobs.put((future, fn))
            if self._idle <= 0 and self._threads < self.max_workers:
                self._threads += 1
                threading.Thread(target=self._work, daemon=True,
                                 name=f"{self.name}-{self._threads}").start()
            else:
                self._idle -= 1  # an idle worker takes it (below 0: a backlog)
        return future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn = job
            if future.set_running_or_notify_cancel():
                try:
                    result = fn()
                except BaseException as exc:  # the plugin's, whatever it is: for the caller
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            del job, future, fn
            with self._lock:
                self._idle += 1

    def shutdown(self) -> None:
        """Let idle workers end; busy ones are abandoned (they are daemon threads)."""
        with self._lock:
            self._closed = True
            for _ in range(self._threads):
                self._jobs.put(None)
