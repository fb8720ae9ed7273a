"""Where dice faces come from.

Rulesets draw every face through the :class:`Dice` they get as ``dice``, in their
documented consumption order. Behind it, one of four sources (:class:`DiceSource`):
:class:`SecureDice` (OS randomness), :class:`ProvableDice` (derived from a committed epoch
seed, checkable after its reveal: :mod:`sidecar.dice.provable`), :class:`ManualDice` (physical
dice entered by a person, validated) and :class:`SeededDice` (reproducible, for tests).
Plugins cannot tell which: every source reaches them as the same :class:`Dice` class,
with the same public attributes. Every source records what was drawn in ``rolled``,
which becomes the outcome's ``dice``.
"""

from __future__ import annotations

import functools
import os
import random
import struct
from typing import Any

from sidecar.dice.provable import Keyed, block_prefix, hmac_once
from sidecar.protocol.errors import ProtocolError

#: Most dice one roll may draw (a runaway ruleset or parameter is refused, not served).
MAX_DRAWS = 500
#: Largest die a ruleset may ask for.
MAX_SIDES = 1000


class DiceSource:
    """Base class of the sources: hands out faces and records each draw in ``rolled``.
    The server's own: hooks get a source wrapped in a :class:`Dice`."""

    def __init__(self) -> None:
        self.rolled: list[dict[str, Any]] = []

    @property
    def unused(self) -> int:
        """Faces given ahead of the draws and not drawn yet (only physical dice have any)."""
        return 0

    def _face(self, sides: int) -> int:
        raise NotImplementedError

    def roll(self, sides: int, **info: Any) -> int:
        """Draw one die with ``sides`` faces; ``info`` is kept with it (e.g. ``role="twin"``)."""
        if not isinstance(sides, int) or not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"a die must have 1 to {MAX_SIDES} sides, not {sides!r}")
        if len(self.rolled) >= MAX_DRAWS:
            raise ProtocolError(
                "too_large",
                f"a roll may draw at most {MAX_DRAWS} dice",
                fr=f"un jet tire au plus {MAX_DRAWS} dés",
            )
        face = self._face(sides)
        self.rolled.append({"sides": sides, "face": face, **info} if info
                           else {"sides": sides, "face": face})
        return face

    def roll_many(self, count: int, sides: int, **info: Any) -> list[int]:
        """Draw ``count`` dice of ``sides`` faces, in order (checked once, drawn in bulk)."""
        if not isinstance(sides, int) or not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"a die must have 1 to {MAX_SIDES} sides, not {sides!r}")
        rolled = self.rolled
        if count <= 0:
            return []
        if len(rolled) + count > MAX_DRAWS:
            raise ProtocolError(
                "too_large",
                f"a roll may draw at most {MAX_DRAWS} dice",
                fr=f"un jet tire au plus {MAX_DRAWS} dés",
            )
        face_of = self._face
        faces = []
        for _ in range(count):
            # One at a time: a manual source raises at the first face it lacks, with the
            # faces before it recorded.
            face = face_of(sides)
            rolled.append({"sides": sides, "face": face, **info} if info
                          else {"sides": sides, "face": face})
            faces.append(face)
        return faces


@functools.cache
def _byte_tables(sides: int) -> tuple[bytes, bytes]:
    """For a die of fewer than 256 sides: the bytes rejection sampling drops (at or above the
    largest multiple of ``sides``), and the table mapping a byte ``b`` to ``b % sides + 1``."""
    limit = 256 - 256 % sides
    return bytes(range(limit, 256)), bytes(b % sides + 1 if b < limit else 0
                                           for b in range(256))


