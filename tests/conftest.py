"""Fixtures shared by the test files."""

from tests.redis_server import redis_server  # noqa: F401  (a real Redis, per test)
