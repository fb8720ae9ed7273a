"""Installing the Foundry module by its manifest URL (issue 29, item 20): a real ``sidecar
serve`` serves ``/foundry/module.json`` and the zip it names, made from
``examples/foundry-module/``, with URLs that lead back to the server that was asked."""

from __future__ import annotations

import asyncio
import io
import json
import ssl
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from tests.helpers import run, running_server
from tests.support.serve import ROOT, ServeProcess
from tests.support.tls import make_certificate

MODULE = ROOT / "examples" / "foundry-module"


def _get(url: str, context: ssl.SSLContext | None = None) -> tuple[int, dict[str, str], bytes]:
    with urllib.request.urlopen(url, timeout=10, context=context) as response:  # noqa: S310
        return response.status, dict(response.headers), response.read()


def _check_install(page: str, context: ssl.SSLContext | None = None) -> None:
    """What Foundry's « Installer un module » does with a manifest URL: read the manifest,
    download the zip it names, find a module.json there whose URLs are the same."""
    status, headers, body = _get(f"{page}/foundry/module.json", context)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    manifest = json.loads(body)
    shipped = json.loads((MODULE / "module.json").read_text())
    assert manifest["id"] == shipped["id"] == "vtt-sidecar"
    assert manifest["version"] == shipped["version"]
    assert manifest["manifest"] == f"{page}/foundry/module.json"
    assert manifest["download"] == f"{page}/foundry/vtt-sidecar.zip"
    status, headers, archive = _get(manifest["download"], context)
    assert status == 200 and headers["Content-Type"] == "application/zip"
    names = set(zipfile.ZipFile(io.BytesIO(archive)).namelist())
    # Every file module.json loads, at the zip's root, and not the module's own tests.
    assert {"module.json", "scripts/module.js", "scripts/sidecar-chat.js",
            "styles/sidecar.css", "lang/fr.json", "lang/en.json"} <= names, names
    assert not any(name.startswith("test/") for name in names)
    for listed in [*manifest["esmodules"], *manifest["styles"],
                   *(language["path"] for language in manifest["languages"])]:
        assert listed in names
    zipped = zipfile.ZipFile(io.BytesIO(archive))
    assert json.loads(zipped.read("module.json")) == manifest
    assert zipped.read("scripts/sidecar-chat.js") == \
        (MODULE / "scripts" / "sidecar-chat.js").read_bytes()


def test_a_served_manifest_and_zip_install_the_module():
    with ServeProcess("--db", ":memory:", "--log-level", "warning") as server:
        page = server.url.replace("ws://", "http://").removesuffix("/ws")
        _check_install(page)
        # Reached by another name, the URLs follow the address that was asked.
        _check_install(page.replace("127.0.0.1", "localhost"))
        status = None
        try:
            _get(f"{page}/foundry/../module.json")
        except urllib.error.HTTPError as refused:
            status = refused.code
        assert status in (404, None)  # urllib may normalise the dots away; never a file


def test_the_manifest_names_the_public_url_or_https(tmp_path: Path):
    async def scenario() -> None:
        async with running_server(public_url="https://dice.example.org/") as server:
            page = server.url.replace("ws://", "http://").removesuffix("/ws")
            _, _, body = await asyncio.to_thread(_get, f"{page}/foundry/module.json")
            assert json.loads(body)["download"] == \
                "https://dice.example.org/foundry/vtt-sidecar.zip"
        cert, key = make_certificate(tmp_path)
        async with running_server(ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
            page = server.url.replace("wss://", "https://").removesuffix("/ws")
            trusted = ssl.create_default_context(cafile=str(cert))
            await asyncio.to_thread(_check_install, page, trusted)

    run(scenario())


def test_the_shipped_manifest_names_the_default_local_server():
    """A folder copied by hand still has valid URLs: the default ``serve`` address."""
    shipped = json.loads((MODULE / "module.json").read_text())
    assert shipped["manifest"] == "http://127.0.0.1:8765/foundry/module.json"
    assert shipped["download"] == "http://127.0.0.1:8765/foundry/vtt-sidecar.zip"


def test_the_install_docs_give_the_urls_the_server_serves():
    """The GM's install steps (docs/FOUNDRY.md, the module's README) name the routes the
    server has, and keep apart from the fake-Foundry test details."""
    from sidecar.server.foundry import ARCHIVE_PATH, MANIFEST_PATH

    guide = (ROOT / "docs" / "FOUNDRY.md").read_text()
    readme = (MODULE / "README.md").read_text()
    for text in (guide, readme):
        assert f":8765{MANIFEST_PATH}" in text and "forge-vtt.com" in text
    assert ARCHIVE_PATH in guide
    install = readme.split("## Installer / Install", 1)[1].split("\n## ", 1)[0]
    assert "fake" not in install and "test/" not in install
    assert guide.index("## 1. Installer") < guide.index("fake-foundry.mjs")
