"""The Foundry VTT module, served for Foundry's own « Installer un module » by manifest URL:
``/foundry/module.json`` (the manifest) and ``/foundry/vtt-sidecar.zip`` (the module), made
at request time from the module's files, with ``manifest`` and ``download`` naming the
address the request reached — the sidecar that serves the module is the one it talks to.

The files come from ``examples/foundry-module/`` in a checkout (or an editable install), and
from ``sidecar/foundry/`` in an installed wheel (``pyproject.toml`` ships them there).
Only the files the module loads are served: never its tests.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

MANIFEST_PATH = "/foundry/module.json"
ARCHIVE_PATH = "/foundry/vtt-sidecar.zip"
#: The module's folders Foundry loads (module.json's esmodules, styles, languages).
SHIPPED_FOLDERS = ("scripts", "styles", "lang")
#: A Host header as browsers and Foundry's server send it: a name or an IP, and a port.
_HOST = re.compile(r"[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")
#: A fixed date for the zip's entries: the same files make the same zip.
_ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def module_folder() -> Traversable | None:
    """Where the module's files are: the installed package's ``sidecar/foundry``, else the
    checkout's ``examples/foundry-module``; None when neither is there."""
    installed = resources.files("sidecar").joinpath("foundry")
    if installed.joinpath("module.json").is_file():
        return installed
    checkout = Path(__file__).resolve().parents[2] / "examples" / "foundry-module"
    return checkout if (checkout / "module.json").is_file() else None


def base_url(host: str | None, tls: bool, public_url: str) -> str | None:
    """The address the module's URLs start with: ``--public-url`` when set (a proxy's
    ``https://`` name), else the scheme this server speaks and the Host that was asked."""
    if public_url:
        return public_url.rstrip("/")
    if host is None or not _HOST.fullmatch(host):
        return None
    return f"{'https' if tls else 'http'}://{host}"


class FoundryModule:
    """The module's files, read on first request, and the manifest and zip made from them."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] | None = None

    def _read(self) -> dict[str, bytes]:
        folder = module_folder()
        if folder is None:
            return {}
        files = {"module.json": folder.joinpath("module.json").read_bytes()}
        for name in SHIPPED_FOLDERS:
            sub = folder.joinpath(name)
            if sub.is_dir():
                for entry in sub.iterdir():
                    if entry.is_file() and not entry.name.startswith("."):
                        files[f"{name}/{entry.name}"] = entry.read_bytes()
        return files

    def manifest(self, base: str) -> bytes | None:
        """``module.json`` with its ``manifest`` and ``download`` URLs under ``base``."""
        if self._files is None:
            self._files = self._read()
        if "module.json" not in self._files:
            return None
        manifest = json.loads(self._files["module.json"])
        manifest["manifest"] = base + MANIFEST_PATH
        manifest["download"] = base + ARCHIVE_PATH
        return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode()

    def archive(self, base: str) -> bytes | None:
        """The module as Foundry installs it: its files at the zip's root, the manifest
        the same as :meth:`manifest`'s."""
        manifest = self.manifest(base)
        if manifest is None or self._files is None:
            return None
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, body in sorted({**self._files, "module.json": manifest}.items()):
                archive.writestr(zipfile.ZipInfo(name, _ZIP_DATE), body,
                                 compress_type=zipfile.ZIP_DEFLATED)
        return buffer.getvalue()

    def response(self, path: str, host: str | None, tls: bool, public_url: str
                 ) -> tuple[bytes, str] | None:
        """The body and content type served at ``path``, or None (not found)."""
        if path not in (MANIFEST_PATH, ARCHIVE_PATH):
            return None
        base = base_url(host, tls, public_url)
        if base is None:
            return None
        if path == MANIFEST_PATH:
            body = self.manifest(base)
            return None if body is None else (body, "application/json")
        body = self.archive(base)
        return None if body is None else (body, "application/zip")
