"""The plain Python entry points: exact odds without running a server.

``sidecar.odds(...)`` (plain code) and ``await sidecar.api.aodds(...)`` (async code) load
the plugins — or use the host given —, run the same pipeline as the wire (parameter
validation, the extensions' roll changes, the ruleset's ``sidecar_odds``) and return the
caller's own copy of the answer. Nothing is kept between calls: no event loop, no host.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import PluginHost, default_host


async def aodds(ruleset: str, params: dict[str, Any] | None = None,
                options: dict[str, Any] | None = None, *,
                host: PluginHost | None = None) -> dict[str, Any]:
    """Exact odds of a roll, from async code. Extensions' roll changes apply, as on the
    wire. Pass ``host`` to reuse loaded plugins across calls."""
    own = host is None
    used = default_host() if host is None else host
    try:
        pipeline = RollPipeline(used)
        return await pipeline.odds(pipeline.prepare(ruleset, params or {}, options=options))
    finally:
        if own:
            used.shutdown()


def odds(ruleset: str, params: dict[str, Any] | None = None,
         options: dict[str, Any] | None = None, *,
         host: PluginHost | None = None) -> dict[str, Any]:
    """Exact odds of a roll, in plain Python: ``sidecar.odds("oweens", {"dice": 4,
    "difficulty": 3})``. From async code, ``await sidecar.api.aodds(...)``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(aodds(ruleset, params, options, host=host))
    raise RuntimeError("sidecar.odds() is for plain code; in async code use "
                       "'await sidecar.api.aodds(...)'")
