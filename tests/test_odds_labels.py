"""Odds refusals name a param by its label, as a roll's do (issue 29, replay 2: ``sidecar
odds ladder difficulty=Difficile`` said « paramètre 'level' » where ``roll`` says
« paramètre « Difficulté » »): on the command line (local odds) and over the wire."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server
from tests.support.serve import sidecar

CASES = [(("ladder", "difficulty=Difficile"), "level"),
         (("oweens", "difficulty=3"), "dice"),
         (("dice", "expr=1d1000000"), "expr")]


def test_local_odds_name_params_by_label() -> None:
    for args, key in CASES:
        shown = sidecar("odds", *args)
        assert shown.returncode != 0, shown.stdout
        assert "paramètre « " in shown.stderr and f"('{key}')" in shown.stderr, shown.stderr
        assert f"paramètre '{key}'" not in shown.stderr, shown.stderr


def test_odds_over_the_wire_name_params_by_label() -> None:
    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            for ruleset, params, key in (("ladder", {"difficulty": "Difficile"}, "level"),
                                         ("oweens", {"difficulty": 3}, "dice"),
                                         ("dice", {"expr": "1d1000000"}, "expr")):
                reply = await gm.request({"type": "odds", "id": key, "ruleset": ruleset,
                                          "params": params})
                assert reply["code"] == "invalid_params", reply
                assert reply["details"]["param"] == key, reply
                assert "paramètre « " in reply["message"], reply
                assert f"paramètre '{key}'" not in reply["message"], reply
    run(scenario())


def test_odds_name_kinds_in_the_rulesets_own_words() -> None:
    """O'Ween's odds said « Échec critique » / « Éclatante » where its roll's badge says
    « Bourde » / « Coup d'éclat »: its description names its kinds (``kind_labels``,
    in the welcome), and ``sidecar odds`` uses them."""
    for locale, (botch, critical), generic in (
            ("fr", ("Bourde", "Coup d'éclat"), "Échec critique"),
            ("en", ("Blunder", "Coup d'éclat (critical)"), "Critical failure")):
        shown = sidecar("--locale", locale, "odds", "oweens", "dice=5", "difficulty=4")
        assert shown.returncode == 0, shown.stderr
        rows = [line.strip() for line in shown.stdout.splitlines()]
        assert any(row.startswith(botch + " ") for row in rows), shown.stdout
        assert any(row.startswith(critical + " ") for row in rows), shown.stdout
        assert not any(row.startswith(generic) for row in rows), shown.stdout
    # Other rulesets keep the page's words.
    shown = sidecar("odds", "ladder", "level=2", "difficulty=3")
    assert "Échec" in shown.stdout, (shown.stdout, shown.stderr)

    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            welcome = await gm.join("t", "MJ", "gm")
            oweens = next(r for r in welcome["rulesets"] if r["name"] == "oweens")
            assert oweens["kind_labels"]["botch"] == {"fr": "Bourde", "en": "Blunder"}
            assert oweens["margin_labels"]["failure"]["fr"] == "ME"
    run(scenario())


def test_a_rulesets_own_words_are_checked_at_load() -> None:
    from sidecar.host.descriptions import ruleset_problems

    assert ruleset_problems({"name": "x", "kind_labels": {"botch": {"fr": "Bourde"}},
                             "margin_labels": {"success": "MR"}}) == []
    assert ruleset_problems({"name": "x", "kind_labels": {"oops": "Bourde"}})
    assert ruleset_problems({"name": "x", "margin_labels": {"failure": 3}})
