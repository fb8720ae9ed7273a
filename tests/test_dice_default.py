"""Verifiable dice are the default (issue 28, item 3): a real ``sidecar serve`` started
without ``--dice`` commits each table to an epoch and proves every face; ``--dice secure``
opts out."""

from __future__ import annotations

from sidecar.config import ServerConfig
from tests.helpers import Peer, run
from tests.support.serve import ServeProcess


async def _join_and_roll(url: str) -> tuple[dict, dict]:
    peer = await Peer.connect(url)
    welcome = await peer.join(table="defaut", role="gm", name="MJ")
    outcome = await peer.roll(params={"pool": 3})
    await peer.close()
    return welcome, outcome


def test_serve_without_dice_option_serves_provable_dice():
    assert ServerConfig().dice == "provable"
    with ServeProcess("--db", ":memory:", dice=None) as server:
        welcome, outcome = run(_join_and_roll(server.url))
        assert welcome["epoch"]["number"] == 1 and welcome["epoch"]["commitment"]
        assert outcome["type"] == "outcome" and "proof" in outcome, outcome
        server.stop_checked()


def test_dice_secure_opts_out():
    with ServeProcess("--db", ":memory:", "--dice", "secure", dice=None) as server:
        welcome, outcome = run(_join_and_roll(server.url))
        assert "epoch" not in welcome
        assert outcome["type"] == "outcome" and "proof" not in outcome
        server.stop_checked()
