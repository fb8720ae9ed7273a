"""Exact odds (CONTRACT.md §4) for every ruleset.

Small cases are compared with brute-force enumeration of *the real roll code* (every face
sequence fed as manual dice through the pipeline's ruleset), so the odds and the rolls
cannot drift apart; bigger ones with a Monte-Carlo sample of real secure rolls. The
engine works in integers: answers must match enumeration to 1e-12.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

import sidecar
from sidecar.probability import WORK_LIMIT, check_work
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import KINDS
from tests.helpers import peers, run, running_server
from tests.rules_helpers import enumerate_real_rolls, pipeline_result

CASES = [
    ("oweens", {"dice": 3, "difficulty": 2}),
    ("oweens", {"dice": 3, "difficulty": 1, "augmentations": 2}),
    ("oweens", {"dice": 2, "difficulty": 2, "augmentations": 1, "buy_augmentations": 2}),
    ("oweens", {"dice": 3, "difficulty": 1, "buy_augmentations": 1, "bagage": True}),
    ("oweens", {"dice": 3, "difficulty": 0, "npc_bagage": True, "equipment": 2,
                "reserve": 3}),
    ("ladder", {"level": 4, "difficulty": 5}),
    ("ladder", {"level": 11, "difficulty": "Difficile", "advantages": 1, "disadvantages": 2}),
    ("ladder", {"level": 0, "difficulty": 3}),
    ("ladder", {"level": 6, "difficulty": 9, "success_at_cost": True}),
    ("ladder", {"level": 3, "difficulty": 7, "sacrifice_chance": True, "chance": 3}),
    ("ladder", {"level": 5, "difficulty": 7, "reroll": True}),
    ("bloodlust", {"pool": 3, "difficulty": 7}),
    ("bloodlust", {"pool": 2, "difficulty": 2, "willpower": True}),
    ("bloodlust", {"pool": 6, "difficulty": 6, "automatic": True}),
    ("d6code", {"code": "3D+1", "difficulty": 12}),
    ("d6code", {"code": "3D", "difficulty": 11, "twin": True}),
    ("d6code", {"code": "2D+1", "difficulty": 10, "twin": True, "style": "extreme"}),
    ("d6code", {"code": "2D", "difficulty": 8, "surcompetence": "double"}),
    ("d6code", {"code": "2D", "difficulty": 30, "surcompetence": "auto"}),
    ("d6code", {"code": "2D+1", "opponent": "2D"}),
    ("d6code", {"code": "2D", "twin": True, "opponent": "1D+2", "difficulty": 7}),
    ("d6code", {"code": "1D", "opponent": "2D", "difficulty": 4, "modifier": 2,
                "opponent_modifier": -1}),
    ("seuil", {"level": 2, "threshold": 13, "complication": 2}),
    ("seuil", {"level": 4, "threshold": "Moyen", "factors": ["dope"], "flat": -2}),
    ("seuil", {"level": 5, "threshold": 31, "complication": 9}),
]


@pytest.mark.parametrize("ruleset,params", CASES)
def test_odds_equal_enumeration_of_the_real_roll_code(ruleset, params):
    odds = sidecar.odds(ruleset, params)
    kinds, mains = enumerate_real_rolls(ruleset, params)
    for kind in KINDS:
        assert abs(odds["kinds"][kind] - kinds.get(kind, 0)) < 1e-12, (kind, odds, kinds)
    assert abs(odds["p_success"] - sum(kinds[k] for k in ("narrow", "success", "critical"))) \
        < 1e-12
    assert abs(sum(odds["kinds"].values()) - 1) < 1e-12
    for value, p in odds["distribution"]["values"]:
        assert abs(p - mains.get(value, 0)) < 1e-12, (value, p, mains)


MONTE_CARLO = [
    ("oweens", {"dice": 12, "difficulty": 5, "augmentations": 2, "buy_augmentations": 2}),
    ("d6code", {"code": "8D+2", "difficulty": 30, "twin": True, "style": "extreme",
                "opponent": "9D"}),
    ("bloodlust", {"pool": 20, "difficulty": 8, "willpower": True}),
]


@pytest.mark.parametrize("ruleset,params", MONTE_CARLO)
def test_odds_match_a_large_sample_of_real_rolls(ruleset, params):
    """4,000 secure rolls; each kind's count within 5 standard deviations of the odds
    (a false alarm about once in 3 million per kind)."""
    n = 4000
    odds = sidecar.odds(ruleset, params)
    counts = Counter(pipeline_result(ruleset, **params)["kind"] for _ in range(n))
    for kind, p in odds["kinds"].items():
        sigma = math.sqrt(n * p * (1 - p)) or 1e-9
        assert abs(counts.get(kind, 0) - n * p) <= 5 * sigma + 1e-9, (kind, counts, odds)


def test_large_rolls_are_exact_and_normalised():
    for ruleset, params in [("oweens", {"dice": 30, "difficulty": 10, "augmentations": 3}),
                            ("bloodlust", {"pool": 50, "difficulty": 9}),
                            ("d6code", {"code": "30D", "opponent": "30D", "twin": True,
                                        "difficulty": 100}),
                            ("seuil", {"level": 3, "threshold": 41})]:
        odds = sidecar.odds(ruleset, params)
        assert abs(sum(odds["kinds"].values()) - 1) < 1e-12
        assert abs(sum(p for _, p in odds["distribution"]["values"]) - 1) < 1e-12


def test_extensions_roll_changes_apply_to_odds():
    plain = sidecar.odds("oweens", {"dice": 4, "difficulty": 3})
    charged = sidecar.odds("oweens", {"dice": 4, "difficulty": 3},
                           {"combat": {"options": ["renverser"], "target_ecl": 1}})
    assert charged == sidecar.odds("oweens", {"dice": 2, "difficulty": 3})
    assert charged["p_success"] < plain["p_success"]


def test_odds_refuse_what_a_roll_would_refuse():
    with pytest.raises(ProtocolError) as refused:
        sidecar.odds("oweens", {"dice": 0})
    assert refused.value.code == "invalid_params"
    with pytest.raises(ProtocolError) as refused:
        sidecar.odds("d6code", {"code": "1D", "twin": True, "difficulty": 3})
    assert refused.value.details == {"param": "twin"}


def test_the_work_budget_is_a_strict_bound():
    check_work(WORK_LIMIT)  # at the budget: computed
    with pytest.raises(ProtocolError) as refused:
        check_work(WORK_LIMIT + 1)
    assert refused.value.code == "too_large"


BUDGETED = [("oweens", {"dice": 12, "difficulty": 3, "augmentations": 8}),
            ("bloodlust", {"pool": 12, "difficulty": 7}),
            ("d6code", {"code": "6D+1", "difficulty": 20, "opponent": "5D"}),
            # the dice ruleset: its estimate is checked before it computes too
            ("dice", {"expr": "4d6kh3+2d8!-1d4", "target": 15})]
#: The module of a ruleset that computes its odds, when not the plugin's own module.
ODDS_MODULES = {"oweens": "oweens_odds"}


@pytest.mark.parametrize("ruleset,params", BUDGETED)
def test_work_budget_answers_too_large(monkeypatch, ruleset, params):
    """Each ruleset checks its own work estimate against the budget in force before
    computing: at the estimate it answers, one step under it the server answers too_large
    (and keeps serving)."""
    import importlib

    import sidecar.probability as engine

    module = importlib.import_module(f"sidecar.rulesets.{ODDS_MODULES.get(ruleset, ruleset)}")
    estimates: list[int] = []

    def spy(estimate: int) -> None:
        estimates.append(estimate)
        engine.check_work(estimate)

    monkeypatch.setattr(module, "check_work", spy)
    _clear(module)
    request = {"type": "odds", "ruleset": ruleset, "params": params}

    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            first = await peer.request({**request, "id": 1})
            assert first["type"] == "odds" and estimates, first
            monkeypatch.setattr(engine, "WORK_LIMIT", max(estimates))
            _clear(module)
            assert (await peer.request({**request, "id": 2}))["type"] == "odds"
            monkeypatch.setattr(engine, "WORK_LIMIT", max(estimates) - 1)
            _clear(module)
            refused = await peer.request({**request, "id": 3})
            assert refused["type"] == "error" and refused["code"] == "too_large", refused
            assert (await peer.roll())["type"] == "outcome"
    run(scenario())


def _clear(module) -> None:
    for value in vars(module).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


def test_cached_odds_are_each_callers_own():
    """A caller changing its answer (say, clearing the distribution) changes nobody
    else's: the ruleset's cache is never handed out."""
    from sidecar.host.plugins import default_host

    host = default_host()
    first = sidecar.odds("bloodlust", {"pool": 7}, host=host)
    expected = sidecar.odds("bloodlust", {"pool": 7}, host=host)
    first["distribution"]["values"].clear()
    first["kinds"].clear()
    first["distribution"]["of"] = "?"
    assert sidecar.odds("bloodlust", {"pool": 7}, host=host) == expected
    assert expected["distribution"]["values"]


def test_the_maths_module_does_no_io():
    """Importing the odds engine starts no event loop machinery and loads no plugin."""
    import subprocess
    import sys
    code = ("import sys, sidecar.probability; "
            "print(sorted(m for m in ('asyncio', 'sidecar.host.plugins', 'sidecar.host.pipeline') "
            "if m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=30)
    assert shown.stdout.strip() == "[]", shown.stdout + shown.stderr


def test_repeats_are_served_from_the_cache():
    from sidecar.rulesets import bloodlust
    bloodlust.exact_odds.cache_clear()
    sidecar.odds("bloodlust", {"pool": 7})
    sidecar.odds("bloodlust", {"pool": 7})
    assert bloodlust.exact_odds.cache_info().hits >= 1


def test_odds_over_the_protocol_for_every_ruleset():
    expected = [sidecar.odds(ruleset, params) for ruleset, params in CASES[::4]]

    async def scenario():
        async with running_server() as server, peers(server, 2) as (peer, other):
            await peer.join()
            await other.join(name="Autre")
            for i, (ruleset, params) in enumerate(CASES[::4]):
                reply = await peer.request({"type": "odds", "id": i, "ruleset": ruleset,
                                            "params": params})
                assert reply["type"] == "odds" and reply["ruleset"] == ruleset
                assert reply == {**expected[i], "type": "odds", "id": i,
                                 "ruleset": ruleset, "params": reply["params"]}
            assert await other.quiet() == []
            too_big = await peer.request({"type": "odds", "id": "x", "ruleset": "oweens",
                                          "params": {"dice": 0}})
            assert too_big["code"] == "invalid_params"
    run(scenario())


def test_cli_odds_for_oweens():
    import subprocess
    import sys
    shown = subprocess.run([sys.executable, "-m", "sidecar.cli.main", "odds", "oweens", "dice=4",
                            "difficulty=3"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0 and "Bourde" not in shown.stderr
    p = sidecar.odds("oweens", {"dice": 4, "difficulty": 3})["p_success"]
    from sidecar.cli.odds_view import percent  # (as the page writes it)
    assert f"P(réussite) = {percent(p, 'fr')}" in shown.stdout


@pytest.mark.parametrize("a,b", [(4, 4), (4, 6), (6, 8), (10, 12), (12, 12), (1, 6)])
def test_highest_of_matches_enumeration(a, b):
    from sidecar.probability import highest_of
    counts = Counter(max(x, y) for x in range(1, a + 1) for y in range(1, b + 1))
    assert highest_of(a, b).counts == dict(counts) and highest_of(a, b).total == a * b
