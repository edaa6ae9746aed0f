"""Elements of a dataset: a nested structure (tuples, namedtuples, dicts) of tensors.

Inside the pipeline an element is kept *flat*, a tuple of NumPy arrays in ``nest.flatten``
order, beside the dataset's ``element_spec`` (the same structure of ``TensorSpec``), so
batching, zipping and shuffling move arrays and never walk structures.  Users see eager
Tensors rebuilt into the structure.  A Python list is a tensor, not a structure, as
``tf.data`` reads it (``from_tensor_slices([1, 2])`` is one int32 component).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.graph import Tensor
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.runtime.function import TensorSpec

Flat = tuple[np.ndarray, ...]


def is_structure(value: Any) -> bool:
    return isinstance(value, tuple | dict)


def normalize(value: Any) -> Any:
    """``value`` with lists read as tensors and every leaf an eager (or symbolic) Tensor."""
    if isinstance(value, dict):
        return type(value)((k, normalize(v)) for k, v in value.items())
    if isinstance(value, tuple):
        items = [normalize(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "read_value"):  # a Variable: its value now
        return value.read_value()
    return convert_to_tensor(value)


def flatten(structure: Any) -> list[Any]:
    """Leaves of a normalized structure (lists never occur in one)."""
    return nest.flatten(structure)


def pack(spec: Any, flat: list[Any]) -> Any:
    return nest.pack_sequence_as(spec, list(flat))


def spec_of(structure: Any, batch_dim: bool = False) -> Any:
    """The ``TensorSpec`` structure of normalized tensors (their rows' when ``batch_dim``)."""

    def one(t: Tensor) -> TensorSpec:
        shape = t.shape
        if batch_dim:
            if shape.rank == 0:
                raise ValueError(
                    f"Unbatching a tensor is only supported for rank >= 1, got a scalar {t!r}"
                )
            shape = TensorShape(shape.as_list()[1:]) if shape.rank is not None else shape
        return TensorSpec(shape, t.dtype)

    return nest.map_structure(one, structure)


def arrays(structure: Any) -> Flat:
    """The NumPy values of a normalized structure of eager tensors, flat."""
    return tuple(np.asarray(t.numpy()) for t in flatten(structure))


def to_tensors(spec: Any, flat: Flat) -> Any:
    """An element as users see it: eager Tensors in the spec's structure."""
    specs = flatten(spec)
    return pack(
        spec,
        [
            a if hasattr(a, "_iterate") else constant(a, s.dtype)  # a dataset stays one
            for a, s in zip(flat, specs, strict=True)
        ],
    )


def to_numpy(spec: Any, flat: Flat) -> Any:
    """An element as ``as_numpy_iterator`` yields it (scalars as NumPy scalars, as TF)."""
    return pack(spec, [a[()] if np.ndim(a) == 0 else a for a in flat])


def with_shapes(spec: Any, fn: Any) -> Any:
    """The spec with each component's shape replaced by ``fn(shape)``."""
    return nest.map_structure(lambda s: TensorSpec(fn(s.shape), s.dtype), spec)


def check_matches(what: str, expected: Any, got: Any) -> None:
    """Refuse a structure that differs from the expected one (TF's TypeError)."""
    try:
        nest.pack_sequence_as(expected, flatten(got))
        same = _shape_of(expected) == _shape_of(got)
    except ValueError:
        same = False
    if not same:
        raise TypeError(
            f"{what}: the structure of the value {_describe(got)} does not match the expected "
            f"structure {_describe(expected)}"
        )
    for e, g in zip(flatten(expected), flatten(got), strict=True):
        if e.dtype is not g.dtype:
            raise TypeError(
                f"{what}: expected a component of dtype {e.dtype.name}, got {g.dtype.name}"
            )


def _shape_of(structure: Any) -> Any:
    return nest.map_structure(lambda _: None, structure)


def _describe(structure: Any) -> str:
    return str(nest.map_structure(lambda x: getattr(x, "dtype", x).name, structure))


def merge_spec(a: Any, b: Any) -> Any:
    """The most specific spec both ``a`` and ``b`` satisfy (a dimension or rank that differs
    becomes unknown), as ``concatenate`` and ``repeat``-style joins give."""
    merged = [
        TensorSpec(_most_specific(x.shape, y.shape), x.dtype)
        for x, y in zip(flatten(a), flatten(b), strict=True)
    ]
    return pack(a, merged)


def _most_specific(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def np_dtype(spec: TensorSpec) -> np.dtype[Any]:
    return dt.as_dtype(spec.dtype).np
