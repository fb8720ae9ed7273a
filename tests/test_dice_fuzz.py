"""Fuzzing the ``dice`` ruleset's notation with Hypothesis (bounded examples): no input
raises anything but an ``invalid_params`` error naming ``expr``; what is accepted rolls
within its limits, reads back as itself, and lands on a total its exact odds allow."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.dice.sources import MAX_DRAWS, SeededDice
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.rulesets import dice as ruleset
from sidecar.rulesets.dice_notation import MAX_DICE, MAX_EXPLOSIONS, parse
from tests.rules_helpers import resolve

#: Characters of the notation, so that random strings come close to real expressions.
NOTATION = "0123456789dDkKhHlL!%<>=+- "
#: Odds computed in the fuzz only below this estimate (the fuzz checks answers, not speed).
FUZZ_WORK = 200_000


def parsed_or_refused(text: str):
    try:
        return parse(text)
    except ProtocolError as error:
        assert error.code == "invalid_params", error
        assert error.details == {"param": "expr"}
        assert error.message_fr and error.message_fr != error.message
        return None


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_parsed_or_refused_as_invalid_params(text):
    parsed_or_refused(text)


def check_roll(text: str, seed: int) -> None:
    expr = parsed_or_refused(text)
    if expr is None:
        return
    assert parse(expr.text).text == expr.text  # the canonical text reads back as itself
    assert expr.dice <= MAX_DICE
    dice = SeededDice(seed)
    outcome = ruleset.sidecar_resolve(Roll("dice", {"expr": text}), dice)
    r = outcome.result
    assert len(outcome.dice) <= min(MAX_DRAWS, expr.dice * (MAX_EXPLOSIONS + 1))
    assert r["total"] == sum((1 if t["sign"] == "+" else -1) * t["value"] for t in r["terms"])
    assert r["success"] and r["kind"] == "success" and r["margin"] == 0
    if ruleset.work_estimate(expr) <= FUZZ_WORK:
        odds = ruleset.exact_odds(text, None)
        possible = {value for value, p in odds["distribution"]["values"]}
        assert r["total"] in possible, (text, r["total"])
        assert abs(sum(p for _, p in odds["distribution"]["values"]) - 1) < 1e-9


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=NOTATION, max_size=40), st.integers(0, 2 ** 32))
def test_notation_like_text_rolls_within_its_odds(text, seed):
    check_roll(text, seed)


@st.composite
def expressions(draw) -> str:
    """Expressions built from the grammar, valid or just past a limit."""
    terms = []
    for i in range(draw(st.integers(1, 4))):
        sign = draw(st.sampled_from(["+", "-"])) if i else draw(st.sampled_from(["", "-"]))
        if draw(st.booleans()):
            terms.append(f"{sign}{draw(st.integers(0, 30))}")
            continue
        count = draw(st.sampled_from(["", "1", "2", "3", "5", "0", "101"]))
        sides = draw(st.sampled_from(["2", "4", "6", "10", "20", "%", "0", "1", "1001"]))
        tail = draw(st.sampled_from(["", "!", "kh1", "kl2", "dh1", "dl1", "k2", ">=4",
                                     "!>=5", "<3", "=1", "kh9"]))
        terms.append(f"{sign}{count}d{sides}{tail}")
    return "".join(terms)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.integers(0, 2 ** 32))
def test_grammar_built_expressions_roll_within_their_odds(text, seed):
    check_roll(text, seed)


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet=NOTATION + "xé\t", min_size=1, max_size=30))
def test_the_server_answers_any_expression_with_an_outcome_or_invalid_params(text):
    """Through the real server (secure dice): nothing but an outcome or invalid_params —
    or, for a control character (the tab), the door's bad_message on ``params``."""
    try:
        resolution = resolve("dice", None, expr=text)
    except ProtocolError as error:
        if "\t" in text:
            assert error.code == "bad_message" and error.details == {"field": "params"}, error
            return
        assert error.code == "invalid_params" and error.details == {"param": "expr"}, error
    else:
        assert resolution.outcome.result["expr"] == parse(text).text
