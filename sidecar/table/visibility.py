"""Who may see what of an event, decided before anything leaves the server.

Outcomes, by ``mode``: ``public``: everyone at the table. ``gm``: the roller and the GMs.
``blind``: the GMs see it all; the roller gets the outcome with ``result`` replaced by
``{"hidden": true}``, no dice, no notes, no extension names and nothing of the character's
sheet (they could give the result away); nobody else gets anything. ``self``: the roller
only.

A member is known by its identity ``(name, role)``, where a player on a seat has the role
``seat``: a player who joined with the shared token under the same display name is someone
else, and sees none of the seat's secret rolls.

Events with an ``audience`` (sheet and seat events) go to the GMs and to that seat
(``seat:<id>``, its identity role; ``""``: the GMs only), whatever their mode. A seat
added again under a removed seat's name is another seat and reads none of them. (Journals
written before audiences named seats by identity hold the seat's name: read by the seat
of that name.) A decision taken on a blind roll has the audience ``""``: its roller may
not even learn that the roll was open.

An answer to an ask that settles it carries the ``opposition`` or ``cooperation`` of every
answer: only those who see every answer get it — everyone for a ``public`` ask, else the
GMs (:data:`JUDGED`).

:func:`plan` is the one place that turns these rules into messages: live fan-out, replay,
history and the answer to a repeated request all go through it. Whether a member sees an
event at all is the stores' rule, :data:`sidecar.stores.visible.RULE`, written once: the
journal's SQL and Redis's filter are built from it too, so history pages hold exactly
what :func:`plan` shows (``identity`` is re-exported from there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from sidecar.protocol.replies import (
    ask_message,
    epoch_message,
    initiative_message,
    outcome_message,
    seat_event_message,
    session_message,
    sheet_message,
)
from sidecar.stores.visible import audience_of, identity, visible

FULL = "full"
HIDDEN = "hidden"

#: What an ask's last answer says of all the answers (the other seats' results).
JUDGED = ("opposition", "cooperation")

#: An identity no member has (a member's name and role are never empty). What it may see
#: of an event, every member may: each clause of the rule grants by mode, by the GM role,
#: or by being the event's roller or audience (``tests/test_store_agreement.py`` checks
#: it for every mode, audience, roller and member).
NOBODY = ("", "")


def audience(mode: str, viewer: tuple[str, str], roller: tuple[str, str],
             owner: str | None = None) -> str | None:
    """What ``viewer`` may see of an event by ``roller``: FULL, HIDDEN or None.

    ``owner``: the event's audience (sheet and seat events), else ``None``. Whether the
    viewer sees it at all is :func:`sidecar.stores.visible.visible` (the stores' rule);
    what is added here: a blind outcome's roller sees it HIDDEN."""
    # (Indexed, not unpacked with ``*``: a call with starred arguments builds two tuples
    # more, for every reader of every event.)
    if not visible(mode, roller[0], roller[1], owner, viewer[0], viewer[1]):
        return None
    if mode == "blind" and owner is None and viewer[1] != "gm":
        return HIDDEN  # (then the viewer is its roller)
    return FULL


class Reader(Protocol):
    """What the plan needs of a member: who it is, and how it reads."""

    @property
    def key(self) -> tuple[str, str]: ...

    locale: str
    binary: bool


R = TypeVar("R", bound=Reader)

Builder = Callable[..., dict[str, Any]]

#: The message each journaled event type is shown as.
BUILDERS: dict[str, Builder] = {
    "outcome": outcome_message,
    "sheet": sheet_message,
    "seat": seat_event_message,
    "session": session_message,
    "ask": ask_message,
    "initiative": initiative_message,
    "epoch": epoch_message,
}


def plan(event: dict[str, Any], readers: Iterable[R], *, requester: R | None = None,
         request_id: Any = None, duplicate: bool = False,
         extra: dict[str, Any] | None = None) -> list[tuple[list[R], dict[str, Any]]]:
    """Who gets which message for ``event``: groups sharing one message.

    Readers that may see nothing of it are in no group. Readers in one group see the same
    view in the same locale and encoding, so the message is encoded once per group. Only
    ``requester``'s copy carries ``request_id`` (and ``duplicate``, and ``extra``: what
    the requester alone is told, such as a new seat's token).
    """
    roller = identity(event["by"])
    mode = event["mode"]
    owner = audience_of(event)
    build = BUILDERS.get(event["type"], outcome_message)
    planned: list[tuple[list[R], dict[str, Any]]] = []
    groups: dict[tuple[str, bool, str, bool], tuple[list[R], dict[str, Any]]] = {}
    epoch = event["type"] == "epoch"
    judged = mode == "public" or not any(key in event for key in JUDGED)
    unjudged = event if judged else {k: v for k, v in event.items() if k not in JUDGED}
    # Seen whole by every reader (a public outcome, the usual event): decided once, not
    # reader by reader.
    everyone = not epoch and audience(mode, NOBODY, roller, owner) == FULL
    # A targeted roll's targets' new values: each reader sees those it may (contract §8).
    sheets = event.get("target_sheets")
    special = sheets is not None or "acted" in event  # ("acted": an initiative's, GMs')
    for reader in readers:
        # An epoch's seed is for the GMs: everyone else sees it ended, not the seed.
        view = (FULL if everyone else audience(mode, reader.key, roller, owner) if not epoch
                else FULL if reader.key[1] == "gm" else HIDDEN)
        if view is None:
            continue
        whole = judged or reader.key[1] == "gm"
        source = event if whole else unjudged
        # (per reader: what it sees of the targets' sheets, or of who acted; nothing to
        # look at for any other event)
        own = (_seen(sheets, reader.key[1]) if sheets and view == FULL else None,
               reader.key[1] == "gm") if special else None
        if reader is requester:
            message = build(source, reader.locale, hidden=view == HIDDEN,
                            request_id=request_id, duplicate=duplicate)
            if own is not None:
                _personal(message, sheets, *own)
            if extra:
                message.update(extra)
            planned.append(([reader], message))
            continue
        group = (view, whole, reader.locale, reader.binary, own)
        if group not in groups:
            message = build(source, reader.locale, hidden=view == HIDDEN)
            if own is not None:
                _personal(message, sheets, *own)
            groups[group] = ([], message)
        groups[group][0].append(reader)
    return planned + list(groups.values())


def _seen(sheets: dict[str, Any], role: str) -> tuple[bool, tuple[str, ...]] | None:
    """Which targets' values a reader of identity role ``role`` sees: all of them for a
    GM; for a seat, those it owns (``None``: none)."""
    if role == "gm":
        return (True, tuple(sheets))
    names = tuple(name for name, entry in sheets.items() if entry["audience"] == role)
    return (False, names) if names else None


def _personal(message: dict[str, Any], sheets: dict[str, Any] | None,
              seen: tuple[bool, tuple[str, ...]] | None, gm: bool) -> None:
    """What only some readers get: an initiative's ``acted`` stays for the GMs; the
    ``target_sheets`` its reader sees (``seen``) are put on ``message`` — a GM's the
    values, a seat's what it is shown of its own characters."""
    if not gm:
        message.pop("acted", None)
    if seen is None or sheets is None:
        return
    gm, names = seen
    message["target_sheets"] = {
        name: sheets[name]["values"] if gm else sheets[name].get("shown",
                                                                 sheets[name]["values"])
        for name in names}


def view(event: dict[str, Any], reader: Reader, *, duplicate: bool = False
         ) -> dict[str, Any] | None:
    """The stored ``event`` as one reader may see it (replay, history, a repeated request):
    their own requests carry the id they sent. ``None`` when they may not see it."""
    own = reader.key == identity(event["by"])
    planned = plan(event, [reader], requester=reader if own else None,
                   request_id=event.get("request_id"), duplicate=duplicate)
    return planned[0][1] if planned else None
