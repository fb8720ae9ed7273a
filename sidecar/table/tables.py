"""Tables: who sits at each, the committed event count and plugin state, and the limits.

No I/O here. A :class:`Table` holds only what the journal has acknowledged (``seq``,
``state``, the request ids it resolved); the table core (:mod:`sidecar.table.core`) numbers new
events tentatively and commits them here once they are stored. :class:`Tables` is the
server's registry: it seats members under the limits and forgets a table nobody sits at.
"""

from __future__ import annotations

import asyncio
import collections
import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidecar.dice.provable import Epoch
from sidecar.host.sheets import Character
from sidecar.protocol.errors import ProtocolError
from sidecar.table.remembered import RememberedEvents


@dataclass(eq=False)
class Member:
    """One joined connection: who it is and how it reads (locale, binary or JSON)."""

    name: str
    role: str
    locale: str = "fr"
    binary: bool = True
    connection: Any = None
    #: While a resume replay is streaming, live messages wait here, each with its frame
    #: already encoded for this member (then None).
    held: collections.deque[tuple[dict[str, Any], bytes | str]] | None = None
    #: The id of the seat it joined with its own token (a player only); "" for none. A
    #: seat removed and added again under the same name is a new seat, with a new id.
    seat: str = ""
    #: Its seat was removed or given a new token: the connection is being closed, and
    #: nothing it sent (even already received) is acted on any more.
    gone: bool = False
    #: Its seed for verifiable dice (sent at ``hello``, or made by the server).
    client_seed: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """The identity visibility rules use: (name, role), the role ``seat`` for a
        player on a seat (someone else than a player of the same name without one)."""
        return (self.name, f"seat:{self.seat}" if self.seat else self.role)

    @property
    def by(self) -> dict[str, Any]:
        """How events name this member as their author."""
        if self.seat:
            # The seat's id is kept in the journal; messages say only ``seat: true``.
            return {"name": self.name, "role": self.role, "seat": self.seat}
        return {"name": self.name, "role": self.role}


