"""Seats: a player's own key to a table — tokens, their hashes, join links, QR codes.

A seat's token is made here, given once to the GM who made it (with its link and QR code)
and then only its SHA-256 is kept: in memory, in the journal and in ``export``. Tokens
are 32 random bytes, so a fast hash is enough (nothing to brute-force), and the hash is
compared in constant time (:meth:`sidecar.table.tables.Table.seat_of`).

Identities are exact names (in one Unicode form, NFC, from the door on), but a name that
only looks like a seat's ("alice", "Alice ", "Al\u200bice", "Alice\u034f") is kept off
the table: see :func:`~sidecar.protocol.text.folded`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from urllib.parse import quote, urlencode

import segno

from sidecar.protocol.text import folded

__all__ = ["MAX_SEATS", "folded", "lookalike", "new_token", "qr_data_uri",
           "seat_link", "token_hash"]

#: Most seats one table may have.
MAX_SEATS = 200


def new_token() -> str:
    """A fresh seat token (32 random bytes, URL-safe text);
    never starting with "-", which a command line would take for an option."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def token_hash(token: str) -> str:
    """What is kept of a token: its SHA-256, in hexadecimal."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def lookalike(name: str, seats: Iterable[str]) -> str | None:
    """The seat among ``seats`` whose name looks like ``name`` (itself included)."""
    key = folded(name)
    return next((seat for seat in seats if folded(seat) == key), None)


def seat_link(base_url: str, table: str, name: str, token: str) -> str:
    """The web page's URL that joins ``table`` as seat ``name``: the token goes after
    ``#``, which browsers never send to a server (nor write into its logs)."""
    base = base_url.rstrip("/") + "/"
    return f"{base}?{urlencode({'table': table, 'name': name})}#token={quote(token)}"


def qr_data_uri(link: str) -> str:
    """``link`` as a QR code: an SVG image in a ``data:`` URI, for an ``<img>``."""
    return segno.make(link, error="m").svg_data_uri(scale=4, border=2)
