"""What the test files share, one module per kind of thing (fixtures are in conftest.py).

- :mod:`tests.helpers`: a server inside the test's event loop (``running_server``) and
  :class:`~tests.helpers.Peer`, the raw protocol client (every hello goes through it);
- :mod:`tests.live_server`: the same server in a thread, for clients that are not asyncio;
- :mod:`tests.support.serve`: ``sidecar serve`` as a real process (:class:`ServeProcess`)
  and ``sidecar …`` commands;
- :mod:`tests.support.raw`: a WebSocket over a bare socket, for clients that misbehave
  below the protocol (never reading, half frames);
- :mod:`tests.support.browser`: Chromium and a page of the web table;
- :mod:`tests.redis_server`: a real ``redis-server``.
"""
