"""The Foundry module's ``module.js`` in a real Chromium, in the fake Foundry world
(``examples/foundry-module/test/fake-foundry.mjs``) served as a Foundry server would serve
it: from a LAN-style origin (``http://127.0.0.2:PORT``, not localhost) and from an HTTPS
page; and the sidecar's own page over ``https://`` rolling over ``wss://``.

A refused origin must say the exact ``--origin`` flag (in Foundry and in the sidecar's
log); an allowed one rolls; an HTTPS world reaches a sidecar serving TLS (self-signed
certificate made here, trusted by Chromium with ``--ignore-certificate-errors``).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import logging
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TIMEOUT_MS, TablePage, launch
from tests.support.tls import make_certificate

SIDECAR_HOST = "sidecar.test"
MODULE_DIR = Path(__file__).resolve().parent.parent / "examples" / "foundry-module"

#: The fake world's page: Foundry's globals from the fake, the module's lang file, then
#: module.js booted as Foundry boots a module (settings from the page's query string).
WORLD_PAGE = """<!doctype html>
<html lang="fr"><meta charset="utf-8"><title>Foundry VTT (fake world)</title>
<script type="module">
import { installFoundry } from "/test/fake-foundry.mjs";
const query = new URLSearchParams(location.search);
const translations = await (await fetch("/lang/fr.json")).json();
const me = query.get("me");
const users = [{ name: "Morgane", isGM: true }, { name: "Aengus" }];
window.foundry = installFoundry({ users, me, translations, settings: {
  url: query.get("url"), table: query.get("table"), playerToken: query.get("token"),
  gmToken: query.get("gm") ?? "", seatToken: query.get("seat") ?? "", seatName: "", character: "",
  mirror: false } });
/** Shows a chat message as Foundry does: its content in the log, then the render hook. */
window.render = (message) => {
  const item = document.createElement("li");
  item.className = "chat-message";
  item.dataset.messageId = message.id;
  item.innerHTML = message.content;
  document.querySelector("#chat-log").append(item);
  Hooks.callAll("renderChatMessage", message, [item]);
  return item;
};
await import("/scripts/module.js");
await window.foundry.boot();
window.booted = true;
</script><ol id="chat-log"></ol></html>
"""


class _WorldHandler(http.server.SimpleHTTPRequestHandler):
    """The module's files, and the world page at ``/world.html``."""

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        if self.path.split("?", 1)[0] == "/world.html":
            body = WORLD_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def world_server(host: str, context: ssl.SSLContext | None = None) -> Iterator[str]:
    """Serves the fake world on ``host`` (any free port); yields its origin."""
    handler = functools.partial(_WorldHandler, directory=str(MODULE_DIR))
    server = http.server.ThreadingHTTPServer((host, 0), handler)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        scheme = "https" if context is not None else "http"
        yield f"{scheme}://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture(scope="module")
def browser(playwright_driver: Any) -> Iterator[Any]:
    """Chromium that takes the test certificate and reaches the sidecar by a name, as a
    LAN sidecar has (loopback IPs are exempt from mixed-content blocking)."""
    launched = launch(playwright_driver, "--ignore-certificate-errors",
                      f"--host-resolver-rules=MAP {SIDECAR_HOST} 127.0.0.1")
    yield launched
    launched.close()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("tls"))


