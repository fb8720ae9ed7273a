"""The client's requests are built by ``sidecar.protocol.requests`` alone: each builder's
frame is one the server's parser reads as meant, and neither ``sidecar/client.py`` nor the
journal writes a message by hand (read from the source with ``ast``, as
tests/test_architecture.py does)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest

from sidecar.client import SidecarClient
from sidecar.protocol import requests
from sidecar.protocol.messages import parse_request
from tests.helpers import GM_TOKEN, run, running_server
from tests.support.plugins import ALWAYS_OPEN, luck_host

ROOT = Path(__file__).resolve().parent.parent

#: Each builder with arguments that use its optional fields, and what the parsed request
#: must then hold (the builder's output read back by the server's parser).
SAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "hello_request": (
        {"table": "crypte", "name": "Alice", "role": "observer", "locale": "en",
         "client_seed": "abc", "token": "t0k", "resume": 7, "id": "h-1"},
        {"table": "crypte", "name": "Alice", "role": "observer", "locale": "en",
         "client_seed": "abc", "token": "t0k", "resume": 7, "id": "h-1"}),
    "roll_request": (
        {"ruleset": "luck", "params": {"target": 7}, "label": "Sauter", "mode": "gm",
         "options": {"x": 1}, "dice": [3, 4], "character": "Ysolde", "id": 3,
         "targets": ["Brann"]},
        {"ruleset": "luck", "params": {"target": 7}, "label": "Sauter", "mode": "gm",
         "options": {"x": 1}, "dice": [3, 4], "character": "Ysolde", "id": 3,
         "targets": ("Brann",)}),
    "react_request": (
        {"roll": "r-1", "choice": "reroll", "dice": [6], "id": "x"},
        {"roll": "r-1", "choice": "reroll", "dice": [6], "id": "x"}),
    "odds_request": (
        {"ruleset": "luck", "params": {"target": 5}, "options": {"y": 2},
         "character": "Ysolde", "targets": ["Brann"]},
        {"ruleset": "luck", "params": {"target": 5}, "options": {"y": 2},
         "character": "Ysolde", "targets": ("Brann",)}),
    "ask_request": (
        {"to": ["Alice", "Brann"], "ruleset": "luck", "params": {"target": 5},
         "label": "Perception", "mode": "blind", "opposed": True,
         "each": {"Brann": {"target": 3}}, "targets": ["Gob"], "id": "a"},
        {"op": "open", "to": ("Alice", "Brann"), "ruleset": "luck", "label": "Perception",
         "mode": "blind", "opposed": True, "cooperative": False,
         "each": {"Brann": {"target": 3}}, "targets": ("Gob",)}),
    "cancel_ask_request": ({"ask": "k-1"}, {"op": "cancel", "ask": "k-1"}),
    "list_asks_request": ({"after": 4, "limit": 20}, {"op": "list", "after": 4, "limit": 20}),
    "session_request": ({"id": 9}, {"op": "start", "id": 9}),
    "initiative_request": (
        {"characters": ["Ysolde", {"character": "Brann", "claim": True}]},
        {"characters": ({"character": "Ysolde", "claim": False, "bagage": False},
                        {"character": "Brann", "claim": True, "bagage": False})}),
    "seat_request": ({"op": "rotate", "name": "Alice"}, {"op": "rotate", "name": "Alice"}),
    "list_seats_request": ({"after": "Alice", "limit": 2},
                           {"op": "list", "after": "Alice", "limit": 2}),
    "set_sheet_request": (
        {"character": "Ysolde", "ruleset": "oweens", "values": {"pep": 2}, "owner": None,
         "keep_owner": False, "reason": "début"},
        {"op": "set", "character": "Ysolde", "ruleset": "oweens", "values": {"pep": 2},
         "has_owner": True, "owner": None, "reason": "début"}),
    "adjust_sheet_request": ({"character": "Ysolde", "delta": {"pep": -1}},
                             {"op": "adjust", "character": "Ysolde", "delta": {"pep": -1}}),
    "refill_request": ({"what": "rest", "character": "Ysolde"},
                       {"op": "refill", "what": "rest", "character": "Ysolde"}),
    "remove_sheet_request": ({"character": "Ysolde", "reason": "mort"},
                             {"op": "remove", "character": "Ysolde", "reason": "mort"}),
    "list_sheets_request": ({"after": "B", "limit": 3}, {"op": "list", "after": "B",
                                                          "limit": 3}),
    "history_request": ({"after": 2, "limit": 50}, {"after": 2, "limit": 50}),
    "plugins_request": ({"id": "p"}, {"id": "p"}),
    "epoch_request": ({}, {"op": "end"}),
}


def builders() -> dict[str, Any]:
    return {name: function for name, function in inspect.getmembers(requests, inspect.isfunction)
            if name.endswith("_request") and function.__module__ == requests.__name__}


def test_every_builder_has_a_sample() -> None:
    assert sorted(builders()) == sorted(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_builder_builds_what_the_parser_reads(name: str) -> None:
    builder = builders()[name]
    given, expected = SAMPLES[name]
    parsed = parse_request(builder(**given))
    fields = dataclasses.asdict(parsed)
    assert {key: fields[key] for key in expected} == expected
    # With its required arguments only, it is still a request the parser takes.
    required = {key: value for key, value in given.items()
                if inspect.signature(builder).parameters[key].default is inspect.Parameter.empty}
    parse_request(builder(**required))


def test_a_field_left_out_is_not_written() -> None:
    assert requests.roll_request(ruleset="luck", answers="k-1") == {
        "type": "roll", "ruleset": "luck", "params": {}, "answers": "k-1"}
    assert requests.set_sheet_request(character="Y", ruleset="oweens") == {
        "type": "sheet", "op": "set", "character": "Y", "ruleset": "oweens", "values": {}}


def _hand_written_types(path: Path) -> list[int]:
    """Lines where ``path`` writes a ``type`` key: a map literal, ``dict(type=…)`` or
    ``message["type"] = …``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict) and any(
                isinstance(key, ast.Constant) and key.value == "type" for key in node.keys):
            found.append(node.lineno)
        elif isinstance(node, ast.Call) and any(kw.arg == "type" for kw in node.keywords) \
                and isinstance(node.func, ast.Name) and node.func.id == "dict":
            found.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [target.lineno for target in targets
                      if isinstance(target, ast.Subscript)
                      and isinstance(target.slice, ast.Constant)
                      and target.slice.value == "type"]
    return sorted(found)


