"""Physical dice are marked for everyone who sees their faces (issue 29, replay 2): an
outcome whose faces a person entered carries ``manual: {by: {name, role}, dice: [index…]}``
in both dice modes (``provable``: beside its proof; ``secure``: alone), live, in
``history``, and on a decision whose faces were typed — never in a blind roll's roller's
copy, and never on drawn dice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tests.helpers import Peer, run, running_server
from tests.support.plugins import ALWAYS_OPEN, luck_host

GM = {"name": "MJ", "role": "gm"}
LEA = {"name": "Léa", "role": "player"}
PASS = {"target": 4, "skill": 0}


def _server(dice: str):
    return running_server(host=luck_host(), dice=dice, allow_player_dice=True)


@asynccontextmanager
async def _table(dice: str) -> AsyncIterator[tuple[Peer, Peer]]:
    """A server in that dice mode, its GM and Léa (who may type her own faces) at table t."""
    async with _server(dice) as server:
        gm = await Peer.open(server)
        await gm.join("t", "MJ", "gm")
        lea = await Peer.open(server)
        await lea.join("t", "Léa")
        yield gm, lea


async def _history(peer: Peer) -> dict[int, dict]:
    reply = await peer.request({"type": "history", "id": "h"})
    return {event["seq"]: event for event in reply["events"] if "seq" in event}


@pytest.mark.parametrize("dice", ["secure", "provable"])
def test_typed_faces_are_marked_with_who_entered_them(dice: str) -> None:
    async def scenario() -> None:
        async with _table(dice) as (gm, lea):
            typed = await gm.roll("luck", PASS, dice=[5])
            assert typed["type"] == "outcome", typed
            assert typed["manual"] == {"by": GM, "dice": [0]}
            seen = await lea.recv_type("outcome")
            assert seen["seq"] == typed["seq"] and seen["manual"] == {"by": GM, "dice": [0]}
            drawn = await gm.roll("luck", PASS)
            assert "manual" not in drawn
            assert "manual" not in await lea.recv_type("outcome")
            # A player's own physical dice, named as theirs.
            own = await lea.roll("luck", PASS, dice=[2])
            assert own["manual"] == {"by": LEA, "dice": [0]}
            assert (await gm.recv_type("outcome"))["manual"] == {"by": LEA, "dice": [0]}
            for peer in (gm, lea):
                past = await _history(peer)
                assert past[typed["seq"]]["manual"] == {"by": GM, "dice": [0]}
                assert past[own["seq"]]["manual"] == {"by": LEA, "dice": [0]}
                assert "manual" not in past[drawn["seq"]]
    run(scenario())


@pytest.mark.parametrize("dice", ["secure", "provable"])
def test_a_blind_rolls_roller_is_not_told_the_dice_were_typed(dice: str) -> None:
    async def scenario() -> None:
        async with _table(dice) as (gm, lea):
            blind = await lea.roll("luck", PASS, dice=[3], mode="blind")
            assert blind["result"] == {"hidden": True} and "manual" not in blind
            assert (await gm.recv_type("outcome"))["manual"] == {"by": LEA, "dice": [0]}
            assert "manual" not in (await _history(lea))[blind["seq"]]
            assert (await _history(gm))[blind["seq"]]["manual"] == {"by": LEA, "dice": [0]}
    run(scenario())


@pytest.mark.parametrize("dice", ["secure", "provable"])
def test_a_decision_whose_faces_were_typed_is_marked_by_who_decided(dice: str) -> None:
    async def scenario() -> None:
        async with _table(dice) as (gm, lea):
            opened = await lea.roll("luck", ALWAYS_OPEN)  # drawn: not marked
            assert opened["open"] is True and "manual" not in opened
            decided = await gm.request({"type": "react", "id": "d1", "roll": opened["roll"],
                                        "choice": "reroll", "dice": [6]})
            assert decided["reacts_to"] == opened["seq"], decided
            assert decided["manual"] == {"by": GM, "dice": [0]}
            seen = await lea.recv_type("outcome")
            while seen.get("reacts_to") != opened["seq"]:
                seen = await lea.recv_type("outcome")
            assert seen["manual"] == {"by": GM, "dice": [0]}
    run(scenario())
