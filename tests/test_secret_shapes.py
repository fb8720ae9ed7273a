"""Issue 25, items 3 and 4, against a real ``sidecar serve`` process: what a blind roll's
roller, and the seats asked for a secret roll, receive does not depend on the dice.

Contract §7 clarified (1.2): a blind roll's roller receives a copy whose shape (keys,
``open``, errors to its ``react``) is the same whatever the dice show, and a GM decides a
blind roll's choices. An ask's answers follow the ask's mode in every view: ``ask list``,
``welcome.asks``, ``opposition``/``cooperation``, ``history``, resume.

The dice are the server's: each test rolls enough of them to see both sides (the GM's
copies prove that rolls opened and closed, succeeded and failed) and compares every frame
the players received, which must be the same whichever side the dice fell on.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import Any

import pytest

from tests.helpers import GM_TOKEN, Peer, run
from tests.support.serve import ServeProcess

SERVE = ("--db", ":memory:", "--allow-player-dice", "--rate-limit", "0",
         "--log-level", "warning")

#: Per ruleset, params whose dice open the roll (a decision after the dice) in some rolls
#: and not in others, and succeed in some and fail in others (bloodlust never opens one).
CASES = {
    "ladder": ("ladder", {"level": 3, "difficulty": 5}),
    "d6code": ("d6code", {"code": "3D", "difficulty": 11}),
    "oweens-decisions": ("oweens", {"dice": 3, "difficulty": 2, "buy_after": True}),
    "oweens-darts": ("oweens", {"volley": True, "darts_bonus": 2}),
    "bloodlust": ("bloodlust", {"pool": 3}),
}
#: Enough rolls that both sides come up (the rarer one has p ≥ 0.3: all alike ≈ 1e-6).
ROLLS = 40
#: What a roller tries on its own blind roll, whatever it shows: the built-ins' choice
#: names, and one that nobody offers.
TRIES = ("keep", "reroll", "sacrifice", "success_at_cost", "style_libre", "stop",
         "reroll_1", "none", "fly")
#: Fields that differ from one roll to the next whatever the dice (not the dice's doing).
PER_ROLL = ("seq", "roll", "id", "ask", "answers")


def shape(message: Any) -> str:
    """``message`` with what differs by roll and not by dice blanked out, as a key."""
    def blank(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: "·" if key in PER_ROLL else blank(item)
                    for key, item in value.items()}
        if isinstance(value, list):
            return [blank(item) for item in value]
        return value
    return json.dumps(blank(message), sort_keys=True)


def rid() -> str:
    return secrets.token_hex(6)


async def seated(server: ServeProcess, gm: Peer, *names: str) -> dict[str, str]:
    """Seats for ``names``: name → token."""
    tokens = {}
    for name in names:
        added = await gm.request({"type": "seat", "id": rid(), "op": "add", "name": name})
        assert added["type"] == "seat", added
        tokens[name] = added["token"]
    return tokens


async def join(server: ServeProcess, name: str, token: str, **extra: Any
               ) -> tuple[Peer, dict[str, Any]]:
    peer = await Peer.open(server)
    welcome = await peer.join("t", name, token=token, **extra)
    peer.seen.clear()
    return peer, welcome


async def settle(gm: Peer, outcome: dict[str, Any]) -> list[dict[str, Any]]:
    """The GM decides an open roll until it is closed (``stop`` when offered, else the
    default, else the first choice); the GM's copies of the decisions."""
    decisions = []
    while outcome.get("open"):
        names = [choice["name"] for choice in outcome["choices"]]
        choice = "stop" if "stop" in names else outcome.get("default") or names[0]
        outcome = await gm.request({"type": "react", "id": rid(), "roll": outcome["roll"],
                                    "choice": choice})
        assert outcome["type"] == "outcome", outcome
        decisions.append(outcome)
    return decisions


async def fence(gm: Peer, *peers: Peer) -> int:
    """A public roll of the GM that every peer waits for: all that was sent to them before
    it has arrived. Its seq."""
    mark = await gm.roll("bloodlust", {"pool": 1})
    for peer in peers:
        while True:
            message = await peer.recv()
            if message.get("seq") == mark["seq"] and message["type"] == "outcome":
                break
    return mark["seq"]


def received(peer: Peer, mark: int) -> list[dict[str, Any]]:
    """What ``peer`` got besides presence and the fence."""
    return [message for message in peer.seen if message["type"] != "presence"
            and not (message["type"] == "outcome" and message.get("seq") == mark)]


async def history(peer: Peer) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = await peer.request({"type": "history", "id": rid(), "after": after,
                                   "limit": 500})
        assert page["type"] == "history", page
        events += page["events"]
        if not page["more"]:
            return events
        after = page["next"]


