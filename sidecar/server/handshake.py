"""Before the WebSocket: the HTTP request — origin checks, connections per address, and the
web page's files on every other path."""

from __future__ import annotations

import collections
import http
import ipaddress
import logging
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.server.foundry import FoundryModule
from sidecar.server.logthrottle import LogThrottle
from sidecar.server.transport import remote_ip
from sidecar.server.webassets import WebAssets, page_policy
from sidecar.table.core import TableCore

log = logging.getLogger("sidecar.server")


WS_PATH = "/ws"
LOCALHOST_ORIGIN = re.compile(r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?")
#: An origin as browsers send it (scheme, host, port): only these are echoed as a flag to copy.
SAFE_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]{1,253}(:\d{1,5})?|https?://\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?")
#: Distinct refused origins explained in the log (each once); past it, the throttled line only.
MAX_REFUSED_ORIGINS = 64


def lan_address() -> str:
    """This machine's address on its local network (where a phone reaches it), else
    127.0.0.1. A UDP socket "connected" to a private address sends nothing; it only makes
    the system choose the interface that leads there."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 9))
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def _is_ip_or_localhost(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


class Handshake:
    """The HTTP side of the server (``process_request`` of websockets' ``serve``)."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline
    per_address: collections.Counter[str]
    log_throttle: LogThrottle
    refused_origins: set[str]
    assets: WebAssets
    foundry: FoundryModule

    def _origin_allowed(self, origin: str, headers: Headers) -> bool:
        if origin in self.config.origins or LOCALHOST_ORIGIN.fullmatch(origin):
            return True
        # The server's own origin: the page it served, reached by IP or localhost. Named
        # hosts must be listed with --origin (DNS rebinding would otherwise pass).
        parts = urlsplit(origin)
        return (
            parts.scheme in ("http", "https")
            and parts.netloc == headers.get("Host", "")
            and _is_ip_or_localhost(parts.hostname or "")
        )

    def _log_refused_origin(self, origin: str, connection: ServerConnection) -> None:
        """Say once per origin which flag would let it in (a Foundry world on the LAN is
        the common case: ``http://192.168.1.20:30000``); repeats go to the throttled log."""
        if origin not in self.refused_origins and len(self.refused_origins) < MAX_REFUSED_ORIGINS:
            self.refused_origins.add(origin)
            if SAFE_ORIGIN.fullmatch(origin):
                log.warning("refused a connection from the browser origin %s (from %s); to "
                            "allow it, start the sidecar with: --origin %s",
                            origin, remote_ip(connection), origin)
            else:  # not a plain scheme://host[:port]: shown quoted, never as a flag to copy
                log.warning("refused a connection from the browser origin %r (from %s)",
                            origin[:100], remote_ip(connection))
            return
        self.log_throttle.log(logging.INFO, "origin", "refused origin %r from %s",
                              origin[:100], connection.remote_address)

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        for name in ("Host", "Origin"):
            if len(request.headers.get_all(name)) > 1:
                # Which one would a proxy or the browser have meant? Neither is trusted.
                log.info("refused request from %s: repeated %s header",
                         connection.remote_address, name)
                return connection.respond(http.HTTPStatus.BAD_REQUEST,
                                          f"Repeated {name} header / en-tête {name} répété\n")
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            address = remote_ip(connection)
            most = self.config.max_connections_per_address
            if most and self.per_address[address] >= most:
                self.log_throttle.log(logging.INFO, "per address", "refused a connection "
                                      "from %s: %d open already", address, most)
                return connection.respond(
                    http.HTTPStatus.SERVICE_UNAVAILABLE,
                    f"Too many connections from your address ({most}) / trop de connexions "
                    "depuis votre adresse\n")
            origin = request.headers.get("Origin")
            if origin is not None and not self._origin_allowed(origin, request.headers):
                self._log_refused_origin(origin, connection)
                return connection.respond(http.HTTPStatus.FORBIDDEN,
                                          "Origin not allowed / origine refusée\n")
            return None
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return connection.respond(http.HTTPStatus.NOT_FOUND,
                                      f"WebSocket endpoint is {WS_PATH}\n")
        if path.startswith("/foundry/"):
            made = self.foundry.response(path, request.headers.get("Host"),
                                         bool(self.config.ssl_certfile), self.config.public_url)
            if made is None:
                return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found / introuvable\n")
            body, content_type = made
            return _ok(connection, body, (("Content-Type", content_type),
                                          ("X-Content-Type-Options", "nosniff"),
                                          ("Cache-Control", "no-cache")))
        asset = self.assets.get(path)
        if asset is None:
            return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found / introuvable\n")
        response = _ok(connection, asset.body, asset.headers)
        if asset.page:
            response.headers["Content-Security-Policy"] = page_policy(request.headers.get("Host"))
        return response


def _ok(connection: ServerConnection, body: bytes,
        headers: tuple[tuple[str, str], ...]) -> Response:
    """A 200 response carrying ``body`` with ``headers``."""
    response = connection.respond(http.HTTPStatus.OK, "")
    response.body = body
    # respond() filled in headers for its empty text body: replace, not append.
    del response.headers["Content-Type"]
    del response.headers["Content-Length"]
    for name, value in headers:
        response.headers[name] = value
    response.headers["Content-Length"] = str(len(body))
    return response
