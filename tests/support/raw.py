"""A WebSocket client over a bare socket: for the clients the ``websockets`` library will
not play — one that never reads (its receive buffer tiny), one that sends frames by hand.
Blocking calls: run them in a thread, never in the event loop of a server under test."""

from __future__ import annotations

import os
import socket
from typing import Any

import msgpack


def masked_frame(payload: bytes, opcode: int = 0x2) -> bytes:
    """One final frame as a client sends it (masked), binary unless ``opcode`` says."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    length = len(payload)
    if length < 126:
        head = bytes([0x80 | opcode, 0x80 | length])
    elif length < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + length.to_bytes(8, "big")
    return head + mask + body


def raw_client(port: int, hello: dict[str, Any] | None, *, timeout: float = 10
               ) -> socket.socket:
    """The opening handshake on ``/ws`` of ``127.0.0.1:port`` with a tiny receive buffer,
    then ``hello`` (a message, see :func:`tests.helpers.hello`) in MessagePack; the caller
    reads what it wants after that, or nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: it counts
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert b" 101 " in response.split(b"\r\n")[0], response
    if hello is not None:
        send_raw(sock, hello)
    return sock


def send_raw(sock: socket.socket, message: dict[str, Any]) -> None:
    """One message in MessagePack, as a frame of its own."""
    sock.sendall(masked_frame(msgpack.packb(message)))


def read_until_closed(sock: socket.socket, timeout: float = 20, most: int = 64 << 20
                      ) -> tuple[bool, int]:
    """Read what the server sent until it closes the connection: (closed?, bytes read).
    ``closed`` is false if it still kept the connection open after ``timeout`` seconds."""
    sock.settimeout(timeout)
    total = 0
    try:
        while total < most:
            chunk = sock.recv(1 << 16)
            if not chunk:
                return True, total
            total += len(chunk)
    except ConnectionResetError:
        return True, total
    except TimeoutError:
        return False, total
    return False, total
