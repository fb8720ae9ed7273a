"""The initiative event (``PROTOCOL.md`` §7.7) told as what it is — « Initiative :
Garde, puis Aengus et Brady ensemble (Brady : −1 BB+) » — in the reader's one
language (``watch``, ``history``, the command's own answer)."""

from __future__ import annotations

import re
from typing import Any

from sidecar.cli.labels import Labels, say
from sidecar.cli.labels import colon as _c
from sidecar.cli.terminal import for_terminal


def _together(names: list[str], locale: str | None) -> str:
    # « Aengus et Brady ensemble », one name alone as it is.
    if len(names) < 2:
        return "".join(names)
    listed = ", ".join(names[:-1]) + say(locale, " et ", " and ") + names[-1]
    return listed + say(locale, " ensemble", " together")


def _short(label: str) -> str:
    # « Bonbonus (BB+) » → « BB+ »: the sheet's short name in its parentheses, as the
    # table says it (« −1 BB+ »); a label without one as it is.
    found = re.search(r"\(([^()]{1,8})\)$", label)
    return found.group(1) if found else label


def initiative_line(event: dict[str, Any], locale: str | None = None,
                    labels: Labels | None = None) -> str:
    """« Initiative : Garde, puis Aengus et Brady ensemble (Brady : −1 BB+) », without the
    seq nor who asked (the order's sentence, ``locale`` alone)."""
    groups = [_together([str(n) for n in group], locale)
              for group in event.get("order") or () if group]
    line = "Initiative" + _c(locale) + (say(locale, ", puis ", ", then ").join(groups) or "—")
    ruleset = event.get("ruleset")
    costs = []
    for name, amounts in (event.get("spent") or {}).items():
        paid = ", ".join(
            f"−{amount} " + _short(labels.field(ruleset, field) if labels else field)
            for field, amount in (amounts or {}).items())
        if paid:
            costs.append(f"{name}{_c(locale)}{paid}")
    return line + (f" ({'; '.join(costs)})" if costs else "")


@for_terminal
def format_initiative_event(event: dict[str, Any], locale: str | None = None,
                            labels: Labels | None = None) -> str:
    """An initiative event's line: ``#seq``, the order and its costs, who asked."""
    who = (event.get("by") or {}).get("name")
    by = " — " + say(locale, "par", "by") + f" {who}" if who else ""
    return f"#{event.get('seq', '?')} " + initiative_line(event, locale, labels) + by
