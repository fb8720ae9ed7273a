"""One open roll per character (contract §8.5) without a leak (contract §7, 1.2: refusals
never depend on the dice): when the open roll made as a character is hidden from the seat
now rolling as it — a GM's ``gm`` or ``blind`` roll made as the seat's character, or the
seat's own ``blind`` roll —, whether it is open was decided by its dice. The seat's roll
is then not refused: the hidden roll takes its default first, in the same turn, journaled
with the roll's own visibility, and the seat's roll goes on. What the seat receives is
the same whether the hidden roll was open or not (the seq apart: the default is an event,
one the seat does not see, as when its time runs out). A GM rolling as the character
while it is open is still refused.

The ``luck`` test ruleset (tests/sheet_plugin.py): a failure with ``second_chance`` opens
the roll (``reroll`` / ``keep``, default ``keep``, which spends nothing).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import Peer, run, running_server
from tests.support.plugins import luck_host

#: Faces of the hidden roll (skill 2, target 4): a failure opens it, a success does not.
OPENS, CLOSED = [1], [6]


async def _table(server: Any) -> tuple[Peer, Peer]:
    """A GM and Alice's seat, which plays Aengus (a ``luck`` sheet)."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    token = (await gm.request({"type": "seat", "id": "s", "op": "add",
                               "name": "Alice"}))["token"]
    made = await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Aengus",
                             "ruleset": "luck", "owner": "Alice", "values": {}})
    assert made["type"] == "sheet", made
    alice = await Peer.open(server)
    await alice.join("t", "Alice", token=token)
    await alice.unseen()
    return gm, alice


def _without_seq(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames as a seat compares them across runs: request and roll ids (random) and seqs
    (the default taken is an event the seat does not see) left out."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if k not in ("seq", "next", "roll", "id", "request_id")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return [strip(frame) for frame in frames]


async def _seat_after_hidden(faces: list[int], roller: str, mode: str
                             ) -> tuple[list[dict[str, Any]], dict[str, Any], list[Any]]:
    """The hidden roll as Aengus (``roller``: ``gm`` or ``alice``), then Alice's roll as
    Aengus: what Alice received, her roll's reply, and the GM's events in order."""
    async with running_server(host=luck_host(), allow_player_dice=True) as server:
        gm, alice = await _table(server)
        hider = gm if roller == "gm" else alice
        hidden = await hider.roll("luck", {"target": 4, "second_chance": True},
                                  character="Aengus", mode=mode, dice=faces)
        assert hidden["type"] == "outcome", hidden
        if roller == "gm":
            assert hidden.get("open", False) is (faces == OPENS)
        mine = await alice.roll("luck", {"target": 4}, character="Aengus", dice=[5])
        seen = [f for f in alice.seen if f["type"] != "presence"]
        # The GMs see the default taken before the seat's roll, with the roll's own
        # visibility, and the seat's roll.
        events = [f for f in await gm.unseen() if f["type"] == "outcome"]
        history = await alice.request({"type": "history", "id": "h"})
        return seen + [history], mine, events


@pytest.mark.parametrize(("roller", "mode"), [("gm", "gm"), ("gm", "blind"),
                                              ("alice", "blind")])
def test_a_seat_rolling_while_a_hidden_roll_as_its_character_waits_learns_nothing(
        roller: str, mode: str) -> None:
    async def scenario() -> None:
        opened = await _seat_after_hidden(OPENS, roller, mode)
        closed = await _seat_after_hidden(CLOSED, roller, mode)
        for _seen, mine, _ in (opened, closed):
            assert mine["type"] == "outcome", mine  # never refused
        assert _without_seq(opened[0]) == _without_seq(closed[0])
        # The open roll took its default (``keep``) before the seat's roll: journaled as
        # the hidden roll was (the GMs see it), no longer open.
        if roller == "gm":
            decided = [e for e in opened[2] if "reacts_to" in e]
            assert len(decided) == 1, opened[2]
            assert decided[0]["mode"] == mode and not decided[0].get("open")
            assert decided[0]["choice"] == "keep"
    run(scenario())


def test_a_gm_rolling_as_the_character_while_its_hidden_roll_is_open_is_refused() -> None:
    async def scenario() -> None:
        async with running_server(host=luck_host(), allow_player_dice=True) as server:
            gm, alice = await _table(server)
            hidden = await gm.roll("luck", {"target": 4, "second_chance": True},
                                   character="Aengus", mode="gm", dice=OPENS)
            assert hidden["open"] is True
            again = await gm.roll("luck", {}, character="Aengus")
            assert again["code"] == "invalid_params"
            assert again["details"] == {"param": "character", "field": "character",
                                        "open": hidden["seq"]}
            # Alice's roll as Aengus takes the default first, then the GM's goes through.
            assert (await alice.roll("luck", {}, character="Aengus"))["type"] == "outcome"
            assert (await gm.roll("luck", {}, character="Aengus"))["type"] == "outcome"
    run(scenario())
