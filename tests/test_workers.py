"""Worker threads for untrusted sync hooks: daemon threads; a call that never returns keeps
its own thread and is never interrupted, and holds up neither the next call nor shutdown."""

from __future__ import annotations

import threading

import pytest

from sidecar.host.workers import DaemonWorkers


def test_a_stuck_call_keeps_its_thread_and_the_next_call_gets_another():
    workers = DaemonWorkers(max_workers=2)
    release, started = threading.Event(), threading.Event()
    finished = []

    def stuck() -> str:
        started.set()
        release.wait()
        finished.append("stuck")  # it ran to its end: nothing was raised into it
        return "late"

    late = workers.submit(stuck)
    assert started.wait(5)
    assert workers.submit(lambda: "encore").result(timeout=5) == "encore"
    assert not late.done()
    release.set()
    assert late.result(timeout=5) == "late" and finished == ["stuck"]
    workers.shutdown()


def test_a_raise_lands_in_the_future_and_the_worker_lives_on():
    workers = DaemonWorkers(max_workers=1)

    def fails() -> None:
        raise SystemExit("from a plugin")

    with pytest.raises(SystemExit):
        workers.submit(fails).result(timeout=5)
    assert workers.submit(lambda: 42).result(timeout=5) == 42
    workers.shutdown()
    with pytest.raises(RuntimeError):
        workers.submit(lambda: 1)


def test_shutdown_does_not_wait_for_a_call_that_never_returns():
    workers = DaemonWorkers(max_workers=1)
    never, started = threading.Event(), threading.Event()
    workers.submit(lambda: (started.set(), never.wait()))
    assert started.wait(5)
    workers.shutdown()  # returns at once: the stuck daemon thread is abandoned
    never.set()