def open_world(browser: Any, origin: str, sidecar_url: str, table: str, me: str = "Aengus",
               seat: str = "") -> Any:
    context = browser.new_context(ignore_https_errors=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    query = urlencode({"url": sidecar_url, "table": table, "token": PLAYER_TOKEN, "me": me,
                       "seat": seat})
    page.goto(f"{origin}/world.html?{query}")
    page.wait_for_function("() => window.booted === true")
    return page


def notes(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(
        "() => window.foundry.notes.map(n => ({level: n.level, message: n.message}))")


def roll_in_world(page: Any, line: str) -> dict[str, Any]:
    """Types a chat line in the fake world once the module joined; returns the card."""
    page.wait_for_function(
        "() => window.foundry.game.modules.get('vtt-sidecar').api.client?.state === 'open'")
    page.evaluate("(line) => window.foundry.chat(line)", line)
    page.wait_for_function("() => window.foundry.messages.size > 0")
    return page.evaluate("""() => {
        const card = window.foundry.messages.contents[0];
        return {content: card.content, alias: card.speaker.alias, flags: card.flags,
                inlineRolls: window.foundry.inlineRolls, enriched: window.foundry.enriched};
    }""")


def test_a_lan_origin_is_refused_with_the_exact_flag_then_allowed(
        browser: Any, caplog: pytest.LogCaptureFixture) -> None:
    with world_server("127.0.0.2") as origin:
        flag = f"--origin {origin}"
        with caplog.at_level(logging.WARNING, logger="sidecar.server"), \
                LiveServer(rate_limit=0) as server:
            page = open_world(browser, origin, server.url, "lan-refused")
            page.wait_for_function("() => window.foundry.notes.some(n => n.level === 'error')")
            shown = [note["message"] for note in notes(page)]
            assert any("refuse cette page" in note and note.endswith(f"sidecar serve {flag}")
                       for note in shown), shown
            page.context.close()
        assert any(record.getMessage().endswith(f"start the sidecar with: {flag}")
                   for record in caplog.records), [r.getMessage() for r in caplog.records]
        with LiveServer(rate_limit=0, origins=(origin,)) as server:
            page = open_world(browser, origin, server.url, "lan-allowed")
            card = roll_in_world(page, '/sc bloodlust pool=3 "[[1d20]] @UUID[Actor.x]{y}"')
            assert "sidecar-card" in card["content"] and card["alias"] == "Aengus"
            assert card["inlineRolls"] == [] and card["enriched"] == []
            assert [n["level"] for n in notes(page)] == ["info"], notes(page)
            page.context.close()


def test_an_https_world_rolls_over_wss(browser: Any, certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with world_server("127.0.0.1", context) as origin, \
            LiveServer(rate_limit=0, ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        assert origin.startswith("https://") and server.url.startswith("wss://")
        page = open_world(browser, origin, server.url, "https-world")
        card = roll_in_world(page, "/sc bloodlust pool=2 Sauter")
        assert "sidecar-card" in card["content"]
        assert isinstance(card["flags"]["vtt-sidecar"]["seq"], int)
        page.context.close()
        # An https world pointed at a plain ws:// sidecar: mixed content, said with the fix.
        with LiveServer(rate_limit=0) as plain:
            named = plain.url.replace("127.0.0.1", SIDECAR_HOST)
            page = open_world(browser, origin, named, "https-mixed")
            page.wait_for_function("() => window.foundry.notes.some(n => n.level === 'error')")
            assert any("--ssl-certfile" in note["message"] for note in notes(page)), notes(page)
            page.context.close()


def test_the_sidecar_page_over_https_rolls_over_wss(browser: Any,
                                                    certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    with LiveServer(rate_limit=0, ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        base = server.url.replace("wss://", "https://").rsplit("/ws", 1)[0]
        page = TablePage(_insecure(browser), base, table="tls-page", name="Morgane", role="gm",
                         token=GM_TOKEN)
        assert page.page.url.startswith("https://")
        assert page.page.evaluate("() => window.sidecarTable.client.url").startswith("wss://")
        page.page.select_option("#ruleset", "bloodlust")
        page.fill_params({"pool": 3, "difficulty": 6})
        seq = page.roll(label="Sous TLS")
        assert page.entry(seq)["faces"]
        page.close()


def _insecure(browser: Any) -> Any:
    """The browser, its new contexts accepting the test's self-signed certificate."""
    class Insecure:
        def new_context(self, **kwargs: Any) -> Any:
            return browser.new_context(ignore_https_errors=True, **kwargs)
    return Insecure()


def test_an_asked_player_types_their_dice_on_the_rendered_card(browser: Any) -> None:
    """#12: the asked card, rendered in a real DOM by the module's render hook, takes the
    player's own faces; the answer is rolled with them."""
    table = "faces-dom"

    async def gm_session(step: str, **data: Any) -> Any:
        async with server.client(table=table, name="Morgane", role="gm", token=GM_TOKEN) as gm:
            if step == "seat":
                return (await gm.add_seat("Aengus"))["token"]
            if step == "ask":
                return (await gm.ask(["Aengus"], "bloodlust", {"pool": 2}, label="Forcer"))["ask"]
            return (await gm.history(after=data["after"], limit=1))["events"][0]

    with world_server("127.0.0.1") as origin, \
            LiveServer(rate_limit=0, allow_player_dice=True) as server:
        seat = server.call(gm_session("seat"))
        page = open_world(browser, origin, server.url, table, seat=seat)
        page.wait_for_function(
            "() => window.foundry.game.modules.get('vtt-sidecar').api.client?.state === 'open'")
        ask = server.call(gm_session("ask"))
        page.wait_for_function("(ask) => window.foundry.messages.contents.some("
                               "m => m.flags['vtt-sidecar'].ask === ask)", arg=ask)
        page.evaluate("(ask) => window.render(window.foundry.messages.contents.find("
                      "m => m.flags['vtt-sidecar'].ask === ask))", ask)
        page.fill(".sidecar-answer .sidecar-faces", "7, 3")
        page.click(".sidecar-answer .sidecar-answer-button")
        page.wait_for_function("() => window.foundry.messages.size === 2")
        answer = page.evaluate("() => window.foundry.messages.contents[1].flags['vtt-sidecar']")
        outcome = server.call(gm_session("history", after=answer["seq"] - 1))
        assert outcome["answers"] == ask
        assert [die["face"] for die in outcome["dice"]] == [7, 3]
        page.context.close()


def test_the_sidecar_started_after_foundry_in_chromium(browser: Any) -> None:
    """The client's import failed first, then comes once the sidecar is up, without a reload;
    `/sc` meanwhile is a notification, never an invalid command."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with world_server("127.0.0.1") as origin:
        page = open_world(browser, origin, f"ws://127.0.0.1:{port}/ws", "late")
        page.wait_for_function("() => window.foundry.notes.some(n => n.level === 'error')")
        assert page.evaluate("() => window.foundry.chat('/sc bloodlust pool=2')") is None
        assert any("pas encore joignable" in note["message"] for note in notes(page))
        with LiveServer(rate_limit=0, port=port):
            page.evaluate("() => window.foundry.chat('/sc bloodlust pool=2')")  # try now
            card = roll_in_world(page, "/sc bloodlust pool=2 Enfin")
            assert "Enfin" in card["content"]
        page.context.close()


def test_sc_is_aimed_at_the_targeted_tokens_actor_and_the_card_shows_the_effect(
        browser: Any) -> None:
    """Issue 26: Foundry's own targeting (``game.user.targets``) aims `/sc`: each targeted
    token's actor is the sidecar character hit (the `duel` test ruleset: the die's face in
    wounds, the defence read from the target's sheet); the card says what was done."""
    table = "foundry-duel"
    plugins = str(Path(__file__).resolve().parent / "js" / "plugins")

    async def prepare() -> str:
        async with server.client(table=table, name="Morgane", role="gm", token=GM_TOKEN) as gm:
            token = (await gm.add_seat("Aengus"))["token"]
            await gm.set_sheet("Aengus", "duel", {}, owner="Aengus")
            await gm.set_sheet("Brady", "duel", {"defense": 5, "wounds": 2}, owner=None)
            return token

    async def wounds() -> int:
        async with server.client(table=table, name="Morgane", role="gm", token=GM_TOKEN) as gm:
            return (await gm.sheets())[1]["values"]["wounds"]

    with world_server("127.0.0.1") as origin, \
            LiveServer(rate_limit=0, plugins_dir=plugins) as server:
        page = open_world(browser, origin, server.url, table, seat=server.call(prepare()))
        page.wait_for_function(
            "() => window.foundry.game.modules.get('vtt-sidecar').api.client?.state === 'open'")
        page.evaluate("() => window.foundry.target(['Brady le Rouge', 'Brady'])")
        card = roll_in_world(page, "/sc duel Frapper")
        dealt = server.call(wounds()) - 2
        assert 1 <= dealt <= 6
        assert "Contre Brady" in card["content"]
        assert f"Blessures de Brady : +{dealt}<" in card["content"]
        page.context.close()
