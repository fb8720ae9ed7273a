"""Worker threads for untrusted sync hooks: daemon threads, and abandoned calls stopped."""

from __future__ import annotations

import threading

import pytest

from sidecar.host.workers import Abandoned, Call, DaemonWorkers


def test_an_abandoned_computation_is_interrupted_and_the_worker_lives_on():
    workers = DaemonWorkers(max_workers=1)
    started = threading.Event()

    def spin() -> None:
        started.set()
        while True:  # pure Python: interrupted at its next instruction
            pass

    call = Call(spin)
    future = workers.submit(call)
    assert started.wait(5)
    assert call.interrupt() is True
    with pytest.raises(Abandoned):
        future.result(timeout=5)
    assert call.interrupt() is False  # once only
    # the same (single) worker thread takes the next job
    assert workers.submit(Call(lambda: "encore")).result(timeout=5) == "encore"
    workers.shutdown()


def test_a_finished_call_is_never_interrupted():
    call = Call(lambda: 42)
    assert call() == 42
    assert call.interrupt() is False and call.interrupted is False
