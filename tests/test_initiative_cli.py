"""Initiative asked by a GM without a raw message (issue 29 follow-up): the Python
client's :meth:`SidecarClient.initiative`, the ``sidecar initiative`` command, and the
event told as what it is — the order, who acts together, what a claim cost — in
``history`` / ``watch``, in the reader's one language, through real ``sidecar serve``
processes."""

from __future__ import annotations

import subprocess

import pytest

from sidecar.client import SidecarClient, SidecarError
from tests.helpers import GM_TOKEN, run
from tests.support.serve import ROOT, SIDECAR, ServeProcess, sidecar


def _table(server: ServeProcess) -> list[str]:
    gm = ["--url", server.url, "--table", "auberge", "--token", GM_TOKEN, "--name", "MJ"]
    for name, pep in (("Garde", 4), ("Aengus", 2), ("Brady", 2)):
        made = sidecar("sheet", "set", name, "--ruleset", "oweens", f"pep={pep}",
                       "bonbonus=3", *gm)
        assert made.returncode == 0, made.stderr
    return gm


def test_the_python_client_orders_the_initiative_with_claims_and_bagage():
    with ServeProcess("--db", ":memory:") as server:
        _table(server)

        async def scenario():
            async with SidecarClient(server.url, table="auberge", name="MJ", role="gm",
                                     token=GM_TOKEN) as gm:
                plain = await gm.initiative(["Garde", "Aengus", "Brady"])
                assert plain["order"] == [["Garde"], ["Aengus", "Brady"]], plain
                bagage = await gm.initiative(["Garde", "Aengus", "Brady"], bagage=["Brady"])
                assert bagage["order"] == [["Garde"], ["Brady"], ["Aengus"]], bagage
                claimed = await gm.initiative(["Garde", "Aengus", "Brady"], claims=["Aengus"])
                assert claimed["order"] == [["Aengus"], ["Garde"], ["Brady"]], claimed
                assert claimed["spent"] == {"Aengus": {"bonbonus": 1}}
                sheets = {s["character"]: s["values"] for s in await gm.sheets()}
                assert sheets["Aengus"]["bonbonus"] == 2

        run(scenario())


def test_sidecar_initiative_and_its_line_in_history_and_watch():
    with ServeProcess("--db", ":memory:") as server:
        gm = _table(server)
        asked = sidecar("initiative", "Garde", "Aengus", "Brady", *gm)
        assert asked.returncode == 0, asked.stderr
        assert "Initiative : Garde, puis Aengus et Brady ensemble — par MJ" in asked.stdout
        claimed = sidecar("initiative", "Garde", "Aengus", "Brady", "--claim", "Brady",
                          "--locale", "en", *gm)
        assert claimed.returncode == 0, claimed.stderr
        assert "Initiative: Brady, then Garde, then Aengus (Brady: −1 BB+) — by MJ" \
            in claimed.stdout
        history = sidecar("history", "--role", "gm", *gm).stdout
        assert "Initiative : Garde, puis Aengus et Brady ensemble" in history
        assert "Initiative : Brady, puis Garde, puis Aengus (Brady : −1 BB+)" in history
        english = sidecar("history", "--role", "gm", "--locale", "en", *gm).stdout
        assert "Initiative: Garde, then Aengus and Brady together" in english
        assert "ensemble" not in english
        # watch: the next initiative, as it arrives (after the watcher's first line).
        watch = subprocess.Popen([*SIDECAR, "watch", "--role", "observer", "--url",
                                  server.url, "--table", "auberge"], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert watch.stdout.readline().startswith("table auberge")
            assert sidecar("initiative", "Garde", "Aengus", "Brady", *gm).returncode == 0
            watched = watch.stdout.readline()
        finally:
            watch.kill()
            watch.wait()
        assert "Initiative : Garde, puis Aengus et Brady ensemble — par MJ" in watched


def test_an_unknown_character_is_refused_in_french_first():
    with ServeProcess("--db", ":memory:") as server:
        gm = _table(server)
        refused = sidecar("initiative", "Garde", "Personne", *gm)
        assert refused.returncode == 1
        assert "Personne" in refused.stderr and "Traceback" not in refused.stderr
        # A claim for a character not in the scene is a typing slip, said before asking.
        stray = sidecar("initiative", "Garde", "Aengus", "--claim", "Brady", *gm)
        assert stray.returncode == 2, stray.stderr
        assert "--claim : « Brady » n'est pas parmi les personnages" in stray.stderr


def test_a_claim_the_sheet_cannot_pay_names_the_character():
    """A claim beyond a character's BB+ is refused naming who cannot pay (the page read
    « Pas assez de « bonbonus » : il y en a 0 », with no name): ``details.character``,
    and the text « Aengus : pas assez… » in each language."""
    with ServeProcess("--db", ":memory:") as server:
        gm = _table(server)
        spent = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "bonbonus=0", *gm)
        assert spent.returncode == 0, spent.stderr

        async def scenario():
            for locale, start in (("fr", "Aengus : pas assez de « Bonbonus (BB+) »"),
                                  ("en", "Aengus: not enough \"Bonbonus (BB+)\"")):
                async with SidecarClient(server.url, table="auberge", name="MJ", role="gm",
                                         token=GM_TOKEN, locale=locale) as client:
                    with pytest.raises(SidecarError) as refused:
                        await client.initiative(["Garde", "Aengus"], claims=["Aengus"])
                    assert refused.value.code == "insufficient", refused.value
                    assert refused.value.details["character"] == "Aengus", refused.value
                    assert refused.value.message.startswith(start), refused.value.message

        run(scenario())
