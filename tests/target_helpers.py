"""Rolling at characters in process, for the rulesets' target tests (contract §8): a roll
prepared by the pipeline, given its roller's values (``roll.sheet``) and its targets'
(``roll.targets``) as the server gives them, played to its close (an open roll takes its
default), and the targets' values once the outcome's ``effects`` are applied the way the
server applies them (each field as far as its ``min``/``max`` allow)."""

from __future__ import annotations

import asyncio
from typing import Any

from sidecar.host.pipeline import Resolution, RollPipeline
from sidecar.model import Roll
from tests.sheet_helpers import BY, PIPELINE


def aimed_roll(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
               targets: dict[str, dict[str, Any]], *, options: dict[str, Any] | None = None,
               character: str = "PJ", pipeline: RollPipeline = PIPELINE,
               target_ruleset: str | None = None) -> Roll:
    """A prepared roll as ``character`` (values ``sheet``; None: no character) aimed at
    ``targets`` (name → values)."""
    roll = pipeline.prepare(ruleset, params, options=options, by=BY)
    if sheet is not None:
        roll.character, roll.sheet = character, dict(sheet)
    roll.targets = {name: {"ruleset": target_ruleset or ruleset, "values": dict(values)}
                    for name, values in targets.items()}
    return roll


def roll_at(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
            targets: dict[str, dict[str, Any]], dice: list[int] | None = None, *,
            options: dict[str, Any] | None = None, state: dict[str, Any] | None = None,
            close: bool = True, pipeline: RollPipeline = PIPELINE,
            character: str = "PJ") -> Resolution:
    """One roll aimed at ``targets``; with ``close``, an open roll takes its default (the
    effects of an open roll come with its decision)."""
    roll = aimed_roll(ruleset, params, sheet, targets, options=options, pipeline=pipeline,
                      character=character)
    done = asyncio.run(pipeline.run(roll, dice=dice, table_state=state))
    while close and done.outcome.choices and done.outcome.default is not None:
        done = asyncio.run(pipeline.react(roll, done.outcome, done.outcome.default, dice=[],
                                          table_state=done.state))
    return done


def odds_at(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
            targets: dict[str, dict[str, Any]], *,
            options: dict[str, Any] | None = None) -> dict[str, Any]:
    return asyncio.run(PIPELINE.odds(aimed_roll(ruleset, params, sheet, targets,
                                                options=options)))


def struck(values: dict[str, Any], effects: dict[str, int], schema: dict[str, Any]
           ) -> dict[str, Any]:
    """A target's values once ``effects`` (deltas) are applied, each field clamped to its
    range (contract §8: what the dice did is never refused)."""
    out = dict(values)
    for name, delta in effects.items():
        spec = schema[name]
        out[name] = min(spec["max"], max(spec["min"], out[name] + delta))
    return out
