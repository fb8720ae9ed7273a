"""The test run prints no warning of its own making (issue 29, item 21).

The rules tests' shared table (tests/rules_helpers.py) lives as long as its xdist worker.
Its two WebSocket connections used to send a keepalive ping every 20 s from their own
threads; websockets draws a ping's payload from the global ``random`` module, and a ping
landing during another test's Hypothesis draw (tests/test_codec.py, in the same worker) made
Hypothesis print its « Do not use the `random` module inside strategies » deprecation
(~20 lines, the strategy's repr included). pyproject's ``filterwarnings`` turns that
warning into a failure of the test where it happens."""

from __future__ import annotations

from tests.rules_helpers import table


def test_the_shared_rules_table_sends_no_keepalive_pings():
    shared = table()
    for connection in (shared.fr, shared.en):
        assert connection.ping_interval is None
        assert connection.keepalive_thread is None  # no thread touching the global random
