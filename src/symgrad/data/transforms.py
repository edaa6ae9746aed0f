"""Element-wise and counting transformations: ``map``, ``filter``, ``repeat``, ``take``,
``skip``, ``shard``, ``enumerate``, ``cache``, ``concatenate``, ``reduce``, ``scan``,
``unique``, ``choose_from_datasets``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.context import init_scope
from symgrad.core.errors import InvalidArgumentError
from symgrad.data import structure
from symgrad.data.base import INFINITE, UNKNOWN, passthrough, primed, scoped
from symgrad.data.batching import as_int
from symgrad.data.functions import Traced, for_element, scalar_bool
from symgrad.runtime.function import TensorSpec


def map_(ds: Any, map_func: Callable[..., Any]) -> Any:
    traced, split = for_element(map_func, ds.element_spec, "map")
    if traced.is_identity:
        return passthrough(ds, traced.output_spec)

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for flat in items:
            yield traced.flat(split(flat))

    return type(ds)(traced.output_spec, ds._card, produce)


def filter_(ds: Any, predicate: Callable[..., Any]) -> Any:
    traced, split = for_element(predicate, ds.element_spec, "filter")
    scalar_bool(traced)

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for flat in items:
            if traced.flat(split(flat))[0]:
                yield flat

    return type(ds)(ds.element_spec, UNKNOWN, produce)


def take_while(ds: Any, predicate: Callable[..., Any]) -> Any:
    traced, split = for_element(predicate, ds.element_spec, "take_while")
    scalar_bool(traced)

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for flat in items:
            if not traced.flat(split(flat))[0]:
                return
            yield flat

    return type(ds)(ds.element_spec, UNKNOWN, produce)


def repeat(ds: Any, count: Any) -> Any:
    n = -1 if count is None else as_int(count, "count")
    if n == 1:
        return passthrough(ds)
    card = ds._card
    if n < 0:
        card = 0 if card == 0 else (INFINITE if card >= 0 or card == INFINITE else UNKNOWN)
    elif card >= 0:
        card = card * n
    elif n == 0:
        card = 0

    @primed
    def produce() -> Iterator[structure.Flat]:
        # TF's finite repeat makes its input's iterator at once and a new one after each
        # pass, the last included (an unused one, whose shuffles draw seeds); the endless
        # repeat makes each when it needs it, and stops at an empty pass.
        if n == 0 and ds._top == "shuffle":  # TF's fused ShuffleAndRepeat refuses count 0
            raise InvalidArgumentError("count must be greater than zero or equal to -1.")
        current = ds._iterate() if n > 0 else None
        yield ()
        for i in range(n):
            yield from current  # type: ignore[misc]
            current = ds._iterate() if i + 1 < n or ds._top != "shuffle" else None
        while n < 0:
            empty = True
            for flat in ds._iterate():
                empty = False
                yield flat
            if empty:
                return

    return type(ds)(ds.element_spec, card, produce)


def take(ds: Any, count: Any) -> Any:
    n = as_int(count, "count")
    card = (
        ds._card
        if n < 0
        else (n if ds._card in (INFINITE,) else min(n, ds._card) if ds._card >= 0 else UNKNOWN)
    )
    if n < 0:
        return passthrough(ds)
    return type(ds)(ds.element_spec, card, lambda: itertools.islice(ds._iterate(), n))


def skip(ds: Any, count: Any) -> Any:
    n = as_int(count, "count")
    if n < 0:  # TF: skip(-1) skips everything
        card = INFINITE if ds._card == INFINITE else (0 if ds._card >= 0 else UNKNOWN)
        if ds._card == INFINITE:
            return type(ds)(ds.element_spec, card, lambda: iter(()))
        return type(ds)(ds.element_spec, card, lambda: _drain(ds._iterate()))
    if n == 0:
        return passthrough(ds)
    card = max(ds._card - n, 0) if ds._card >= 0 else ds._card
    return type(ds)(ds.element_spec, card, lambda: itertools.islice(ds._iterate(), n, None))


def _drain(it: Iterator[Any]) -> Iterator[Any]:
    for _ in it:
        pass
    return iter(())


def shard(ds: Any, num_shards: Any, index: Any) -> Any:
    k, i = as_int(num_shards, "num_shards"), as_int(index, "index")
    if k <= 0:
        raise InvalidArgumentError(
            f"Number of shards must be greater than zero (currently num_shards = {k})."
        )
    if not 0 <= i < k:
        raise InvalidArgumentError(f"Index must be between 0 and {k - 1} (currently index = {i}).")
    if k == 1:
        return passthrough(ds)
    card = ds._card // k + (i < ds._card % k) if ds._card >= 0 else ds._card
    return type(ds)(ds.element_spec, card, lambda: itertools.islice(ds._iterate(), i, None, k))


def enumerate_(ds: Any, start: Any) -> Any:
    first = as_int(start, "start")
    spec = (TensorSpec([], dt.int64), ds.element_spec)

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for i, flat in enumerate(items, first):
            yield (np.asarray(i, np.int64), *flat)

    return type(ds)(spec, ds._card, produce)


def cache(ds: Any) -> Any:
    """In memory: the first complete pass is kept and replayed (TF's MemoryCache)."""
    kept: list[list[structure.Flat]] = []

    @primed
    def produce() -> Iterator[structure.Flat]:
        if kept:
            yield ()
            yield from kept[0]
            return
        items = ds._iterate()
        yield ()
        seen = []
        for flat in items:
            seen.append(flat)
            yield flat
        kept.append(seen)

    return type(ds)(ds.element_spec, ds._card, produce)


def concatenate(ds: Any, other: Any) -> Any:
    try:
        structure.check_matches("concatenate", ds.element_spec, other.element_spec)
    except TypeError as e:
        raise TypeError(
            f"Incompatible dataset elements:\n  {ds.element_spec} vs.   {other.element_spec}"
        ) from e
    spec = structure.merge_spec(ds.element_spec, other.element_spec)
    a, b = ds._card, other._card
    card = a + b if a >= 0 and b >= 0 else (INFINITE if INFINITE in (a, b) else UNKNOWN)
    return type(ds)(spec, card, lambda: itertools.chain(ds._iterate(), _later(other)))


def _later(ds: Any) -> Iterator[structure.Flat]:
    """``ds``'s elements, its iterator made only when the first is asked for (TF's
    concatenate opens its second input when the first ends)."""
    yield from ds._iterate()


def _state(value: Any) -> tuple[Any, structure.Flat]:
    with init_scope():  # the pipeline runs eagerly even while a function is traced
        v = structure.normalize(value)
    return structure.spec_of(v), structure.arrays(v)


def reduce(ds: Any, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
    spec, state = _state(initial_state)
    traced = Traced(reduce_func, [spec, ds.element_spec], "reduce")
    structure.check_matches("reduce: reduce_func's result", spec, traced.output_spec)
    for flat in scoped(ds._iterate()):
        with init_scope():
            state = traced.flat([state, flat])
    return structure.to_tensors(spec, state)


def scan(ds: Any, initial_state: Any, scan_func: Callable[..., Any]) -> Any:
    spec, first = _state(initial_state)
    traced = Traced(scan_func, [spec, ds.element_spec], "scan")
    out = traced.output_spec
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(
            "The scan function must return a pair comprising the new state and the output value."
        )
    structure.check_matches("scan: the new state", spec, out[0])
    n_state = len(structure.flatten(spec))

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        state = first
        for flat in items:
            both = traced.flat([state, flat])
            state = both[:n_state]
            yield both[n_state:]

    return type(ds)(out[1], ds._card, produce)


def unique(ds: Any) -> Any:
    """Each element the first time it is seen, in order (scalars or vectors of int32,
    int64 or strings, as TF's)."""
    spec = ds.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype not in (dt.int32, dt.int64):
        kind = spec.dtype if isinstance(spec, TensorSpec) else type(spec).__name__
        raise TypeError(
            f"`tf.data.Dataset.unique` does not support type {kind} -- only `tf.int32`, "
            "`tf.int64`, and `tf.string` are supported."
        )

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        seen: set[Any] = set()
        for flat in items:
            key = flat[0].tobytes() + str(flat[0].shape).encode()
            if key not in seen:
                seen.add(key)
                yield flat

    return type(ds)(spec, UNKNOWN, produce)


def choose_from_datasets(
    cls: Any, datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool
) -> Any:
    """The next element of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (int64
    scalars); an exhausted input ends it (``stop_on_empty_dataset``) or is skipped, and
    the last one exhausted ends it (TF's ``DirectedInterleaveDataset``)."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    got = choice_dataset.element_spec
    if not (isinstance(got, TensorSpec) and got.dtype is dt.int64 and got.shape.rank == 0):
        raise TypeError(
            "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
            f"tensors but are {got}."
        )
    spec = datasets[0].element_spec
    for other in datasets[1:]:
        structure.check_matches("choose_from_datasets", spec, other.element_spec)
        spec = structure.merge_spec(spec, other.element_spec)

    @primed
    def produce() -> Iterator[structure.Flat]:
        choices = choice_dataset._iterate()
        inputs = [d._iterate() for d in datasets]
        yield ()
        empty = [False] * len(inputs)
        for (choice,) in choices:
            i = int(choice)
            if not 0 <= i < len(inputs):
                raise InvalidArgumentError(f"Selector index out of range: {i} >= {len(inputs)}")
            if empty[i]:
                continue
            flat = next(inputs[i], None)
            if flat is None:
                if stop_on_empty_dataset:
                    return
                empty[i] = True
                if all(empty):  # TF's kernel ends once no input is left
                    return
                continue
            yield flat

    # TF's DirectedInterleave: infinite if an input is, else unknown
    card = INFINITE if any(d._card == INFINITE for d in datasets) else UNKNOWN
    return cls(spec, card, produce)
