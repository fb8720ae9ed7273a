"""The web table's files (page, script, style, JS client), read once and served by path.

Only the files shipped in ``sidecar/server/web`` can be served: the URL path is looked up in a
table built from the package, never joined to a filesystem path, so ``..`` and friends
simply find nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}

#: The page loads nothing from elsewhere and cannot be framed by another site.
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

_HOST = re.compile(r"[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")


def page_policy(host: str | None) -> str:
    """The page's policy, naming its own WebSocket origin too: older mobile browsers
    (Safari before 15.4) do not count ``ws://`` as ``'self'``."""
    if host is None or not _HOST.fullmatch(host):
        return PAGE_POLICY
    return PAGE_POLICY.replace("connect-src 'self'",
                               f"connect-src 'self' ws://{host} wss://{host}")


@dataclass(frozen=True)
class Asset:
    """One servable file: its bytes and the headers that go with them."""

    body: bytes
    headers: tuple[tuple[str, str], ...]
    page: bool = False  #: the HTML page, which gets a Content-Security-Policy


def _walk(folder: Traversable, prefix: str) -> dict[str, Traversable]:
    found: dict[str, Traversable] = {}
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            found.update(_walk(entry, f"{prefix}{entry.name}/"))
        else:
            found[f"{prefix}{entry.name}"] = entry
    return found


class WebAssets:
    """Maps URL paths (``/``, ``/static/app.js``…) to shipped files, all read into memory
    when the server starts (about 80 KB): a running server never reads them again, so
    reinstalling the package beside it (``pip install -e .`` replacing ``pip install .``
    deletes the installed files) cannot break its page."""

    def __init__(self) -> None:
        self._assets: dict[str, Asset] | None = None

    def load(self) -> None:
        """Read every shipped file now (called when the server starts)."""
        if self._assets is None:
            self._assets = self._load()

    def _load(self) -> dict[str, Asset]:
        root = resources.files("sidecar.server").joinpath("web")
        assets: dict[str, Asset] = {}
        for relative, entry in _walk(root, "").items():
            suffix = "." + relative.rsplit(".", 1)[-1] if "." in relative else ""
            content_type = CONTENT_TYPES.get(suffix)
            if content_type is None:
                continue  # licences, notes: shipped, not served
            headers = [("Content-Type", content_type), ("X-Content-Type-Options", "nosniff"),
                       # Small files and a server that may be upgraded between sessions:
                       # always revalidate rather than run yesterday's script.
                       ("Cache-Control", "no-cache")]
            if relative == "index.html":
                # (The Content-Security-Policy is added per request: it names the host.)
                headers += [("Referrer-Policy", "no-referrer")]
            else:
                # A VTT page (Foundry) on another origin may import the JS client from here.
                headers.append(("Access-Control-Allow-Origin", "*"))
            assets[f"/{relative}"] = Asset(entry.read_bytes(), tuple(headers),
                                           page=relative == "index.html")
        assets["/"] = assets["/index.html"]
        return assets

    def get(self, path: str) -> Asset | None:
        """The asset served at ``path`` (query string already removed), or None."""
        if self._assets is None:
            self._assets = self._load()
        return self._assets.get(path)
