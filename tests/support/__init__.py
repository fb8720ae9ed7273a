"""What the test files share, one module per kind of thing (fixtures are in conftest.py).
No test module imports another test module: what two of them need is here.

- :mod:`tests.helpers`: a server inside the test's process (``start_server``,
  ``running_server``), every ``hello`` (``hello``) and :class:`~tests.helpers.Peer`, the
  raw protocol client (``Peer.open(server)``, ``Peer.connect(url)``);
- :mod:`tests.live_server`: that same server run in a thread, for clients that are not
  asyncio (a browser, Node, a subprocess);
- :mod:`tests.support.serve`: ``sidecar serve`` as a real process (:class:`ServeProcess`,
  the one way), ``sidecar …`` commands, free ports;
- :mod:`tests.support.raw`: a WebSocket over a bare socket, for clients that misbehave
  below the protocol (never reading, frames by hand);
- :mod:`tests.support.browser`: Chromium and a page of the web table;
- :mod:`tests.support.plugins`: plugin folders written by a test, the `luck` ruleset;
- :mod:`tests.support.tls`, :mod:`tests.support.journal`: a certificate, journal events;
- :mod:`tests.redis_server`: a real ``redis-server``, and sidecars on it.
"""
