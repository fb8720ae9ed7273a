"""What the journal's SQLite file holds, how an event becomes a row, and the journal's error.

Shared by the writer (which creates the schema and encodes rows) and the reader (which
decodes them). Encoding is strict — it is where bad data is refused, before any transaction
begins — and decoding is forgiving: one unreadable row must not hide a table's history.
"""

from __future__ import annotations

import json
import os
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from sidecar.protocol.events import outcome_event
from sidecar.stores.visible import audience_of, identity

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    mode TEXT NOT NULL,
    roller_name TEXT NOT NULL,
    roller_role TEXT NOT NULL,
    request_id TEXT,
    body TEXT NOT NULL,
    audience TEXT,
    PRIMARY KEY (table_name, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS events_request
    ON events (table_name, roller_name, roller_role, request_id)
    WHERE request_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    table_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (table_name, kind, name)
) WITHOUT ROWID;
"""

#: Added to ``events`` by this version: journals written by an earlier one get it when a
#: server opens them (old rows keep NULL: their audience is their roller, by mode).
MIGRATIONS = (("events", "audience", "ALTER TABLE events ADD COLUMN audience TEXT"),)
#: Rows written by an earlier version given what this one stores, once per journal
#: (``PRAGMA user_version`` counts those done): 1. a decision on a blind roll journaled
#: before such decisions had an audience gets the GMs' (``""``, see
#: :func:`sidecar.stores.visible.audience_of`), so history counts what it shows (a body
#: that is not JSON is left as it is: CASE, unlike AND, is evaluated in order).
DATA_MIGRATIONS = (
    "UPDATE events SET audience = '' WHERE audience IS NULL AND mode = 'blind' AND "
    "CASE WHEN json_valid(body) THEN json_extract(body, '$.reacts_to') END IS NOT NULL",
)

def identity_role(by: dict[str, Any]) -> str:
    """The role a journal row files its roller under: ``seat:<id>`` for a player on a seat
    (see :func:`sidecar.stores.visible.identity`)."""
    return identity(by)[1]


class JournalError(Exception):
    """The journal cannot be opened, read or written; the message says why, for a person."""


def request_key(request_id: Any) -> str | None:
    """How a request id is stored: JSON, so the string "1" and the integer 1 differ."""
    if request_id is None:
        return None
    # The usual ids, a text or an integer, written as json.dumps writes them — by the C
    # function it ends in for a text — without its encoder object (twice a roll: the
    # encoder cost more than the rest of the journal's row).
    kind = request_id.__class__
    if kind is str:
        return encode_basestring_ascii(request_id)
    if kind is int:
        return int.__repr__(request_id)
    return json.dumps(request_id)


def real_path(path: str | os.PathLike[str]) -> str:
    """The one name of a database file, whatever symlinks or relative paths lead to it.

    The writer's lock file and SQLite's ``-wal``/``-shm`` files are named after it, so two
    spellings of one database are one database (hard links are not detected)."""
    return os.path.realpath(os.fspath(path))


def read_only_uri(path: str) -> str:
    """SQLite URI of ``path`` opened read-only (WAL lets readers work beside the writer)."""
    return Path(path).as_uri() + "?mode=ro"


class Row(NamedTuple):
    """One event encoded for the ``events`` table, and its table's state for ``tables``."""

    table: str
    seq: int
    type: str
    mode: str
    roller_name: str
    roller_role: str
    request_id: str | None
    body: str
    audience: str | None
    state: str
    #: Table records written with the event: (kind, name, JSON body, or None to delete).
    records: tuple[tuple[str, str, str | None], ...] = ()


def _json(value: Any) -> str:
    """``value`` as JSON text, strictly: orjson refuses what JSON or UTF-8 cannot hold (a
    lone surrogate, a map key that is not text, an integer past 64 bits, a structure that
    contains itself) — about twelve times faster than the standard library's encoder, on
    every roll's path. (It writes NaN as null: non-finite numbers are refused earlier, by
    the guard around plugins, the only code that could put one in an event.)"""
    return orjson.dumps(value).decode()


def encode(event: dict[str, Any], state: dict[str, Any],
           records: tuple[tuple[str, str, Any], ...] = ()) -> Row:
    """The row for ``event`` and its table's ``state``; JournalError if it cannot be stored.

    ``records``: the table's records this event changes — (kind, name, value), ``None`` to
    delete (a seat, a character's values) — written in the same transaction.

    Refused here, before any transaction: values JSON cannot hold (objects, keys that are
    not text), strings that are not valid Unicode (a lone surrogate such as ``"\\ud800"``
    cannot be written as UTF-8), and events missing the fields the journal indexes; a bad
    string thus fails only its own append, not a whole group commit."""
    try:
        by = event["by"]
        audience = audience_of(event)
        row = Row(event["table"], event["seq"], event["type"], event["mode"], by["name"],
                  identity(by)[1], request_key(event.get("request_id")),
                  _json(event), audience, _json(state),
                  tuple((kind, name, None if value is None else _json(value))
                        for kind, name, value in records))
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        # orjson's JSONEncodeError is a TypeError; RecursionError: from request_key
        raise JournalError(f"event not stored, it cannot be encoded: {_short(exc)}") from None
    if not (type(row.seq) is int and type(row.table) is str and type(row.type) is str
            and type(row.mode) is str and type(row.roller_name) is str
            and type(row.roller_role) is str
            and (row.audience is None or type(row.audience) is str)):
        raise JournalError("event not stored: table, type, mode and by.name/role must be "
                           "text and seq an integer")
    return row


def unreadable_event(table: str, seq: int, type_: str, mode: str, name: str, role: str,
                     request_id: str | None) -> dict[str, Any]:
    """What the journal gives instead of an event whose stored JSON cannot be read.

    A placeholder with the same ``seq`` (so history and resume stay contiguous and the
    counts they announce hold), the same roller and mode (so visibility is unchanged), and
    a result and text saying it is unreadable. ``unreadable: true`` marks it."""
    try:
        rid = json.loads(request_id) if request_id is not None else None
    except ValueError:
        rid = None
    by: dict[str, Any] = {"name": name, "role": role}
    if role.startswith("seat"):
        by = {"name": name, "role": "player", "seat": role[5:] or True}
    return outcome_event(
        seq=seq, roll="", table=table, by=by, ruleset="", params={}, label="", mode=mode,
        dice=[],
        result={"success": False, "margin": 0, "kind": "failure", "unreadable": True,
                "label": {"fr": "Événement illisible", "en": "Unreadable event"}},
        applied=[], notes=[],
        text={"fr": f"{name} — événement n° {seq} illisible dans le journal du serveur",
              "en": f"{name} — event #{seq} is unreadable in the server's journal"},
        request_id=rid, unreadable=True)


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "…"
