"""The line under an outcome's dice saying which faces a person typed, and who
(``manual: {by, dice, entered?}``, PROTOCOL.md §3): « dés physiques (tous) — saisis par
MJ » when every face shown was typed, « dés 1–2 saisis par MJ » when some were (a decision
that drew new faces on a typed roll) — drawn faces are the server's, never marked."""

from __future__ import annotations

from typing import Any

from sidecar.cli.labels import say


def spans(indexes: list[int]) -> str:
    """1-based dice numbers, runs joined: ``[0, 1, 3]`` → « 1–2, 4 »."""
    runs: list[list[int]] = []
    for number in sorted({i + 1 for i in indexes}):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def typed_line(manual: Any, shown: int, locale: str | None) -> str | None:
    """``manual``'s line for an outcome showing ``shown`` dice, or ``None`` without one.
    A ``manual`` without ``dice`` (older journals) means every face was typed."""
    if not isinstance(manual, dict) or not isinstance(manual.get("by"), dict):
        return None
    marks = manual.get("entered") if isinstance(manual.get("entered"), list) else [manual]
    parts = []
    for mark in marks:
        name = str((mark.get("by") or {}).get("name"))
        dice = mark.get("dice")
        if not isinstance(dice, list) or set(dice) >= set(range(shown)):
            parts.append(say(locale, f"dés physiques (tous) — saisis par {name}",
                             f"physical dice (all) — entered by {name}"))
        elif len(dice) == 1:
            parts.append(say(locale, f"dé {spans(dice)} saisi par {name}",
                             f"die {spans(dice)} typed by {name}"))
        else:
            parts.append(say(locale, f"dés {spans(dice)} saisis par {name}",
                             f"dice {spans(dice)} typed by {name}"))
    return " · ".join(parts)
