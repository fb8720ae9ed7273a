"""Fixtures shared by the test files, and the markers the suite's tests get from them.

The whole suite runs in parallel (``pytest -n auto``, pytest-xdist): every fixture here
is per test or per worker process — free ports, ``tmp_path`` folders, a Redis of its own —
so no two tests share a port, a file or a server.
"""

from __future__ import annotations

import compileall
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


#: The project's own import packages, compiled once before the tests start.
SOURCES = ("sidecar", "plugins", "protocol")


def pytest_configure(config: pytest.Config) -> None:
    # The suite starts hundreds of Python processes (`sidecar serve`, the CLI). Where
    # PYTHONDONTWRITEBYTECODE is set (our development machines set it) none of them
    # writes what it compiles, so each compiled some 75 modules again: 0.17 s of CPU a
    # process, a sixth of tests/test_cli.py's CPU. Compiled once here (the controller, or
    # the only process without xdist), they are read from __pycache__ like any import.
    if hasattr(config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    for name in SOURCES:
        compileall.compile_dir(root / name, quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Any]:
    """Playwright's driver for the module's tests (the sync API allows no second one at
    once, and while it runs its event loop is the thread's: a test of another module
    calling asyncio.run() would fail, hence no longer than a module): a module that needs
    Chromium with other flags launches it from here."""
    with driver() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(playwright_driver: Any) -> Iterator[Any]:
    """A headless Chromium for the module's tests: each page opens in a context of its
    own, so tests share nothing but the launch."""
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
