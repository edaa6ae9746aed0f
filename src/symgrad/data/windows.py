"""Datasets of datasets: ``window``, ``flat_map``, ``interleave``, ``group_by_window``,
``bucket_by_sequence_length`` (TF's kernels' orders, see each function).

TF traces ``flat_map``/``interleave``/``group_by_window``'s functions once into graphs that
build datasets; here they are called per element with eager tensors (the datasets they
return are built from values), so a Python side effect in them runs once per element.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.context import init_scope
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.shapes import TensorShape
from symgrad.data import structure
from symgrad.data.base import UNKNOWN, DatasetBase, primed
from symgrad.data.batching import as_int
from symgrad.data.functions import Traced, for_element
from symgrad.ops.array.gather import gather
from symgrad.ops.array.structure import cast, where
from symgrad.ops.core import constant
from symgrad.ops.math.elementwise import less, less_equal, logical_and
from symgrad.ops.reduction.reduce import reduce_min
from symgrad.runtime.function import TensorSpec


class DatasetSpec:
    """The type of a dataset-valued component (TF's ``tf.data.DatasetSpec``)."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)
        self.dtype = None  # a dataset component has no tensor dtype

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self) -> int:
        return hash(("DatasetSpec", str(self.element_spec)))

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec}, {self.shape!r})"


def window(ds: Any, size: Any, shift: Any, stride: Any, drop_remainder: bool) -> Any:
    n = as_int(size, "size")
    step = n if shift is None else as_int(shift, "shift")
    every = as_int(stride, "stride")
    for what, v in (("size", n), ("shift", step), ("stride", every)):
        if v <= 0:
            raise InvalidArgumentError(f"Window {what} must be greater than zero, but got {v}.")
    specs = structure.flatten(ds.element_spec)
    spec = structure.pack(ds.element_spec, [DatasetSpec(s) for s in specs])
    target = (n - 1) * every + 1
    cls = type(ds)

    @primed
    def produce() -> Iterator[structure.Flat]:
        it: Iterator[structure.Flat] | None = ds._iterate()
        yield ()
        buf: list[structure.Flat] = []
        while True:
            while it is not None and len(buf) < target:
                item = next(it, None)
                if item is None:
                    it = None
                else:
                    buf.append(item)
            if not buf or (drop_remainder and len(buf) < target):
                return
            rows = buf[: len(buf) : every][:n]
            yield tuple(_component(cls, s, [r[c] for r in rows]) for c, s in enumerate(specs))
            if step >= len(buf):
                for _ in range(step - len(buf)):
                    if it is not None and next(it, None) is None:
                        it = None
                buf = []
            else:
                buf = buf[step:]

    return cls(spec, _window_card(ds._card, n, step, target, drop_remainder), produce)


