"""The named-values picker beside a number (d6code's difficulty, the ladder's, Seuil's
threshold) says no one game's word (issue 29, replay 2: d6code's offered « …ou un niveau »
/ « …or a level », the ladder's word): « …ou au choix » / « …or pick one »."""

from __future__ import annotations

import re

from tests.support.serve import ROOT

STRINGS = ROOT / "sidecar" / "server" / "web" / "static" / "strings.js"


def test_the_pickers_words_belong_to_no_game() -> None:
    from sidecar.host.plugins import default_host

    host = default_host()
    try:
        # The rulesets whose form shows the picker: a number with named values.
        pickers = [r["name"] for r in host.ruleset_listing()
                   if any(isinstance(spec, dict) and spec.get("labels")
                          for spec in r["params"].values())]
    finally:
        host.shutdown()
    assert {"d6code", "ladder", "seuil"} <= set(pickers), pickers
    words = re.findall(r'"labels\.pick": "([^"]+)"', STRINGS.read_text(encoding="utf-8"))
    assert words == ["…ou au choix", "…or pick one"], words
    assert not any(re.search(r"niveau|level", word, re.I) for word in words), words
