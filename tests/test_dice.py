"""Dice sources: the secure default, manual faces, the seeded one."""

from __future__ import annotations

from collections import Counter

import pytest

from sidecar.dice import sources as dice_module
from sidecar.dice.sources import DiceExhausted, ManualDice, SecureDice, SeededDice, describe_dice
from sidecar.protocol.errors import ProtocolError


@pytest.mark.parametrize("sides", [2, 4, 6, 10, 12, 20, 100, 300])
def test_secure_faces_are_in_range_and_uniform(sides):
    """Chi-square over 200 draws per face; the bound is exceeded by chance with
    probability below 1e-6 for every die size tested."""
    n = 200 * sides
    source = SecureDice()
    counts = Counter(source._face(sides) for _ in range(n))
    assert set(counts) == set(range(1, sides + 1))
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    dof = sides - 1
    bound = dof + 7 * (2 * dof) ** 0.5 + 20  # far tail of chi-square(dof)
    assert chi2 < bound, (sides, chi2, bound)


def test_secure_source_uses_os_urandom_and_never_the_random_module(monkeypatch):
    import os
    import random

    def forbidden(*args, **kwargs):
        raise AssertionError("the random module must not be used for real dice")

    for name in ("random", "randint", "randrange", "getrandbits", "choice"):
        monkeypatch.setattr(random, name, forbidden)
        monkeypatch.setattr(random.Random, name, forbidden)
    calls = []
    real = os.urandom

    def counting(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(dice_module.os, "urandom", counting)
    faces = SecureDice().roll_many(100, 6)  # a new source: its own pools, empty
    assert calls and all(1 <= f <= 6 for f in faces)


def test_every_draw_is_recorded_with_its_info():
    source = SecureDice()
    source.roll(6, role="twin")
    source.roll_many(2, 10)
    assert [d["sides"] for d in source.rolled] == [6, 10, 10]
    assert source.rolled[0]["role"] == "twin"


def test_seeded_source_is_reproducible():
    a, b = SeededDice(42), SeededDice(42)
    assert a.roll_many(20, 10) == b.roll_many(20, 10)
    assert SeededDice(1).roll_many(20, 10) != SeededDice(2).roll_many(20, 10)


def test_manual_faces_in_order_range_checked_and_exhaustion():
    source = ManualDice([3, 6])
    assert source.roll(6) == 3
    with pytest.raises(ProtocolError) as refused:
        source.roll(4)
    assert refused.value.code == "bad_dice" and "d4" in refused.value.message
    with pytest.raises(DiceExhausted):
        ManualDice([]).roll(6)
    padded = ManualDice([2], pad=True)
    assert padded.roll_many(3, 6) == [2, 1, 1]


def test_a_runaway_roll_is_too_large():
    source = SeededDice(0)
    with pytest.raises(ProtocolError) as refused:
        source.roll_many(dice_module.MAX_DRAWS + 1, 6)
    assert refused.value.code == "too_large"


def test_describe_dice():
    assert describe_dice([{"sides": 10}] * 3 + [{"sides": 6}]) == "d10 ×3, d6"


def test_secure_pools_belong_to_their_source():
    """Two sources (say, two plugin threads) never draw from one pool."""
    a, b = SecureDice(), SecureDice()
    a.roll(6)
    assert 6 in a.pools and b.pools == {}
    b.roll(6)
    assert a.pools[6] is not b.pools[6]
    shared: dict[int, list[int]] = {}
    c, d = SecureDice(shared), SecureDice(shared)
    c.roll(10)
    assert d.pools is shared and len(shared[10]) > 0
