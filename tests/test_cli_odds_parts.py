"""``sidecar odds`` reads as the page's odds (issue 29, the newcomer's replay): the
headline's chance to succeed sums the narrow, plain and outstanding successes, so their
rows come under it as its parts, « dont : », indented, and the failures after — the
page's words (strings.js ``odds.parts``), not a row « Réussite 2,8 % » beside « 14 % »
that reads as a contradiction."""

from __future__ import annotations

import re

from tests.support.serve import ROOT, sidecar

STRINGS = ROOT / "sidecar" / "server" / "web" / "static" / "strings.js"


def test_the_odds_successes_read_as_parts_of_the_headline() -> None:
    for locale, (parts, narrow, failure) in {"fr": ("dont :", "De justesse", "Échec"),
                                             "en": ("of which:", "Narrow", "Failure")}.items():
        shown = sidecar("--locale", locale, "odds", "oweens", "dice=5", "difficulty=4")
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        head = next(i for i, line in enumerate(lines) if line.startswith("P("))
        assert lines[head + 1].strip() == parts, shown.stdout
        # Each success kind indented under « dont : », deeper than the failures.
        row = {re.sub(r"\s{2,}.*", "", line.strip()): line for line in lines[head + 2:]}
        assert row[narrow].startswith("    ") and not row[failure].startswith("   "), shown.stdout
        order = [line.strip().split("  ")[0] for line in lines[head + 2:] if line.strip()]
        assert order.index(narrow) < order.index(failure), shown.stdout


def test_the_parts_word_is_the_pages() -> None:
    from sidecar.cli.odds_view import PARTS_WORDS

    text = STRINGS.read_text(encoding="utf-8")
    english = text.index("\n  en: {")
    words = [(found.start() < english, found.group(1))
             for found in re.finditer(r'"odds\.parts": "([^"]+)"', text)]
    assert sorted(words, reverse=True) == [(True, PARTS_WORDS[0]), (False, PARTS_WORDS[1])]
