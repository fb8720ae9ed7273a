"""Fixtures shared by the test files, and the markers the suite's tests get from them.

The whole suite runs in parallel (``pytest -n auto``, pytest-xdist): every fixture here
is per test or per worker process — free ports, ``tmp_path`` folders, a Redis of its own —
so no two tests share a port, a file or a server.
"""

from __future__ import annotations

import compileall
import importlib
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


#: The order the suite runs in: the longest tests first (``slow``, then the browser's),
#: the many short ones after. pytest-xdist hands tests out in this order, so the run ends
#: on short tests that fill both workers, not on a 20 s chaos test or a module of
#: browser tests left to one worker while the other is idle (in name order, test_web_*
#: came last).
RUN_FIRST = ("slow", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)

    def rank(item: pytest.Item) -> int:
        return next((i for i, marker in enumerate(RUN_FIRST) if item.get_closest_marker(marker)),
                    len(RUN_FIRST))
    # Whole modules move, in their own order: a module's fixtures (a browser, a server)
    # are set up once, and its tests that share a thread with Playwright's driver run
    # where they always did.
    module_rank: dict[str, int] = {}
    for item in items:
        module_rank[item.nodeid.split("::")[0]] = min(
            module_rank.get(item.nodeid.split("::")[0], len(RUN_FIRST)), rank(item))
    items.sort(key=lambda item: module_rank[item.nodeid.split("::")[0]])  # (stable)


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


@pytest.fixture
def boss_host(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The built-ins and the boss example (examples/boss-weak-points), registered as a
    third-party plugin is."""
    from sidecar.host.plugins import default_host

    root = Path(__file__).resolve().parent.parent
    monkeypatch.syspath_prepend(str(root / "examples" / "boss-weak-points"))
    boss = importlib.import_module("boss_weak_points")
    host = default_host()
    host.register(boss, "boss", version="1.0.0", source="package sidecar-boss-weak-points")
    return host


@pytest.fixture(scope="module")
def luck_plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugins folder holding tests/sheet_plugin.py (the `luck` ruleset, whose rolls
    spend from a character's sheet and may stay open)."""
    folder = tmp_path_factory.mktemp("plugins")
    source = (Path(__file__).parent / "sheet_plugin.py").read_text()
    (folder / "luck_rules.py").write_text(source)
    return folder
