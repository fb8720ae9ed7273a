"""Bloodlust (RULES.md §3): every rule, through the pipeline and through the protocol."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from fractions import Fraction

import pytest

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from sidecar.protocol.errors import ProtocolError
from sidecar.rulesets import bloodlust
from tests.helpers import peers, run, running_server
from tests.rules_helpers import pipeline_result
from tests.rules_helpers import resolve as wire_resolve


def resolve(faces, options=None, **params):
    return wire_resolve("bloodlust", faces, options=options, label="Test", **params)


def result(faces, **params):
    return resolve(faces, **params).outcome.result


def test_seed_example_three_successes_complete():
    r = result([3, 3, 8, 7, 10], pool=5, difficulty=6)
    assert (r["successes"], r["ones"], r["net"]) == (3, 0, 3)
    assert r["degree"] == "complète" and r["kind"] == "success"
    assert r["success"] is True and r["margin"] == 2
    assert r["label"]["fr"] == "Réussite complète"


def test_default_difficulty_is_six():
    assert resolve([6, 5], pool=2).roll.params["difficulty"] == 6
    assert result([6, 5], pool=2)["successes"] == 1


def test_face_at_or_above_difficulty_succeeds_and_ten_always_does():
    assert result([7, 6], pool=2, difficulty=7)["successes"] == 1
    assert result([10, 9], pool=2, difficulty=10)["successes"] == 1
    assert result([10], pool=1, difficulty=10)["success"] is True


def test_each_one_cancels_one_success():
    r = result([8, 9, 1], pool=3, difficulty=6)
    assert (r["successes"], r["ones"], r["net"]) == (2, 1, 1)
    assert r["kind"] == "narrow" and r["degree"] == "marginale"


def test_cancelled_to_zero_with_a_success_is_simple_failure_not_botch():
    r = result([8, 1, 1], pool=3, difficulty=6)
    assert r["net"] == 0 and r["kind"] == "failure" and r["margin"] == -1


def test_no_success_and_a_one_is_echec_critique():
    r = result([1, 2, 3], pool=3, difficulty=6)
    assert r["kind"] == "botch" and r["success"] is False and r["margin"] == -1
    assert r["label"]["fr"] == "Échec critique"


def test_no_success_no_one_is_simple_failure():
    r = result([2, 3, 5], pool=3, difficulty=6)
    assert r["kind"] == "failure" and r["label"]["fr"] == "Échec"


@pytest.mark.parametrize("net,degree,kind", [
    (1, "marginale", "narrow"), (2, "modérée", "success"), (3, "complète", "success"),
    (4, "exceptionnelle", "success"), (5, "phénoménale", "critical"),
    (7, "phénoménale", "critical"),
])
def test_degrees_and_kinds(net, degree, kind):
    r = result([9] * net, pool=net, difficulty=6)
    assert r["net"] == net and r["degree"] == degree and r["kind"] == kind
    assert r["margin"] == net - 1


def test_willpower_adds_an_uncancellable_success():
    r = result([1, 1, 2], pool=3, difficulty=6, willpower=True)
    assert r["net"] == 1 and r["success"] is True and r["kind"] == "narrow"
    r = result([9, 1], pool=2, difficulty=6, willpower=True)
    assert r["net"] == 1
    r = result([9, 9], pool=2, difficulty=6, willpower=True)
    assert r["net"] == 3


def test_automatic_success_rolls_nothing_and_is_marginal():
    resolution = resolve(None, pool=7, difficulty=6, automatic=True)
    r = resolution.outcome.result
    assert resolution.outcome.dice == []
    assert r["success"] is True and r["net"] == 1 and r["degree"] == "marginale"
    assert r["automatic"] is True and r["kind"] == "narrow"


def test_automatic_equal_pool_and_difficulty_is_allowed():
    assert result(None, pool=6, difficulty=6, automatic=True)["success"] is True


@pytest.mark.parametrize("params", [
    {"pool": 5, "difficulty": 6, "automatic": True},
    {"pool": 8, "difficulty": 6, "automatic": True, "tense": True},
])
def test_automatic_refused_when_pool_below_difficulty_or_tense(params):
    with pytest.raises(ProtocolError) as refused:
        result(None, **params)
    assert refused.value.code == "invalid_params"
    assert refused.value.details == {"param": "automatic"}


def test_tense_still_rolls_normally():
    assert result([9, 9, 9], pool=3, tense=True)["net"] == 3


def test_dice_marks_show_cancelled_successes():
    dice = resolve([10, 7, 1, 3], pool=4, difficulty=6).outcome.dice
    assert [d["success"] for d in dice] == [True, True, False, False]
    assert dice[1].get("cancelled") is True and dice[0].get("cancelled") is None
    assert dice[2]["cancels"] is True


def test_text_is_natural_french_and_english():
    """The ones counted in words, not « 0 × 1 » that reads as a multiplication (issue 29),
    as a French and an English member receive them from a real server."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server, \
                peers(server, 2) as (fr, en):
            await fr.join(name="Aengus")
            await en.join(name="Ann", locale="en")
            texts = []
            for dice in ([3, 3, 8, 7, 10], [3, 1, 8, 7, 10], [1, 1, 8, 7, 10]):
                out = await fr.roll("bloodlust", {"pool": 5}, dice=dice)
                heard = await en.recv_type("outcome")
                texts.append((out["text"].split(" : ", 1)[1], heard["text"].split(": ", 1)[1]))
            assert texts == [
                ("3 succès, 0 dé à 1, 3 net → Réussite complète",
                 "3 successes, 0 ones, 3 net → Complete success"),
                ("3 succès, 1 dé à 1, 2 net → Réussite modérée",
                 "3 successes, 1 one, 2 net → Moderate success"),
                ("3 succès, 2 dés à 1, 1 net → Réussite marginale",
                 "3 successes, 2 ones, 1 net → Marginal success")]
    run(scenario())


