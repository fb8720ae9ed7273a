"""Which faces a person typed (issue 29, trust): an outcome's ``manual: {by, dice}`` names
exactly the faces of its ``dice`` that were typed — a decision shows its open roll's faces
and its own, and only the typed ones are physical dice; drawn faces are the server's.
Against a real server, in both dice modes, for every reader and in ``history``.

The ladder at level 1 (a d4 pair) against difficulty 60 always fails: the roll opens (a
reroll draws a new pair, ``keep`` draws none), and its decision shows every die of the
roll, the replaced pair first.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import Peer, run, running_server

FAILS = {"level": 1, "difficulty": 60}
MJ = {"name": "MJ", "role": "gm"}


async def _decide(gm: Peer, player: Peer, opened: dict[str, Any], choice: str,
                  dice: list[int] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GM's decision, and the player's copy of it."""
    request = {"type": "react", "id": f"d-{opened['seq']}", "roll": opened["roll"],
               "choice": choice}
    if dice is not None:
        request["dice"] = dice
    decided = await gm.request(request)
    assert decided["type"] == "outcome", decided
    seen = await player.recv_type("outcome")
    assert seen["seq"] == decided["seq"]
    return decided, seen


def _marks(*copies: dict[str, Any]) -> list[Any]:
    return [copy.get("manual") for copy in copies]


@pytest.mark.parametrize("dice", ["secure", "provable"])
def test_the_manual_mark_names_exactly_the_typed_faces(dice: str) -> None:
    async def scenario() -> None:
        async with running_server(dice=dice) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            player = await Peer.open(server)
            await player.join("t", "Léa")
            # Typed faces, a decision drawing new ones: the first pair only is physical.
            typed = await gm.roll("ladder", FAILS, dice=[1, 2])
            assert typed["open"] is True and len(typed["dice"]) == 2
            assert _marks(typed) == [{"by": MJ, "dice": [0, 1]}]
            await player.recv_type("outcome")
            rerolled, seen = await _decide(gm, player, typed, "reroll")
            assert len(rerolled["dice"]) == 4
            assert _marks(rerolled, seen) == [{"by": MJ, "dice": [0, 1]}] * 2
            # A decision drawing nothing shows the typed faces again: still physical.
            kept, seen = await _decide(gm, player, rerolled, "keep")
            assert [d["face"] for d in kept["dice"][:2]] == [1, 2]
            assert _marks(kept, seen) == [{"by": MJ, "dice": [0, 1]}] * 2
            await _decide(gm, player, kept, "fail")
            # Drawn faces, a decision typing new ones: the second pair only.
            drawn = await gm.roll("ladder", FAILS)
            assert drawn["open"] is True and "manual" not in drawn
            await player.recv_type("outcome")
            entered, seen = await _decide(gm, player, drawn, "reroll", dice=[3, 4])
            assert [d["face"] for d in entered["dice"][2:]] == [3, 4]
            assert _marks(entered, seen) == [{"by": MJ, "dice": [2, 3]}] * 2
            await _decide(gm, player, entered, "keep")
            # Drawn both times: nothing marked.
            plain = await gm.roll("ladder", FAILS)
            await player.recv_type("outcome")
            again, seen = await _decide(gm, player, plain, "reroll")
            assert _marks(again, seen) == [None, None]
            # History says it as live copies did.
            history = await player.request({"type": "history", "id": "h"})
            marks = {e["seq"]: e.get("manual") for e in history["events"]
                     if e["type"] == "outcome"}
            assert marks[rerolled["seq"]] == {"by": MJ, "dice": [0, 1]}
            assert marks[entered["seq"]] == {"by": MJ, "dice": [2, 3]}
            assert marks[again["seq"]] is None
    run(scenario())
