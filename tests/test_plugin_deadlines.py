"""An async hook past its deadline is abandoned, whatever it does with cancellation
(issue 25, item 6).

A plugin is trusted code guarded against bugs, not malice; swallowing ``CancelledError``
in a retry loop is a common bug. Its roll must still be answered at the deadline, the
table's next rolls too, and the plugin blamed — on a real ``sidecar serve``.
"""

from __future__ import annotations

import time

from tests.helpers import Peer, run
from tests.support.plugins import plugin_status, write_plugins
from tests.support.serve import ServeProcess

SWALLOWER = '''
"""An async extension that swallows its own cancellation (a bug, not malice)."""
import asyncio
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    while True:
        try:
            await asyncio.sleep(.01)
        except asyncio.CancelledError:
            pass
'''

POLITE = '''
"""A well-behaved async extension, beside it."""
import asyncio
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_outcome(roll, outcome):
    await asyncio.sleep(0)
    outcome.notes.append("polite ok")
'''


def test_a_hook_that_swallows_its_cancellation_is_abandoned_and_disabled(tmp_path):
    """Its roll is answered at the deadline without its part, the table's next three rolls
    are answered, the plugin is counted and disabled at once, and the server still stops
    cleanly (the abandoned task never ends: it is not waited for)."""
    directory = write_plugins(tmp_path / "p", swallower=SWALLOWER, polite=POLITE)

    async def scenario(url: str) -> list[float]:
        gm = await Peer.connect(url)
        await gm.join(role="gm", name="MJ")
        lea = await Peer.connect(url)
        await lea.join(name="Lea")  # same table
        took = []
        start = time.monotonic()
        first = await gm.roll(params={"pool": 2})  # (answered within Peer's 5 s, or fails)
        took.append(time.monotonic() - start)
        assert first["type"] == "outcome", first
        noted = " ".join(first["notes"])
        assert "swallower" in noted and "took longer" in noted, noted
        assert "polite ok" in first["notes"] and first["applied"] == ["polite"]
        status = await plugin_status(gm)
        assert status["swallower"]["disabled"] is True, status["swallower"]
        assert status["swallower"]["recent_failures"] == 1
        assert "cancellation" in status["swallower"]["last_error"]
        for peer in (lea, gm, lea):
            start = time.monotonic()
            later = await peer.roll(params={"pool": 2})
            took.append(time.monotonic() - start)
            assert later["type"] == "outcome", later
            assert not any("swallower" in note for note in later["notes"])
            assert later["applied"] == ["polite"]
        await gm.close()
        await lea.close()
        return took

    with ServeProcess("--plugins-dir", str(directory), "--db", ":memory:",
                      "--plugin-timeout", "0.2") as server:
        took = run(scenario(server.url))
        # The first roll waits for the deadline and a short grace, no more.
        assert took[0] < 2 and max(took[1:]) < 1, took
        assert server.stop() == 0