class SecureDice(DiceSource):
    """Faces from the operating system's CSPRNG (``os.urandom``), never ``random``.

    Each block of random bytes is turned into faces in bulk, one pool per die size, so a
    face costs a ``list.pop()`` rather than a system call or a Python-level loop; rejection
    sampling (bytes at or above the largest multiple of ``sides`` are dropped) keeps every
    face exactly equally likely. Measured in ``benchmarks/dice_speed.py``.

    The pools belong to the instance, or to whoever passes ``pools`` (the pipeline keeps
    one map for the rolls it resolves on its own thread): never shared between threads
    behind anyone's back, so two threads never race for the last face of a pool.
    """

    #: Random bytes fetched per refill (a pool holds at most this many faces: 8 KiB).
    BLOCK = 1024

    def __init__(self, pools: dict[int, list[int]] | None = None) -> None:
        self.rolled: list[dict[str, Any]] = []  # (DiceSource.__init__, without the call)
        self.pools: dict[int, list[int]] = {} if pools is None else pools

    @classmethod
    def _refill(cls, sides: int) -> list[int]:
        if sides < 256:  # (faces up to 255 fit in a byte)
            # In C: drop the bytes at or above the limit, map each other byte b to
            # b % sides + 1 (both tables are immutable, hence shareable).
            rejected, faces = _byte_tables(sides)
            return list(os.urandom(cls.BLOCK).translate(faces, rejected))
        if sides == 256:
            return [b + 1 for b in os.urandom(cls.BLOCK)]
        limit = 65536 - 65536 % sides
        words = memoryview(os.urandom(2 * cls.BLOCK)).cast("H")
        return [w % sides + 1 for w in words if w < limit]

    def _face(self, sides: int) -> int:
        pool = self.pools.get(sides)
        while not pool:
            pool = self.pools[sides] = self._refill(sides)
        return pool.pop()

    def roll(self, sides: int, **info: Any) -> int:
        """One die, popped from its pool (the checks and refills of
        :meth:`DiceSource.roll` when the pool is empty or the roll is at its limit)."""
        pool = self.pools.get(sides)
        rolled = self.rolled
        if not pool or len(rolled) >= MAX_DRAWS or sides.__class__ is not int:
            return super().roll(sides, **info)
        face = pool.pop()
        rolled.append({"sides": sides, "face": face, **info} if info
                      else {"sides": sides, "face": face})
        return face

    def roll_many(self, count: int, sides: int, **info: Any) -> list[int]:
        """Draw ``count`` dice at once: the faces are cut from the end of the pool in one
        slice (the same uniform faces :meth:`_face` pops one by one), then recorded."""
        pool = self.pools.get(sides)
        if (count <= 0 or pool is None or len(pool) < count
                or len(self.rolled) + count > MAX_DRAWS or sides.__class__ is not int):
            return super().roll_many(count, sides, **info)  # (checks and refills)
        faces = pool[-count:]
        del pool[-count:]
        self.rolled += ([{"sides": sides, "face": face, **info} for face in faces] if info
                        else [{"sides": sides, "face": face} for face in faces])
        return faces


class ProvableDice(SecureDice):
    """Faces derived from a roll's leaf key, the roller's client seed and the roll's
    position (the derivation of :mod:`sidecar.dice.provable`), so that anyone given the leaf
    key recomputes them.

    Built like :class:`SecureDice`: one pool per die size, turned into faces in bulk (the
    same rejection sampling), kept reversed so that ``pop()`` hands them out in stream
    order. A die size's first refill is one HMAC block (most rolls need no more); later
    ones make 2, 4, then 8 blocks at once from the key's HMAC states, hashed once
    (:class:`~sidecar.dice.provable.Keyed`).
    """

    #: Most HMAC blocks one refill makes (256 bytes).
    BLOCKS = 8

    def __init__(self, key: bytes, client: str, position: int) -> None:
        self.rolled: list[dict[str, Any]] = []  # (DiceSource.__init__, without the call)
        self.pools: dict[int, list[int]] = {}
        self._key = key
        self._keyed: Keyed | None = None
        self._prefix = block_prefix(client, position)
        #: What the roll's proof says of it (epoch, commitment, position, client seed).
        self.proof: dict[str, Any] = {}
        #: Next block index, per die size.
        self._blocks: dict[int, int] = {}

    def _refill(self, sides: int) -> list[int]:  # type: ignore[override]
        j = self._blocks.get(sides, 0)
        prefix = self._prefix + sides.to_bytes(4, "big")
        if j == 0:
            count = 1
            data = hmac_once(self._key, prefix + b"\x00\x00\x00\x00")
        else:
            count = min(j, self.BLOCKS)
            keyed = self._keyed
            if keyed is None:
                keyed = self._keyed = Keyed(self._key)
            data = keyed.digests(prefix, j, count)
        self._blocks[sides] = j + count
        if sides < 256:
            rejected, table = _byte_tables(sides)
            faces = list(data.translate(table, rejected))
        elif sides == 256:
            faces = [b + 1 for b in data]
        else:
            limit = 65536 - 65536 % sides
            faces = [w % sides + 1 for w in struct.unpack(f">{16 * count}H", data)
                     if w < limit]
        faces.reverse()
        return faces

    def roll_many(self, count: int, sides: int, **info: Any) -> list[int]:
        """Draw ``count`` dice in stream order: the pool is refilled first (a new block's
        faces go after those left, i.e. at the pool's front), then cut from its end."""
        if (count <= 0 or sides.__class__ is not int or not 1 <= sides <= MAX_SIDES
                or len(self.rolled) + count > MAX_DRAWS):
            return DiceSource.roll_many(self, count, sides, **info)  # (its checks)
        pool = self.pools.get(sides)
        if pool is None:
            pool = self.pools[sides] = self._refill(sides)
        while len(pool) < count:
            pool[:0] = self._refill(sides)
        faces = pool[-count:]
        del pool[-count:]
        faces.reverse()
        self.rolled += ([{"sides": sides, "face": face, **info} for face in faces] if info
                        else [{"sides": sides, "face": face} for face in faces])
        return faces


