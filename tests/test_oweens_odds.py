"""The fast O'Ween's odds engine gives exactly the integers of the state-by-state one
(tests/oweens_reference.py, itself checked against enumeration of the real roll code)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.rulesets.oweens_odds import exact_odds
from tests.oweens_reference import exact_odds_by_state


def _same(count: int, target: int, free: int, bought: int) -> None:
    fast, reference = exact_odds(count, target, free, bought), exact_odds_by_state(
        count, target, free, bought)
    assert fast == reference, (count, target, free, bought)


@pytest.mark.parametrize("count", range(0, 8))
def test_every_small_roll_every_budget(count: int) -> None:
    # Every budget from none to past saturation (5 per die), every target around the
    # reachable range: each stretch of the greedy placement and each kind boundary.
    for target in range(0, 2 * count + 3):
        for free in range(0, 5 * count + 4):
            for bought in (0, 1, 2, 3, 5, 8, 13):
                _same(count, target, free, bought)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(8, 31), target=st.integers(0, 21), free=st.integers(0, 150),
       bought=st.integers(0, 150))
def test_large_rolls(count: int, target: int, free: int, bought: int) -> None:
    _same(count, target, free, bought)


def test_probabilities_add_up_at_the_largest_roll() -> None:
    odds = exact_odds(31, 10, 40, 25)
    assert sum(odds["kinds"].values()) == pytest.approx(1, abs=1e-12)
    assert sum(p for _, p in odds["distribution"]["values"]) == pytest.approx(1, abs=1e-12)
