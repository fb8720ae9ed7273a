"""Links that carry a token carry it after ``#`` (issue 25, item 10), in Chromium.

A real ``sidecar serve`` process prints the players' and the GM's page links; its GM's
``welcome`` gives the players' join link (the QR code the GM shows). Each carries its
token after ``#``: a browser never sends that part, so no server or proxy log holds it
(tests/test_deploy_configs.py reads nginx's and HAProxy's logs). The page reads the token
from ``location.hash``, joins with it in the link's role, and leaves no token in the
address bar or its history entry.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.support.browser import TablePage
from tests.support.serve import ServeProcess, free_port


def _printed(server: ServeProcess, label: str) -> str:
    """The link ``serve`` printed after ``label`` (« Navigateur MJ : … »)."""
    line = next(line for line in server.lines if line.strip().startswith(label))
    return re.search(r"https?://\S+", line).group(0)


def _token_after_hash(link: str, token: str) -> None:
    parts = urlsplit(link)
    assert "token" not in parse_qs(parts.query), link
    assert parse_qs(parts.fragment) == {"token": [token]}, link


def _no_token_left(page: TablePage, token: str) -> None:
    """The token was read, then taken out of the address bar and this history entry."""
    assert token not in page.page.url and "#" not in page.page.url, page.page.url
    assert token not in page.page.evaluate("() => location.href + String(history.state)")


def _join_from_form(page: TablePage, name: str | None = None) -> None:
    if name is not None:
        page.page.fill("#join-name", name)
    page.page.click("#join-form button[type=submit]")
    page.page.wait_for_selector("#table:not([hidden])")


def test_the_printed_gm_link_and_the_join_link_carry_their_token_after_the_hash(
        browser: Any) -> None:
    port = free_port()
    page = f"http://127.0.0.1:{port}/"
    # --public-url: the GM's welcome carries the join link (its QR code) phones scan.
    with ServeProcess("--db", ":memory:", "--port", str(port), "--public-url", page) as server:
        gm_link = _printed(server, "Navigateur MJ :")
        player_link = _printed(server, "Navigateur    :")
        _token_after_hash(gm_link, GM_TOKEN)
        _token_after_hash(player_link, PLAYER_TOKEN)
        assert parse_qs(urlsplit(gm_link).query) == {"table": ["demo"], "role": ["gm"]}

        # The GM's link, opened in a fresh browser, joins by itself (issue 29 re-run, G):
        # as « MJ », nothing to type, no « Rejoindre » to press.
        gm = TablePage(browser, page, link=gm_link)
        _no_token_left(gm, GM_TOKEN)
        assert gm.state("welcome.role") == "gm"
        assert gm.page.input_value("#join-name") == "MJ"
        gm.page.wait_for_selector("#presence .member:has-text('MJ')")
        join = gm.page.input_value("#gm-join-link")
        _token_after_hash(join, PLAYER_TOKEN)
        assert join == gm.state("welcome.join.link")

        # A phone scans the GM's QR code: the players' join link.
        phone = TablePage(browser, page, link=join, joined=False)
        _no_token_left(phone, PLAYER_TOKEN)
        assert phone.page.input_value("#join-role") == "player"
        assert phone.page.input_value("#join-token") == PLAYER_TOKEN
        _join_from_form(phone, "Aengus")
        assert phone.state("welcome.role") == "player"
        assert phone.state("welcome.seat") is not True
        gm.page.wait_for_selector("#presence .member:has-text('Aengus')")
        # The link serve printed for players does the same.
        laptop = TablePage(browser, page, link=player_link, joined=False)
        _no_token_left(laptop, PLAYER_TOKEN)
        _join_from_form(laptop, "Brann")
        assert laptop.state("welcome.table") == "demo"
        for each in (gm, phone, laptop):
            assert not each.errors, each.errors
            each.close()
