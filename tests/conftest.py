"""Fixtures shared by the test files, and the markers the suite's tests get from them.

The whole suite runs in parallel (``pytest -n auto``, pytest-xdist): every fixture here
is per test or per worker process — free ports, ``tmp_path`` folders, a Redis of its own —
so no two tests share a port, a file or a server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer
from tests.redis_server import redis_server  # noqa: F401  (a real Redis, per test)
from tests.support.browser import driver, launch

#: A test that uses one of these fixtures gets the marker: ``-m "not browser"`` skips
#: what needs Chromium without anyone listing the tests by hand.
MARKED_BY_FIXTURE = {"browser": "browser", "redis_server": "redis"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Any]:
    """Playwright's driver, one per process (the sync API allows no second one at once):
    a module that needs Chromium with other flags launches it from here."""
    with driver() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_driver: Any) -> Iterator[Any]:
    """A headless Chromium for every browser test of this process (one per xdist worker):
    each page opens in a context of its own, so tests share nothing but the launch."""
    launched = launch(playwright_driver)
    yield launched
    launched.close()


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """A live sidecar for the module's pages (rate limit off). A module that needs another
    configuration defines its own ``server``."""
    with LiveServer(rate_limit=0) as live:
        yield live


@pytest.fixture(scope="module")
def luck_plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugins folder holding tests/sheet_plugin.py (the `luck` ruleset, whose rolls
    spend from a character's sheet and may stay open)."""
    folder = tmp_path_factory.mktemp("plugins")
    source = (Path(__file__).parent / "sheet_plugin.py").read_text()
    (folder / "luck_rules.py").write_text(source)
    return folder
