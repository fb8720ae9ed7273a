"""What a member is told of the GM's open asks (``ask list``, ``welcome.asks``).

An ask's answers follow the ask's ``mode``, in the list as in the outcomes
(PROTOCOL.md §7.5): the GMs see every answer as it stands; a seat sees an ask it is
named in. A ``public`` ask's answers are everyone's: its ``answered`` map is shown whole.
A ``gm`` or ``blind`` ask's answers are not the other seats' (nor, ``blind``, the
roller's own), so its seats get ``answered: {}`` — and get it only until they answered:
an ask stays open while an answer waits for a decision after its dice, so whether it is
still listed would tell them how those dice went.
"""

from __future__ import annotations

from typing import Any

from sidecar.protocol.messages import ask_message
from sidecar.table.tables import Member


def listed(ask: dict[str, Any], member: Member) -> dict[str, Any] | None:
    """``ask`` (an open ask's record: its ``event`` and ``answered`` map) as ``member``
    sees it in a list; ``None`` when it is not listed to them."""
    event, answered = ask["event"], ask["answered"]
    view = ask_message(event)
    if member.role == "gm":
        view["answered"] = dict(answered)
        return view
    if not (member.seat and any(target["seat"] == member.name for target in event["to"])):
        return None
    if event.get("roll_mode", "public") == "public":
        view["answered"] = dict(answered)
        return view
    if member.name in answered:
        return None
    view["answered"] = {}
    return view
