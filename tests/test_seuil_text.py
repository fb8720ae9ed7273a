"""Seuil's line names what was rolled (issue 29): the action and the skills used, as the
other rulesets' lines name theirs, in the reader's one language — French by default,
English with ``--locale en``. Real ``sidecar roll`` processes against ``sidecar serve``."""

from __future__ import annotations

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar


def test_a_seuil_roll_names_its_action_and_skills_in_each_language():
    with ServeProcess("--db", ":memory:") as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN,
              "--name", "Morgane"]
        asked = ["seuil", "level=3", "threshold=22", "action=Grimper",
                 "characteristic=Physique", "skills=Escalade 5", "--dice", "5,5,5"]
        french = sidecar("roll", *asked, *gm)
        english = sidecar("roll", *asked, "--locale", "en", *gm)
        bare = sidecar("roll", "seuil", "level=3", "threshold=22", "--dice", "5,5,5", *gm)
    assert french.returncode == english.returncode == bare.returncode == 0, french.stderr
    assert ("Morgane — Grimper (Physique, Escalade 5) : 3D10 → 15 contre le seuil 22 → "
            "Échec") in french.stdout, french.stdout
    assert ("Morgane — Grimper (Physique, Escalade 5): 3D10 → 15 vs threshold 22 → "
            "Failure") in english.stdout, english.stdout
    # Nothing named: the line as it was, no empty parentheses.
    assert "Morgane — 3D10 → 15 contre le seuil 22 → Échec" in bare.stdout, bare.stdout