async def resumed(server: ServeProcess, name: str, token: str) -> list[dict[str, Any]]:
    """What a new connection of ``name`` resuming from the start is sent: exactly
    ``welcome.replayed`` events."""
    peer, welcome = await join(server, name, token, resume=0)
    replay = [await peer.recv_not_presence() for _ in range(welcome["replayed"])]
    assert await peer.quiet(0.2) == [], "more than welcome.replayed said"
    await peer.close()
    return replay


# -- item 3: a blind roll's roller ---------------------------------------------------------

@pytest.mark.parametrize("case", list(CASES))
def test_3_a_blind_rolls_roller_gets_one_shape_and_one_refusal_whatever_the_dice(case):
    ruleset, params = CASES[case]

    async def scenario() -> None:
        with ServeProcess(*SERVE, "--react-timeout", "3600") as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm", token=GM_TOKEN)
            tokens = await seated(server, gm, "Alice")
            alice, _ = await join(server, "Alice", tokens["Alice"])
            bob = await Peer.open(server)  # the shared token: sees nothing of it at all
            await bob.join("t", "Bob")
            bob.seen.clear()
            full = []
            for _ in range(ROLLS):
                mine = await alice.roll(ruleset, params, mode="blind")
                assert mine["type"] == "outcome", mine
                seen = await gm.recv_type("outcome")
                assert seen["roll"] == mine["roll"]
                full.append(seen)
                for choice in TRIES:  # refused, the same way, whether the roll is open
                    await alice.request({"type": "react", "id": rid(), "roll": mine["roll"],
                                         "choice": choice})
                decisions = await settle(gm, seen)
                if decisions:  # the roller's tries changed nothing: the GM decided it
                    assert decisions[0]["reacts_to"] == seen["seq"]
            mark = await fence(gm, alice, bob)
            # The dice fell both ways (else this test could not see a difference).
            assert {bool(out["result"].get("success")) for out in full} == {True, False}
            if ruleset != "bloodlust":
                opened = sum(bool(out.get("open")) for out in full)
                assert 0 < opened < ROLLS, opened
            frames = received(alice, mark)
            copies = [m for m in frames if m["type"] == "outcome"]
            refusals = [m for m in frames if m["type"] == "error"]
            assert len(copies) == ROLLS, Counter(shape(m) for m in copies)
            assert len(refusals) == ROLLS * len(TRIES)
            assert len(frames) == len(copies) + len(refusals)
            assert len({shape(m) for m in copies}) == 1, Counter(shape(m) for m in copies)
            assert len({shape(m) for m in refusals}) == 1, Counter(map(shape, refusals))
            assert copies[0]["result"] == {"hidden": True} and "open" not in copies[0]
            assert refusals[0]["code"] == "bad_message"
            assert received(bob, mark) == []
            # Read again, the roller's blind rolls are the same one shape, and no more.
            again = [event for event in await history(alice) if event.get("mode") == "blind"]
            assert len(again) == ROLLS and len({shape(m) for m in again}) == 1
            replay = await resumed(server, "Alice", tokens["Alice"])
            blind = [event for event in replay if event.get("mode") == "blind"]
            assert len(blind) == ROLLS and len({shape(m) for m in blind}) == 1
            assert replay[-1]["seq"] == mark
    run(scenario(), timeout=180)


