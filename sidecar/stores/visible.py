"""Who may see a stored event: the rule, written once.

An event is kept with four facts that decide who sees it — its ``mode``, its roller's
identity (``roller_name``, ``roller_role``) and its ``audience`` — and a member is known by
its identity ``(name, role)``, where a player on a seat has the role ``seat:<id>`` (see
:func:`identity`). :data:`RULE` says who sees what, once, as clauses of terms; each term
carries its SQL and its Python side by side, and both are built from it:

- :data:`VISIBLE` (SQL): the SQLite journal pages and counts a member's history without
  reading what they may not see;
- :func:`visible` (Python): the Redis store filters its stream the same way, and
  :mod:`sidecar.table.visibility` decides live fan-out, replay and history with it.

``tests/test_store_agreement.py`` checks that the journal and Redis answer alike for every
mode, audience and member.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Stored(NamedTuple):
    """The facts of a stored event that decide who sees it."""

    mode: str
    roller_name: str
    roller_role: str
    #: ``None``: none (an outcome: by mode); ``""``: the GMs only; else the seat it is for.
    audience: str | None


class Term(NamedTuple):
    """One condition, in SQL over the ``events`` row and in Python over :class:`Stored`.

    In ``sql``, ``{audience}`` stands for the audience column (``NULL`` in a journal
    written before audiences existed); ``:name`` and ``:role`` for the member's identity."""

    sql: str
    holds: Callable[[Stored, str, str], bool]


def _mode_in(*modes: str) -> Term:
    listed = ", ".join(f"'{mode}'" for mode in modes)
    return Term(f"mode IN ({listed})", lambda e, name, role: e.mode in modes)


NO_AUDIENCE = Term("{audience} IS NULL", lambda e, name, role: e.audience is None)
AN_AUDIENCE = Term("{audience} IS NOT NULL", lambda e, name, role: e.audience is not None)
GM = Term(":role = 'gm'", lambda e, name, role: role == "gm")
ROLLER = Term("roller_name = :name AND roller_role = :role",
              lambda e, name, role: (e.roller_name, e.roller_role) == (name, role))
ON_A_SEAT = Term("substr(:role, 1, 4) = 'seat'", lambda e, name, role: role[:4] == "seat")
#: The audience is the member's seat: its identity role, or — in rows written before
#: audiences named seats by identity — its name (``substr``, not ``LIKE``: that one
#: ignores case).
THEIR_SEAT = Term(
    "({audience} = :role OR ({audience} = :name AND substr({audience}, 1, 5) <> 'seat:'))",
    lambda e, name, role: e.audience is not None and (
        e.audience == role or (e.audience == name and e.audience[:5] != "seat:")))

#: Who sees a stored event: any clause whose terms all hold.
RULE: tuple[tuple[str, tuple[Term, ...]], ...] = (
    ("everyone sees a public outcome", (NO_AUDIENCE, _mode_in("public"))),
    ("the GMs see gm and blind outcomes", (NO_AUDIENCE, GM, _mode_in("gm", "blind"))),
    ("a roller sees its own gm, blind and self outcomes",
     (NO_AUDIENCE, ROLLER, _mode_in("gm", "blind", "self"))),
    ("the GMs see every event with an audience", (AN_AUDIENCE, GM)),
    ("a seat sees the events whose audience it is", (AN_AUDIENCE, ON_A_SEAT, THEIR_SEAT)),
)


def sql(audience: str = "audience") -> str:
    """:data:`RULE` as an SQL condition over ``events`` (``audience``: the column, or
    ``NULL`` for a journal that has none)."""
    clauses = (" AND ".join(term.sql for term in terms) for _, terms in RULE)
    return "(" + "\n    OR ".join(f"({clause})" for clause in clauses).format(
        audience=audience) + ")"


#: :data:`RULE` in SQL, parameters ``:name`` and ``:role`` (the member's identity).
VISIBLE = sql()
#: :data:`VISIBLE` for a journal written before audiences existed (read-only tools).
VISIBLE_BEFORE_AUDIENCE = sql("NULL")


def visible(mode: str, roller_name: str, roller_role: str, audience: str | None,
            name: str, role: str) -> bool:
    """:data:`RULE` in Python: whether the member (``name``, identity ``role``) may see an
    event stored with these facts."""
    stored = Stored(mode, roller_name, roller_role, audience)
    return any(all(term.holds(stored, name, role) for term in terms) for _, terms in RULE)


def identity(by: dict[str, Any]) -> tuple[str, str]:
    """The identity of an event's author (its ``by``): ``(name, role)``, the role
    ``seat:<id>`` for a player on a seat (``seat`` in events written before seats had
    ids)."""
    seat = by.get("seat")
    if not seat:
        return (by["name"], by["role"])
    return (by["name"], f"seat:{seat}" if isinstance(seat, str) else "seat")


def audience_of(event: dict[str, Any]) -> str | None:
    """The audience an event is stored and shown with: its own, or ``""`` (the GMs) for a
    decision on a blind roll journaled before such decisions were given one — its roller
    may not even learn that the roll was open."""
    audience = event.get("audience")
    if audience is None and event.get("mode") == "blind" and "reacts_to" in event:
        return ""
    return audience
