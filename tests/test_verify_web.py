"""The web table verifies its own dice after a reveal, in a real headless Chromium.

A player's page, a GM's page and a real sidecar with ``dice="provable"``: after the GM
ends the epoch from the page, the player's page has checked (WebCrypto) and marked ✓
every roll it saw, and neither its state nor anything it received over its WebSocket
holds the epoch's seed or the key of a blind roll.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from sidecar.dice.provable import leaf_key
from sidecar.protocol.codec import decode
from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.live_server import LiveServer
from tests.support.browser import TIMEOUT_MS
from tests.web_checks import axe_violations


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(rate_limit=0, dice="provable") as live:
        yield live


class Recorded:
    """A page joined to a table, every WebSocket frame it received kept (decoded)."""

    def __init__(self, browser: Any, base: str, table: str, name: str, role: str,
                 token: str) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.frames: list[Any] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._keep))
        query = urlencode({"table": table, "name": name, "role": role, "token": token})
        self.page.goto(f"{base}/?{query}")
        self.page.click("#join-form button[type=submit]")
        self.page.wait_for_selector("#table:not([hidden])")

    def _keep(self, payload: Any) -> None:
        self.frames.append(payload)

    def state(self, expression: str) -> Any:
        return self.page.evaluate(f"() => window.sidecarTable.{expression}")

    def roll(self, pool: int, mode: str = "public") -> int:
        before = self.state("outcomes.length")
        self.page.select_option("#ruleset", "bloodlust")
        self.page.fill("#param-pool", str(pool))
        self.page.check(f'input[name="mode"][value="{mode}"]')
        self.page.click("#roll-button")
        self.page.wait_for_function("n => window.sidecarTable.outcomes.length > n",
                                    arg=before)
        return self.state("outcomes[window.sidecarTable.outcomes.length - 1].seq")

    def received(self) -> list[dict[str, Any]]:
        return [decode(frame if isinstance(frame, bytes) else frame.encode())
                for frame in self.frames]

    def close(self) -> None:
        self.page.evaluate("() => window.sidecarTable.client?.close()")
        self.context.close()
        assert not self.errors, self.errors


def test_a_players_page_verifies_its_rolls_and_learns_nothing_of_a_blind_one(
        browser: Any, server: LiveServer) -> None:
    player = Recorded(browser, server.http, "preuve", "Aengus", "player", PLAYER_TOKEN)
    gm = Recorded(browser, server.http, "preuve", "Morgane", "gm", GM_TOKEN)
    public = player.roll(3)
    secret = player.roll(2, mode="gm")
    blind = player.roll(4, mode="blind")
    gm_blind = gm.roll(5, mode="blind")
    gm_public = gm.roll(1)
    player.page.wait_for_selector(f'#log .entry[data-seq="{gm_public}"]')
    assert player.state("welcome.epoch.client") == player.page.evaluate(
        "() => localStorage.getItem('sidecar.clientSeed.preuve.Aengus')")
    # The GM ends the epoch from the page.
    gm.page.click("#epoch-end")
    player.page.wait_for_function(
        "seq => window.sidecarTable.verified && seq in window.sidecarTable.verified",
        arg=gm_public)
    verified = player.state("verified")
    assert verified == {str(public): True, str(secret): True, str(gm_public): True}
    for seq in (public, secret, gm_public):
        mark = player.page.wait_for_selector(
            f'#log .entry[data-seq="{seq}"] .verified[data-verified="yes"]')
        assert mark.text_content() == "✓"
    assert player.page.query_selector(
        f'#log .entry[data-seq="{blind}"] .verified') is None
    # The GM's page checks every roll it saw, blind ones included.
    gm.page.wait_for_function(
        "seq => window.sidecarTable.verified && seq in window.sidecarTable.verified",
        arg=gm_blind)
    gm_verified = gm.state("verified")
    assert all(gm_verified[str(seq)] for seq in (public, secret, blind, gm_blind, gm_public))
    # The marks and the GM's epoch panel pass axe like every other state of the page.
    assert axe_violations(player) == [] and axe_violations(gm) == []
    # Nothing of the blind rolls reached the player: no seed, no key of theirs, no faces.
    reveal = next(m for m in gm.received() if m.get("type") == "epoch"
                  and m.get("op") == "reveal")
    seed = bytes.fromhex(reveal["seed"])
    gm_history = gm.page.evaluate("() => window.sidecarTable.outcomes.map(o => [o.seq, "
                                  "o.proof && o.proof.position])")
    positions = {seq: position for seq, position in gm_history}
    received = player.received()
    text = repr(received) + repr(player.state("outcomes"))
    assert reveal["seed"] not in text
    for seq in (blind, gm_blind):
        assert leaf_key(seed, positions[seq]).hex() not in text
    about_blind = [m for m in received if m.get("seq") == blind] + [
        e for m in received if m.get("type") == "history" for e in m["events"]
        if e.get("seq") == blind]
    assert about_blind and all(m["result"] == {"hidden": True} and m["dice"] == []
                               and "proof" not in m for m in about_blind)
    assert not [m for m in received if m.get("seq") == gm_blind] + [
        e for m in received if m.get("type") == "history" for e in m["events"]
        if e.get("seq") == gm_blind]
    player.close()
    gm.close()


def test_the_pages_own_sha256_and_hmac_match_the_standard(browser: Any,
                                                          server: LiveServer) -> None:
    """What the page uses where the browser withholds WebCrypto (a LAN address over
    HTTP): the same digests as Python's hashlib and hmac, short and multi-block."""
    import hashlib
    import hmac

    page = browser.new_page()
    page.goto(f"{server.http}/?table=x")
    messages = [b"", b"abc", bytes(range(55)), bytes(range(56)), bytes(range(64)),
                bytes(range(200)) * 3]
    key = bytes(range(32))
    got = page.evaluate("""async ([messages, key]) => {
        const m = await import('/static/verify.js');
        const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
        const bytes = (l) => new Uint8Array(l);
        return messages.map((msg) => [hex(m.sha256Plain(bytes(msg))),
                                      hex(m.hmacPlain(bytes(key), bytes(msg)))]);
    }""", [[list(msg) for msg in messages], list(key)])
    assert got == [[hashlib.sha256(msg).hexdigest(),
                    hmac.new(key, msg, "sha256").hexdigest()] for msg in messages]
    page.close()


