"""Shared helpers for the ruleset tests: every roll goes through a real server.

One server (a ``LiveServer``) runs on a loopback port in a background thread for the whole
test session. Two GM clients sit at its table over real WebSocket connections: a French one
that sends the rolls (with manual dice, MessagePack frames) and an English one that reads its
copy, so a test sees exactly what a table client receives, in both languages.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

import sidecar
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from sidecar.protocol.codec import decode, encode
from sidecar.protocol.errors import ProtocolError
from tests.helpers import hello
from tests.live_server import LiveServer

#: For statistical tests that need many rolls quickly: the same pipeline, no socket.
PIPELINE = RollPipeline(default_host())


@dataclass
class WireOutcome:
    result: dict[str, Any]
    dice: list[dict[str, Any]]
    notes: list[str]
    applied: list[str]


@dataclass
class WireRoll:
    params: dict[str, Any]


@dataclass
class WireResolution:
    """What the table received: the outcome, the roll as resolved, the text per locale."""

    roll: WireRoll
    outcome: WireOutcome
    text: dict[str, str] = field(default_factory=dict)


class TableUnderTest:
    """A real server with a French and an English GM joined to one table."""

    def __init__(self) -> None:
        self.live = LiveServer(rate_limit=0).start()
        self.connections = contextlib.ExitStack()
        self.fr = self._join("MJ-fr", "fr")
        self.en = self._join("MJ-en", "en")
        self.ids = itertools.count()
        self.lock = threading.Lock()

    def _join(self, name: str, locale: str) -> ClientConnection:
        # No keepalive pings: this table lives as long as the worker, and websockets draws
        # a ping's payload from the global `random` in its own thread — inside another
        # test's Hypothesis draw, that prints a deprecation warning (tests/test_quiet_suite.py).
        ws = self.connections.enter_context(
            connect(self.live.url, compression=None, max_size=1 << 22, ping_interval=None))
        ws.send(encode(hello("règles", name, "gm", locale=locale), binary=True))
        assert decode(ws.recv(timeout=5))["type"] == "welcome"
        return ws

    @staticmethod
    def _next(ws: ClientConnection, accept: Any) -> dict[str, Any]:
        while True:
            message = decode(ws.recv(timeout=5))
            if accept(message):
                return message

    def roll(self, message: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Send a roll from the French GM; return its reply and the English copy."""
        with self.lock:
            rid = f"t{next(self.ids)}"
            self.fr.send(encode({**message, "type": "roll", "id": rid}, binary=True))
            reply = self._next(self.fr, lambda m: m.get("id") == rid)
            if reply["type"] != "outcome":
                return reply, None
            copy = self._next(self.en, lambda m: m.get("type") == "outcome"
                              and m["seq"] == reply["seq"])
            return reply, copy


    def close(self) -> None:
        """Disconnect the clients, stop the server and its thread's loop."""
        self.connections.close()
        self.live.close()


_TABLE: TableUnderTest | None = None


def restart() -> None:
    """Start a fresh server on the next roll (e.g. after installing a plugin)."""
    global _TABLE
    if _TABLE is not None:
        _TABLE.close()
        _TABLE = None


def table() -> TableUnderTest:
    global _TABLE
    if _TABLE is None:
        _TABLE = TableUnderTest()
    return _TABLE


def resolve(ruleset: str, faces: list[int] | None, options: dict[str, Any] | None = None,
            label: str = "", name: str = "Aengus", **params: Any) -> WireResolution:
    """Roll through the real server (manual ``faces`` when given); raise the server's
    error as a :class:`ProtocolError`. ``name`` is the roller's display name in texts."""
    message: dict[str, Any] = {"ruleset": ruleset, "params": params, "label": label,
                               "options": options or {}}
    if faces is not None:
        message["dice"] = faces
    reply, english = table().roll(message)
    if reply["type"] == "error":
        raise ProtocolError(reply["code"], reply["message"], details=reply.get("details"))
    assert english is not None and english["dice"] == reply["dice"]
    texts = {"fr": reply["text"], "en": english["text"]}
    # The table's GM is the roller; tests read texts as if "name" had rolled.
    texts = {k: v.replace("MJ-fr", name, 1) for k, v in texts.items()}
    return WireResolution(
        roll=WireRoll(params=reply["params"]),
        outcome=WireOutcome(result=reply["result"], dice=reply["dice"], notes=reply["notes"],
                            applied=reply["applied"]),
        text=texts,
    )


def result(ruleset: str, faces: list[int] | None, **params: Any) -> dict[str, Any]:
    return resolve(ruleset, faces, **params).outcome.result


def refused(ruleset: str, faces: list[int] | None, error_code: str = "invalid_params",
            **params: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        resolve(ruleset, faces, **params)
    assert caught.value.code == error_code, caught.value
    return caught.value


_LOOP = asyncio.new_event_loop()


def call(coro: Any) -> Any:
    """Run one pipeline coroutine to completion (a private loop: cheaper than asyncio.run)."""
    return _LOOP.run_until_complete(coro)


def pipeline_result(ruleset: str, **params: Any) -> dict[str, Any]:
    """One roll with the secure dice, in process (for statistics)."""
    roll = PIPELINE.prepare(ruleset, params, by={"name": "stat", "role": "gm"})
    return call(PIPELINE.run(roll)).outcome.result


def enumerate_real_rolls(ruleset: str, params: dict) -> tuple[Counter, Counter]:
    """Every face sequence through the real ruleset code, each weighted by its exact
    probability (sequences differ in length when a roll draws more dice on some faces,
    e.g. twin rerolls): the distribution of kinds and of the main number."""
    main = sidecar.odds(ruleset, params)["distribution"]["of"]
    kinds: Counter = Counter()
    mains: Counter = Counter()
    pending: list[list[int]] = [[]]
    while pending:
        faces = pending.pop()
        try:
            outcome = call(PIPELINE.resolve(PIPELINE.prepare(ruleset, params), faces, {}, []))
        except ProtocolError as error:
            assert error.code == "bad_dice", error
            sides = error.details["dice"][len(faces)]  # the next die the roll draws
            pending.extend(faces + [face] for face in range(1, sides + 1))
            continue
        share = Fraction(1, math.prod(d["sides"] for d in outcome.dice))
        kinds[outcome.result["kind"]] += share
        mains[outcome.result.get(main)] += share
    assert sum(kinds.values()) == 1
    return kinds, mains
