"""An untrusted extension's ``effects`` (contract §8) go through the guard like its
``spend``: well formed, they reach the outcome; malformed, the extension's changes are
left out and its failure is noted (the roll goes on)."""

from __future__ import annotations

import asyncio

from sidecar import hookimpl
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host

BY = {"name": "MJ", "role": "gm"}


class Wounding:
    """A third-party extension wounding the roll's first target."""

    def __init__(self, delta):
        self.delta = delta

    @hookimpl
    def sidecar_modify_outcome(self, roll, outcome):
        for name in roll.targets:
            outcome.effects = {**outcome.effects, name: {"blessures": self.delta}}
            outcome.notes.append("touché")
            return


def _run(delta):
    host = default_host()
    host.register(Wounding(delta), "wounding", version="1", source="example")
    try:
        pipeline = RollPipeline(host)
        roll = pipeline.prepare("oweens", {"dice": 2, "difficulty": 1}, by=BY)
        roll.targets = {"Brady": {"ruleset": "oweens", "values": {"blessures": 0}}}
        return asyncio.run(pipeline.run(roll, dice=[6, 6]))
    finally:
        host.shutdown()


def test_an_untrusted_extensions_effects_reach_the_outcome():
    done = _run(3)
    assert done.outcome.effects == {"Brady": {"blessures": 3}}
    assert "wounding" in done.outcome.applied


def test_malformed_effects_leave_the_extension_out():
    done = _run("beaucoup")
    assert done.outcome.effects == {} and "wounding" not in done.outcome.applied
    assert done.failures and "effects" in str(done.failures[0])
