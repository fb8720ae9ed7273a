"""Characters: the sheets a table keeps (set, adjusted, refilled, removed by a GM) and
which of them a member may see (all for a GM, its own for a seat)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sidecar.host.sheets import (
    MAX_CHARACTERS,
    Character,
    apply_delta,
    checked_values,
    diff,
    refilled,
)
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.events import sheet_event
from sidecar.protocol.messages import SheetRequest
from sidecar.protocol.replies import sheets_message
from sidecar.table.basis import CoreBasis, no_character
from sidecar.table.effects import Pending, Reply, RollTicket
from sidecar.table.limits import encoded_size
from sidecar.table.names import refuse_character_owner
from sidecar.table.ownership import sheet_audience
from sidecar.table.tables import Member, Table


class Characters(CoreBasis):
    """The table's characters: pages of them, and the GM's changes (a whole-table
    ``refill turn`` counts the turn with :meth:`~sidecar.table.sessions.Sessions.turn_next`)."""

    def visible_characters(self, table: Table, member: Member, *, after: str = "",
                           limit: int = 100, max_bytes: int | None = None
                           ) -> tuple[list[dict[str, Any]], bool]:
        """A page of the characters ``member`` may see (all for a GM, its own for a seat),
        by name after ``after``: at most ``limit`` and ``max_bytes`` encoded as the member
        reads them (by default the history pages' bound). Returns the page and whether
        more follow."""
        if member.role == "gm":
            names = sorted(name for name in table.characters if name > after)
        elif member.seat:
            names = sorted(name for name, c in table.characters.items()
                           if c.owner == member.name and name > after)
        else:
            return [], False
        bound = self.config.max_history_bytes if max_bytes is None else max_bytes
        page: list[dict[str, Any]] = []
        size = 0
        for name in names:
            if len(page) >= limit:
                return page, True
            character = table.characters[name]
            view = character.view(gm=member.role == "gm")
            if character.acted == table.turns and member.role == "gm":
                view["acted"] = True  # (rolled as its roller this turn: the GMs see it)
            size += encoded_size(view, member.binary)
            if page and size > bound:
                return page, True
            page.append(view)
        return page, False

    def sheet_list(self, table: Table, member: Member, request: SheetRequest
                   ) -> dict[str, Any]:
        """The answer to ``sheet`` ``list``: a page of the characters ``member`` may see
        (``more`` and ``next``: pass ``after: next`` for the following page)."""
        page, more = self.visible_characters(table, member, after=request.after,
                                             limit=request.limit)
        return sheets_message(table.name, page, request.id, more=more,
                              next=page[-1]["character"] if page else request.after)

    def refill_targets(self, table: Table, request: SheetRequest) -> list[str]:
        """The characters a ``refill`` is about (one, or all of the table's)."""
        if request.character is not None:
            if request.character not in table.characters:
                raise no_character(request.character)
            return [request.character]
        return sorted(table.characters)

    def sheet_change(self, ticket: RollTicket, request: SheetRequest,
                     character_name: str | None = None) -> Pending | None:
        """The event of a sheet ``set``, ``adjust``, ``refill`` or ``remove`` (the caller
        holds the table's turn). ``character_name``: for a refill of every character,
        the one this event is about; ``None`` then when it changes nothing."""
        table = ticket.table
        name = character_name or request.character
        assert name is not None
        current = table.characters.get(name)
        reason = request.reason
        if request.op == "set":
            if current is None and len(table.characters) >= MAX_CHARACTERS:
                raise ProtocolError(
                    "too_large", f"a table has at most {MAX_CHARACTERS} characters",
                    fr=f"une table a au plus {MAX_CHARACTERS} personnages")
            assert request.ruleset is not None
            if current is not None and current.ruleset != request.ruleset:
                plays = {lang: self.ruleset_title(current.ruleset, lang) for lang in ("fr", "en")}
                asked = {lang: self.ruleset_title(request.ruleset, lang)[:40]
                         for lang in ("fr", "en")}
                raise ProtocolError(
                    "invalid_params",
                    f"“{name}” plays “{plays['en']}”: remove it to make a “{asked['en']}” "
                    "character of that name",
                    fr=f"« {name} » joue à « {plays['fr']} » : supprimez-le pour faire un "
                       f"personnage de « {asked['fr']} » de ce nom",
                    details={"param": "ruleset", "field": "ruleset"})
            if request.ruleset not in {r["name"] for r in self.catalogue.ruleset_listing()}:
                raise ProtocolError(
                    "unknown_ruleset", f"unknown ruleset '{request.ruleset[:40]}'",
                    fr=f"jeu de règles inconnu « {request.ruleset[:40]} »",
                    details={"ruleset": request.ruleset[:40]})
            owner = current.owner if current is not None else None
            if request.has_owner:
                owner = request.owner
                if owner is not None and owner not in table.seats:
                    raise ProtocolError(
                        "invalid_params", f"owner '{owner[:64]}' has no seat at this table",
                        fr=f"« {owner[:64]} » n'a pas de place à cette table",
                        details={"param": "owner", "field": "owner"})
            if current is None or owner != current.owner:
                refuse_character_owner(table, name, owner)
            sheet = self.catalogue.sheet_schema(request.ruleset)
            before = current.values if current is not None else {}
            values = checked_values(sheet, request.values, current.values if current else None)
            changed = diff(before, values)
            after = Character(name, request.ruleset, owner, values,
                              acted=current.acted if current is not None else None)
        else:
            if current is None:
                raise no_character(name)
            sheet = self.catalogue.sheet_schema(current.ruleset)
            if request.op == "adjust":
                values, changed = apply_delta(sheet, current.values, request.delta, sign=1,
                                              where="delta")
            elif request.op == "refill":
                assert request.what is not None
                values, changed = refilled(sheet, current.values, request.what)
                if character_name is not None and not changed:
                    return None
            else:  # remove
                values, changed = current.values, {}
            after = Character(name, current.ruleset, current.owner, values,
                              acted=current.acted)
        event = sheet_event(**self._head(ticket), op=request.op, character=name,
                            ruleset=after.ruleset, owner=after.owner, values=after.values,
                            changed=changed, reason=reason, what=request.what,
                            audience=sheet_audience(table, after.owner),
                            whole=character_name is not None)
        record = None if request.op == "remove" else after.to_record()
        return self._pending(ticket, event, (("character", name, record),),
                             echo=character_name is None)

    def refill_all(self, ticket: RollTicket, request: SheetRequest) -> Iterator[Pending | Reply]:
        """The effects of a ``refill`` of every character (the caller holds the table's
        turn and commits each event before asking for the next, which is numbered after
        it): one event per character it changes — the first keeps the request id (a
        repeat finds it and changes nothing) but no copy echoes it — then, for ``turn``,
        the table's next turn, counted even when no sheet changed; last, the requester's
        answer: the list of characters after them. Each event is ``whole`` (a repeat is
        answered with that list) and no copy echoes the request's id."""
        table, member = ticket.table, ticket.member
        for name in self.refill_targets(table, request):
            pending = self.sheet_change(ticket, request, name)
            if pending is None:
                continue
            yield pending
            ticket = RollTicket(table, member, None, None, None)
        if request.what == "turn":
            yield self.turn_next(ticket)
        yield Reply(self.sheet_list(table, member, request))
