"""Plugins cannot tell which dice source they draw from.

A third-party ruleset loaded from a plugins directory records what its ``dice`` argument
shows of itself (its class, its public names, its ``repr`` before any draw) and draws
once. Rolled on real servers, under every source (the OS's dice, verifiable dice,
physical dice, seeded test dice), guarded in a worker thread and trusted inline, it must
see the same thing every time."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from sidecar.dice.sources import SeededDice
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from sidecar.server.connections import SidecarServer
from tests.helpers import Peer, make_config, run

PROBE = '''
"""Records what its dice say of themselves."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "probe", "title": "Probe", "version": "1.0", "params": {}}]

def _look(dice):
    kind = type(dice)
    return {"class": f"{kind.__module__}.{kind.__qualname__}",
            "names": sorted(n for n in dir(dice) if not n.startswith("_")),
            "repr": repr(dice), "unused_type": type(dice.unused).__name__}

@hookimpl
def sidecar_resolve(roll, dice):
    seen = _look(dice)
    face = dice.roll(6)
    faces = dice.roll_many(1, 6)
    seen["rolled"] = [d["face"] for d in dice.rolled] == [face, *faces]
    return {"result": {"success": True, "margin": 0, "kind": "success",
                       "label": {"fr": "vu", "en": "seen"}, "seen": seen},
            "choices": [{"name": "more", "label": {"fr": "encore", "en": "more"},
                         "dice": 1}],
            "default": "more"}

@hookimpl
def sidecar_react(roll, outcome, choice, dice):
    seen = _look(dice)
    face = dice.roll(6)
    seen["rolled"] = [d["face"] for d in dice.rolled] == [face]
    return {"result": {**outcome.result, "seen": seen}, "dice": outcome.dice + dice.rolled}
'''


async def _seen(plugins: Path, *, dice: str = "secure", manual: bool = False,
                seeded: bool = False, trusted: bool = False) -> dict[str, Any]:
    config = make_config(plugins_dir=str(plugins), dice=dice,
                         trusted_plugins=("probe",) if trusted else ())
    host = default_host(config.plugins_dir)
    pipeline = (RollPipeline(host, dice_factory=lambda: SeededDice(7)) if seeded
                else None)
    server = SidecarServer(config, host=host, pipeline=pipeline)
    await server.start()
    try:
        peer = await Peer.open(server)
        await peer.join(role="gm", name="MJ")
        outcome = await peer.roll("probe", {}, **({"dice": [2, 5]} if manual else {}))
        decided = await peer.request({"type": "react", "id": "d", "roll": outcome["roll"],
                                      "choice": "more", **({"dice": [4]} if manual else {})})
        await peer.close()
    finally:
        await server.stop()
    assert outcome["type"] == "outcome", outcome
    assert decided["type"] == "outcome", decided
    # What the plugin saw when resolving, and when deciding (the same, bar its repr).
    return {"resolve": outcome["result"]["seen"], "react": decided["result"]["seen"]}


@pytest.mark.parametrize("trusted", [False, True], ids=["guarded", "trusted"])
def test_every_source_reaches_plugins_as_the_same_dice(tmp_path: Path,
                                                       trusted: bool) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "probe.py").write_text(textwrap.dedent(PROBE))

    async def scenario() -> dict[str, dict[str, Any]]:
        return {
            "secure": await _seen(plugins, trusted=trusted),
            "provable": await _seen(plugins, dice="provable", trusted=trusted),
            "manual": await _seen(plugins, manual=True, trusted=trusted),
            "manual, provable server": await _seen(plugins, dice="provable", manual=True,
                                                   trusted=trusted),
            "seeded": await _seen(plugins, seeded=True, trusted=trusted),
        }

    seen = run(scenario())
    first = seen["secure"]
    assert first["resolve"]["class"] == "sidecar.dice.sources.Dice"
    assert first["resolve"]["names"] == ["roll", "roll_many", "rolled", "unused"]
    assert first["resolve"] == first["react"]
    assert first["resolve"]["rolled"] is True
    for source, what in seen.items():
        assert what == first, source
