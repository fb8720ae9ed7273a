"""Plugins of the tests: a folder of modules written for ``--plugins-dir``, and the
`luck` ruleset (tests/sheet_plugin.py) in a plugin host."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from sidecar.host.plugins import PluginHost, default_host
from tests.helpers import Peer


def write_plugins(directory: Path, **sources: str) -> Path:
    """Write each source (dedented) as ``directory/NAME.py``; returns the folder."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (directory / f"{name}.py").write_text(textwrap.dedent(source))
    return directory


#: The `luck` ruleset's params (tests/sheet_plugin.py) that always fail and leave the roll
#: open (reroll / keep): a d6 never reaches 7.
ALWAYS_OPEN = {"target": 7, "skill": 0, "second_chance": True}


def luck_host() -> PluginHost:
    """The built-in plugins and tests/sheet_plugin.py (the `luck` ruleset, whose rolls
    spend from a character's sheet), for a server started in the test's process."""
    from tests import sheet_plugin

    host = default_host(None)
    host.register(sheet_plugin, "luck_rules", version="1.0", source="tests")
    return host


async def plugin_status(peer: Peer) -> dict[str, dict[str, Any]]:
    """Each plugin's status as the server reports it (``plugins``), by name."""
    reply = await peer.request({"type": "plugins", "id": "status"})
    return {p["name"]: p for p in reply["plugins"]}
