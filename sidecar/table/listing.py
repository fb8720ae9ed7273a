"""Lists that come in pages: a table's open asks and seats, as ``ask list``, ``seat list``
and ``welcome`` carry them.

A table may hold far more than one frame should: 200 seats, 1,000 characters, hundreds
of open asks each naming 50 seats. Every list a member receives is therefore cut into
pages of at most ``limit`` items and at most a number of bytes, measured in the member's
own encoding (MessagePack or JSON, as it will be sent), like ``history`` and ``sheet
list``; a page that stops early says ``more`` and ``next`` (what to pass as ``after`` for
the following page). A page always holds at least one item, so paging always moves on.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import msgpack

from sidecar.table.tables import Table

#: The most bytes of one seat's character names ``seat list`` carries; past it the
#: seat says ``characters_more: true`` (``sheet list`` gives every character, with its
#: owner). A seat's entry stays far below a page whatever it owns.
SEAT_CHARACTERS_BYTES = 4 * 1024


def encoded_bytes(value: Any, binary: bool) -> int:
    """Bytes of ``value`` in a frame: MessagePack, or JSON as UTF-8."""
    if binary:
        return len(msgpack.packb(value, use_bin_type=True))
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return len(text.encode("utf-8", "surrogatepass"))


def take_page(items: Iterable[dict[str, Any]], *, limit: int, max_bytes: int,
              binary: bool) -> tuple[list[dict[str, Any]], bool]:
    """The first items of ``items`` that fit ``limit`` and ``max_bytes`` (at least one),
    and whether any item is left after them."""
    page: list[dict[str, Any]] = []
    size = 0
    for item in items:
        if len(page) >= limit:
            return page, True
        size += encoded_bytes(item, binary)
        if page and size > max_bytes:
            return page, True
        page.append(item)
    return page, False


def open_asks(table: Table, after: int) -> Iterator[dict[str, Any]]:
    """The table's open asks opened after event ``after``, in the order they were opened
    (by their ``seq``: the records' order is not kept by every store)."""
    found = [ask for ask in table.asks.values() if ask["event"]["seq"] > after]
    found.sort(key=lambda ask: ask["event"]["seq"])
    return iter(found)


def seat_entries(table: Table, after: str) -> Iterator[dict[str, Any]]:
    """``seat list``'s entries after the seat name ``after``, by name: each seat, its
    open connections, and its characters' names (up to :data:`SEAT_CHARACTERS_BYTES`)."""
    owned: dict[str, list[str]] = defaultdict(list)
    for character in table.characters.values():
        if character.owner is not None:
            owned[character.owner].append(character.name)
    for name in sorted(seat for seat in table.seats if seat > after):
        names, size, cut = [], 0, False
        for character in sorted(owned.get(name, ())):
            size += len(character.encode("utf-8", "surrogatepass")) + 8
            if size > SEAT_CHARACTERS_BYTES:
                cut = True
                break
            names.append(character)
        entry: dict[str, Any] = {"name": name, "online": len(table.seat_members(name)),
                                 "characters": names}
        if cut:
            entry["characters_more"] = True
        yield entry
