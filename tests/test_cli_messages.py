"""Messages of the command line found wanting by a newcomer's trial: bad faces, a bare
dice expression, a TLS server reached as plain, an untrusted certificate, a broken plugin."""

from __future__ import annotations

import pytest

from sidecar.cli.common import plugin_load_failure
from sidecar.cli.connect import tls_hint
from sidecar.cli.values import parse_dice, parse_pairs
from sidecar.host.plugins import PluginLoadError


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
    assert "=2d6" not in str(plain.value) and "key=value" in str(plain.value)  # (no hint)


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
    # In the run's one language (serve, plugins and odds have --locale; issue 29).
    broken = PluginLoadError("bad key", fr="clé fautive", plugin="tour")
    assert plugin_load_failure(broken, "fr") == ("sidecar: impossible de charger les plugins : "
                                                 "clé fautive — pour servir sans lui : "
                                                 "--disable tour")
    assert plugin_load_failure(broken, "en") == ("sidecar: cannot load plugins: bad key — "
                                                 "to serve without it: --disable tour")


def test_a_bare_host_means_the_sidecars_port():
    from sidecar.cli.common import DEFAULT_URL
    from sidecar.cli.connect import server_url

    port = DEFAULT_URL.rsplit(":", 1)[1].split("/")[0]
    assert server_url("192.168.1.20") == f"ws://192.168.1.20:{port}/ws"
    assert server_url("192.168.1.20:9000") == "ws://192.168.1.20:9000/ws"
    assert server_url("http://192.168.1.20/") == "ws://192.168.1.20/ws"  # a page: as given


def test_odds_show_the_distribution_of_totals_and_leave_out_impossible_kinds():
    from sidecar.cli.odds_view import format_odds

    odds = {"p_success": 0.5, "kinds": {"botch": 0.0, "failure": 0.5, "success": 0.5},
            "distribution": {"of": "total", "values": [[2, 0.25], [3, 0.5], [4, 0.25]]}}
    shown = format_odds(odds)
    assert "botch" not in shown and "distribution (total)" in shown
    assert "     3     50 %" in shown
    long = {"p_success": 1.0, "kinds": {"success": 1.0},
            "distribution": {"of": "total", "values": [[v, 1 / 100] for v in range(100)]}}
    assert "0 … 99, moyenne / mean 49.50" in format_odds(long)
    assert "0 … 99, moyenne 49,50" in format_odds(long, locale="fr")


def test_without_name_nor_user_a_gm_is_mj_and_a_player_joueur_in_any_locale():
    import os
    import subprocess
    import sys

    from tests.helpers import GM_TOKEN, PLAYER_TOKEN
    from tests.support.serve import ServeProcess

    env = {k: v for k, v in os.environ.items() if k not in ("USER", "SIDECAR_TOKEN")}
    with ServeProcess() as server:
        # A default name is an identity, not a text: an English run is the same « MJ » (one
        # GM token rolling as « GM » and « MJ » was two people, a first botch granted twice).
        for role, token, name, locale in (("gm", GM_TOKEN, "MJ", "fr"),
                                          ("player", PLAYER_TOKEN, "joueur", "fr"),
                                          ("gm", GM_TOKEN, "MJ", "en"),
                                          ("player", PLAYER_TOKEN, "joueur", "en")):
            done = subprocess.run([sys.executable, "-m", "sidecar", "roll", "dice", "expr=1d6",
                                   "--url", server.url, "--role", role, "--token", token,
                                   "--json", "--locale", locale], capture_output=True,
                                  text=True, env=env, timeout=60)
            assert done.returncode == 0, done.stderr
            assert f'"name": "{name}"' in done.stdout
    for locale in ("fr", "en"):  # and --help says it, in both languages
        helped = subprocess.run([sys.executable, "-m", "sidecar", "roll", "--help", "--locale",
                                 locale], capture_output=True, text=True, env=env, timeout=60)
        assert "« MJ »" in " ".join(helped.stdout.split()), helped.stdout


def test_faces_typed_at_a_prompt_keep_their_newline():
    assert parse_dice("5\n") == [5] and parse_dice(" 3;4 ,5 ") == [3, 4, 5]


@pytest.mark.parametrize("module", ["sidecar.table.seats", "sidecar.config"])
def test_tokens_never_start_with_a_dash(module, monkeypatch):
    """A seat token drawn as "-abc…" made ``sidecar roll --token -abc…`` an argparse error
    (a test failed on it now and then): such a draw is thrown away."""
    import importlib
    import secrets

    draws = iter(["-first", "second"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(draws))
    assert importlib.import_module(module).new_token() == "second"


def test_export_and_verify_speak_french_first(tmp_path):
    import subprocess
    import sys

    missing = subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "t",
                              "--db", str(tmp_path / "none.db")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0
    # (French by default, and French alone: issue 29.)
    assert "pas de journal" in missing.stderr and "no journal" not in missing.stderr
    # A GM's roll with physical dice, as the journal keeps it (the verifier re-runs it).
    import asyncio
    import json

    from sidecar.host.pipeline import RollPipeline
    from sidecar.host.plugins import default_host

    pipeline = RollPipeline(default_host())
    gm = {"name": "MJ", "role": "gm"}
    roll = pipeline.prepare("bloodlust", {"pool": 2}, by=gm, manual=True)
    resolution = asyncio.run(pipeline.run(roll, dice=[3, 8]))
    outcome = resolution.outcome
    manual = tmp_path / "manual.jsonl"
    manual.write_text(json.dumps({
        "type": "outcome", "seq": 1, "roll": "r1", "table": "t", "by": gm,
        "ruleset": "bloodlust", "params": roll.params, "label": "", "mode": "public",
        "dice": outcome.dice, "result": outcome.result, "applied": outcome.applied,
        "notes": outcome.notes, "text": resolution.text,
        "proof": {"manual": True, "by": gm}}) + "\n")
    said = []
    for locale in ("fr", "en"):
        checked = subprocess.run([sys.executable, "-m", "sidecar", "verify", str(manual),
                                  "--locale", locale],
                                 capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stdout
        said.append(checked.stdout.splitlines()[0])
    french, english = said
    assert "0 jet vérifié" in french and "1 manuel " in french and "rolls checked" in english
