"""Tables: who sits at each, the event numbering, and per-plugin state. No I/O here.

A :class:`Table` numbers its journaled events (``seq``, strictly increasing, no gaps),
records outcomes, and plans who receives which view of each; the server only encodes and
sends what :meth:`Table.plan_outcome` returns.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import encode
from protocol.errors import ProtocolError
from protocol.messages import presence_message
from sidecar.pipeline import Resolution
from sidecar.visibility import audience, outcome_view


@dataclass(eq=False)
class Member:
    """One joined connection: who it is and how it reads (locale, binary or JSON)."""

    name: str
    role: str
    locale: str = "fr"
    binary: bool = True
    connection: Any = None
    #: While a resume replay is streaming, live messages wait here (then None).
    held: list[dict[str, Any]] | None = None

    @property
    def key(self) -> tuple[str, str]:
        """The identity visibility rules use: (name, role)."""
        return (self.name, self.role)


@dataclass(eq=False)
class Table:
    """A table's members, its event counter and the plugins' per-table state."""

    name: str
    seq: int = 0
    members: list[Member] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The seq the table had in the journal when this process loaded it.
    loaded_seq: int = 0
    #: Request ids resolved by this process: (name, role, id key) → event.
    recent: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    #: Whether ``recent`` was emptied to bound memory (then the journal is asked).
    forgot: bool = False
    #: Bound on the encoded bytes of the events in ``recent`` (a count alone would let big
    #: events take gigabytes).
    max_recent_bytes: int = 8 * 1024 * 1024
    #: Encoded bytes of the events in ``recent``.
    recent_bytes: int = 0

    MAX_RECENT = 100_000

    def join(self, member: Member) -> None:
        self.members.append(member)

    def leave(self, member: Member) -> None:
        if member in self.members:
            self.members.remove(member)

    def presence(self) -> dict[str, Any]:
        """The ``presence`` message for the current members."""
        return presence_message(self.name, [{"name": m.name, "role": m.role}
                                            for m in self.members])

    def remembered(self, key: tuple[str, str, str]) -> dict[str, Any] | None:
        """The event a request id already produced in this process, if any."""
        return self.recent.get(key)

    def needs_journal_lookup(self) -> bool:
        """Whether a request id may have been resolved before this process knew it."""
        return self.loaded_seq > 0 or self.forgot

    def record(self, resolution: Resolution, request_id: Any = None,
               key: tuple[str, str, str] | None = None) -> dict[str, Any]:
        """Number a resolved roll and commit its plugin state; return the journal event."""
        self.state = resolution.state
        self.seq += 1
        roll, outcome = resolution.roll, resolution.outcome
        event = {
            "type": "outcome",
            "seq": self.seq,
            "roll": secrets.token_hex(8),
            "table": self.name,
            "by": {"name": roll.by["name"], "role": roll.by["role"]},
            "ruleset": roll.ruleset,
            "params": roll.params,
            "label": roll.label,
            "mode": roll.mode,
            "dice": outcome.dice,
            "result": outcome.result,
            "applied": outcome.applied,
            "notes": outcome.notes,
            "text": resolution.text,
            "request_id": request_id,
        }
        if key is not None:
            size = len(encode(event, binary=True))
            if (len(self.recent) >= self.MAX_RECENT
                    or self.recent_bytes + size > self.max_recent_bytes):
                self.recent.clear()
                self.recent_bytes = 0
                self.forgot = True
            self.recent[key] = event
            self.recent_bytes += size
        return event

    def plan_outcome(
        self, event: dict[str, Any], requester: Member | None, request_id: Any
    ) -> list[tuple[list[Member], dict[str, Any]]]:
        """Who gets which ``outcome`` message: groups of members sharing one message.

        Members that may see nothing of the roll are in no group. Only the requester's copy
        carries the request ``id``.
        """
        roller = (event["by"]["name"], event["by"]["role"])
        groups: dict[tuple[str, str, bool], tuple[list[Member], dict[str, Any]]] = {}
        planned: list[tuple[list[Member], dict[str, Any]]] = []
        for member in self.members:
            view = audience(event["mode"], member.key, roller)
            if view is None:
                continue
            if member is requester:
                planned.append(([member], outcome_view(event, view, member.locale, request_id)))
                continue
            key = (view, member.locale, member.binary)
            if key not in groups:
                groups[key] = ([], outcome_view(event, view, member.locale))
            groups[key][0].append(member)
        return planned + list(groups.values())


class Tables:
    """All tables of the server, created on first join (or loaded from the journal)."""

    def __init__(self, *, max_tables: int = 1000, max_members: int = 1000,
                 load: Callable[[str], tuple[int, dict[str, Any]]] | None = None,
                 max_recent_bytes: int = 8 * 1024 * 1024) -> None:
        self.tables: dict[str, Table] = {}
        self.max_recent_bytes = max_recent_bytes
        self.max_tables = max_tables
        self.max_members = max_members
        self.load = load

    def get(self, name: str) -> Table | None:
        return self.tables.get(name)

    def join(self, name: str, member: Member) -> Table:
        """Seat ``member`` at table ``name``, creating the table if it is new."""
        table = self.tables.get(name)
        if table is None:
            if len(self.tables) >= self.max_tables:
                raise ProtocolError(
                    "too_large",
                    f"this server already holds {self.max_tables} tables",
                    fr=f"ce serveur a déjà {self.max_tables} tables",
                )
            seq, state = self.load(name) if self.load else (0, {})
            table = self.tables[name] = Table(name, seq=seq, state=state, loaded_seq=seq,
                                              max_recent_bytes=self.max_recent_bytes)
        if len(table.members) >= self.max_members:
            raise ProtocolError(
                "too_large",
                f"table '{name}' is full ({self.max_members} members)",
                fr=f"la table « {name} » est pleine ({self.max_members} membres)",
            )
        table.join(member)
        return table