def test_the_pages_check_refuses_forged_copies_of_its_rolls(browser: Any,
                                                           server: LiveServer) -> None:
    """The page's own check, on copies of its rolls as a server could forge them: a roll
    without its proof (every face 10), a player's dice passed off as entered by hand on a
    server that does not allow it, a die added, dice moved, her roll drawn with a client
    seed the server chose (its faces recomputed) — each marked ✗ naming the field; the
    genuine copies ✓; a player's dice under an epoch that does not say whether players
    could enter them: « cannot tell »."""
    player = Recorded(browser, server.http, "faussaire", "Aengus", "player", PLAYER_TOKEN)
    gm = Recorded(browser, server.http, "faussaire", "Morgane", "gm", GM_TOKEN)
    seqs = [player.roll(6), player.roll(5)]
    gm.page.click("#epoch-end")
    player.page.wait_for_function(
        "seq => window.sidecarTable.verified && seq in window.sidecarTable.verified",
        arg=seqs[-1])
    assert player.state("welcome.epoch.settings.player_dice") is False
    verdicts = player.page.evaluate("""async (seqs) => {
        const m = await import('/static/verify.js');
        const table = window.sidecarTable;
        const page = await table.client.history({ after: 0, limit: 500 });
        const copies = page.events.filter((e) => seqs.includes(e.seq));
        const epoch = table.welcome.epoch;
        const context = { commitment: epoch.commitment, settings: epoch.settings };
        const own = { ...context, me: { name: table.client.name, role: table.client.role },
                      client: table.client.clientSeed, since: 0 };
        const bytes = (hex) => Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
        const forge = (copy, change) => { const c = structuredClone(copy); change(c); return c; };
        const out = {};
        for (const copy of copies) {
          out[copy.seq] = {
            genuine: await m.checkCopy(copy, context),
            no_proof: await m.checkCopy(forge(copy, (c) => {
              delete c.proof; c.dice.forEach((d) => { d.face = 10; });
              c.result = { ...c.result, success: true, kind: 'critical' }; }), context),
            by_hand: await m.checkCopy(forge(copy, (c) => {
              c.proof = { manual: true, by: { name: c.by.name, role: c.by.role } }; }),
              context),
            by_hand_no_settings: await m.checkCopy(forge(copy, (c) => {
              c.proof = { manual: true, by: { name: c.by.name, role: c.by.role } }; }),
              { commitment: epoch.commitment }),
            extra_die: await m.checkCopy(forge(copy, (c) => {
              c.dice.push({ sides: 10, face: 10 }); }), context),
            reordered: await m.checkCopy(forge(copy, (c) => { c.dice.reverse(); }), context),
            own_genuine: await m.checkCopy(copy, own),
            // The holder of the seed draws her roll with a client seed of its choosing
            // (the faces and all recomputed): her page knows its own seed.
            reseeded: await (async () => {
              const c = structuredClone(copy);
              c.proof.client = 'chosen';
              const faces = await m.deriveFaces(bytes(c.proof.key), 'chosen',
                c.proof.position, c.proof.sides);
              c.dice.forEach((d, i) => { d.face = faces[i]; });
              return [await m.checkCopy(c, own), await m.checkCopy(c, context)];
            })(),
            faces: copy.dice.map((d) => d.face),
          };
        }
        return out;
    }""", seqs)
    assert sorted(int(seq) for seq in verdicts) == seqs
    for verdict in verdicts.values():
        assert verdict["genuine"] == {"ok": True}
        assert verdict["no_proof"]["ok"] is False and verdict["no_proof"]["field"] == "proof"
        assert verdict["by_hand"]["ok"] is False and verdict["by_hand"]["field"] == "proof"
        assert verdict["by_hand_no_settings"]["ok"] is None
        assert verdict["extra_die"]["ok"] is False and verdict["extra_die"]["field"] == "dice"
        assert verdict["own_genuine"] == {"ok": True}
        on_her_page, without_her_seed = verdict["reseeded"]
        assert on_her_page["ok"] is False and on_her_page["field"] == "proof.client"
        assert without_her_seed == {"ok": True}  # (the dice alone cannot tell)
        if verdict["faces"] != verdict["faces"][::-1]:
            assert verdict["reordered"] == {"ok": False, "field": "dice",
                                            "why": "its dice are not the ones derived"}
    # The marks the log shows for the genuine rolls say what the page did not check.
    for seq in seqs:
        mark = player.page.wait_for_selector(
            f'#log .entry[data-seq="{seq}"] .verified[data-verified="yes"]')
        assert "sidecar verify" in mark.get_attribute("title")
    player.close()
    gm.close()
