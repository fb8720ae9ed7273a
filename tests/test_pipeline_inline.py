"""The inline path of built-in rolls: declared extension scopes, bulk dice, table state."""

from __future__ import annotations

import asyncio

import pytest

from sidecar import hookimpl
from sidecar.dice.sources import SecureDice
from sidecar.host.pipeline import RollPipeline, TableStates
from sidecar.host.plugins import default_host, scope
from sidecar.protocol.errors import ProtocolError

BY = {"name": "A", "role": "gm"}


class Scoped:
    """Counts its calls; declared for bloodlust rolls whose options name it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    @hookimpl
    @scope(rulesets=("bloodlust",), option="scoped")
    def sidecar_modify_roll(self, roll):
        self.calls.append(("roll", roll.ruleset))

    @hookimpl
    @scope(rulesets=("bloodlust",), option="scoped")
    def sidecar_modify_outcome(self, roll, outcome):
        self.calls.append(("outcome", roll.ruleset))


def _rolls(trusted: bool) -> list[tuple[str, str]]:
    host = default_host()
    plugin = Scoped()
    host.register(plugin, "scoped", trusted=trusted)
    pipeline = RollPipeline(host)

    async def scenario() -> None:
        for ruleset, params, options in [
                ("bloodlust", {"pool": 2}, {}),                     # not asked for
                ("ladder", {"level": 1, "difficulty": 3}, {"scoped": True}),  # elsewhere
                ("bloodlust", {"pool": 2}, {"scoped": True})]:      # in scope
            roll = pipeline.prepare(ruleset, params, options=options, by=BY)
            await pipeline.run(roll)
    try:
        asyncio.run(scenario())
    finally:
        host.shutdown()
    return plugin.calls


def test_a_trusted_extension_is_called_only_within_its_declared_scope():
    assert _rolls(trusted=True) == [("roll", "bloodlust"), ("outcome", "bloodlust")]


def test_a_third_party_extension_is_called_on_every_roll_whatever_it_declares():
    calls = _rolls(trusted=False)
    assert calls.count(("roll", "bloodlust")) == 2 and ("roll", "ladder") in calls
    assert len(calls) == 6


def test_secure_dice_drawn_in_bulk_come_from_the_pool_and_are_recorded():
    pools = {10: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4]}
    source = SecureDice(pools)
    faces = source.roll_many(5, 10)
    assert sorted(faces) == [3, 4, 8, 9, 10] and len(pools[10]) == 7
    assert source.rolled == [{"sides": 10, "face": f} for f in faces]
    assert source.roll_many(3, 10, role="twin") and source.rolled[-1]["role"] == "twin"
    many = source.roll_many(40, 10)  # more than the pool holds: refilled on the way
    assert len(many) == 40 and all(1 <= f <= 10 for f in many)
    assert len(source.rolled) == 48
    one = SecureDice({4: [2, 3]})
    assert one.roll(4, role="complication") == 3 and one.roll(4) == 2 and one.pools[4] == []
    assert one.rolled == [{"sides": 4, "face": 3, "role": "complication"},
                          {"sides": 4, "face": 2}]
    assert 1 <= one.roll(4) <= 4 and len(one.pools[4]) > 0  # an empty pool is refilled


def test_table_state_after_a_roll_has_no_empty_maps_of_plugins_without_state():
    host = default_host()
    pipeline = RollPipeline(host)
    roll = pipeline.prepare("bloodlust", {"pool": 3}, options={"blank_botch": {}}, by=BY)
    resolution = asyncio.run(pipeline.run(roll, dice=[2, 3, 4],
                                          table_state={"other": {"kept": 1}}))
    assert resolution.state == {"other": {"kept": 1}}
    botch = pipeline.prepare("bloodlust", {"pool": 1}, options={"blank_botch": {}}, by=BY)
    resolution = asyncio.run(pipeline.run(botch, dice=[1], table_state={}))
    assert resolution.state == {"blank_botch": {"rollers": {"A": 0}}}  # (each one's)
    states = TableStates({"cleared": {"x": 1}})
    states.of("cleared").clear()
    assert states.merged() == {"cleared": {}}


def test_validated_params_are_remembered_by_type_and_each_roll_gets_its_own():
    pipeline = RollPipeline(default_host())
    first = pipeline.prepare("bloodlust", {"pool": 5, "willpower": True}, by=BY)
    first.params["pool"] = 99  # a roll's params are its own, not the remembered ones
    again = pipeline.prepare("bloodlust", {"pool": 5, "willpower": True}, by=BY)
    assert again.params["pool"] == 5 and again.params["willpower"] is True
    with pytest.raises(ProtocolError) as refused:  # 1 == True, but not a bool
        pipeline.prepare("bloodlust", {"pool": 5, "willpower": 1}, by=BY)
    assert refused.value.code == "invalid_params"
    seuil = {"level": 3, "threshold": 20, "factors": ["stress_bas"]}
    listed = pipeline.prepare("seuil", seuil, by=BY)
    listed.params["factors"].append("stress_eleve")  # its list is its own too
    assert pipeline.prepare("seuil", seuil, by=BY).params["factors"] == ["stress_bas"]


@pytest.mark.parametrize("sides", [1, 2, 3, 6, 7, 10, 12, 20, 100, 255, 256])
def test_secure_dice_refill_keeps_rejection_sampling_exact(sides, monkeypatch):
    """Every byte below the largest multiple of ``sides`` gives ``b % sides + 1``, every
    byte at or above it is dropped (what keeps each face exactly equally likely)."""
    block = bytes(range(256)) * (SecureDice.BLOCK // 256)
    monkeypatch.setattr("sidecar.dice.sources.os.urandom", lambda n: block[:n])
    limit = 256 - 256 % sides
    assert SecureDice._refill(sides) == [b % sides + 1 for b in block if b < limit]


class WaitingOdds:
    """A trusted ruleset whose odds wait for the event loop to say it is still turning."""

    def __init__(self) -> None:
        import threading

        self.loop_turned = threading.Event()

    @hookimpl
    def sidecar_rulesets(self):
        return [{"name": "patient", "title": "Patient", "params": {}}]

    @hookimpl
    def sidecar_resolve(self, roll, dice):
        return {"kind": "success", "margin": 0, "label": {"fr": "Oui", "en": "Yes"}}

    @hookimpl
    def sidecar_odds(self, roll):
        # On the loop, nothing could set the event meanwhile: the wait would time out.
        turned = self.loop_turned.wait(timeout=5)
        return {"p_success": 1.0 if turned else 0.0,
                "kinds": {"success": 1.0 if turned else 0.0}}


def test_a_built_in_rulesets_odds_are_computed_off_the_event_loop():
    """Exact odds near the work budget take a good part of a second: a trusted ruleset
    computes them in a worker thread, and the loop goes on serving meanwhile."""
    host = default_host()
    plugin = WaitingOdds()
    host.register(plugin, "patient", trusted=True)
    pipeline = RollPipeline(host)

    async def scenario() -> dict:
        async def signal() -> None:
            await asyncio.sleep(0)  # the odds have started: the loop is free to run this
            plugin.loop_turned.set()

        signaller = asyncio.create_task(signal())
        roll = pipeline.prepare("patient", {}, by=BY)
        odds = await pipeline.odds(roll)
        await signaller
        return odds

    try:
        odds = asyncio.run(scenario())
    finally:
        host.shutdown()
    assert odds["p_success"] == 1.0
