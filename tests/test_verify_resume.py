"""Verifiable dice after a resume: a member who comes back after a reveal gets, in the
replay, the same keys and paths for the rolls they may see as ``history`` gives them, and
nothing for the rolls they may not see (a real server on a loopback port, real peers)."""

from __future__ import annotations

from typing import Any

from sidecar.dice.provable import faces_of, root_from_path
from tests.helpers import Peer, run, running_server


async def _replay(peer: Peer, welcome: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a resume replays (``welcome.replayed`` of them, before any live one)."""
    replayed = []
    while len(replayed) < welcome["replayed"]:
        message = await peer.recv()
        if "seq" in message and message.get("type") != "presence":
            replayed.append(message)
    return replayed


def test_a_resume_after_a_reveal_carries_the_keys_history_gives() -> None:
    async def scenario() -> None:
        async with running_server(dice="provable") as server:
            gm, player = await Peer.open(server), await Peer.open(server)
            await gm.join(name="MJ", role="gm", client_seed="gm-seed")
            await player.join(name="Aengus", client_seed="aengus-seed")
            first = await player.roll("bloodlust", {"pool": 3})
            blind = await player.roll("bloodlust", {"pool": 4}, mode="blind")
            await player.close()
            # While the player is away: a public roll, a GM's own roll, the reveal.
            public = await gm.roll("bloodlust", {"pool": 5})
            gm_self = await gm.roll("bloodlust", {"pool": 2}, mode="self")
            await gm.request({"type": "epoch", "op": "end", "id": "e1"})

            back = await Peer.open(server)
            welcome = await back.join(name="Aengus", client_seed="aengus-seed",
                                      resume=first["seq"])
            replayed = {m["seq"]: m for m in await _replay(back, welcome)}
            history = await back.request({"type": "history", "id": "h", "after": 0})
            await back.close()
            await gm.close()

        seen = {m["seq"]: m for m in history["events"]}
        assert gm_self["seq"] not in replayed and gm_self["seq"] not in seen
        copy = replayed[public["seq"]]
        proof = copy["proof"]
        assert proof == seen[public["seq"]]["proof"]
        assert set(proof) >= {"key", "path", "position", "client", "sides", "commitment"}
        key = bytes.fromhex(proof["key"])
        assert root_from_path(key, proof["position"], proof["path"]) == proof["commitment"]
        assert [d["face"] for d in copy["dice"]] == faces_of(
            key, proof["client"], proof["position"], proof["sides"])
        # The blind roll comes back to its roller without faces, proof or key.
        hidden = replayed[blind["seq"]]
        assert "proof" not in hidden and not hidden.get("dice")
        assert "proof" not in seen[blind["seq"]]
        # The reveal itself is replayed (the page checks its log on it), without the seed.
        reveal = [m for m in replayed.values() if m.get("type") == "epoch"]
        assert reveal and reveal[0]["op"] == "reveal" and "seed" not in reveal[0]

    run(scenario())
