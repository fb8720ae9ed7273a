"""Seats: a player's own key to a table — tokens, their hashes, join links, QR codes.

A seat's token is made here, given once to the GM who made it (with its link and QR code)
and then only its SHA-256 is kept: in memory, in the journal and in ``export``. Tokens
are 32 random bytes, so a fast hash is enough (nothing to brute-force), and the hash is
compared in constant time (:meth:`sidecar.table.Table.seat_of`).

Identities are exact names, but a name that only looks like a seat's ("alice", "Alice ",
"Al\u200bice") is kept off the table: see :func:`folded`.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote, urlencode

import segno

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


def folded(name: str) -> str:
    """``name`` as a reader would tell it apart: compatibility-normalised (NFKC), without
    invisible (format, control) characters, case-folded, spaces collapsed. Two names that
    fold alike look like one name at the table ("Alice", "alice ", "Al\u200bice")."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cf", "Cc"))
    return " ".join(unicodedata.normalize("NFKC", text.casefold()).split())


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
