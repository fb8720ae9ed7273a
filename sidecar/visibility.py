"""Who may see what of an outcome, decided before anything leaves the server.

``public``: everyone at the table. ``gm``: the roller and the GMs. ``blind``: the GMs see it
all; the roller gets the outcome with ``result`` replaced by ``{"hidden": true}``, no dice,
no notes and no extension names (they could give the result away); nobody else gets
anything. ``self``: the roller only.

:func:`plan` is the one place that turns these rules into messages: live fan-out, replay,
history and the answer to a repeated request all go through it. (The journal's SQL filter
``VISIBLE`` mirrors :func:`audience` to page without reading what a reader may not see.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from sidecar.protocol.messages import outcome_message

FULL = "full"
HIDDEN = "hidden"


def audience(mode: str, viewer: tuple[str, str], roller: tuple[str, str]) -> str | None:
    """What ``viewer`` (name, role) may see of a roll by ``roller``: FULL, HIDDEN or None."""
    is_roller = viewer == roller
    is_gm = viewer[1] == "gm"
    if mode == "public":
        return FULL
    if mode == "gm":
        return FULL if is_roller or is_gm else None
    if mode == "blind":
        if is_gm:
            return FULL
        return HIDDEN if is_roller else None
    if mode == "self":
        return FULL if is_roller else None
    return None


class Reader(Protocol):
    """What the plan needs of a member: who it is, and how it reads."""

    @property
    def key(self) -> tuple[str, str]: ...

    locale: str
    binary: bool


R = TypeVar("R", bound=Reader)


def plan(event: dict[str, Any], readers: Iterable[R], *, requester: R | None = None,
         request_id: Any = None, duplicate: bool = False) -> list[tuple[list[R], dict[str, Any]]]:
    """Who gets which ``outcome`` message for ``event``: groups sharing one message.

    Readers that may see nothing of the roll are in no group. Readers in one group see the
    same view in the same locale and encoding, so the message is encoded once per group.
    Only ``requester``'s copy carries ``request_id`` (and ``duplicate``).
    """
    roller = (event["by"]["name"], event["by"]["role"])
    mode = event["mode"]
    planned: list[tuple[list[R], dict[str, Any]]] = []
    groups: dict[tuple[str, str, bool], tuple[list[R], dict[str, Any]]] = {}
    for reader in readers:
        view = audience(mode, reader.key, roller)
        if view is None:
            continue
        if reader is requester:
            planned.append(([reader], outcome_message(
                event, reader.locale, hidden=view == HIDDEN, request_id=request_id,
                duplicate=duplicate)))
            continue
        group = (view, reader.locale, reader.binary)
        if group not in groups:
            groups[group] = ([], outcome_message(event, reader.locale, hidden=view == HIDDEN))
        groups[group][0].append(reader)
    return planned + list(groups.values())


def view(event: dict[str, Any], reader: Reader, *, duplicate: bool = False
         ) -> dict[str, Any] | None:
    """The stored ``event`` as one reader may see it (replay, history, a repeated request):
    their own rolls carry the id they sent. ``None`` when they may not see it."""
    own = reader.key == (event["by"]["name"], event["by"]["role"])
    planned = plan(event, [reader], requester=reader if own else None,
                   request_id=event.get("request_id"), duplicate=duplicate)
    return planned[0][1] if planned else None
