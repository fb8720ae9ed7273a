"""The welcome's descriptions (rulesets, extensions, options) are sent once: a client that
echoes ``welcome.catalogue`` in its ``hello`` gets a welcome without them while they have
not changed; one that does not (an old client) still gets everything (issue 28, item 2)."""

from __future__ import annotations

import asyncio

from sidecar.client import SidecarClient, forget_catalogues
from sidecar.protocol.codec import decode
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, hello, run, running_server
from tests.support.serve import ServeProcess

DESCRIBED = ("rulesets", "extensions", "options")


async def _welcome_frame(peer: Peer, **extra) -> tuple[dict, int]:
    """The welcome answering a hello with ``extra``, and its frame's size in bytes."""
    await peer.send(hello(**extra))
    frame = await asyncio.wait_for(peer.ws.recv(), 5)
    return decode(frame), len(frame)


def test_a_client_echoing_the_catalogue_is_not_sent_the_descriptions_again():
    async def scenario() -> None:
        async with running_server() as server:
            first = await Peer.open(server)
            full, full_bytes = await _welcome_frame(first, name="Aengus")
            assert all(full[key] for key in ("rulesets", "extensions")), full.keys()
            digest = full["catalogue"]
            assert isinstance(digest, str) and digest
            again = await Peer.open(server)
            light, light_bytes = await _welcome_frame(again, name="Brigid", catalogue=digest)
            assert light["type"] == "welcome" and light["catalogue"] == digest
            assert not any(key in light for key in DESCRIBED), light.keys()
            # Everything else a welcome says is there as before.
            assert {k: v for k, v in full.items() if k not in (*DESCRIBED, "id")} == {
                k: v for k, v in light.items() if k != "id"}
            assert light_bytes * 10 < full_bytes, (light_bytes, full_bytes)
            # A digest the server does not have (another server, an older catalogue): all.
            stale = await Peer.open(server)
            other, _ = await _welcome_frame(stale, name="Cathal", catalogue="0" * 16)
            assert other["catalogue"] == digest
            assert {key: other[key] for key in DESCRIBED} == {key: full[key] for key in DESCRIBED}
            # A catalogue that changed (a plugin disabled for the rest of the run): its
            # digest changes, and the client that echoes the old one is sent all again.
            server.host.disable("blank_botch", "test")
            late = await Peer.open(server)
            changed, _ = await _welcome_frame(late, name="Dana", catalogue=digest)
            assert changed["catalogue"] != digest and "rulesets" in changed
            assert all(e["name"] != "blank_botch" for e in changed["extensions"])
    run(scenario())


def test_python_client_caches_the_catalogue_per_server_url():
    forget_catalogues()
    with ServeProcess() as server:
        async def scenario() -> None:
            sizes = []
            for name in ("Aengus", "Aengus", "Brigid"):
                async with SidecarClient(server.url, table="t", name=name,
                                         token=PLAYER_TOKEN) as client:
                    sizes.append(client.welcome_bytes)
                    assert client.welcome["rulesets"], "filled from the cache"
                    assert "bloodlust" in {r["name"] for r in client.welcome["rulesets"]}
                    assert client.welcome["options"] is not None
            assert sizes[1] * 10 < sizes[0] and sizes[2] * 10 < sizes[0], sizes
            # A client of another URL (another server) starts with nothing.
            async with SidecarClient(server.url.replace("127.0.0.1", "localhost"), table="t",
                                     name="MJ", role="gm", token=GM_TOKEN) as gm:
                assert gm.welcome_bytes > sizes[1] * 10
        run(scenario())
