"""A GM's default name is an identity, not a text (issue 29): the GM's link opened in an
English page joins as « MJ », as the French page and the command line do — « GM » beside
« MJ » was one GM token rolling as two members (a once-a-session reward granted twice).
In Chromium, against a real ``sidecar serve``."""

from __future__ import annotations

import re
from typing import Any

from tests.support.browser import TablePage
from tests.support.serve import ServeProcess, free_port


def test_the_gm_link_joins_as_mj_in_an_english_page(browser: Any) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    with ServeProcess("--db", ":memory:", "--port", str(port)) as server:
        line = next(line for line in server.lines if line.strip().startswith("Navigateur MJ :"))
        link = re.search(r"https?://\S+", line).group(0)
        address, token = link.split("#", 1)
        gm = TablePage(browser, base, link=f"{address}&lang=en#{token}")
        assert gm.page.evaluate("() => document.documentElement.lang") == "en"
        assert gm.state("welcome.role") == "gm"
        assert gm.page.input_value("#join-name") == "MJ"
        gm.page.wait_for_selector("#presence .member:has-text('MJ')")
        gm.context.close()
