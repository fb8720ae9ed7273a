"""The codec and validator: round trips, and property tests with random and malformed input."""

from __future__ import annotations

import json

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import ProtocolError, decode, encode, parse_request
from protocol.codec import MAX_DEPTH
from protocol.errors import ERROR_CODES
from protocol.messages import Hello, OddsRequest, RollRequest

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)

messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "roll", "odds", "teleport"]) | st.text(max_size=5)},
    optional={
        "id": json_values, "protocol": json_values, "table": json_values,
        "name": json_values, "role": st.sampled_from(["gm", "player", "observer"]) | json_values,
        "token": json_values, "locale": json_values, "resume": json_values,
        "ruleset": json_values, "params": json_values, "label": json_values,
        "mode": st.sampled_from(["public", "gm", "blind", "self"]) | json_values,
        "options": json_values, "dice": st.lists(st.integers(-5, 30), max_size=8) | json_values,
    },
)

FAST = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("binary", [True, False])
def test_round_trip(binary):
    message = {"type": "roll", "id": "x", "params": {"pool": 3, "name": "Éclate"},
               "dice": [1, 2], "ok": True, "none": None, "f": 1.5}
    assert decode(encode(message, binary=binary)) == message


@FAST
@given(json_values)
def test_any_json_value_round_trips_or_is_refused_as_a_message(value):
    for binary in (True, False):
        frame = encode({"type": "x", "v": value}, binary=binary)
        assert decode(frame)["v"] == value


@FAST
@given(st.binary(max_size=200))
def test_random_bytes_never_raise_anything_but_protocol_errors(frame):
    try:
        message = decode(frame)
    except ProtocolError as error:
        assert error.code in ("bad_frame", "bad_message")
        return
    try:
        parse_request(message)
    except ProtocolError as error:
        assert error.code in ERROR_CODES


@FAST
@given(st.text(max_size=200))
def test_random_text_never_raises_anything_but_protocol_errors(frame):
    try:
        parse_request(decode(frame))
    except ProtocolError as error:
        assert error.code in ERROR_CODES


@FAST
@given(messages, st.booleans())
def test_structured_random_messages_validate_or_fail_with_contract_codes(message, binary):
    try:
        request = parse_request(decode(encode(message, binary=binary)))
    except ProtocolError as error:
        assert error.code in ("bad_message", "unknown_type", "unsupported_protocol",
                              "too_large")
        if error.code == "bad_message":
            assert error.details and "field" in error.details
        return
    assert isinstance(request, (Hello, RollRequest, OddsRequest))


@FAST
@given(st.binary(min_size=1, max_size=60), st.integers(0, 59))
def test_truncated_msgpack_is_bad_frame(tail, cut):
    frame = msgpack.packb({"type": "roll", "params": {"pool": 3}, "x": tail})
    try:
        decode(frame[: cut % len(frame)])
    except ProtocolError as error:
        assert error.code in ("bad_frame", "bad_message")


def test_depth_limit():
    deep: object = 1
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(ProtocolError) as refused:
        decode(json.dumps({"type": "x", "v": deep}))
    assert refused.value.code == "bad_frame"


@pytest.mark.parametrize("frame", [
    msgpack.packb({"type": "x", "v": b"raw"}, use_bin_type=True),  # binary string
    b"\x81\x01\x02",                                              # integer map key
    b"\xd6\xff\x00\x00\x00\x01",                                 # timestamp extension
])
def test_refused_values(frame):
    with pytest.raises(ProtocolError) as refused:
        decode(frame)
    assert refused.value.code == "bad_frame"


def test_huge_declared_lengths_in_a_small_frame_are_bad_frame():
    for frame in (b"\xdd\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"):
        with pytest.raises(ProtocolError) as refused:
            decode(frame)
        assert refused.value.code == "bad_frame"


def test_parse_roll_defaults():
    request = parse_request({"type": "roll", "ruleset": "bloodlust"})
    assert request == RollRequest(ruleset="bloodlust")
    assert request.mode == "public" and request.dice is None


@pytest.mark.parametrize("locale,expected", [("fr", "fr"), ("fr-CA", "fr"), ("en", "en"),
                                             ("de", "en"), (None, "fr")])
def test_hello_locale(locale, expected):
    hello = parse_request({"type": "hello", "protocol": 1, "table": "t", "name": "n",
                           "role": "observer", "locale": locale})
    assert hello.locale == expected
