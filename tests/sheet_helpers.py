"""Rolling as a character in process, for the ruleset sheet tests: a roll prepared by the
pipeline, given a character's values as the server would (``roll.sheet``), and the
sheet's values after the outcome's ``spend`` is applied."""

from __future__ import annotations

import asyncio
from typing import Any

from sidecar.host.pipeline import Resolution, RollPipeline
from sidecar.host.plugins import default_host
from sidecar.model import Outcome, Roll

HOST = default_host()
PIPELINE = RollPipeline(HOST)
BY = {"name": "MJ", "role": "gm"}


def new_sheet(ruleset: str, **values: Any) -> dict[str, Any]:
    """A character's values as a GM's ``sheet set`` makes them: defaults, then ``values``."""
    sheet = {name: spec.get("default") for name, spec in HOST.sheet_schema(ruleset).items()}
    unknown = set(values) - set(sheet)
    assert not unknown, f"not on the {ruleset} sheet: {unknown}"
    sheet.update(values)
    return sheet


def prepared(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
             options: dict[str, Any] | None = None, character: str = "PJ") -> Roll:
    roll = PIPELINE.prepare(ruleset, params, options=options, by=BY)
    if sheet is not None:
        roll.character, roll.sheet = character, dict(sheet)
    return roll


def roll_as(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
            dice: list[int] | None = None, *, options: dict[str, Any] | None = None,
            state: dict[str, Any] | None = None) -> Resolution:
    """One roll as the character whose values are ``sheet`` (``None``: no character)."""
    roll = prepared(ruleset, params, sheet, options)
    return asyncio.run(PIPELINE.run(roll, dice=dice, table_state=state))


def odds_as(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None,
            options: dict[str, Any] | None = None) -> dict[str, Any]:
    return asyncio.run(PIPELINE.odds(prepared(ruleset, params, sheet, options)))


def after(sheet: dict[str, Any], spend: dict[str, int], ruleset: str) -> dict[str, Any]:
    """The sheet once the server applied ``spend`` — checking, as it does, that no field
    leaves its range (a test that overspends fails here, like ``insufficient``)."""
    schema = HOST.sheet_schema(ruleset)
    values = dict(sheet)
    for name, amount in spend.items():
        spec = schema[name]
        assert spec["type"] == "int", name
        values[name] -= amount
        assert spec["min"] <= values[name] <= spec["max"], (name, values[name])
    return values


def affordable(sheet: dict[str, Any], spend: dict[str, int], ruleset: str) -> bool:
    """Whether the server would apply ``spend`` (False: it answers ``insufficient``)."""
    schema = HOST.sheet_schema(ruleset)
    return all(schema[n]["min"] <= sheet[n] - a <= schema[n]["max"] for n, a in spend.items())


def rolled(ruleset: str, params: dict[str, Any], sheet: dict[str, Any] | None = None,
           dice: list[int] | None = None) -> tuple[Roll, Outcome]:
    """A roll (as the character whose values are ``sheet``) and its outcome, which may be
    left open: for the decisions after the dice."""
    roll = prepared(ruleset, params, sheet)
    return roll, asyncio.run(PIPELINE.run(roll, dice=dice, table_state={})).outcome


def react_to(roll: Roll, outcome: Outcome, choice: str, dice: list[int] | None = None
             ) -> Outcome:
    """The outcome once ``choice`` is taken on the open ``outcome``."""
    return asyncio.run(PIPELINE.react(roll, outcome, choice, dice, {})).outcome


def choice_names(outcome: Outcome) -> list[str] | None:
    """The names of the choices an outcome offers (``None``: it is closed)."""
    return [c["name"] for c in outcome.choices] if outcome.choices is not None else None