# -- blank botch (optional rule, extension) -------------------------------------------------


def test_blank_botch_turns_the_tables_first_botch_into_a_failure_once():
    async def scenario():
        async with running_server() as server, peers(server, 3) as (gm, player, other):
            await gm.join(table="a", role="gm", name="MJ")
            await player.join(table="a", name="Aengus")
            await other.join(table="b", role="gm", name="Autre")
            options = {"blank_botch": {}}
            plain = await gm.roll(params={"pool": 2}, dice=[1, 2])
            assert plain["result"]["kind"] == "botch"  # rule not enabled on this roll
            first = await gm.roll(params={"pool": 2}, dice=[1, 2], options=options)
            assert first["result"]["kind"] == "failure"
            assert first["result"]["blank_botch"] is True
            assert first["applied"] == ["blank_botch"]
            assert "Échec critique blanc" in first["notes"][0]
            seen = await player.recv_type("outcome")
            while seen["seq"] != first["seq"]:
                seen = await player.recv_type("outcome")
            assert seen["result"]["kind"] == "failure"
            second = await gm.roll(params={"pool": 2}, dice=[1, 3], options=options)
            assert second["result"]["kind"] == "botch" and second["applied"] == []
            elsewhere = await other.roll(params={"pool": 1}, dice=[1], options=options)
            assert elsewhere["result"]["kind"] == "failure"  # each table has its own
            disabled = await other.roll(params={"pool": 1}, dice=[1],
                                        options={"blank_botch": {"enabled": False}})
            assert disabled["result"]["kind"] == "botch"
    run(scenario())


def test_blank_botch_comes_back_with_each_new_session_started_by_a_gm(tmp_path):
    """Seed 002: « le premier échec critique de la partie ne compte pas »: once per game
    session, for each roller (here the GM). A GM starts a session (a public, journaled event); the
    session number is kept across a restart."""
    db = str(tmp_path / "j.db")
    options = {"blank_botch": {}}

    async def scenario():
        async with running_server(db=db) as server, peers(server, 2) as (gm, player):
            await gm.join(table="a", role="gm", name="MJ")
            await player.join(table="a", name="Aengus")
            first = await gm.roll(params={"pool": 1}, dice=[1], options=options)
            assert first["result"].get("blank_botch") is True
            again = await gm.roll(params={"pool": 1}, dice=[1], options=options)
            assert again["result"]["kind"] == "botch"
            refused = await player.request({"type": "session", "id": "p", "op": "start"})
            assert refused["code"] == "forbidden"
            started = await gm.request({"type": "session", "id": "s", "op": "start"})
            assert started["type"] == "session" and started["number"] == 1
            assert (await player.recv_type("session"))["seq"] == started["seq"]
            new = await gm.roll(params={"pool": 1}, dice=[1], options=options)
            assert new["result"].get("blank_botch") is True
            page = await player.request({"type": "history", "id": "h"})
            assert [e["number"] for e in page["events"] if e["type"] == "session"] == [1]
        async with running_server(db=db) as server, peers(server, 1) as (gm,):
            await gm.join(table="a", role="gm", name="MJ")
            used = await gm.roll(params={"pool": 1}, dice=[1], options=options)
            assert used["result"]["kind"] == "botch"  # session 1's was used before
            started = await gm.request({"type": "session", "id": "s2", "op": "start"})
            assert started["number"] == 2
            fresh = await gm.roll(params={"pool": 1}, dice=[1], options=options)
            assert fresh["result"].get("blank_botch") is True
    run(scenario())


