"""Targets (contract §8) from the Python client and the command line, against a real
server: a roll, odds and an ask aimed at other characters (a seat's, a GM's NPC), the
effects on the outcome, the target's owner and the GMs seeing its new values (live in
``client.characters``), the roller learning nothing of them; ``sidecar roll --target``
printing « Blessures de Brady : 2 → 5 ».

The `duel` test ruleset (tests/js/plugins/duel.py): each target takes the die's face in
wounds, so what a roll did is known from its faces alone."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN, run, running_server
from tests.support.serve import ServeProcess, seat_token, sidecar

PLUGINS = str(Path(__file__).resolve().parent / "js" / "plugins")


def _client(url: str, name: str, **kwargs: Any) -> SidecarClient:
    return SidecarClient(url, table=kwargs.pop("table", "duel"), name=name, **kwargs)


async def _until(events: Any, predicate: Any, timeout: float = 5) -> dict[str, Any]:
    """The next event of ``events`` for which ``predicate`` holds."""
    async def wait() -> dict[str, Any]:
        async for event in events:
            if predicate(event):
                return event
        raise AssertionError("the stream ended")
    return await asyncio.wait_for(wait(), timeout)


async def _table(gm: SidecarClient) -> dict[str, str]:
    """Two seats with a character each (Brady: defence 5, 2 wounds) and the GM's NPC
    Ogre; returns each seat's token."""
    tokens = {}
    for name in ("Aengus", "Brady"):
        tokens[name] = (await gm.add_seat(name))["token"]
    await gm.set_sheet("Aengus", "duel", {}, owner="Aengus")
    await gm.set_sheet("Brady", "duel", {"defense": 5, "wounds": 2}, owner="Brady")
    await gm.set_sheet("Ogre", "duel", {"defense": 3}, owner=None)
    return tokens


def test_a_roll_aimed_at_a_character_changes_its_card_for_its_owner_and_the_gm() -> None:
    async def scenario() -> None:
        async with running_server(plugins_dir=PLUGINS) as server, \
                _client(server.url, "Morgane", role="gm", token=GM_TOKEN) as gm:
            tokens = await _table(gm)
            async with _client(server.url, "Aengus", token=tokens["Aengus"]) as aengus, \
                    _client(server.url, "Brady", token=tokens["Brady"]) as brady:
                brady_events, gm_events = brady.events(), gm.events()
                # A GM's odds read the target's sheet: defence 5 on a d6, 2 in 6; a
                # player's read no sheet they may not see (PROTOCOL.md §8.2).
                odds = await gm.odds("duel", {}, targets=["Brady"])
                assert odds["p_success"] == pytest.approx(2 / 6)
                outcome = await aengus.roll("duel", {}, character="Aengus", targets=["Brady"])
                face = outcome["dice"][0]["face"]
                assert outcome["targets"] == ["Brady"]
                assert outcome["effects"] == {"Brady": {"wounds": face}}
                assert outcome["result"]["difficulty"] == 5
                # The roller learns nothing of the target's sheet beyond the outcome.
                assert "target_sheets" not in outcome
                assert "values" not in (aengus.characters.get("Brady") or {})
                # The target's owner and the GM see its new values, live.
                for client, events in ((brady, brady_events), (gm, gm_events)):
                    seen = await _until(events, lambda e: e.get("seq") == outcome["seq"])
                    assert seen["target_sheets"]["Brady"]["wounds"] == 2 + face
                    assert client.characters["Brady"]["values"]["wounds"] == 2 + face
                    assert client.characters["Brady"]["owner"] == "Brady"
                # A roll the target's owner does not see: a sheet event shows its values.
                hidden = await aengus.roll("duel", {}, character="Aengus", targets=["Brady"],
                                           mode="gm")
                again = hidden["dice"][0]["face"]
                effect = await _until(brady_events, lambda e: e["type"] == "sheet")
                assert effect["op"] == "effect" and effect["character"] == "Brady"
                assert effect["values"]["wounds"] == 2 + face + again
                assert brady.characters["Brady"]["values"]["wounds"] == 2 + face + again
                assert brady.characters["Brady"]["owner"] == "Brady"
    run(scenario())


def test_an_ask_aimed_at_the_gms_npc() -> None:
    async def scenario() -> None:
        async with running_server(plugins_dir=PLUGINS) as server, \
                _client(server.url, "Morgane", role="gm", token=GM_TOKEN) as gm:
            tokens = await _table(gm)
            async with _client(server.url, "Aengus", token=tokens["Aengus"]) as aengus:
                asked = await gm.ask("Aengus", "duel", {"bonus": 1}, targets=["Ogre"])
                assert asked["targets"] == ["Ogre"]
                await _until(aengus.events(), lambda e: e.get("ask") == asked["ask"])
                answer = await aengus.answer(asked["ask"])
                face = answer["dice"][0]["face"]
                assert answer["targets"] == ["Ogre"]
                assert answer["effects"] == {"Ogre": {"wounds": face}}
                assert answer["result"]["difficulty"] == 3  # the Ogre's defence
                seen = await _until(gm.events(), lambda e: e.get("seq") == answer["seq"])
                assert gm.characters["Ogre"]["values"]["wounds"] == face == seen[
                    "target_sheets"]["Ogre"]["wounds"]
    run(scenario())