class Dice:
    """The ``dice`` every hook gets, whatever source is behind it.

    ``roll(sides, **info)`` draws one face, ``roll_many(count, sides, **info)`` several,
    ``rolled`` lists every die drawn so far (``{"sides", "face", **info}``, in order) and
    ``unused`` says how many faces a person entered ahead that the roll has not drawn yet
    (physical dice typed up front; ``0`` otherwise — what ``roll.manual`` already says).
    The source (OS randomness, verifiable dice, physical dice, seeded test dice) is
    private: the class, its attributes and its ``repr`` are the same for all of them, so
    a ruleset cannot tell or choose where its faces come from.
    """

    __slots__ = ("_source",)

    def __init__(self, source: DiceSource) -> None:
        self._source = source

    def roll(self, sides: int, **info: Any) -> int:
        """Draw one die with ``sides`` faces; ``info`` is kept with it (e.g. ``role="twin"``)."""
        return self._source.roll(sides, **info)

    def roll_many(self, count: int, sides: int, **info: Any) -> list[int]:
        """Draw ``count`` dice of ``sides`` faces, in order."""
        return self._source.roll_many(count, sides, **info)

    @property
    def rolled(self) -> list[dict[str, Any]]:
        """Every die drawn so far, in order (the list the outcome's ``dice`` default to)."""
        return self._source.rolled

    @property
    def unused(self) -> int:
        """Faces entered ahead of the draws and not drawn yet (physical dice only)."""
        return self._source.unused

    def __repr__(self) -> str:
        return f"<Dice: {len(self._source.rolled)} drawn>"


class SeededDice(DiceSource):
    """Reproducible faces from a seed. For tests and demos only: predictable by design."""

    def __init__(self, seed: int | str) -> None:
        super().__init__()
        self._random = random.Random(seed)

    def _face(self, sides: int) -> int:
        return self._random.randint(1, sides)


class DiceExhausted(Exception):
    """Raised when a roll needs more manual faces than were given."""


class ManualDice(DiceSource):
    """Faces a person entered (physical dice), consumed in order and checked for range.

    With ``pad`` set, missing faces are filled with 1s instead of raising: the pipeline uses
    that to learn how many dice a roll needs, to say so in the ``bad_dice`` error.
    """

    def __init__(self, faces: list[int], *, pad: bool = False) -> None:
        super().__init__()
        self.faces = list(faces)
        self.pad = pad

    def _face(self, sides: int) -> int:
        index = len(self.rolled)
        if index >= len(self.faces):
            if self.pad:
                return 1
            raise DiceExhausted
        face = self.faces[index]
        if not 1 <= face <= sides:
            raise ProtocolError(
                "bad_dice",
                f"die #{index + 1} is a d{sides}: its face must be 1 to {sides}, not {face}",
                fr=f"le dé n°{index + 1} est un d{sides} : sa face va de 1 à {sides}, pas {face}",
                details={"index": index, "sides": sides, "face": face},
            )
        return face

    @property
    def unused(self) -> int:
        """How many given faces the roll did not consume."""
        return max(0, len(self.faces) - len(self.rolled))


def describe_dice(rolled: list[dict[str, Any]]) -> str:
    """A compact description of a sequence of dice, e.g. ``d10 ×5`` or ``d6 ×2, d8``."""
    groups: list[list[int]] = []
    for die in rolled:
        if groups and groups[-1][0] == die["sides"]:
            groups[-1][1] += 1
        else:
            groups.append([die["sides"], 1])
    return ", ".join(f"d{s} ×{n}" if n > 1 else f"d{s}" for s, n in groups) or "aucun"