@dataclass(eq=False)
class Table:
    """A table's members, its committed event counter and the plugins' per-table state."""

    name: str
    #: The last event number the journal acknowledged.
    seq: int = 0
    members: list[Member] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The seq the table had in the journal when this process loaded it.
    loaded_seq: int = 0
    #: Request ids resolved by this process: (name, role, id key) → event.
    recent: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    #: Request ids whose events were let go of to bound the server's memory: id → the
    #: event's seq (a repeat reads it from the store; see sidecar.table.remembered).
    recalled: dict[tuple[str, str, str], int] = field(default_factory=dict)
    #: Whether request ids were forgotten to bound memory (then the journal is asked).
    forgot: bool = False
    #: How many times request ids were forgotten (a request waiting for the turn
    #: meanwhile must ask the journal again).
    trims: int = 0
    #: Events numbered and not yet acknowledged or abandoned (0 or 1: see ``turn``).
    pending: int = 0
    #: Presence: when the last one was sent, and when the next is due (None: none due).
    presence_sent: float = float("-inf")
    presence_due: float | None = None
    _turn: asyncio.Lock | None = None
    #: Bound on the encoded bytes of the events in ``recent`` (a count alone would let big
    #: events take gigabytes).
    max_recent_bytes: int = 8 * 1024 * 1024
    #: Encoded bytes of the events in ``recent``.
    recent_bytes: int = 0
    #: The server-wide bound ``recent`` counts against (None: this table's bound only).
    remembered_by: RememberedEvents | None = None
    #: Seats: name → SHA-256 of its token (see sidecar.table.seats).
    seats: dict[str, str] = field(default_factory=dict)
    #: Seats: name → the seat's id (the same across new tokens, new when added again).
    seat_ids: dict[str, str] = field(default_factory=dict)
    #: Characters by name.
    characters: dict[str, Character] = field(default_factory=dict)
    #: Targets whose owner a roll hidden from them changed, not told yet: name → what the
    #: ``sheet`` ``effect`` event will show (kept in the character's record, written with
    #: the roll: a server killed before telling tells at the table's next change).
    notices: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The current game session's number (0 until a GM starts one).
    session: int = 0
    #: The table's turn: how many table-wide ``refill turn`` so far (0 at first).
    turns: int = 0
    #: A GM's open asks for rolls: ask id → {"event": the ask, "answered": {seat: seq}}.
    asks: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Open rolls waiting for a decision: roll id → the open outcome's event.
    open_rolls: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Verifiable dice: the current epoch (its seed is the server's until revealed).
    epoch: Epoch | None = None
    #: Seeds of the epochs already revealed, by number (to give each roll's key).
    revealed: dict[int, bytes] = field(default_factory=dict)

    MAX_RECENT = 100_000

    @property
    def turn(self) -> asyncio.Lock:
        """Held from numbering an event to its acknowledgement: one event of a table is on
        its way to the journal at a time, so a failed write never leaves a later event
        stored after a gap, nor a later state built on a state that was never stored."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        return self._turn

    @property
    def observers(self) -> int:
        return sum(1 for member in self.members if member.role == "observer")

    @property
    def seated(self) -> int:
        """Players and GMs (observers have their own limit)."""
        return len(self.members) - self.observers

    def join(self, member: Member) -> None:
        self.members.append(member)

    def leave(self, member: Member) -> None:
        if member in self.members:
            self.members.remove(member)

    @property
    def idle(self) -> bool:
        """Nobody connected, no open roll waiting for its time to run out, and nothing on
        its way to the journal: safe to forget."""
        return not self.members and self.pending == 0 and not self.open_rolls and not (
            self._turn is not None and self._turn.locked())

    def remembered(self, key: tuple[str, str, str]) -> dict[str, Any] | None:
        """The event a request id already produced in this process, if in memory."""
        return self.recent.get(key)

    def knows(self, key: tuple[str, str, str]) -> bool:
        """Whether a request id is one this process resolved and still remembers (its
        event in memory, or only its seq: :attr:`recalled`)."""
        return key in self.recent or key in self.recalled

    def needs_journal_lookup(self) -> bool:
        """Whether a request id may have been resolved before this process knew it."""
        return self.loaded_seq > 0 or self.forgot

    def seat_of(self, digest: str) -> str | None:
        """The seat whose token has this hash, if any (every seat compared, in constant
        time each)."""
        found = None
        for name, kept in self.seats.items():
            if hmac.compare_digest(kept.encode(), digest.encode()):
                found = name
        return found

    def seat_members(self, name: str) -> list[Member]:
        """The connections sitting on seat ``name``."""
        return [m for m in self.members if m.seat and m.name == name]

    def commit(self, event: dict[str, Any], state: dict[str, dict[str, Any]],
               key: tuple[str, str, str] | None, size: int,
               records: tuple[tuple[str, str, Any], ...] = ()) -> None:
        """Take an event the journal acknowledged: its seq, the state, its request id
        (``size``: the event's bytes, as measured when it was numbered) and the records it
        changed (seats, characters)."""
        assert event["seq"] == self.seq + 1, "events are committed in order, without gaps"
        self.seq = event["seq"]
        self.state = state
        for kind, name, value in records:
            self.apply_record(kind, name, value)
        if key is not None:
            if (len(self.recent) >= self.MAX_RECENT
                    or self.recent_bytes + size > self.max_recent_bytes):
                self.forget_recent()
            self.recent[key] = event
            self.recent_bytes += size
            if self.remembered_by is not None:
                self.remembered_by.added(self, key, event, size)

    def forget_recent(self) -> None:
        """Empty the memory of request ids (the journal is asked from now on)."""
        if self.remembered_by is not None:
            self.remembered_by.released(len(self.recent), self.recent_bytes,
                                        len(self.recalled))
        self.recent.clear()
        self.recalled.clear()
        self.recent_bytes = 0
        self.forgot = True
        self.trims += 1

    def apply_record(self, kind: str, name: str, value: Any) -> None:
        """Take one record (as the journal keeps it; ``None``: deleted)."""
        if kind == "seat":
            if value is None:
                self.seats.pop(name, None)
                self.seat_ids.pop(name, None)
            else:
                self.seats[name] = value["token_sha256"]
                self.seat_ids[name] = str(value.get("id") or "0")
        elif kind == "character":
            if value is None:
                self.characters.pop(name, None)
            else:
                self.characters[name] = Character.from_record(value)
            if value is not None and value.get("notify") is not None:
                self.notices[name] = value["notify"]
            elif self.notices:
                self.notices.pop(name, None)
        elif kind == "ask":
            if value is None:
                self.asks.pop(name, None)
            else:
                self.asks[name] = value
        elif kind == "session" and name == "turn":
            self.turns = int((value or {}).get("number", 0))
        elif kind == "session":
            self.session = int((value or {}).get("number", 0))
        elif kind == "open":
            if value is None:
                self.open_rolls.pop(name, None)
            else:
                self.open_rolls[name] = value
        elif kind == "epoch":
            if name == "current":
                self.epoch = None if value is None else Epoch.from_record(value)
            elif value is not None:
                self.revealed[int(name)] = bytes.fromhex(value["seed"])


def tables_full(max_tables: int) -> ProtocolError:
    """The refusal of a table past ``max_tables`` (``serve --max-tables``): said to whoever
    would open it, with what to do; ``details.limit`` tells it from a full table."""
    return ProtocolError(
        "too_large",
        f"this server already holds its {max_tables} tables: no new table can open until one "
        "closes (its last member leaves); try again later, or ask its host to raise "
        "--max-tables",
        fr=f"ce serveur accueille déjà ses {max_tables} tables : aucune nouvelle table ne peut "
           "s'ouvrir avant qu'une autre ne ferme (son dernier membre part) ; réessayez plus "
           "tard, ou demandez à son hôte d'augmenter --max-tables",
        details={"limit": "tables", "max_tables": max_tables},
    )


class Tables:
    """All tables in memory: loaded from the journal on first join, forgotten when empty.

    Observers never create a table (``creator`` says whether a join may), and count against
    ``max_observers`` per table, never against ``max_members`` (players and GMs).
    """

    def __init__(self, *, max_tables: int = 5000, max_members: int = 1000,
                 max_observers: int = 200,
                 load: Callable[[str], tuple[Any, ...]] | None = None,
                 max_recent_bytes: int = 8 * 1024 * 1024,
                 max_remembered_bytes: int = 0) -> None:
        self.tables: dict[str, Table] = {}
        self.max_recent_bytes = max_recent_bytes
        #: What every table's remembered events weigh, under one server-wide bound.
        self.remembered = RememberedEvents(max_remembered_bytes, self.tables)
        self.max_tables = max_tables
        self.max_members = max_members
        self.max_observers = max_observers
        self.load = load
        #: Told when a table comes into memory and when it is forgotten (hooked by the
        #: store: Redis watches the tables a process serves; both let go of a forgotten one).
        self.added: Callable[[Table], None] | None = None
        self.forgotten: Callable[[str], None] | None = None

    def get(self, name: str) -> Table | None:
        return self.tables.get(name)

    def __len__(self) -> int:
        return len(self.tables)

    def open(self, name: str) -> Table:
        """Table ``name`` as it is: in memory, or loaded from the journal, or new (``seq``
        0). Not registered: :meth:`join` does that when a member sits at it."""
        table = self.tables.get(name)
        if table is not None:
            return table
        if len(self.tables) >= self.max_tables:
            raise tables_full(self.max_tables)
        loaded = self.load(name) if self.load else (0, {})
        seq, state = loaded[0], loaded[1]
        table = Table(name, seq=seq, state=state, loaded_seq=seq,
                      max_recent_bytes=self.max_recent_bytes,
                      remembered_by=self.remembered)
        for kind, found in (loaded[2] if len(loaded) > 2 else {}).items():
            for record_name, value in found.items():
                table.apply_record(kind, record_name, value)
        return table

    def join(self, name: str, member: Member, *, creator: bool = True,
             table: Table | None = None) -> Table:
        """Seat ``member`` at table ``name``, loading or creating the table if needed
        (``table``: what :meth:`open` gave for it).

        ``creator``: whether this member may create a table the journal does not know.
        """
        if table is None or self.tables.get(name) not in (None, table):
            table = self.open(name)
        if name not in self.tables and table.seq == 0 and not creator:
            raise ProtocolError(
                "forbidden",
                f"there is no table '{name}' yet; observers join existing tables only "
                "(a GM or a player opens it, or give a token)",
                fr=f"la table « {name} » n'existe pas encore ; un observateur ne rejoint "
                   "qu'une table existante (un MJ ou un joueur l'ouvre, ou donnez un "
                   "jeton)",
                details={"table": name},
            )
        if member.role == "observer":
            if table.observers >= self.max_observers:
                raise ProtocolError(
                    "too_large",
                    f"table '{name}' has its {self.max_observers} observers",
                    fr=f"la table « {name} » a déjà ses {self.max_observers} observateurs",
                    details={"role": "observer"},
                )
        elif table.seated >= self.max_members:
            raise ProtocolError(
                "too_large",
                f"table '{name}' is full ({self.max_members} members)",
                fr=f"la table « {name} » est pleine ({self.max_members} membres)",
            )
        if name not in self.tables:
            self.tables[name] = table
            if self.added is not None:
                self.added(table)
        table.join(member)
        return table

    def keep(self, table: Table) -> None:
        """Hold ``table`` in memory with nobody at it (its open rolls' time runs)."""
        if table.name not in self.tables:
            self.tables[table.name] = table
            if self.added is not None:
                self.added(table)

    def leave(self, table: Table, member: Member) -> None:
        """Unseat ``member``; forget the table if that left it idle."""
        table.leave(member)
        self.forget_if_idle(table)

    def forget_if_idle(self, table: Table) -> None:
        """Drop an idle table from memory (the journal keeps it; a join loads it again)."""
        if table.idle and self.tables.get(table.name) is table:
            del self.tables[table.name]
            # Its remembered events go with it (a join loads it again from the journal,
            # which then answers its repeated request ids).
            table.forget_recent()
            if self.forgotten is not None:
                self.forgotten(table.name)