def _window_card(card: int, size: int, shift: int, target: int, drop: bool) -> int:
    if card < 0:
        return card
    if drop:
        return 0 if card < target else (card - target) // shift + 1
    return -(-card // shift)


def _component(cls: type, spec: TensorSpec, values: list[np.ndarray]) -> Any:
    rows = tuple((v,) for v in values)
    return cls(spec, len(rows), lambda: iter(rows))


def _dataset_fn(
    fn: Callable[..., Any], spec: Any, what: str
) -> tuple[Callable[[structure.Flat], Any], Any]:
    """``fn`` as a function of a flat element: traced once when it can be (see
    :mod:`.traced_datasets`), else called eagerly on each element."""
    from symgrad.data.traced_datasets import traced_call

    unpack = type(spec) is tuple
    traced = traced_call(fn, spec, unpack)
    if traced is not None:
        return traced, spec

    def call(flat: structure.Flat) -> Any:
        value = structure.to_tensors(spec, flat)
        out = fn(*value) if unpack else fn(value)
        if not isinstance(out, DatasetBase):
            raise TypeError(
                f"`{what}` must return a `tf.data.Dataset` object, got {type(out).__name__}"
            )
        return out

    return call, spec


def _output_spec(call: Callable[[structure.Flat], Any], ds: Any) -> Any:
    """The spec of the datasets ``call`` returns: from a placeholder element of zeros
    (sizes unknown are 0), else from the input's first element."""
    with init_scope():
        try:
            spec = call(_zeros(ds.element_spec)).element_spec
            if getattr(call, "replays", False):  # no user Python runs: a second size shows
                other = call(_zeros(ds.element_spec, 1)).element_spec  # what the trace left
                spec = structure.merge_spec(spec, other)  # unknown (TF's spec from the trace)
            return spec
        except Exception:
            first = next(ds._iterate(), None)
            if first is None:
                raise
            return call(first).element_spec


def _zeros(spec: Any, unknown: int = 0) -> structure.Flat:
    out: list[Any] = []
    for s in structure.flatten(spec):
        if isinstance(s, DatasetSpec):
            out.append(DatasetBase(s.element_spec, 0, lambda: iter(())))
        else:
            dims = [
                unknown if d is None else d
                for d in (s.shape.as_list() if s.shape.rank is not None else [])
            ]
            out.append(np.zeros(dims, s.dtype.np))
    return tuple(out)


def flat_map(ds: Any, map_func: Callable[..., Any]) -> Any:
    call, _ = _dataset_fn(map_func, ds.element_spec, "map_func")
    spec = _output_spec(call, ds)

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for flat in items:
            yield from call(flat)._iterate()

    return type(ds)(spec, UNKNOWN, produce)


def interleave(ds: Any, map_func: Callable[..., Any], cycle_length: Any, block_length: Any) -> Any:
    """TF's InterleaveDataset: ``cycle_length`` open iterators, ``block_length`` elements
    from each in turn; an exhausted slot takes the next input element."""
    call, _ = _dataset_fn(map_func, ds.element_spec, "map_func")
    spec = _output_spec(call, ds)
    cycle = os.cpu_count() or 1 if cycle_length is None else as_int(cycle_length, "cycle_length")
    cycle = (os.cpu_count() or 1) if cycle == -1 else cycle
    block = 1 if block_length is None else as_int(block_length, "block_length")
    if cycle <= 0 or block <= 0:
        raise InvalidArgumentError("cycle_length and block_length must be greater than zero.")

    @primed
    def produce() -> Iterator[structure.Flat]:
        inputs: Iterator[structure.Flat] | None = ds._iterate()
        yield ()
        slots: list[Iterator[structure.Flat] | None] = [None] * cycle
        index = in_block = 0
        while inputs is not None or any(s is not None for s in slots):
            current = slots[index]
            if current is not None:
                item = next(current, None)
                if item is not None:
                    yield item
                    in_block += 1
                    if in_block == block:
                        index, in_block = (index + 1) % cycle, 0
                    continue
                slots[index] = None
                index, in_block = (index + 1) % cycle, 0
            elif inputs is not None:
                element = next(inputs, None)
                if element is None:
                    inputs = None
                else:
                    slots[index] = call(element)._iterate()
            else:
                index, in_block = (index + 1) % cycle, 0

    return type(ds)(spec, UNKNOWN, produce)


def group_by_window(
    ds: Any,
    key_func: Callable[..., Any],
    reduce_func: Callable[..., Any],
    window_size: Any,
    window_size_func: Callable[..., Any] | None,
) -> Any:
    """TF's GroupByWindowDataset: a group is flushed through ``reduce_func(key, window)``
    when it reaches its window size; at the end the rest are flushed by ascending key."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError(
            "Either the `window_size` argument or the `window_size_func` argument must be "
            "specified."
        )
    if window_size_func is None:
        fixed = as_int(window_size, "window_size")
        window_size_func = lambda key: np.int64(fixed)  # noqa: E731
    keys, split = for_element(key_func, ds.element_spec, "key_func")
    _check_int64_scalar(keys.output_spec, "key_func")
    sizes = Traced(window_size_func, [TensorSpec([], dt.int64)], "window_size_func")
    flush = _Flush(ds, reduce_func)
    with init_scope():
        spec = flush(0, []).element_spec

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        groups: dict[int, list[structure.Flat]] = {}
        limits: dict[int, int] = {}
        for flat in items:
            key = int(keys.flat(split(flat))[0])
            if key not in limits:
                limits[key] = int(sizes.flat([(np.asarray(key, np.int64),)])[0])
            groups.setdefault(key, []).append(flat)
            if len(groups[key]) == limits[key]:
                yield from flush(key, groups.pop(key))._iterate()
        for key in sorted(groups):
            yield from flush(key, groups[key])._iterate()

    return type(ds)(spec, UNKNOWN, produce)


class _Flush:
    """``reduce_func(key, window)`` for a group's rows, checked to return a dataset."""

    def __init__(self, ds: Any, reduce_func: Callable[..., Any]) -> None:
        self.cls, self.spec, self.fn = type(ds), ds.element_spec, reduce_func

    def __call__(self, key: int, rows: list[structure.Flat]) -> Any:
        window = self.cls(self.spec, len(rows), lambda: iter(rows))
        k = structure.to_tensors(TensorSpec([], dt.int64), (np.asarray(key, np.int64),))
        out = self.fn(k, window)
        if not isinstance(out, DatasetBase):
            raise TypeError("`reduce_func` must return a `tf.data.Dataset` object.")
        return out


def _check_int64_scalar(spec: Any, what: str) -> None:
    if (
        not isinstance(spec, TensorSpec)
        or spec.dtype is not dt.int64
        or spec.shape.rank not in (0, None)
    ):
        raise ValueError(
            f"Invalid `{what}`. `{what}` must return a single tf.int64 tensor. Got {spec}"
        )


def bucket_by_sequence_length(
    ds: Any,
    element_length_func: Callable[..., Any],
    bucket_boundaries: list[int],
    bucket_batch_sizes: list[int],
    padded_shapes: Any,
    padding_values: Any,
    pad_to_bucket_boundary: bool,
    no_padding: bool,
    drop_remainder: bool,
) -> Any:
    """TF's Python implementation: a ``group_by_window`` keyed by bucket id."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(
            f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
            f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
            f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
        )
    b = _Buckets(element_length_func, [int(x) for x in bucket_boundaries], bucket_batch_sizes)
    options = (padded_shapes, padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)
    return group_by_window(
        ds, b.bucket_id, lambda k, g: b.batching(k, g, *options), None, b.window_size
    )


class _Buckets:
    """The three functions TF's ``bucket_by_sequence_length`` gives ``group_by_window``."""

    def __init__(self, length: Callable[..., Any], bounds: list[int], sizes: list[int]) -> None:
        self.length, self.bounds, self.sizes = length, bounds, list(sizes)

    def bucket_id(self, *args: Any) -> Any:
        n = cast(self.length(*args), dt.int64)
        lows = constant([int(np.iinfo(np.int32).min), *self.bounds], dt.int64)
        highs = constant([*self.bounds, int(np.iinfo(np.int32).max)], dt.int64)
        inside = logical_and(less_equal(lows, n), less(n, highs))
        return reduce_min(where(inside))

    def window_size(self, bucket: Any) -> Any:
        return gather(constant(self.sizes, dt.int64), bucket)

    def batching(
        self,
        bucket: Any,
        group: Any,
        shapes: Any,
        values: Any,
        to_bound: bool,
        no_pad: bool,
        drop: bool,
    ) -> Any:
        b = int(bucket.numpy())
        size = int(self.sizes[b])
        if no_pad:
            return group.batch(size, drop_remainder=drop)
        filler = None
        if to_bound:
            if b >= len(self.sizes) - 1:
                raise InvalidArgumentError(
                    "When pad_to_bucket_boundary=True, elements must have length < "
                    "max(bucket_boundaries)."
                )
            filler = self.bounds[b] - 1
        shapes = shapes or structure.nest.map_structure(lambda s: s.shape, group.element_spec)
        return group.padded_batch(size, _fill_shapes(shapes, filler), values, drop_remainder=drop)


def _fill_shapes(shapes: Any, filler: int | None) -> Any:
    if isinstance(shapes, tuple | dict):
        return structure.nest.map_structure(
            lambda s: _fill_shapes(s, filler), _as_shape_leaves(shapes)
        )
    return [filler if d is None else d for d in TensorShape(shapes).as_list()]


def _as_shape_leaves(shapes: Any) -> Any:
    """Shapes given as lists are leaves: wrap them so nest does not walk into them."""
    if isinstance(shapes, dict):
        return {k: _as_shape_leaves(v) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_as_shape_leaves(v) for v in shapes)
    return TensorShape(shapes)
