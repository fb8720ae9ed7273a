"""Messages of the command line found wanting by a newcomer's trial: bad faces, a bare
dice expression, a TLS server reached as plain, an untrusted certificate, a broken plugin."""

from __future__ import annotations

import pytest

from sidecar.cli import parse_dice, parse_pairs, plugin_load_failure, tls_hint
from sidecar.plugins import PluginLoadError


def test_faces_that_are_not_numbers_say_what_is_expected():
    assert parse_dice("3, 5,6") == [3, 5, 6]
    with pytest.raises(ValueError) as bad:
        parse_dice("a,b")
    assert "invalid literal" not in str(bad.value)
    assert "faces séparées par des virgules" in str(bad.value)


def test_a_bare_value_suggests_the_one_required_param():
    schema = {"expr": {"type": "string", "required": True}, "target": {"type": "int"}}
    assert parse_pairs(["expr=2d6"], schema) == {"expr": "2d6"}
    with pytest.raises(ValueError) as bad:
        parse_pairs(["2d6"], schema)
    assert "« expr=2d6 »" in str(bad.value)
    with pytest.raises(ValueError) as plain:
        parse_pairs(["2d6"], {})
    assert "«" not in str(plain.value) and "key=value" in str(plain.value)


def test_tls_failures_point_to_what_to_try():
    untrusted = OSError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    assert "SSL_CERT_FILE" in tls_hint("wss://h:8765/ws", untrusted)
    plain = Exception("did not receive a valid HTTP response")
    assert "wss://h:8765/ws" in tls_hint("ws://h:8765/ws", plain)
    assert tls_hint("ws://h:8765/ws", OSError("Connection refused")) == ""


def test_a_broken_plugin_says_how_to_serve_without_it():
    line = plugin_load_failure(PluginLoadError("bad key", fr="clé fautive", plugin="tour"))
    assert line.endswith("--disable tour") and "\n" not in line
    assert "--disable" not in plugin_load_failure(PluginLoadError("no plugin named"))
