"""What every part of the table core shares: its settings, the plugins' catalogue, the
tables, and the few rules each feature uses (request keys, GM-only requests, numbering
an event tentatively). The features are mixins of :class:`CoreBasis`, assembled into
:class:`sidecar.table.core.TableCore`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sidecar.config import ServerConfig
from sidecar.host.sheets import Character
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError, plays_another
from sidecar.protocol.messages import (
    AskRequest,
    InitiativeRequest,
    SeatRequest,
    SessionRequest,
    SheetRequest,
)
from sidecar.protocol.text import game_name
from sidecar.stores.journal import request_key
from sidecar.table.effects import Pending, RollTicket
from sidecar.table.limits import check_event_size, check_strings
from sidecar.table.ownership import not_yours
from sidecar.table.tables import Member, Table, Tables


class Catalogue(Protocol):
    """What the core reports about the plugins (the plugin host provides it)."""

    def ruleset_listing(self) -> list[dict[str, Any]]: ...
    def sheet_schema(self, ruleset: str) -> dict[str, Any]: ...
    def extension_listing(self, locale: str | None = None) -> list[dict[str, Any]]: ...
    def option_listing(self) -> list[dict[str, Any]]: ...
    def welcome_listing(self) -> tuple[str, dict[str, list[dict[str, Any]]]]: ...
    def status(self) -> list[dict[str, Any]]: ...
    def versions(self) -> dict[str, str]: ...


class Preparer(Protocol):
    """The pipeline's synchronous first step: check a ruleset and its params."""

    def prepare(self, ruleset: str, params: dict[str, Any], **fields: Any) -> Roll: ...


def no_character(name: str) -> ProtocolError:
    """``invalid_params``: there is no character ``name`` at this table."""
    return ProtocolError("invalid_params", f"no character '{name[:64]}' at this table",
                         fr=f"pas de personnage « {name[:64]} » à cette table",
                         details={"param": "character", "field": "character"})


def gm_only(member: Member, what: str, fr: str) -> None:
    """``forbidden`` unless ``member`` is a GM (``what``/``fr``: what they tried)."""
    if member.role != "gm":
        raise ProtocolError("forbidden", f"only a GM may {what}",
                            fr=f"seul un MJ peut {fr}")


class CoreBasis:
    """The tables of one server and what every feature of the core shares. Plain Python,
    no I/O.

    ``load(name) -> (seq, state)`` reads a table's committed seq and plugin state (the
    journal's ``table_meta``); ``catalogue`` lists the plugins; ``preparer`` checks a
    roll's ruleset and params (the pipeline's ``prepare``).
    """

    def __init__(self, config: ServerConfig, *, catalogue: Catalogue, preparer: Preparer,
                 load: Callable[[str], tuple[int, dict[str, Any]]] | None = None,
                 version: str = "") -> None:
        self.config = config
        self.catalogue = catalogue
        self.preparer = preparer
        self.version = version
        self.tables = Tables(max_tables=config.max_tables, max_members=config.max_members,
                             max_observers=config.max_observers, load=load,
                             max_recent_bytes=config.max_remembered_bytes,
                             max_remembered_bytes=config.max_remembered_total_bytes)

    #: Where seat links point: set by the server once it knows its address.
    public_url = "http://127.0.0.1:8765/"

    @property
    def provable(self) -> bool:
        """Whether faces come from committed epochs (``--dice provable``)."""
        return self.config.dice == "provable"

    @staticmethod
    def request_key(member: Member, request_id: Any) -> tuple[str, str, str] | None:
        """How a request id is remembered: per member identity (a seat is its own);
        ``None`` for a request without an id."""
        if request_id is None:
            return None
        name, role = member.key
        return (name, role, request_key(request_id) or "")

    def ruleset_title(self, ruleset: str, locale: str = "fr") -> str:
        """How people name a ruleset in ``locale`` (« O'Ween's », « Dés », not ``oweens``,
        ``dice``): its listed title, up to its dash (« O'Ween's — réussites sur d6 »)."""
        for listing in self.catalogue.ruleset_listing():
            if listing.get("name") == ruleset:
                return game_name(listing.get("title"), ruleset, locale)
        return ruleset

    def _character_for(self, table: Table, member: Member, name: str,
                       ruleset: str | None) -> Character:
        """The character ``member`` may roll as: for a player, ``forbidden`` (one answer)
        unless it is theirs, ``invalid_params`` if theirs plays another ruleset; for a GM,
        ``invalid_params`` if there is none of that name (or of another ruleset)."""
        if member.role != "gm" and not member.seat:
            # None can be theirs: answered before looking, so that it tells nothing of
            # which characters (a GM's secret NPCs) exist.
            raise ProtocolError(
                "forbidden", "only a GM or a seat's player rolls as a character",
                fr="seuls un MJ ou le joueur d'une place jouent un personnage",
                details={"field": "character"})
        character = table.characters.get(name)
        if member.role != "gm" and (character is None or character.owner != member.name):
            # One answer whether it exists or not: a seat must not find the GM's secret
            # NPCs (or another seat's characters) by guessing names.
            raise not_yours(name)
        if character is None:
            raise no_character(name)
        if ruleset is not None and character.ruleset != ruleset:
            title = self.ruleset_title
            raise plays_another(
                name, {lang: title(character.ruleset, lang) for lang in ("fr", "en")},
                {lang: title(ruleset, lang) for lang in ("fr", "en")}, "character")
        return character

    def begin_change(self, table: Table, member: Member,
                     request: SeatRequest | SheetRequest | SessionRequest | AskRequest
                     | InitiativeRequest) -> RollTicket:
        """Check that ``member`` may make this seat or sheet change (GMs only)."""
        if isinstance(request, InitiativeRequest):
            gm_only(member, "order the initiative", "ordonner l'initiative")
        elif isinstance(request, AskRequest):
            gm_only(member, "ask for rolls", "demander des jets")
        elif isinstance(request, SessionRequest):
            gm_only(member, "start a session", "commencer une séance")
        elif isinstance(request, SeatRequest):
            gm_only(member, "manage seats", "gérer les places")
        else:
            gm_only(member, "change characters", "modifier les personnages")
            check_strings(request.values, request.delta, self.config.max_string_chars)
        return RollTicket(table, member, None, request.id, self.request_key(member, request.id))

    @staticmethod
    def _head(ticket: RollTicket) -> dict[str, Any]:
        """What every event an accepted request makes starts with (the builders of
        :mod:`sidecar.protocol.events` take it): its seq, the next of the table's, the
        table, its author and the request's id."""
        return {"seq": ticket.table.seq + 1, "table": ticket.table.name,
                "by": ticket.member.by, "request_id": ticket.request_id}

    def _pending(self, ticket: RollTicket, event: dict[str, Any],
                 records: tuple[tuple[str, str, Any], ...], **more: Any) -> Pending:
        size = check_event_size(event, self.config.max_event_bytes)
        ticket.table.pending += 1
        return Pending(ticket, event, ticket.table.state, size, records, **more)
