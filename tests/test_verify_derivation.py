"""The derivation of verifiable faces: exactly the documented one, and uniform.

The server's fast source (:class:`sidecar.dice.sources.ProvableDice`, faces in bulk per die
size) must give the faces the one-at-a-time reference (:func:`sidecar.dice.provable.faces_of`)
and the standalone verifier give; a χ² test per die size over 10⁶ faces checks the
rejection sampling leaves every face equally likely (fixed seeds: the test is
deterministic)."""

from __future__ import annotations

import asyncio
import collections
import hmac
import importlib.util
import math
from pathlib import Path

import pytest

from sidecar.dice.provable import (
    LEAVES,
    Epoch,
    Keyed,
    faces_of,
    hmac_once,
    leaf_key,
    root_from_path,
    tree,
)
from sidecar.dice.sources import MAX_DRAWS, ProvableDice
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host

ROOT = Path(__file__).resolve().parent.parent


def _standalone():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verify_dice",
                                                  ROOT / "examples" / "verify_dice.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fast_source_reference_and_standalone_agree() -> None:
    seed = bytes(range(32))
    standalone = _standalone()
    sides = [6, 6, 20, 10, 1000, 257, 256, 1, 2, 6, 100, 3] * 40
    for position in (0, 1, 4095):
        key = leaf_key(seed, position)
        source = ProvableDice(key, "client-1", position)
        drawn = [source.roll(s) for s in sides[:200]]
        for s in sides[200:]:
            drawn += source.roll_many(1, s)
        assert drawn == faces_of(key, "client-1", position, sides)
        assert drawn == standalone.faces(key, "client-1", position, sides)
        bulk = ProvableDice(key, "client-1", position).roll_many(MAX_DRAWS, 6)
        assert bulk == faces_of(key, "client-1", position, [6] * MAX_DRAWS)
    assert standalone.merkle_root(seed) == tree(seed).root
    assert standalone.DEPTH == (LEAVES - 1).bit_length()


def test_kept_hmac_states_are_hmac() -> None:
    """The server's HMAC from kept key states (leaf keys, later blocks) is HMAC-SHA256."""
    for length in (0, 1, 32, 63, 64, 65, 200):
        key = bytes(range(length % 256))[:length] or b""
        keyed = Keyed(key)
        for message in (b"", b"sidecar-leaf\x00\x00\x00\x07", bytes(100)):
            assert keyed.digest(message) == hmac.digest(key, message, "sha256")
            if length <= 64:
                assert hmac_once(key, message) == hmac.digest(key, message, "sha256")
        assert keyed.digests(b"p", 3, 2) == b"".join(
            hmac.digest(key, b"p" + j.to_bytes(4, "big"), "sha256") for j in (3, 4))
    epoch = Epoch.fresh(1, base=0)
    assert [epoch.leaf(p) for p in (0, 7, LEAVES - 1)] == [
        leaf_key(epoch.seed, p) for p in (0, 7, LEAVES - 1)]


def test_every_leaf_has_a_path_to_the_commitment() -> None:
    epoch = Epoch.fresh(1, base=0)
    whole = tree(epoch.seed)
    for position in (0, 1, 2, 1000, LEAVES - 1):
        key = leaf_key(epoch.seed, position)
        assert root_from_path(key, position, whole.path(position)) == epoch.commitment
        assert root_from_path(key, position ^ 1, whole.path(position)) != epoch.commitment


def test_client_seed_and_position_change_the_faces() -> None:
    seed = b"\x07" * 32
    base = faces_of(leaf_key(seed, 3), "a", 3, [1000] * 10)
    assert faces_of(leaf_key(seed, 3), "b", 3, [1000] * 10) != base
    assert faces_of(leaf_key(seed, 4), "a", 4, [1000] * 10) != base


def _chi2_limit(freedom: int, z: float = 3.719) -> float:
    """The χ² value exceeded with probability 10⁻⁴ (Wilson–Hilferty)."""
    k = freedom
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


FACES = 1_000_000


@pytest.mark.parametrize("sides", [2, 3, 4, 6, 8, 10, 12, 20, 100, 255, 256, 257, 1000])
def test_chi_squared_uniform_per_die_size(sides: int) -> None:
    seed = sides.to_bytes(32, "big")
    counts: collections.Counter[int] = collections.Counter()
    total = 0
    position = 0
    while total < FACES:
        # Each position's own key and stream, as rolls draw them (many blocks each).
        source = ProvableDice(leaf_key(seed, position % LEAVES), f"c{position}", position)
        for _ in range(64):
            faces = source._refill(sides)
            counts.update(faces)
            total += len(faces)
        position += 1
    assert set(counts) == set(range(1, sides + 1))
    expected = total / sides
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
    assert chi2 < _chi2_limit(sides - 1), (sides, chi2)


def test_a_roll_draws_from_the_dice_source_it_is_given() -> None:
    """The server hands each roll its verifiable dice as an argument of the pipeline (no
    task-local variable, no factory swapped on the shared pipeline): the faces are the
    derivation's for that roll's leaf key, client seed and position."""
    pipeline = RollPipeline(default_host(None))
    key = leaf_key(bytes(range(32)), 5)
    for ruleset, params in (("bloodlust", {"pool": 4}), ("oweens", {"dice": 3})):
        source = ProvableDice(key, "client-seed", 5)
        resolution = asyncio.run(pipeline.run(pipeline.prepare(ruleset, params),
                                              table_state={}, source=source))
        drawn = source.rolled
        assert drawn and resolution.drawn == len(drawn)
        assert [d["face"] for d in drawn] == faces_of(key, "client-seed", 5,
                                                      [d["sides"] for d in drawn])
