"""The table's join link for phones on the LAN: the page's address with the table and the
players' shared token, as ``serve --host 0.0.0.0`` prints it (with a QR code in the
terminal) and as a GM's ``welcome`` carries it (``join``, with the QR code as an image),
so that phones join by scanning."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import quote

from sidecar.config import ServerConfig
from sidecar.table.seats import qr_data_uri

#: Hosts that mean "every interface": the server is open to the LAN.
ALL_INTERFACES = ("0.0.0.0", "", "::")


def join_link(page_url: str, table: str, token: str, *, role: str | None = None) -> str:
    """``http://192.168.1.20:8765/?table=demo#token=…``: the page joins ``table`` with
    ``token`` (the players' by default; ``role="gm"`` for the GM's own link). The token
    goes after ``#``, which a browser never sends: no server, proxy or access log sees it
    (and the page takes it out of its address at once)."""
    query = f"?table={quote(table)}" + (f"&role={quote(role)}" if role else "")
    return f"{page_url.rstrip('/')}/{query}#token={quote(token, safe='')}"


def open_to_lan(config: ServerConfig) -> bool:
    """Whether phones may reach this server: it listens on every interface, or it was
    given the address players reach it at (``--public-url``)."""
    return config.host in ALL_INTERFACES or bool(config.public_url)


@lru_cache(maxsize=64)
def _qr(link: str) -> str:
    return qr_data_uri(link)


def join_block(config: ServerConfig, page_url: str, table: str) -> dict[str, Any] | None:
    """A GM's ``welcome.join``: ``{"link": …, "qr": "data:image/svg+xml…"}``, or ``None``
    when phones cannot reach the server or there is no shared player token (seats only)."""
    if not open_to_lan(config) or not config.player_token:
        return None
    link = join_link(page_url, table, config.player_token)
    return {"link": link, "qr": _qr(link)}
