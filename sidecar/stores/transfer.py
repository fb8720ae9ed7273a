"""Moving a table between stores: ``sidecar export --whole`` and ``sidecar import``.

A whole export is JSON Lines: first a header line
``{"type": "sidecar-table", "format": 1, "table": …, "last_seq": N, "state": {…},
"records": {kind: {name: value}}}`` — everything a server keeps of the table beside its
events: the plugins' state, the seats (their tokens' hashes), the characters, the open
asks and rolls, the verifiable dice's epochs (an unrevealed seed too: keep the file as
secret as the journal) — then every event 1…N, request ids kept (a request re-sent after
the move is still a repeat). ``sidecar verify`` reads such a file as a plain export (the
header has no ``seq``).

``sidecar import FILE`` writes it into a SQLite journal (``--db``) or Redis
(``--store``), to a table that holds no event yet, all or nothing as far as each store
allows (a SQLite journal: one transaction; Redis: in order, the table's seq moving with
each event, so an interrupted import is finished by running it again… after deleting the
partial table; the tool says so).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from typing import Any

from sidecar.stores.journal import Journal, JournalError, JournalReader

HEADER_TYPE = "sidecar-table"
FORMAT = 1


class TransferError(Exception):
    """What a GM reads when an export or an import cannot be done (French, English)."""


def header(table: str, seq: int, state: dict[str, Any],
           records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"type": HEADER_TYPE, "format": FORMAT, "table": table, "last_seq": seq,
            "state": state, "records": records}


# -- reading a table --------------------------------------------------------------------

def read_sqlite(path: str, table: str) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The header and the events (≤ its seq) of ``table`` in the journal at ``path``."""
    reader = JournalReader(path)
    seq, state = reader.table_meta(table)
    if seq == 0:
        names = ", ".join(name for name, _ in reader.tables())
        reader.close()
        # (Each language whole: a command prints the part of its --locale.)
        raise TransferError(f"pas de table « {table} » dans le journal (tables : "
                            f"{names or 'aucune'}) / no table '{table}' in the journal "
                            f"(tables: {names or 'none'})")
    head = header(table, seq, state, reader.records(table))

    def events() -> Iterator[dict[str, Any]]:
        try:
            for event in reader.all_events(table):
                if event["seq"] > seq:
                    return  # written after the header was read (a server beside us)
                yield event
        finally:
            reader.close()
    return head, events()


async def read_redis(url: str, table: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the events (≤ its seq) of ``table`` in the Redis store at ``url``."""
    from sidecar.stores.redis import RedisStore

    store = RedisStore(url)
    try:
        seq, state, records = await store.load(table)
        if seq == 0:
            names = ", ".join(name for name, _ in await store.tables())
            raise TransferError(f"pas de table « {table} » dans Redis (tables : "
                                f"{names or 'aucune'}) / no table '{table}' in Redis "
                                f"(tables: {names or 'none'})")
        events = [event for event, _, _, _ in await store.since(table, 0)
                  if event["seq"] <= seq]
        return header(table, seq, state, records), events
    finally:
        await store.close()


# -- writing a table --------------------------------------------------------------------

def parse(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A whole export's header and events, checked: events 1…N in order, of its table."""
    head: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise TransferError(f"ligne {number} : pas du JSON / line {number}: not JSON"
                                ) from None
        if head is None:
            if not (isinstance(item, dict) and item.get("type") == HEADER_TYPE):
                raise TransferError(
                    "ce fichier n'est pas un export complet : faites-le avec `sidecar export "
                    "--whole` / this file is not a whole export: make it with `sidecar "
                    "export --whole`")
            if item.get("format") != FORMAT:
                raise TransferError(f"format {item.get('format')!r} inconnu / unknown format")
            head = item
            continue
        if not (isinstance(item, dict) and item.get("seq") == len(events) + 1
                and item.get("table") == head["table"]):
            raise TransferError(f"ligne {number} : événement n° {len(events) + 1} de la "
                                f"table attendu / line {number}: event "
                                f"#{len(events) + 1} of the table expected")
        events.append(item)
    if head is None:
        raise TransferError("fichier vide / empty file")
    if len(events) != head["last_seq"]:
        raise TransferError(f"{len(events)} événements, l'en-tête en annonce "
                            f"{head['last_seq']} / {len(events)} events, the header says "
                            f"{head['last_seq']}")
    return head, events


def _records(head: dict[str, Any]) -> tuple[tuple[str, str, Any], ...]:
    return tuple((kind, name, value) for kind, found in head["records"].items()
                 for name, value in found.items())


def _renamed(head: dict[str, Any], events: list[dict[str, Any]],
             table: str | None) -> str:
    if table is None or table == head["table"]:
        return head["table"]
    for event in events:
        event["table"] = table
    return table


async def write_sqlite(path: str, head: dict[str, Any], events: list[dict[str, Any]],
                       table: str | None = None) -> int:
    """Write a table into the journal at ``path`` (a server must not be running on it)."""
    name = _renamed(head, events, table)
    journal = Journal(path)  # takes the writer's lock: refused beside a running server
    try:
        if journal.table_meta(name)[0]:
            raise TransferError(f"la table « {name} » a déjà des événements ici ; importez "
                                f"sous un autre nom (--table) / table '{name}' already has "
                                "events here; import under another name (--table)")
        records = _records(head)
        # Appended in one loop turn: the journal commits them in one transaction.
        await asyncio.gather(*(journal.append(event, head["state"],
                                              records if event is events[-1] else ())
                               for event in events))
        await journal.flush()
        return len(events)
    finally:
        journal.close()


async def write_redis(url: str, head: dict[str, Any], events: list[dict[str, Any]],
                      table: str | None = None) -> int:
    """Write a table into the Redis store at ``url`` (servers may be running on it: the
    table must be new there, and the seq check refuses any other writer meanwhile)."""
    from sidecar.stores.base import StaleTable
    from sidecar.stores.redis import RedisStore

    name = _renamed(head, events, table)
    store = RedisStore(url)
    try:
        if (await store.load(name))[0]:
            raise TransferError(f"la table « {name} » a déjà des événements dans Redis ; "
                                f"importez sous un autre nom (--table) / table '{name}' "
                                "already has events in Redis; import under another name "
                                "(--table)")
        records = _records(head)
        try:
            await store.import_events(events, head["state"], records)
        except StaleTable:
            raise TransferError(f"un serveur a écrit dans « {name} » pendant l'import / a "
                                f"server wrote to '{name}' during the import") from None
        return len(events)
    finally:
        await store.close()


__all__ = ["JournalError", "TransferError", "header", "parse", "read_redis", "read_sqlite",
           "write_redis", "write_sqlite"]
