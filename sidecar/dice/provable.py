"""Dice anyone can check: epochs, the derivation of faces, and their proofs.

Each table has a current *epoch*: a secret 32-byte seed. Every event of the epoch has a
*position* ``p`` (0, 1, 2…: how many rolls drew before it in the epoch; in an epoch opened
before positions counted them, its seq after the event that opened the epoch), and a roll
draws its faces from the *leaf key* of its position, the roller's *client seed* and
``p``::

    leaf(p)        = HMAC-SHA256(key=seed,    msg=b"sidecar-leaf" || u32be(p))
    block(s, j)    = HMAC-SHA256(key=leaf(p), msg=b"sidecar-dice/1" || 0x00 || client
                                                  || 0x00 || u32be(p) || u32be(s) || u32be(j))

The faces of the dice of ``s`` sides, in the order the roll drew them, come from the
stream ``block(s, 0) || block(s, 1) || …`` by rejection sampling: for ``s ≤ 256`` one
byte ``b`` at a time, kept when ``b < 256 − 256 mod s`` (face ``b mod s + 1``); for
``s > 256`` one big-endian 16-bit word ``w`` at a time, kept when
``w < 65536 − 65536 mod s`` (face ``w mod s + 1``). Every face is exactly equally likely.

The *commitment* of an epoch, sent before any roll of it, is the root of a Merkle tree
over its :data:`LEAVES` leaves (``SHA-256(0x00 || leaf(p))``; inner nodes
``SHA-256(0x01 || left || right)``). Revealing the epoch gives each roll's audience, and
only them, the leaf key of that roll with its path to the root: a member checks every
roll they saw against the commitment and learns nothing of the others (each leaf is an
independent HMAC of the seed). The seed itself goes to the GMs and into the journal.

``protocol/PROTOCOL.md`` (§ Dice anyone can check) is the reference for implementers;
``examples/verify_dice.py`` is an independent verifier in one file.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

#: Positions (rolls) per epoch: a tree of 2^12 leaves (building it takes milliseconds).
DEPTH = 12
LEAVES = 1 << DEPTH
LEAF_LABEL = b"sidecar-leaf"
DICE_LABEL = b"sidecar-dice/1"
#: Largest die the 16-bit rule serves (the dice module's limit is lower).
MAX_SIDES = 65536

def new_seed() -> bytes:
    """A fresh epoch seed from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


SEED_LABEL = b"sidecar-seed/1"