#: Files that send or record messages and must leave their building to the protocol's
#: builders (``requests`` for the client's, ``events`` for the journal's events).
BUILT_BY_BUILDERS = ("sidecar/client.py", "sidecar/stores/journal/schema.py",
                     "sidecar/stores/journal/reader.py", "sidecar/stores/journal/writer.py",
                     *sorted(str(path.relative_to(ROOT))
                             for path in (ROOT / "sidecar" / "cli").glob("*.py")
                             # (values.py reads typed text into params' specs, no message)
                             if path.name != "values.py"),
                     *sorted(str(path.relative_to(ROOT))
                             for path in (ROOT / "sidecar" / "table").glob("*.py")))


@pytest.mark.parametrize("name", BUILT_BY_BUILDERS)
def test_no_message_is_built_by_hand(name: str) -> None:
    lines = _hand_written_types(ROOT / name)
    assert lines == [], (f"{name} writes a message's 'type' by hand at lines {lines}: build "
                         "it with sidecar.protocol.requests or sidecar.protocol.events")


def test_a_real_server_answers_every_builders_request() -> None:
    """Each builder's frame, sent as it is to a real server by a GM (a seat answers the
    ask), gets its answer, never an error: the builders speak the server's protocol."""
    sent: set[str] = set()

    async def ask(client: SidecarClient, builder: str, **fields: Any) -> dict[str, Any]:
        sent.add(builder)
        return await client.request(builders()[builder](**fields))  # an error raises

    async def scenario() -> None:
        async with running_server(host=luck_host(), dice="provable") as server, \
                SidecarClient(server.url, table="built", name="MJ", role="gm",
                              token=GM_TOKEN) as gm:
            sent.add("hello_request")  # (the client's own join)
            await ask(gm, "plugins_request")
            seat = await ask(gm, "seat_request", op="add", name="Alice")
            seat = await ask(gm, "seat_request", op="rotate", name="Alice")
            await ask(gm, "list_seats_request")
            await ask(gm, "set_sheet_request", character="Ysolde", ruleset="luck",
                      values={"skill": 5}, owner="Alice", keep_owner=False)
            await ask(gm, "adjust_sheet_request", character="Ysolde", delta={"skill": 1},
                      reason="entraînement")
            await ask(gm, "refill_request", what="rest")
            await ask(gm, "list_sheets_request")
            await ask(gm, "odds_request", ruleset="luck", params={"target": 5})
            opened = await ask(gm, "roll_request", ruleset="luck", params=ALWAYS_OPEN,
                               label="Sauter")
            await ask(gm, "react_request", roll=opened["roll"], choice="reroll")
            await ask(gm, "session_request")
            for name, pep in (("Aengus", 3), ("Brann", 2)):
                await ask(gm, "set_sheet_request", character=name, ruleset="oweens",
                          values={"pep": pep})
            await ask(gm, "initiative_request", characters=["Aengus", "Brann"])
            cancelled = await ask(gm, "ask_request", to=["Alice"], ruleset="luck")
            await ask(gm, "cancel_ask_request", ask=cancelled["ask"])
            asked = await ask(gm, "ask_request", to=["Alice"], ruleset="luck",
                              params={"target": 5}, label="Perception")
            await ask(gm, "list_asks_request")
            async with SidecarClient(server.url, table="built", name="Alice",
                                     token=seat["token"]) as alice:
                answer = await ask(alice, "roll_request", ruleset="luck", answers=asked["ask"])
                assert answer["answers"] == asked["ask"]
            await ask(gm, "epoch_request")
            await ask(gm, "history_request", after=0, limit=500)
            await ask(gm, "remove_sheet_request", character="Ysolde")
            await ask(gm, "seat_request", op="remove", name="Alice")

    run(scenario())
    assert sent == set(builders())
