"""Worker threads for the sync hooks of untrusted plugins, which may never return.

A ``ThreadPoolExecutor`` joins its threads when the interpreter exits, so one plugin call
stuck forever would keep a stopped server from exiting. These workers are daemon threads:
on shutdown a stuck call is abandoned, not waited for. How many calls one plugin may hold
at once is bounded by the host (see ``PluginHost.max_threads_per_plugin``), so abandoned
calls cannot pile up.
"""

from __future__ import annotations

import ctypes
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


class Abandoned(BaseException):
    """Raised inside a worker thread whose plugin call was abandoned at its deadline.

    A ``BaseException``, so a plugin's ``except Exception`` does not swallow it."""


class Call:
    """One plugin call in a worker thread that may be interrupted once abandoned.

    CPython cannot kill a thread, but it can raise an exception in one
    (``PyThreadState_SetAsyncExc``): a call still running past its deadline gets
    :class:`Abandoned` at its next Python instruction, so an abandoned computation stops
    taking the interpreter's time from every table. (Code blocked inside C — a ``sleep``,
    a socket — is interrupted only when it returns to Python.) The interruption is only
    ever raised while the plugin's function runs, never in the worker's own code.
    """

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self._lock = threading.Lock()
        self._thread: int | None = None
        self._running = False
        self.interrupted = False

    def __call__(self) -> Any:
        with self._lock:
            self._thread, self._running = threading.get_ident(), True
        try:
            return self.fn()
        finally:
            with self._lock:
                self._running = False

    def interrupt(self) -> bool:
        """Raise :class:`Abandoned` in the thread if the call is still running."""
        with self._lock:
            if not self._running or self._thread is None:
                return False
            done = ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self._thread), ctypes.py_object(Abandoned))
            self.interrupted = done == 1
            self._running = False  # once: a second one could outlive the plugin's code
            return self.interrupted
