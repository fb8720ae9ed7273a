"""TLS on the sidecar and browser origins, as a Foundry world on a LAN or behind HTTPS meets
them: ``serve --ssl-certfile/--ssl-keyfile`` serves ``wss://…/ws`` and the page over
``https://`` (a self-signed certificate made here with ``openssl``), and a refused origin is
logged with the exact ``--origin`` flag that would let it in.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, run, running_server
from tests.support.serve import ServeProcess, serve_fails
from tests.support.tls import make_certificate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("tls"))


def _https_get(url: str, cafile: Path) -> tuple[int, bytes]:
    host, port = url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)
    context = ssl.create_default_context(cafile=str(cafile))
    connection = http.client.HTTPSConnection(host, int(port), context=context, timeout=10)
    try:
        connection.request("GET", "/" + url.split("://", 1)[1].split("/", 1)[1])
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_tls_serves_wss_and_the_page_over_https(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate

    async def scenario() -> None:
        async with running_server(ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
            assert server.url.startswith("wss://127.0.0.1:") and server.url.endswith("/ws")
            assert server.page_url.startswith("https://")
            page = server.url.replace("wss://", "https://").rsplit("/ws", 1)[0]
            status, body = await asyncio.to_thread(_https_get, f"{page}/static/sidecar-client.js",
                                                   cert)
            assert status == 200 and b"export class SidecarClient" in body
            trusted = ssl.create_default_context(cafile=str(cert))
            async with SidecarClient(server.url, table="tls", name="Morgane", role="gm",
                                     token=GM_TOKEN, ssl=trusted) as client:
                outcome = await client.roll("bloodlust", {"pool": 3})
                assert len(outcome["dice"]) == 3
            # Not trusting the certificate: refused by the client, never a plain-text fallback.
            with pytest.raises(ssl.SSLCertVerificationError):
                async with SidecarClient(server.url, table="tls", name="x", token=PLAYER_TOKEN,
                                         ssl=ssl.create_default_context()):
                    pass
            # And plain ws:// to a TLS port gets no table.
            with pytest.raises(Exception):  # noqa: B017 - any handshake failure will do
                async with SidecarClient(server.url.replace("wss://", "ws://"), table="tls",
                                         name="y", token=PLAYER_TOKEN):
                    pass

    run(scenario())


def test_serve_with_a_certificate_prints_wss_and_https(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    with ServeProcess("--db", ":memory:", "--log-level", "warning", "--ssl-certfile", str(cert),
                      "--ssl-keyfile", str(key), banner_end="Navigateur MJ") as server:
        banner = "".join(server.lines)
        assert "WebSocket wss://127.0.0.1:" in banner, banner
        assert " page https://127.0.0.1:" in banner, banner
        assert "--url wss://127.0.0.1:" in banner
        assert "Navigateur    : https://127.0.0.1:" in banner


def test_serve_refuses_half_or_broken_tls_in_one_line(tmp_path: Path,
                                                      certificate: tuple[Path, Path]) -> None:
    cert, _key = certificate
    half = serve_fails("--db", ":memory:", "--ssl-certfile", str(cert))
    assert half.returncode == 2 and "le TLS demande --ssl-certfile et --ssl-keyfile" in half.stderr
    missing = serve_fails("--db", ":memory:", "--ssl-certfile", str(cert), "--ssl-keyfile",
                          str(tmp_path / "nope.pem"))
    err = missing.stderr
    assert missing.returncode == 1, err
    assert "certificat TLS inutilisable" in err and "Traceback" not in err


# -- origins ---------------------------------------------------------------------------------

def test_a_refused_origin_is_logged_once_with_the_flag_that_allows_it(
        caplog: pytest.LogCaptureFixture) -> None:
    lan = "http://192.168.1.20:30000"

    async def attempt(server: Any, origin: str) -> int:
        try:
            async with connect(server.url, origin=origin):  # type: ignore[arg-type]
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    async def scenario() -> None:
        async with running_server() as server:
            with caplog.at_level(logging.INFO, logger="sidecar.server"):
                assert await attempt(server, lan) == 403
                assert await attempt(server, lan) == 403
                assert await attempt(server, "http://evil --origin x") == 403
            messages = [r.getMessage() for r in caplog.records]
            flagged = [m for m in messages if "start the sidecar with" in m]
            # An origin no browser sends is shown quoted, never as a flag to copy.
            assert any("'http://evil --origin x'" in m for m in messages), messages
            assert flagged == [f"refused a connection from the browser origin {lan} (from "
                               f"127.0.0.1); to allow it, start the sidecar with: --origin {lan}"]
        async with running_server(origins=(lan,)) as server:
            assert await attempt(server, lan) == 101

    run(scenario())


def test_the_js_client_rolls_over_wss_trusting_the_certificate(
        certificate: tuple[Path, Path]) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cert, key = certificate
    script = (
        "import { SidecarClient } from './sidecar/server/web/static/sidecar-client.js';\n"
        "const client = new SidecarClient(process.argv[1], { table: 'tls-js', name: 'Aengus',"
        " token: process.argv[2], reconnect: false });\n"
        "try { await client.connect();"
        " const outcome = await client.roll({ ruleset: 'bloodlust', params: { pool: 2 } });"
        " console.log('faces', outcome.dice.length); }"
        " catch (error) { console.log('failed', error.code); }\n"
        "await client.close();\n")
    from tests.live_server import LiveServer
    with LiveServer(ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        def run_node(**env: str) -> str:
            done = subprocess.run(
                [node, "--experimental-websocket", "--input-type=module", "-e", script,
                 server.url, PLAYER_TOKEN], cwd=ROOT, capture_output=True, text=True,
                timeout=60, env={**os.environ, **env})
            return done.stdout
        assert "faces 2" in run_node(NODE_EXTRA_CA_CERTS=str(cert))
        assert "failed closed" in run_node()  # not trusted: no table, no fallback


def test_the_cli_rolls_over_wss_with_ssl_cert_file(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    from tests.live_server import LiveServer
    with LiveServer(ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        done = subprocess.run(
            [sys.executable, "-m", "sidecar", "roll", "bloodlust", "pool=2", "--url", server.url,
             "--table", "tls-cli", "--token", PLAYER_TOKEN],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "SSL_CERT_FILE": str(cert)})
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr


def test_join_details_of_a_tls_server_give_https_links(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from sidecar.cli import serve
    from sidecar.config import ServerConfig

    config = ServerConfig(host="0.0.0.0", port=8765, player_token="p-tok", gm_token="g-tok")
    server = SimpleNamespace(url="wss://127.0.0.1:8765/ws", port=8765)
    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.0.2.7"])
    details = serve.join_details(server, config, "crypte")
    assert "page https://127.0.0.1:8765/" in details
    assert "Réseau local  : https://192.0.2.7:8765/?table=crypte#token=p-tok" in details
    assert "http://" not in details and "ws://" not in details
