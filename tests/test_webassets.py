"""The page's files are read when the server starts: reinstalling the package beside a
running server (``pip install -e .`` over ``pip install .`` deletes the installed files)
must not break the page it serves."""

from __future__ import annotations

import asyncio

import sidecar.server.webassets
from tests.helpers import run, running_server


def test_a_running_server_keeps_serving_its_page_when_its_files_are_gone(monkeypatch):
    async def scenario():
        async with running_server() as server:
            def gone(package):
                raise FileNotFoundError(f"{package}: uninstalled by a reinstall")
            monkeypatch.setattr(sidecar.server.webassets.resources, "files", gone)

            async def get(path: str) -> bytes:
                reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
                writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Connection: close\r\n\r\n".encode())
                answer = await reader.read()
                writer.close()
                return answer

            for path in ("/", "/static/app.js"):
                answer = await get(path)
                assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    run(scenario())