def settings_bytes(settings: Any) -> bytes:
    """An epoch's settings as the seed's derivation reads them: JSON, keys sorted, no
    spaces, UTF-8."""
    return json.dumps(settings, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def settings_seed(nonce: bytes, settings: Any) -> bytes:
    """The seed of an epoch opened with ``settings``: ``HMAC(nonce, "sidecar-seed/1" ||
    0x00 || settings_bytes(settings))``. The commitment (over the seed's leaves) then
    covers the settings: other settings make another seed, every leaf and every face of
    the epoch other; the reveal gives the ``nonce`` with the seed."""
    return hmac.digest(nonce, SEED_LABEL + b"\x00" + settings_bytes(settings), "sha256")


def new_client_seed() -> str:
    """A client seed for a member that sent none (the server tells it in ``welcome``)."""
    return secrets.token_hex(16)


def leaf_key(seed: bytes, position: int) -> bytes:
    """The key of position ``position`` of the epoch of ``seed``."""
    return hmac.digest(seed, LEAF_LABEL + position.to_bytes(4, "big"), "sha256")


_INNER = bytes(b ^ 0x36 for b in range(256))
_OUTER = bytes(b ^ 0x5C for b in range(256))

try:  # CPython's own SHA-256 (3.12+: _sha2): a few hashes per roll, amid the server's
    # other work, cost less through it than through OpenSSL's generic dispatch.
    from _sha2 import sha256 as _sha256  # type: ignore[import-not-found]
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:
        _sha256 = hashlib.sha256  # type: ignore[assignment]


def hmac_once(key: bytes, message: bytes) -> bytes:
    """``hmac.digest(key, message, "sha256")`` for a key of at most 64 bytes, written out
    (RFC 2104) on :data:`_sha256`: one roll's first block."""
    padded = key.ljust(64, b"\x00")
    inner = _sha256(padded.translate(_INNER) + message).digest()
    return _sha256(padded.translate(_OUTER) + inner).digest()


class Keyed:
    """HMAC-SHA256 under one key, for many messages: the key's two padded blocks
    (RFC 2104) are hashed once, and each message costs two copies of those states and
    two short updates — about half of ``hmac.digest``, which pads and hashes the key
    again at every call. The same function: ``Keyed(k).digest(m) == hmac.digest(k, m,
    "sha256")``."""

    __slots__ = ("inner", "outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:  # (HMAC hashes a key longer than the block first)
            key = hashlib.sha256(key).digest()
        padded = key.ljust(64, b"\x00")
        self.inner = _sha256(padded.translate(_INNER))
        self.outer = _sha256(padded.translate(_OUTER))

    def digest(self, message: bytes) -> bytes:
        inner = self.inner.copy()
        inner.update(message)
        outer = self.outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def digests(self, prefix: bytes, first: int, count: int) -> bytes:
        """``digest(prefix || u32be(j))`` for ``j`` from ``first``, ``count`` of them,
        end to end (one roll's blocks of one die size, made in one loop)."""
        inner, outer = self.inner, self.outer
        out = []
        for j in range(first, first + count):
            i = inner.copy()
            i.update(prefix + j.to_bytes(4, "big"))
            o = outer.copy()
            o.update(i.digest())
            out.append(o.digest())
        return b"".join(out)


def leaf_hash(key: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + key).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def block_prefix(client: str, position: int) -> bytes:
    """What every block message of one roll starts with (before ``u32be(s) || u32be(j)``)."""
    return DICE_LABEL + b"\x00" + client.encode() + b"\x00" + position.to_bytes(4, "big")


def faces_of(key: bytes, client: str, position: int, sides: list[int]) -> list[int]:
    """The faces of dice of ``sides`` drawn in that order by the roll at ``position``
    (the reference implementation: one byte or word at a time)."""
    prefix = block_prefix(client, position)
    streams: dict[int, tuple[bytearray, list[int]]] = {}  # sides → (buffer, [next block])
    faces = []
    for s in sides:
        buffer, state = streams.setdefault(s, (bytearray(), [0]))
        width = 1 if s <= 256 else 2
        limit = (256 if width == 1 else 65536)
        limit -= limit % s
        while True:
            while len(buffer) < width:
                buffer += hmac.digest(key, prefix + s.to_bytes(4, "big")
                                      + state[0].to_bytes(4, "big"), "sha256")
                state[0] += 1
            value = int.from_bytes(buffer[:width], "big")
            del buffer[:width]
            if value < limit:
                faces.append(value % s + 1)
                break
    return faces


@dataclass
class Tree:
    """The Merkle tree of one epoch: its root (the commitment) and each leaf's path."""

    seed: bytes
    levels: list[list[bytes]]

    @property
    def root(self) -> str:
        return self.levels[-1][0].hex()

    def key(self, position: int) -> str:
        return leaf_key(self.seed, position).hex()

    def path(self, position: int) -> list[str]:
        """The siblings from the leaf up to (not including) the root."""
        siblings = []
        index = position
        for level in self.levels[:-1]:
            siblings.append(level[index ^ 1].hex())
            index >>= 1
        return siblings


@functools.lru_cache(maxsize=8)
def tree(seed: bytes) -> Tree:
    """The tree of the epoch of ``seed`` (a few epochs kept: reveals and histories ask
    for paths more than once)."""
    keyed = Keyed(seed)
    level = [leaf_hash(keyed.digest(LEAF_LABEL + p.to_bytes(4, "big"))) for p in range(LEAVES)]
    levels = [level]
    while len(level) > 1:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        levels.append(level)
    return Tree(seed, levels)


def root_from_path(key: bytes, position: int, path: list[str]) -> str:
    """The root a leaf key and its path lead to (compare with the commitment)."""
    digest = leaf_hash(key)
    index = position
    for sibling in path:
        other = bytes.fromhex(sibling)
        digest = node_hash(other, digest) if index & 1 else node_hash(digest, other)
        index >>= 1
    return digest.hex()


@dataclass
class Epoch:
    """A table's current epoch: its number, secret seed and commitment, and ``base``: the
    seq of the event that opened it. A roll's position is :attr:`drawn`, the rolls that
    drew before it (settings ``positions: "drawn"``: a roll taken out of the journal leaves
    a hole), or, in an epoch opened before, its seq − base − 1. Kept as the table record
    ``("epoch", "current")`` (server-side only), written when the epoch opens and with
    each roll that draws (its ``drawn``, in the same write as the roll).

    ``settings``: what a verifier needs to know of the server that opened it and that the
    dice cannot prove — whether players may enter physical dice, the plugins (name →
    version) whose rules resolve its rolls. Public with the commitment; ``None`` for an
    epoch opened before epochs carried them. A server whose settings differ ends such an
    epoch before its next welcome, so each epoch's rolls were all made under its own."""

    number: int
    seed: bytes
    commitment: str
    base: int
    settings: dict[str, Any] | None = None
    #: The random bytes the seed is derived from with the settings (:func:`settings_seed`);
    #: ``None`` for an epoch without settings, or opened before seeds were derived.
    nonce: bytes | None = None
    #: Positions used so far, when the epoch numbers them by the rolls that draw
    #: (:attr:`counted`): a roll dropped from the export leaves a position missing.
    drawn: int = 0
    _keyed: Keyed | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def counted(self) -> bool:
        """Whether positions count the events that drew (settings ``positions: "drawn"``)
        rather than every event (an epoch opened before they did)."""
        return isinstance(self.settings, dict) and self.settings.get("positions") == "drawn"

    def next_position(self, seq: int) -> int:
        """The position the roll numbered ``seq`` draws at (``LEAVES`` or more: past the
        epoch's end)."""
        return self.drawn if self.counted else self.position(seq)

    @classmethod
    def fresh(cls, number: int, base: int, settings: dict[str, Any] | None = None) -> Epoch:
        if settings is None:
            seed = new_seed()
            return cls(number, seed, tree(seed).root, base, settings)
        nonce = new_seed()
        seed = settings_seed(nonce, settings)
        return cls(number, seed, tree(seed).root, base, settings, nonce)

    def leaf(self, position: int) -> bytes:
        """The leaf key of ``position``: :func:`leaf_key`, from the seed's HMAC states kept
        with the epoch (a roll's key then costs two hash copies, not a whole HMAC)."""
        keyed = self._keyed
        if keyed is None:
            keyed = self._keyed = Keyed(self.seed)
        return keyed.digest(LEAF_LABEL + position.to_bytes(4, "big"))

    def position(self, seq: int) -> int:
        """The position of the event of ``seq`` (``LEAVES`` or more: past the epoch's end)."""
        return seq - self.base - 1

    def record(self) -> dict[str, Any]:
        record = {"number": self.number, "seed": self.seed.hex(),
                  "commitment": self.commitment, "base": self.base}
        if self.settings is not None:
            record["settings"] = self.settings
        if self.nonce is not None:
            record["nonce"] = self.nonce.hex()
        if self.counted:
            record["drawn"] = self.drawn
        return record

    @classmethod
    def from_record(cls, value: dict[str, Any]) -> Epoch:
        return cls(int(value["number"]), bytes.fromhex(value["seed"]),
                   str(value["commitment"]), int(value["base"]), value.get("settings"),
                   bytes.fromhex(value["nonce"]) if value.get("nonce") else None,
                   int(value.get("drawn", 0)))

    def public(self) -> dict[str, Any]:
        """What every member is told of it: its number, commitment and settings."""
        public: dict[str, Any] = {"number": self.number, "commitment": self.commitment}
        if self.settings is not None:
            public["settings"] = self.settings
        return public
