"""A refusal carries its words in both languages (``messages``, PROTOCOL.md §5), so that a
page whose member switches language shows a refusal already made in the new one (issue 29:
the ask cards kept a refused answer in the old language); ``message`` stays in the
member's locale. Real in-process server, raw sockets.
"""

from __future__ import annotations

import asyncio

from tests.helpers import Peer, running_server


def test_a_refusal_carries_both_languages_and_its_message_in_the_locale() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            for locale in ("fr", "en"):
                peer = await Peer.open(server)
                await peer.join(f"t-{locale}", "Aengus", locale=locale)
                refused = await peer.roll("bloodlust", {"pool": 3}, dice=[1, 2, 99])
                assert refused["type"] == "error", refused
                both = refused["messages"]
                assert set(both) == {"fr", "en"} and both["fr"] != both["en"], refused
                assert refused["message"] == both[locale], refused
                await peer.close()

    asyncio.run(scenario())
