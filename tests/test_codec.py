"""The codec and validator: round trips, and property tests with random and malformed input."""

from __future__ import annotations

import json

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.protocol import ProtocolError, decode, encode, parse_request
from sidecar.protocol.codec import MAX_DEPTH
from sidecar.protocol.errors import ERROR_CODES
from sidecar.protocol.messages import Hello, OddsRequest, RollRequest

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
    # Any strict prefix of a map is an incomplete map: never a message, never another value.
    with pytest.raises(ProtocolError) as refused:
        decode(frame[: cut % len(frame)])
    assert refused.value.code == "bad_frame"


@pytest.mark.parametrize("text,field", [
    ('{"type": "roll", "label": "\\ud800"}', "label"),
    ('{"type": "\\udfff"}', "type"),
    ('{"type": "roll", "ruleset": "a\\ud800b"}', "ruleset"),
    ('{"type": "hello", "name": "\\ud83d"}', "name"),
    ('{"type": "roll", "options": {"combat": {"zone": ["ok", "\\udc00"]}}}',
     "options.combat.zone"),
    ('{"type": "roll", "params": {"\\ud800": 1}}', "params.<key>"),
])
def test_lone_surrogates_in_json_are_bad_message_naming_the_field(text, field):
    with pytest.raises(ProtocolError) as refused:
        decode(text)
    assert refused.value.code == "bad_message"
    assert refused.value.details == {"field": field}
    # The error itself must be sendable: it does not echo the bad text.
    encode(refused.value.to_message(), binary=False).encode("utf-8")


def test_surrogate_pairs_and_other_text_are_accepted():
    message = decode('{"type": "roll", "label": "\\ud83c\\udfb2 d\u00e9 \u2014 ok"}')
    assert message["label"] == "🎲 dé — ok"


@pytest.mark.parametrize("field,value,ok", [
    ("after", 2**63 - 1, True), ("after", 2**63, False), ("after", 2**64 - 1, False),
    ("resume", 2**63 - 1, True), ("resume", 2**63, False), ("resume", 2**64 - 1, False),
])
def test_event_numbers_beyond_signed_64_bits_are_bad_message(field, value, ok):
    message = ({"type": "history", "after": value} if field == "after" else
               {"type": "hello", "protocol": 1, "table": "t", "name": "n",
                "role": "observer", "resume": value})
    decoded = decode(encode(message, binary=True))
    if ok:
        parse_request(decoded)
        return
    with pytest.raises(ProtocolError) as refused:
        parse_request(decoded)
    assert refused.value.code == "bad_message" and refused.value.details == {"field": field}


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
