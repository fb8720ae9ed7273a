"""The blank botch is each one's (issue 26, audit item 6): « le Conteur peut donner à tous
- aux joueurs comme aux personnages du Conteur - un échec critique "blanc". C'est-à-dire
que le premier échec critique de la partie ne compte pas » — everyone is given one: each
roller's (a character, else the seat) first botch of the session, hidden rolls included
(the Conteur's characters, whom the seed names, are the ones rolled hidden)."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from tests.helpers import peers, run, running_server

PIPELINE = RollPipeline(default_host())
BLANK = {"blank_botch": {}}


def botch(state, by, mode="public", character=None):
    roll = PIPELINE.prepare("bloodlust", {"pool": 1}, options=BLANK, mode=mode,
                            by={"name": by, "role": "gm" if by == "MJ" else "player"})
    roll.character = character
    resolution = asyncio.run(PIPELINE.run(roll, dice=[1], table_state=state))
    return resolution.outcome.result["kind"], resolution.state


def test_each_roller_has_its_own_first_botch_forgiven():
    state = {}
    kind, state = botch(state, "Aengus")
    assert kind == "failure"
    kind, state = botch(state, "Brady")  # another player: his own blank
    assert kind == "failure"
    kind, state = botch(state, "Aengus")
    assert kind == "botch"
    kind, state = botch(state, "MJ", character="Garou")  # a Conteur's character: its own
    assert kind == "failure"
    kind, state = botch(state, "MJ", character="Garou")
    assert kind == "botch"


@pytest.mark.parametrize("mode", ["gm", "blind", "self"])
def test_a_hidden_roll_of_a_conteurs_character_gets_its_blank_too(mode):
    kind, state = botch({}, "MJ", mode=mode, character="Garou")
    assert kind == "failure"
    assert botch(state, "MJ", mode=mode, character="Garou")[0] == "botch"
    assert botch(state, "Aengus")[0] == "failure"  # nobody else's was spent


def test_on_a_server_the_gm_and_a_player_each_get_one_per_session():
    async def scenario():
        async with running_server(allow_player_dice=True) as server, \
                peers(server, 2) as (gm, player):
            await gm.join(table="a", role="gm", name="MJ")
            await player.join(table="a", name="Aengus")
            first = await gm.roll(params={"pool": 1}, dice=[1], options=BLANK, mode="gm")
            assert first["result"]["kind"] == "failure", first
            mine = await player.roll(params={"pool": 1}, dice=[1], options=BLANK)
            assert mine["type"] == "outcome", mine
            assert mine["result"]["kind"] == "failure" and mine["result"]["blank_botch"]
            again = await player.roll(params={"pool": 1}, dice=[1], options=BLANK)
            assert again["result"]["kind"] == "botch"
            await gm.request({"type": "session", "id": "s", "op": "start"})
            fresh = await player.roll(params={"pool": 1}, dice=[1], options=BLANK)
            assert fresh["result"]["kind"] == "failure"
    run(scenario())
