"""Darts: the default reroll is the best play (issue 26, audit item 6). « Le gagnant est
celui qui a le moins de points après 6 volées »: with 7 points without a triple and the
triple's face otherwise, the default is the reroll with the fewest expected points —
checked against a brute force written here, independent of the ruleset's — and the odds
(of the volley played by its defaults) follow it."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache

import pytest

from sidecar.testing import TableServer
from tests.sheet_helpers import odds_as, roll_as

REROLLS = [w for k in (1, 2, 3) for w in itertools.combinations(range(3), k)]


def brute(bonus):
    """Expected points of each reroll, every later throw played at its best."""
    def triple(faces):
        top = max(faces)
        return top if 3 * top - sum(faces) <= bonus else None

    @cache
    def value(faces, throw):
        made = triple(faces)
        if made is not None:
            return Fraction(made)
        if throw == 3:
            return Fraction(7)
        return min(choice(faces, throw, which) for which in REROLLS)

    @cache
    def choice(faces, throw, which):
        total = Fraction(0)
        for new in itertools.product(range(1, 7), repeat=len(which)):
            after = list(faces)
            for index, face in zip(which, new, strict=True):
                after[index] = face
            total += value(tuple(sorted(after)), throw + 1)
        return total / 6 ** len(which)
    return triple, choice


@pytest.mark.parametrize("bonus", [0, 2])
def test_every_default_reroll_has_the_fewest_expected_points(bonus):
    triple, choice = brute(bonus)
    worse = 0
    for faces in itertools.product(range(1, 7), repeat=3):
        if triple(faces) is not None:
            continue
        first = roll_as("oweens", {"volley": True, "darts_bonus": bonus}, None, list(faces))
        which = tuple(int(i) - 1 for i in first.outcome.default[len("reroll_"):])
        best = min(choice(faces, 1, w) for w in REROLLS)
        worse += choice(faces, 1, which) > best
    assert worse == 0


def test_a_low_pair_is_kept_for_a_low_triple():
    # [1, 2, 6] without bonus: keeping the 6 (the former default) hopes for 6 points at
    # best; rerolling the 2 and the 6 around the 1 expects fewer.
    _, choice = brute(0)
    first = roll_as("oweens", {"volley": True}, None, [1, 2, 6])
    assert first.outcome.default == "reroll_23"
    assert choice((1, 2, 6), 1, (1, 2)) < choice((1, 2, 6), 1, (0, 1))


def test_the_odds_are_those_of_the_best_play():
    _, choice = brute(0)
    expected = sum(min(choice(tuple(f), 1, w) for w in REROLLS)
                   if max(f) != min(f) else Fraction(f[0])
                   for f in itertools.product(range(1, 7), repeat=3)) / 216
    odds = odds_as("oweens", {"volley": True}, None)
    mean = sum(v * p for v, p in odds["distribution"]["values"])
    assert mean == pytest.approx(float(expected), abs=1e-9)


def test_on_a_server_the_volley_offers_the_best_reroll_by_default():
    with TableServer() as server:
        gm = server.client()
        rolled = gm.roll("oweens", {"volley": True}, dice=[1, 2, 6], mode="gm")
        assert rolled["open"] and rolled["default"] == "reroll_23", rolled
