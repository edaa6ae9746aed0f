"""``Dataset.shuffle`` with TF's algorithm, so a seeded pipeline yields TF's order.

TF's ``ShuffleDatasetOp`` (``shuffle_dataset_op.cc``): a ring buffer of ``buffer_size``
slots is filled from the input; each output draws one uint32 ``r`` from a Philox stream
(``SingleSampleAdapter<PhiloxRandom>``), takes slot ``(start + r % n) % size`` where ``n``
is the number of buffered elements, moves the oldest element (slot ``start % size``) into
the hole, and refills.  Each new iterator gets its stream's ``(seed, seed2)`` from the
dataset's seed generator: with ``reshuffle_each_iteration`` a Philox stream of its own keyed
by the op's seeds gives two draws per iterator; without it, every iterator uses the op's
seeds.  The op's seeds are ``random_seed.get_seed(seed)`` (global seed and op seed).  An
iterator draws its seeds when made and makes its input's iterator at its first element.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.core.errors import InvalidArgumentError
from symgrad.data import structure
from symgrad.ops.random import philox
from symgrad.ops.random.seeded import get_seed

_MAXINT32 = 2**31 - 1
_U64 = (1 << 64) - 1


def op_seeds(seed: Any) -> tuple[int, int]:
    """TF's ``data.util.random_seed.get_seed``: (0, 0) stands for "unseeded"."""
    if seed is not None and hasattr(seed, "numpy"):
        seed = int(seed.numpy())
    s1, s2 = get_seed(seed)
    if s1 is None or s2 is None:
        return 0, 0
    if s1 == 0 and s2 == 0:
        return 0, _MAXINT32
    return int(s1), int(s2)


class _Words:
    """A Philox stream read one uint32 at a time (TF's ``SingleSampleAdapter``)."""

    _CHUNK = 256

    def __init__(self, seed: int, seed2: int) -> None:
        self._key, self._counter = seed & _U64, (seed2 & _U64) << 64
        self._buf: list[int] = []
        self._used = 0  # blocks consumed

    def __call__(self) -> int:
        if not self._buf:
            words = philox.blocks_at(
                self._key,
                self._counter,
                np.arange(self._used, self._used + self._CHUNK, dtype=np.uint64),
            )
            self._used += self._CHUNK
            self._buf = words.reshape(-1).tolist()[::-1]
        return self._buf.pop()


class SeedGenerator:
    """Seeds for each new iterator (TF's Random/FixedSeedGenerator)."""

    def __init__(self, seeds: tuple[int, int], reshuffle: bool) -> None:
        if seeds == (0, 0):  # unseeded: TF draws fresh 64-bit seeds from the OS
            seeds = (secrets.randbits(63), secrets.randbits(63))
        self._seeds = seeds
        self._words = _Words(*seeds) if reshuffle else None

    def next(self) -> tuple[int, int]:
        if self._words is None:
            return self._seeds
        return self._words(), self._words()


def shuffled(
    items: Iterator[structure.Flat], size: int, seeds: tuple[int, int]
) -> Iterator[structure.Flat]:
    """TF's shuffle of ``items`` through a ring buffer of ``size`` slots."""
    draw = _Words(*seeds)
    ring: dict[int, Any] = {}  # slot -> element: a buffer_size of 2**31 costs nothing
    start = end = 0
    more = True
    while True:
        while more and end - start < size:
            item = next(items, None)
            if item is None:
                more = False
            else:
                ring[end % size] = item
                end += 1
        if end == start:
            return
        index = (start + draw() % (end - start)) % size
        out = ring[index]
        ring[index] = ring.pop(start % size)
        if index == start % size:
            del ring[index]
        start += 1
        yield out


def _opened_later(ds: Any) -> Iterator[structure.Flat]:
    """``ds``'s elements, its iterator made when the first is asked for: TF's shuffle
    makes its input's iterator when it first fills its buffer, so a shuffle below draws
    its seeds then (which matters where two consumers share a seedless shuffle)."""
    yield from ds._iterate()


def shuffle(ds: Any, buffer_size: Any, seed: Any, reshuffle_each_iteration: Any) -> Any:
    size = int(np.asarray(buffer_size.numpy() if hasattr(buffer_size, "numpy") else buffer_size))
    if size == -1:  # AUTOTUNE: TF buffers the whole input
        size = 2**62
    if size <= 0:
        raise InvalidArgumentError(f"buffer_size must be greater than zero, got {size}")
    reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
    generator = SeedGenerator(op_seeds(seed), reshuffle)

    def produce() -> Iterator[structure.Flat]:
        seeds = generator.next()  # now, as TF's iterator draws its seeds when made;
        return shuffled(_opened_later(ds), size, seeds)  # its input at the first element

    out = type(ds)(ds.element_spec, ds._card, produce)
    out._top = "shuffle"
    return out
