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


class Term(NamedTuple):
    """One condition, in SQL over the ``events`` row and in Python over the same facts.

    In ``sql``, ``{audience}`` stands for the audience column (``NULL`` in a journal
    written before audiences existed); ``:name`` and ``:role`` for the member's identity.
    ``py`` is the same condition as a Python expression over the arguments of
    :func:`visible`: the event's ``mode``, ``roller_name``, ``roller_role`` and
    ``audience``, the member's ``name`` and ``role``."""

    sql: str
    py: str


def _mode_in(*modes: str) -> Term:
    listed = ", ".join(f"'{mode}'" for mode in modes)
    return Term(f"mode IN ({listed})", f"mode in {modes!r}")


NO_AUDIENCE = Term("{audience} IS NULL", "audience is None")
AN_AUDIENCE = Term("{audience} IS NOT NULL", "audience is not None")
GM = Term(":role = 'gm'", "role == 'gm'")
ROLLER = Term("roller_name = :name AND roller_role = :role",
              "roller_name == name and roller_role == role")
ON_A_SEAT = Term("substr(:role, 1, 4) = 'seat'", "role[:4] == 'seat'")
#: The audience is the member's seat: its identity role, or — in rows written before
#: audiences named seats by identity — its name (``substr``, not ``LIKE``: that one
#: ignores case).
THEIR_SEAT = Term(
    "({audience} = :role OR ({audience} = :name AND substr({audience}, 1, 5) <> 'seat:'))",
    "(audience == role or (audience == name and audience[:5] != 'seat:'))")

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


def _python() -> Callable[[str, str, str, str | None, str, str], bool]:
    """:data:`RULE` as one Python function, compiled once from the terms' ``py``: it is
    asked for every reader of every event (live fan-out, replay, Redis history), where
    walking the clauses term by term cost a dozen calls each time."""
    clauses = " or ".join("(" + " and ".join(term.py for term in terms) + ")"
                          for _, terms in RULE)
    source = ("def visible(mode, roller_name, roller_role, audience, name, role):\n"
              f"    return bool({clauses})\n")
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<{__name__}.RULE>", "exec"), namespace)  # (the text above, ours)
    return namespace["visible"]


#: :data:`RULE` in SQL, parameters ``:name`` and ``:role`` (the member's identity).
VISIBLE = sql()
#: :data:`VISIBLE` for a journal written before audiences existed (read-only tools).
VISIBLE_BEFORE_AUDIENCE = sql("NULL")


#: :data:`RULE` in Python, ``visible(mode, roller_name, roller_role, audience, name,
#: role)``: whether the member (``name``, identity ``role``) may see an event stored with
#: these facts (the Redis store's filter, and the live fan-out's through
#: :mod:`sidecar.table.visibility`).
visible = _python()


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
    if audience is None and "reacts_to" in event and event.get("mode") == "blind":
        return ""
    return audience
