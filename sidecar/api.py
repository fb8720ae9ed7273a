"""The plain Python entry points: exact odds without running a server.

``sidecar.odds(...)`` (plain code) and ``await sidecar.api.aodds(...)`` (async code) load
the plugins — or use the host given —, run the same pipeline as the wire (parameter
validation, the extensions' roll changes, the ruleset's ``sidecar_odds``) and return the
caller's own copy of the answer. Nothing is kept between calls: no event loop, no host.
``targets`` (contract §8): the sheets of the characters the roll is aimed at, by name —
``{"Brady": {"pep": 4}}``, values over the ruleset's sheet defaults, checked like a
``sheet set`` — for a rule that reads its opponent (a difficulty from its Peps).
"""

from __future__ import annotations

import asyncio
from typing import Any

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import PluginHost, default_host
from sidecar.host.sheets import checked_values
from sidecar.model import Roll


async def aodds(ruleset: str, params: dict[str, Any] | None = None,
                options: dict[str, Any] | None = None, *,
                host: PluginHost | None = None,
                targets: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Exact odds of a roll, from async code. Extensions' roll changes apply, as on the
    wire. Pass ``host`` to reuse loaded plugins across calls; ``targets``: the aimed-at
    characters' values by name (see the module's doc)."""
    own = host is None
    used = default_host() if host is None else host
    try:
        pipeline = RollPipeline(used)
        roll = pipeline.prepare(ruleset, params or {}, options=options)
        _aim(roll, used, targets)
        return await pipeline.odds(roll)
    finally:
        if own:
            used.shutdown()


def _aim(roll: Roll, host: PluginHost, targets: dict[str, dict[str, Any]] | None) -> None:
    """``roll.targets`` as the server fills it: each target's values over its sheet's
    defaults, checked (``invalid_params`` naming ``values.<field>``)."""
    sheet = host.sheet_schema(roll.ruleset) if targets else {}
    roll.targets = {name: {"ruleset": roll.ruleset, "values": checked_values(sheet, values)}
                    for name, values in (targets or {}).items()}


def odds(ruleset: str, params: dict[str, Any] | None = None,
         options: dict[str, Any] | None = None, *,
         host: PluginHost | None = None,
         targets: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Exact odds of a roll, in plain Python: ``sidecar.odds("oweens", {"dice": 4,
    "difficulty": 3})``; aimed at a character, ``targets={"Brady": {"pep": 4}}`` (its
    sheet's values). From async code, ``await sidecar.api.aodds(...)``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(aodds(ruleset, params, options, host=host, targets=targets))
    raise RuntimeError("sidecar.odds() is for plain code; in async code use "
                       "'await sidecar.api.aodds(...)'")
