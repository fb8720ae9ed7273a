"""Fixtures shared by the test files, and the markers the suite's tests get from them.

The whole suite runs in parallel (``pytest -n auto``, pytest-xdist): every fixture here
is per test or per worker process — free ports, ``tmp_path`` folders, a Redis of its own —
so no two tests share a port, a file or a server.
"""

from __future__ import annotations

import pytest

from tests.redis_server import redis_server  # noqa: F401  (a real Redis, per test)

#: A test that uses one of these fixtures gets the marker: ``-m "not browser"`` skips
#: what needs Chromium without anyone listing the tests by hand.
MARKED_BY_FIXTURE = {"browser": "browser", "redis_server": "redis"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
