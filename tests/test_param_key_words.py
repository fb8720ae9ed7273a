"""No text a member reads names a param by its raw key in quotes (issue 29, item 2's
raw keys: O'Ween's ``adversity`` said « avec « reserve » » / with "reserve"): each built-in
ruleset's and extension's labels and descriptions, as a real server's welcome gives them
in French and in English, name a param by its label (« Réserve attaquée »)."""

from __future__ import annotations

import re
from typing import Any

from tests.helpers import GM_TOKEN, Peer, run, running_server

#: Quotes people read around a word: « … », "…", “…”.
QUOTED = re.compile(r"«\s*([^«»]+?)\s*»|\"([^\"]+)\"|“([^”]+)”")


def _texts(value: Any) -> list[str]:
    """Every string in a described param (its label, description, choice labels…)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def _quoted_keys(described: dict[str, Any]) -> list[tuple[str, str]]:
    keys = set(described)
    found = []
    for key, spec in described.items():
        for text in _texts(spec):
            for match in QUOTED.finditer(text):
                word = next(group for group in match.groups() if group is not None)
                if word in keys:
                    found.append((key, text))
    return found


def test_no_description_quotes_a_raw_param_key() -> None:
    async def scenario() -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = []
        async with running_server() as server:
            for locale in ("fr", "en"):
                gm = await Peer.open(server)
                welcome = await gm.join(f"mots-{locale}", "MJ", "gm", GM_TOKEN,
                                        locale=locale)
                described = [(r["name"], r.get("params") or {}) for r in welcome["rulesets"]]
                described += [(r["name"], r.get("sheet") or {}) for r in welcome["rulesets"]]
                described += [(o["name"], o.get("params") or {}) for o in welcome["options"]]
                assert len(described) > 10, described
                for name, params in described:
                    found += [(name, key, text) for key, text in _quoted_keys(params)]
        return found
    found = run(scenario())
    assert not found, "\n".join(map(repr, found))