@pytest.mark.parametrize("mode", ["self", "gm", "blind"])
def test_blank_botch_of_a_hidden_roll_is_its_rollers_own(mode):
    """A hidden botch uses its roller's blank (the Conteur's characters get one, issue 26):
    another roller's public botch is forgiven whether or not the hidden roll botched, so
    it tells nobody anything of it (tests/test_blank_botch_each.py)."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server, \
                peers(server, 2) as (gm, player):
            await gm.join(table="secrets", role="gm", name="MJ")
            await player.join(table="secrets", name="Aengus")
            options = {"blank_botch": {}}
            hidden = await gm.roll(params={"pool": 2}, dice=[1, 2], options=options, mode=mode)
            assert hidden["type"] == "outcome", hidden
            assert hidden["result"]["kind"] == "failure" and hidden["applied"] == ["blank_botch"]
            public = await player.roll(params={"pool": 2}, dice=[1, 3], options=options)
            assert public["result"]["kind"] == "failure" and public["result"]["blank_botch"]
            again = await gm.roll(params={"pool": 1}, dice=[1], options=options, mode=mode)
            assert again["result"]["kind"] == "botch" and again["applied"] == []
    run(scenario())


def test_blank_botch_ignores_non_botches_and_other_rulesets():
    r = resolve([9, 2], options={"blank_botch": {}}, pool=2).outcome
    assert r.applied == [] and r.result["kind"] == "narrow"


# -- exact odds ----------------------------------------------------------------------------


def brute_force(pool, difficulty, willpower=False):
    counts = Counter()
    for faces in itertools.product(range(1, 11), repeat=pool):
        counts[bloodlust.judge(list(faces), difficulty, willpower)["kind"]] += 1
    total = 10 ** pool
    return {k: Fraction(v, total) for k, v in counts.items()}


@pytest.mark.parametrize("pool,difficulty,willpower", [
    (1, 6, False), (2, 2, False), (3, 7, False), (3, 10, True), (4, 6, False), (4, 9, True),
])
def test_odds_equal_brute_force_enumeration(pool, difficulty, willpower):
    exact = brute_force(pool, difficulty, willpower)
    odds = bloodlust.exact_odds(pool, difficulty, willpower)
    for kind in ("botch", "failure", "narrow", "success", "critical"):
        assert abs(odds["kinds"][kind] - float(exact.get(kind, 0))) < 1e-12
    success = sum(v for k, v in exact.items() if k in ("narrow", "success", "critical"))
    assert abs(odds["p_success"] - float(success)) < 1e-12
    assert abs(sum(p for _, p in odds["distribution"]["values"]) - 1) < 1e-12


def test_odds_of_large_pools_sum_to_one():
    odds = bloodlust.exact_odds(50, 6)
    assert abs(sum(odds["kinds"].values()) - 1) < 1e-12


def test_odds_over_the_protocol_roll_nothing_and_broadcast_nothing():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (peer, other):
            await peer.join()
            await other.join(name="Brady")
            reply = await peer.request({"type": "odds", "id": "o", "ruleset": "bloodlust",
                                        "params": {"pool": 2, "difficulty": 6}})
            assert reply["type"] == "odds" and reply["ruleset"] == "bloodlust"
            assert reply["params"]["difficulty"] == 6
            exact = brute_force(2, 6)
            for kind, p in reply["kinds"].items():
                assert abs(p - float(exact.get(kind, 0))) < 1e-9
            assert set(reply["kinds"]) == {"botch", "failure", "narrow", "success", "critical"}
            automatic = await peer.request({"type": "odds", "id": "a", "ruleset": "bloodlust",
                                            "params": {"pool": 6, "automatic": True}})
            assert automatic["p_success"] == 1.0 and automatic["kinds"]["narrow"] == 1.0
            refused = await peer.request({"type": "odds", "id": "b", "ruleset": "bloodlust",
                                          "params": {"pool": 2, "automatic": True}})
            assert refused["code"] == "invalid_params"
            assert await other.quiet() == [] and server.tables.get("t").seq == 0
    run(scenario())


def test_odds_apply_extensions_roll_changes(tmp_path):
    (tmp_path / "plus_one.py").write_text(
        "from sidecar import hookimpl\n@hookimpl\ndef sidecar_modify_roll(roll):\n"
        "    roll.params['pool'] += 1\n")
    pipeline = RollPipeline(default_host(tmp_path))
    odds = asyncio.run(pipeline.odds(pipeline.prepare("bloodlust", {"pool": 2})))
    assert odds["p_success"] == bloodlust.exact_odds(3, 6)["p_success"]


# -- statistics over the secure source -------------------------------------------------------


def test_secure_rolls_match_the_exact_odds():
    """10,000 real rolls of 3d10 vs 7: the kind counts must fit the exact odds.

    Chi-square with 4 degrees of freedom; 30.0 is exceeded by chance with probability
    about 5e-6, so a failure means a wrong face range or a wrong rule, not bad luck.
    """
    n = 10_000
    counts = Counter()
    for _ in range(n):
        counts[pipeline_result("bloodlust", pool=3, difficulty=7)["kind"]] += 1
    odds = bloodlust.exact_odds(3, 7)["kinds"]
    chi2 = sum((counts[k] - n * p) ** 2 / (n * p) for k, p in odds.items() if p > 0)
    assert set(counts) <= {k for k, p in odds.items() if p > 0}
    assert chi2 < 30.0, (chi2, counts)
