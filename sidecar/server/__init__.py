"""The WebSocket server: connections, frames, limits, and the web table's files.

:class:`~sidecar.server.connections.SidecarServer` assembles its parts, one module each:
``handshake`` (the HTTP request: origins, per-address limits, the web page), ``transport``
(frames in and out), ``joins`` (``hello`` to welcome and replay), ``requests`` (what each
request does), ``runner`` (the one path of every change: repeat, turn, retry, journal,
commit, deliver), ``replication`` (other processes' events, a shared store) and
``timers`` (open rolls' defaults, presence); ``collector`` is the cyclic garbage
collector's policy ``sidecar serve`` installs (pauses that do not grow with connections).
"""
