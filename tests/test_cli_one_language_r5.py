"""The command line's last words of issue 29 (round 5): a seat's token lists its own asks
(as ``sheet list`` does), ``odds`` says a server-side refusal as ``roll`` does (message
first, ``[code]`` after), ``verify`` in French says « ligne ». Real ``sidecar``
processes (against a real ``sidecar serve`` where one is needed)."""

from __future__ import annotations

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, seat_token, sidecar


def test_a_seats_token_lists_its_asks_without_role():
    with ServeProcess("--db", ":memory:") as server:
        base = ["--url", server.url, "--table", "crypte"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        token = seat_token(gm, "Tom")
        listed = sidecar("ask", "list", *base, "--name", "Tom", "--token", token)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.strip() == "aucune demande ouverte"
        # (the note sheet list prints too: a player's view, and how to ask for the GM's)
        assert listed.stderr.strip() == "sidecar: vue de joueur (--role gm : celle du MJ)"


def test_odds_says_a_refusal_as_roll_does():
    done = sidecar("odds", "seuil", "--locale", "fr")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "sidecar: paramètre « Seuil » ('threshold') : est obligatoire [invalid_params]")


def test_verify_says_line_in_french(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("pas du json\n")
    for locale, expected in (("fr", "ÉCHEC : seq ? (ligne 1) : pas du JSON"),
                             ("en", "FAILED: seq ? (line 1): not JSON")):
        done = sidecar("verify", str(log), "--locale", locale, cwd=tmp_path)
        assert done.returncode == 1
        assert expected in done.stdout + done.stderr
