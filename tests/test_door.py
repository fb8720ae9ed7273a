"""What a real ``sidecar serve`` answers at the door (issue 25).

- Item 16: an error answering a parsed frame echoes its ``id``.
"""

from __future__ import annotations

import pytest

from tests.helpers import GM_TOKEN, Peer, run
from tests.test_cli import ServeProcess

# -- item 16: an error echoes the id of the frame it answers --------------------------------

@pytest.mark.parametrize("joined", [False, True], ids=["hello", "joined"])
def test_a_lone_surrogate_is_answered_with_the_frames_id(joined):
    with ServeProcess("--db", ":memory:", "--rate-limit", "0") as server:
        async def scenario() -> None:
            peer = await Peer.open(server, binary=False)
            if joined:
                await peer.join(name="MJ", role="gm")
                frame = ('{"type": "roll", "id": "r-1", "ruleset": "bloodlust", '
                         '"params": {"pool": 2}, "label": "\\ud800"}')
            else:
                frame = ('{"type": "hello", "id": "h-1", "protocol": 1, "table": "t", '
                         f'"role": "gm", "token": "{GM_TOKEN}", "name": "M\\udc00J"}}')
            await peer.send_raw(frame)
            reply = await peer.recv_not_presence()
            assert reply["type"] == "error" and reply["code"] == "bad_message", reply
            assert reply.get("id") == ("r-1" if joined else "h-1"), reply
            # An id that is itself a lone surrogate, or a number past 64 bits, cannot be
            # echoed: the error comes without it (and the connection stays usable).
            for bad_id in ('"\\ud800"', str(2 ** 70)):
                await peer.send_raw(f'{{"type": "plugins", "id": {bad_id}, "x": "\\ud800"}}')
                reply = await peer.recv_not_presence()
                assert reply["type"] == "error" and "id" not in reply, reply
            if joined:
                assert (await peer.roll(params={"pool": 2}))["seq"] == 1
        run(scenario(), timeout=30)