def test_sidecar_roll_target_prints_what_it_did_to_the_target() -> None:
    with ServeProcess("--db", ":memory:", "--plugins-dir", PLUGINS) as server:
        gm = ["--url", server.url, "--table", "duel", "--token", GM_TOKEN, "--name", "Morgane"]
        tokens = {}
        for name, values in (("Aengus", []), ("Brady", ["defense=5", "wounds=2"])):
            tokens[name] = seat_token(gm, name)
            made = sidecar("sheet", "set", name, "--ruleset", "duel", "--owner", name,
                           *values, *gm)
            assert made.returncode == 0, made.stderr
        made = sidecar("sheet", "set", "Ogre", "--ruleset", "duel", "--no-owner", *gm)
        assert made.returncode == 0, made.stderr
        # The GM hits Brady and the Ogre with physical dice: it sees both new values.
        rolled = sidecar("roll", "duel", "drain=true", "--dice", "3", "--target", "Brady",
                         "--target", "Ogre", "--role", "gm", *gm)
        assert rolled.returncode == 0, rolled.stderr
        assert "cibles : Brady, Ogre" in rolled.stdout
        assert "Blessures de Brady : 2 → 5" in rolled.stdout
        assert "Réserve de Brady : 3 → 2" in rolled.stdout
        assert "Blessures d'Ogre : 0 → 3" in rolled.stdout
        english = sidecar("roll", "duel", "--dice", "1", "--target", "Brady", "--role", "gm",
                          "--locale", "en", *gm)
        assert "Brady's Wounds: 5 → 6" in english.stdout, english.stdout
        # The odds against the target's sheet, at the table.
        odds = sidecar("odds", "duel", "--target", "Brady", "--url", server.url,
                       "--table", "duel", "--token", GM_TOKEN, "--role", "gm", "--json")
        assert odds.returncode == 0, odds.stderr
        assert '"p_success": 0.333' in odds.stdout
        # An ask aimed at the Ogre, and its unknown target refused in one line.
        asked = sidecar("ask", "open", "Aengus", "--ruleset", "duel", "--target", "Ogre", *gm)
        assert asked.returncode == 0, asked.stderr
        assert "cibles : Ogre" in asked.stdout
        unknown = sidecar("roll", "duel", "--target", "Personne", "--role", "gm", *gm)
        assert unknown.returncode == 1 and "invalid_params" in unknown.stderr
        assert "Traceback" not in unknown.stderr
        # A player hitting another seat's character learns the wounds dealt, not the sheet.
        hit = sidecar("roll", "duel", "--character", "Aengus", "--target", "Brady",
                      "--url", server.url, "--table", "duel", "--token", tokens["Aengus"],
                      "--name", "Aengus")
        assert hit.returncode == 0, hit.stderr
        assert re.search(r"Blessures de Brady : \+\d\b", hit.stdout), hit.stdout
        assert "→" not in hit.stdout.split("Blessures de Brady")[1].splitlines()[0]
        # The GM's list says who already acted this turn (a flag, never a refusal).
        listed = sidecar("sheet", "list", *gm).stdout
        assert "Aengus (Duel, place : Aengus) — a agi ce tour" in listed
        assert "Brady (Duel, place : Brady)\n" in listed


def test_local_odds_read_the_targets_values() -> None:
    import sidecar
    from sidecar.host.plugins import default_host

    host = default_host(PLUGINS)
    try:
        assert sidecar.odds("duel", {}, host=host)["p_success"] == pytest.approx(3 / 6)
        aimed = sidecar.odds("duel", {}, host=host, targets={"Brady": {"defense": 5}})
        assert aimed["p_success"] == pytest.approx(2 / 6)
        # The target's values are checked as a sheet's: one past its max is refused.
        with pytest.raises(sidecar.ProtocolError) as refused:
            sidecar.odds("duel", {}, host=host, targets={"Brady": {"defense": 9}})
        assert refused.value.code == "invalid_params"
    finally:
        host.shutdown()


def test_an_outcomes_effects_print_as_before_and_after_or_as_what_was_dealt() -> None:
    from sidecar.cli.labels import Labels
    from sidecar.cli.render import format_ask_event, format_outcome

    welcome = {"rulesets": [{"name": "duel", "sheet": {
        "wounds": {"type": "int", "label": {"fr": "Blessures", "en": "Wounds"}}}}]}
    seen = {"type": "outcome", "seq": 4, "ruleset": "duel", "text": "Touché",
            "result": {"kind": "success"}, "targets": ["Brady", "Ogre"],
            "effects": {"Brady": {"wounds": 3, "reserve": -1}, "Ogre": {"wounds": 3}},
            "target_sheets": {"Brady": {"wounds": 5, "reserve": 2}}}
    text = format_outcome(seen, "fr", labels=Labels(welcome, "fr"))
    assert "cibles : Brady, Ogre" in text
    assert "Blessures de Brady : 2 → 5" in text
    assert "reserve de Brady : 3 → 2" in text  # a field without a label: its name
    assert "Blessures d'Ogre : +3" in text     # not this reader's to see: what was dealt
    assert "Brady's Wounds: 2 → 5" in format_outcome(seen, "en", labels=Labels(welcome, "en"))
    asked = format_ask_event({"type": "ask", "ask": "a1", "ruleset": "duel",
                              "to": [{"seat": "Aengus"}], "targets": ["Ogre"]}, locale="fr")
    assert "cibles : Ogre" in asked
