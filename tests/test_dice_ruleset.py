"""The plain dice roller, ruleset ``dice``: its notation, its rolls through a real server
(manual dice in the documented order), its exact odds against enumeration of the real roll
code, its limits, and the ``sidecar`` command rolling it through a real server."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import sidecar
from sidecar.protocol.errors import ProtocolError
from sidecar.rulesets.dice_notation import MAX_EXPLOSIONS, parse
from tests.helpers import GM_TOKEN, peers, run, running_server
from tests.rules_helpers import enumerate_real_rolls, refused, resolve
from tests.support.serve import ServeProcess
from tests.support.serve import sidecar as command

# -- the notation ------------------------------------------------------------------------


@pytest.mark.parametrize("text,canonical,dice", [
    ("2d6+3", "2d6+3", 2),
    ("4d6kh3", "4d6kh3", 4),
    ("4D6K3", "4d6kh3", 4),
    ("4d6dl1", "4d6kh3", 4),
    ("2d20kl1+5", "2d20kl1+5", 2),
    ("2d20dh1", "2d20kl1", 2),
    ("1d100", "1d100", 1),
    ("d%", "1d100", 1),
    ("d20", "1d20", 1),
    ("3d6!", "3d6!", 3),
    ("8d10>=7", "8d10>=7", 8),
    ("8d10!>7", "8d10!>7", 8),
    ("1d20 + 1d4 - 1", "1d20+1d4-1", 2),
    ("-1d4+10", "-1d4+10", 1),
    ("+7", "7", 0),
])
def test_the_notation_is_understood(text, canonical, dice):
    expr = parse(text)
    assert expr.text == canonical and expr.dice == dice


def test_terms_keep_their_meaning():
    keep, number = parse("4d6kh3-2").terms
    assert (keep.count, keep.sides, keep.keep, keep.sign) == (4, 6, ("h", 3), 1)
    assert (number.number, number.sign, number.is_dice) == (2, -1, False)
    counting = parse("8d10!>=7+1")
    assert counting.counting and counting.terms[0].explode
    assert counting.terms[0].compare == (">=", 7)


BAD = [
    ("", "vide"),
    ("   ", "vide"),
    ("2d", "nombre de faces"),
    ("d0", "de 1 à 1000 faces, pas 0"),
    ("0d6", "au moins 1 dé"),
    ("1000000d1000000", "au plus 100 dés, pas 1000000"),
    ("101d6", "au plus 100 dés"),
    ("60d6+60d6", "au plus 100 dés en tout"),
    ("99999999d6", "nombre trop grand"),
    ("1d1001", "pas 1001"),
    ("4d6kh5", "doit garder de 1 à 4"),
    ("4d6kh0", "doit garder de 1 à 4"),
    ("4d6dl4", "doit écarter de 1 à 3"),
    ("1d6dl1", "pas de dé à écarter"),
    ("4d6kh", "demande un nombre"),
    ("8d10>=11", "vont de 1 à 10"),
    ("8d10>=", "demande une face"),
    ("4d6kh3>=5", "inattendu"),
    ("3d6!kh2", "ne se combine pas"),
    ("1d1!", "un d1 ne peut pas exploser"),
    ("90d6!", "si chaque dé explose"),
    ("8d10>=7+1d6", "ne se mélangent pas"),
    ("2d6+", "se termine trop tôt"),
    ("2d6++3", "inattendu"),
    ("bonjour", "« b » inattendu en position 1"),
    ("2d6 3", "« 3 » inattendu en position 5"),
    ("1d6" + "+1" * 20, "au plus 20 termes"),
    ("1" * 201, "au plus 200 caractères"),
    ("2d6+100001", "jusqu'à 100000"),
    ("２d6", "inattendu"),
    ("2d6\n", "inattendu"),
]


@pytest.mark.parametrize("text,why", BAD)
def test_bad_expressions_are_invalid_params_naming_expr(text, why):
    with pytest.raises(ProtocolError) as refused_:
        parse(text)
    error = refused_.value
    assert error.code == "invalid_params" and error.details == {"param": "expr"}
    assert why in error.message_fr, error.message_fr
    assert error.message.startswith("parameter 'expr': ")
    assert error.message_fr.startswith("paramètre 'expr' : ")
    assert error.message != error.message_fr  # English too


@pytest.mark.parametrize("text", ["2d", "d0", "1000000d1000000", "4d6kh5", "garbage"])
def test_bad_expressions_are_refused_by_the_server_before_any_die(text):
    error = refused("dice", [1, 2, 3], expr=text)
    assert error.details == {"param": "expr"}
    with pytest.raises(ProtocolError) as odds_refused:
        sidecar.odds("dice", {"expr": text})
    assert odds_refused.value.code == "invalid_params"


# -- rolls through a real server, manual dice in the documented order ---------------------


def test_a_sum_with_a_number_and_a_target():
    resolution = resolve("dice", [4, 2], label="Attaque", expr="2d6+3", target=9)
    r = resolution.outcome.result
    assert r["total"] == 9 and r["success"] and r["kind"] == "success" and r["margin"] == 0
    assert r["terms"] == [{"expr": "2d6", "sign": "+", "value": 6},
                          {"expr": "3", "sign": "+", "value": 3}]
    assert [d["term"] for d in resolution.outcome.dice] == [0, 0]
    assert resolution.text["fr"] == ("Aengus — Attaque : 2d6+3 → [4, 2] + 3 → Total : 9 "
                                     "(cible 9) → Réussite")
    assert resolution.text["en"] == ("Aengus — Attaque: 2d6+3 → [4, 2] + 3 → Total: 9 "
                                     "(target 9) → Success")
    r = resolve("dice", [1, 2], expr="2d6+3", target=9).outcome.result
    assert r["kind"] == "failure" and not r["success"] and r["margin"] == -3
    assert r["label"] == {"fr": "Échec", "en": "Failure"}


def test_without_a_target_there_is_no_verdict():
    resolution = resolve("dice", [17], expr="d20")
    r = resolution.outcome.result
    assert r["total"] == 17 and r["success"] and r["margin"] == 0 and r["target"] is None
    assert r["label"] == {"fr": "Total : 17", "en": "Total: 17"}
    assert resolution.text["fr"] == "Aengus — 1d20 → [17] → Total : 17"


def test_keep_highest_marks_the_dropped_die():
    resolution = resolve("dice", [6, 1, 5, 3], expr="4d6kh3")
    assert resolution.outcome.result["total"] == 14
    assert [d["kept"] for d in resolution.outcome.dice] == [True, False, True, True]
    assert "[6, (1), 5, 3]" in resolution.text["fr"]


def test_keep_lowest_with_ties_keeps_the_first_drawn():
    resolution = resolve("dice", [7, 7], expr="2d20kl1+5", target=12)
    r = resolution.outcome.result
    assert r["total"] == 12 and r["success"]
    assert [d["kept"] for d in resolution.outcome.dice] == [True, False]


def test_percentile_dice():
    resolution = resolve("dice", [100], expr="1d100")
    assert resolution.outcome.dice == [{"sides": 100, "face": 100, "term": 0}]
    assert resolution.outcome.result["total"] == 100


def test_exploding_dice_come_right_after_the_die_that_exploded():
    resolution = resolve("dice", [6, 6, 2, 3, 6, 1], expr="3d6!")
    dice = resolution.outcome.dice
    assert resolution.outcome.result["total"] == 6 + 6 + 2 + 3 + 6 + 1
    assert [d.get("exploded", False) for d in dice] == [True, True, False, False, True, False]
    assert [d.get("extra", False) for d in dice] == [False, True, True, False, False, True]
    assert "[6!, 6!, 2, 3, 6!, 1]" in resolution.text["en"]


def test_an_explosion_stops_at_the_bound():
    faces = [2] * (MAX_EXPLOSIONS + 1)
    resolution = resolve("dice", faces, expr="1d2!")
    assert resolution.outcome.result["total"] == 2 * (MAX_EXPLOSIONS + 1)
    assert sum(d.get("exploded", False) for d in resolution.outcome.dice) == MAX_EXPLOSIONS
    error = refused("dice", [*faces, 1], "bad_dice", expr="1d2!")  # the bound draws no more
    assert error.details["expected"] == MAX_EXPLOSIONS + 1


def test_counting_successes_and_a_target_on_the_count():
    faces = [9, 3, 7, 1, 10, 2, 8, 6]
    resolution = resolve("dice", faces, expr="8d10>=7", target=3)
    r = resolution.outcome.result
    assert r["total"] == 4 and r["counting"] and r["success"] and r["margin"] == 1
    assert [d["success"] for d in resolution.outcome.dice] == [f >= 7 for f in faces]
    assert "→ 4 réussites (cible 3) → Réussite" in resolution.text["fr"]
    assert "→ 4 successes (target 3) → Success" in resolution.text["en"]
    alone = resolve("dice", [7], expr="1d10>=7+1").outcome.result
    assert alone["total"] == 2 and alone["label"] == {"fr": "2 réussites", "en": "2 successes"}


def test_exploding_successes_count_every_die():
    r = resolve("dice", [10, 8, 3], expr="2d10!>=8").outcome.result
    assert r["total"] == 2  # 10 (a success that explodes), 8 (a success), 3


def test_several_terms_in_order_with_signs():
    resolution = resolve("dice", [17, 3], expr="1d20+1d4-1", target=19)
    r = resolution.outcome.result
    assert r["total"] == 19 and r["success"]
    assert [(t["sign"], t["value"]) for t in r["terms"]] == [("+", 17), ("+", 3), ("-", 1)]
    assert [(d["sides"], d["term"]) for d in resolution.outcome.dice] == [(20, 0), (4, 1)]
    assert "[17] + [3] − 1" in resolution.text["fr"]
    assert resolve("dice", [4], expr="-1d4+10").outcome.result["total"] == 6


def test_too_few_or_too_many_manual_dice_say_what_the_roll_needs():
    error = refused("dice", [6], "bad_dice", expr="1d20+1d4")
    assert error.details["dice"] == [20, 4]
    refused("dice", [6, 2, 1], "bad_dice", expr="1d20+1d4")
    refused("dice", [7], "bad_dice", expr="1d6")  # a face out of range


def test_labels_and_modes_over_the_protocol():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (gm, player):
            await gm.join(role="gm", name="MJ")
            await player.join(name="Aengus")
            # "self" first: the GM's first outcome being the public one shows it never
            # got the roller's own.
            for mode in ("self", "public", "gm", "blind"):
                outcome = await player.roll("dice", {"expr": "2d6+3", "target": 10},
                                            mode=mode, label="Fouiller")
                assert outcome["type"] == "outcome" and outcome["label"] == "Fouiller"
                assert ("hidden" in outcome["result"]) == (mode == "blind")
            seen = []
            while len(seen) < 3:
                message = await gm.recv()
                if message["type"] == "outcome":
                    seen.append(message)
            assert [m["mode"] for m in seen] == ["public", "gm", "blind"]
            assert seen[2]["result"]["total"] == sum(d["face"] for d in seen[2]["dice"]) + 3
    run(scenario())


def test_rolls_with_the_secure_source_stay_within_bounds():
    from tests.rules_helpers import pipeline_result
    for _ in range(200):
        r = pipeline_result("dice", expr="4d6kh3")
        assert 3 <= r["total"] <= 18
        r = pipeline_result("dice", expr="3d6!")
        assert 3 <= r["total"] <= 3 * 6 * (MAX_EXPLOSIONS + 1)


# -- exact odds ------------------------------------------------------------------------------


ODDS_CASES = [
    {"expr": "2d6+3", "target": 10},
    {"expr": "2d6"},
    {"expr": "4d4kh3", "target": 9},
    {"expr": "3d4kl2", "target": 4},
    {"expr": "3d4dh1", "target": 5},
    {"expr": "2d20kl1+5", "target": 15},
    {"expr": "d%", "target": 50},
    {"expr": "2d3!", "target": 7},
    {"expr": "1d2!"},
    {"expr": "3d6>=5", "target": 2},
    {"expr": "2d4!>=3", "target": 2},
    {"expr": "3d4<3+1", "target": 3},
    {"expr": "1d20+1d4-1", "target": 12},
    {"expr": "1d6-1d6", "target": 0},
    {"expr": "-1d4+2", "target": -1},
]


@pytest.mark.parametrize("params", ODDS_CASES, ids=lambda p: f"{p['expr']}@{p.get('target')}")
def test_odds_equal_enumeration_of_the_real_roll_code(params):
    odds = sidecar.odds("dice", params)
    kinds, totals = enumerate_real_rolls("dice", params)
    for kind, p in odds["kinds"].items():
        assert abs(p - kinds.get(kind, 0)) < 1e-12, (kind, odds, kinds)
    assert abs(odds["p_success"] - kinds.get("success", 0)) < 1e-12
    assert {v for v, _ in odds["distribution"]["values"]} == {v for v, p in totals.items() if p}
    for value, p in odds["distribution"]["values"]:
        assert abs(p - totals[value]) < 1e-12, (value, p, totals[value])


@pytest.mark.parametrize("params", [{"expr": "2d6!+1d4kl1", "target": 11},
                                    {"expr": "6d10!>=8", "target": 2}])
def test_odds_match_a_large_sample_of_secure_rolls(params):
    """4,000 rolls from the secure source: the successes within 5 standard deviations
    of the odds (a false alarm about once in 3 million)."""
    from tests.rules_helpers import pipeline_result
    n = 4000
    p = sidecar.odds("dice", params)["p_success"]
    hits = sum(pipeline_result("dice", **params)["success"] for _ in range(n))
    assert abs(hits - n * p) <= 5 * math.sqrt(n * p * (1 - p)), (hits, n * p)


def test_known_odds():
    assert sidecar.odds("dice", {"expr": "2d6", "target": 7})["p_success"] == pytest.approx(
        21 / 36, abs=1e-15)
    four = sidecar.odds("dice", {"expr": "4d6kh3"})["distribution"]["values"]
    assert dict(four)[18] == pytest.approx(21 / 1296, abs=1e-15)  # 6-6-6-x and its orders
    # 1d6!: a 6 adds another die, five times at most.
    chain = dict(sidecar.odds("dice", {"expr": "1d6!"})["distribution"]["values"])
    assert chain[7] == pytest.approx(float(Fraction(1, 36)), abs=1e-15)
    assert chain[36] == pytest.approx(float(Fraction(1, 6 ** 6)), abs=1e-18)
    assert max(chain) == 36
    success = sidecar.odds("dice", {"expr": "8d10>=7", "target": 1})["p_success"]
    assert success == pytest.approx(1 - 0.6 ** 8, abs=1e-12)


def test_large_expressions_are_exact_and_normalised():
    for expr in ("100d6", "20d20kh10", "50d10!>=8", "30d6!", "10d1000", "100d20",
                 "4d6kh3" + "+4d6kh3" * 5):
        odds = sidecar.odds("dice", {"expr": expr, "target": 10})
        assert abs(sum(odds["kinds"].values()) - 1) < 1e-12, expr
        assert abs(sum(p for _, p in odds["distribution"]["values"]) - 1) < 1e-9, expr


@pytest.mark.parametrize("expr", ["100d1000", "80d100kh40", "80d100!", "40d20kh20", "30d1000"])
def test_too_much_work_is_too_large(expr):
    with pytest.raises(ProtocolError) as refused_:
        sidecar.odds("dice", {"expr": expr, "target": 10})
    assert refused_.value.code == "too_large"


def test_odds_over_the_protocol():
    expected = sidecar.odds("dice", {"expr": "3d6!", "target": 12})

    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.request({"type": "odds", "id": 1, "ruleset": "dice",
                                        "params": {"expr": "3d6!", "target": 12}})
            assert reply["p_success"] == expected["p_success"]
            assert reply["kinds"] == expected["kinds"]
            bad = await peer.request({"type": "odds", "id": 2, "ruleset": "dice",
                                      "params": {"expr": "1000000d1000000"}})
            assert bad["code"] == "invalid_params" and bad["details"] == {"param": "expr"}
            big = await peer.request({"type": "odds", "id": 3, "ruleset": "dice",
                                      "params": {"expr": "100d1000"}})
            assert big["code"] == "too_large"
            assert (await peer.roll())["type"] == "outcome"  # still serving
    run(scenario())


# -- the command line through a real server ---------------------------------------------------


def test_cli_rolls_dice_with_manual_faces_and_odds():
    with ServeProcess() as server:
        gm = ("--url", server.url, "--role", "gm", "--token", GM_TOKEN, "--name", "Aengus")
        rolled = command("roll", "dice", "expr=2d6+3", "target=9", *gm, "--dice", "4,2",
                         "--label", "Attaque")
        assert rolled.returncode == 0, rolled.stderr
        assert "Aengus — Attaque : 2d6+3 → [4, 2] + 3 → Total : 9 (cible 9) → Réussite" \
            in rolled.stdout
        shown = command("roll", "dice", "expr=4d6kh3", *gm, "--dice", "6,1,5,3", "--json")
        outcome = json.loads(shown.stdout)
        assert outcome["result"]["total"] == 14
        assert [d["kept"] for d in outcome["dice"]] == [True, False, True, True]
        secure = command("roll", "dice", "expr=d20", *gm, "--locale", "en")
        assert secure.returncode == 0 and "1d20 → [" in secure.stdout
        bad = command("roll", "dice", "expr=4d6kh5", *gm)
        assert bad.returncode == 1 and "invalid_params" in bad.stderr and "expr" in bad.stderr
    odds = command("odds", "dice", "expr=2d6", "target=7", "--json")
    assert json.loads(odds.stdout)["p_success"] == pytest.approx(21 / 36, abs=1e-12)
