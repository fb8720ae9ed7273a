"""O'Ween's words in the texts a member reads, one language each (issue 29).

The seed's margins are « MR » (Marge de Réussite: successes beyond the difficulty) and
« ME » (Marge d'Échec: successes short of it); an English reader gets « success margin »
and « failure margin », never the French abbreviations. Counts agree in each language
(« 0 réussite », « 0 successes », « 1 one »).
"""

from __future__ import annotations

from sidecar.rules import plural


def success_margin(margin: int, fr: bool) -> str:
    """« MR 2 » / « success margin 2 »."""
    return f"MR {margin}" if fr else f"success margin {margin}"


def failure_margin(margin: int, fr: bool) -> str:
    """« ME 1 » / « failure margin 1 » (``margin``: the positive shortfall)."""
    return f"ME {margin}" if fr else f"failure margin {margin}"


def successes(count: int, fr: bool) -> str:
    """« 0 réussite », « 2 réussites » / « 1 success », « 0 successes »."""
    if fr:
        return plural(count, "réussite")
    return f"{count} {'success' if count == 1 else 'successes'}"


def ones(count: int, fr: bool) -> str:
    """« 1 dé à 1 », « 2 dés à 1 » / « 1 one », « 2 ones » (the 1s a Bourde counts; « 2 × 1 »
    read as a multiplication, as Bloodlust's did)."""
    if fr:
        return f"{count} {'dés' if count > 1 else 'dé'} à 1"
    return f"{count} {'one' if count == 1 else 'ones'}"


def english(count: int, word: str) -> str:
    """An English noun agreed with ``count``: « 1 point », « 0 points », « 2 points »."""
    return word if count == 1 else f"{word}s"


def lost_points(count: int) -> str:
    """« le point », « les 3 points » (of reserve a decision gives up)."""
    return "le point" if count == 1 else f"les {plural(count, 'point')}"