def test_3_time_running_out_on_a_blind_roll_tells_its_roller_nothing():
    async def scenario() -> None:
        with ServeProcess(*SERVE, "--react-timeout", "0.2") as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm", token=GM_TOKEN)
            tokens = await seated(server, gm, "Alice")
            alice, _ = await join(server, "Alice", tokens["Alice"])
            waiting: set[str] = set()
            opened = 0

            def follow(seen: dict[str, Any]) -> None:
                nonlocal opened
                if seen.get("open"):
                    opened += "reacts_to" not in seen
                    waiting.add(seen["roll"])
                else:
                    waiting.discard(seen["roll"])

            for _ in range(ROLLS // 2):
                mine = await alice.roll("ladder", CASES["ladder"][1], mode="blind")
                assert mine["type"] == "outcome", mine
                while True:  # (earlier rolls' time runs out meanwhile)
                    seen = await gm.recv_type("outcome")
                    follow(seen)
                    if seen["roll"] == mine["roll"]:
                        break
            # The GM sees each open roll's time run out (twice for the ladder: the
            # player's luck, then the GM's « réussi, mais… »).
            while waiting:
                follow(await gm.recv_type("outcome", timeout=10))
            assert 0 < opened < ROLLS // 2, opened
            mark = await fence(gm, alice)
            frames = received(alice, mark)
            assert len(frames) == ROLLS // 2 and len({shape(m) for m in frames}) == 1, \
                Counter(shape(m) for m in frames)
    run(scenario(), timeout=120)


# -- item 4: the answers to an ask follow its mode -----------------------------------------

LADDER = {"level": 3, "difficulty": 5}


async def answer(peer: Peer, ask: str) -> dict[str, Any]:
    out = await peer.request({"type": "roll", "id": rid(), "ruleset": "ladder", "params": {},
                              "answers": ask})
    assert out["type"] == "outcome", out
    return out


async def answered_by(gm: Peer, ask: str) -> dict[str, Any]:
    """The GM's copy of the next answer to ``ask``."""
    while True:
        message = await gm.recv_type("outcome")
        if message.get("answers") == ask:
            return message


@pytest.mark.parametrize("mode", ["gm", "blind"])
def test_4_what_a_seat_is_told_of_an_ask_never_depends_on_the_dice(mode):
    async def scenario() -> None:
        with ServeProcess(*SERVE, "--react-timeout", "3600") as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm", token=GM_TOKEN)
            tokens = await seated(server, gm, "Alice", "Bob")
            alice, _ = await join(server, "Alice", tokens["Alice"])
            bob, _ = await join(server, "Bob", tokens["Bob"])

            async def views(phase: str) -> dict[str, str]:
                """What each seat is told of the open asks: listed, and welcomed."""
                told = {}
                for name, peer in (("Alice", alice), ("Bob", bob)):
                    listed = await peer.request({"type": "ask", "id": rid(), "op": "list"})
                    told[f"{phase} {name} list"] = shape(listed["asks"])
                    other, welcome = await join(server, name, tokens[name])
                    told[f"{phase} {name} welcome"] = shape(welcome.get("asks", []))
                    await other.close()
                return told

            rounds: list[dict[str, str]] = []
            firsts = []
            for _ in range(30):
                asked = await gm.request({"type": "ask", "id": rid(), "op": "open",
                                          "to": ["Alice", "Bob"], "ruleset": "ladder",
                                          "params": LADDER, "mode": mode, "opposed": True})
                ask = asked["ask"]
                await answer(alice, ask)
                first = await answered_by(gm, ask)
                firsts.append(first)
                told = await views("one answered:")
                await answer(bob, ask)
                second = await answered_by(gm, ask)
                told |= await views("both answered:")
                await settle(gm, first)
                await settle(gm, second)
                told |= await views("decided:")
                rounds.append(told)
            assert {bool(out.get("open")) for out in firsts} == {True, False}
            for view in rounds[0]:
                seen = Counter(told[view] for told in rounds)
                assert len(seen) == 1, (view, seen)
            # Nothing of a result is told: not even the roller's own (blind), nor another
            # seat's (gm); the ask is listed to a seat until it answered.
            last = rounds[-1]
            for key in ('"success": ', '"margin": ', '"open": '):
                assert all(key not in told for told in last.values()), (key, last)
    run(scenario(), timeout=180)


@pytest.mark.parametrize("mode", ["gm", "blind"])
def test_4_an_opposition_or_cooperation_not_public_reaches_only_the_gms(mode):
    async def scenario() -> None:
        with ServeProcess(*SERVE, "--react-timeout", "3600") as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm", token=GM_TOKEN)
            tokens = await seated(server, gm, "Alice", "Bob")
            alice, _ = await join(server, "Alice", tokens["Alice"])
            bob, _ = await join(server, "Bob", tokens["Bob"])
            judged = Counter()
            for kind in ("opposed", "cooperative") * 4:
                asked = await gm.request({"type": "ask", "id": rid(), "op": "open",
                                          "to": ["Alice", "Bob"], "ruleset": "ladder",
                                          "params": LADDER, "mode": mode, kind: True})
                ask = asked["ask"]
                await answer(alice, ask)
                first = await answered_by(gm, ask)
                await answer(bob, ask)
                second = await answered_by(gm, ask)
                for copy in (first, second, *await settle(gm, first),
                             *await settle(gm, second)):
                    judged.update(key for key in ("opposition", "cooperation") if key in copy)
            assert judged == {"opposition": 4, "cooperation": 4}, judged  # the GM saw all
            mark = await fence(gm, alice, bob)
            for name, peer in (("Alice", alice), ("Bob", bob)):
                other = "Bob" if name == "Alice" else "Alice"
                reads = {"live": received(peer, mark), "history": await history(peer),
                         "resume": await resumed(server, name, tokens[name])}
                for how, frames in reads.items():
                    for frame in frames:
                        assert "opposition" not in frame and "cooperation" not in frame, \
                            (name, how, frame)
                        assert (frame.get("by") or {}).get("name") != other, (name, how, frame)
            # Public, everyone reads who won (what the checks above would have seen).
            alice.seen.clear()
            asked = await gm.request({"type": "ask", "id": rid(), "op": "open",
                                      "to": ["Alice", "Bob"], "ruleset": "ladder",
                                      "params": LADDER, "mode": "public", "opposed": True})
            await answer(alice, asked["ask"])
            first = await answered_by(gm, asked["ask"])
            await answer(bob, asked["ask"])
            second = await answered_by(gm, asked["ask"])
            await settle(gm, first)
            await settle(gm, second)
            mark = await fence(gm, alice)
            assert any("opposition" in frame for frame in received(alice, mark))
    run(scenario(), timeout=180)
