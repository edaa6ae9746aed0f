"""``batch``, ``padded_batch``, ``unbatch``, ``rebatch``: elements to batches and back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.core.errors import InvalidArgumentError
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.data import structure
from symgrad.data.base import INFINITE, UNKNOWN, primed
from symgrad.runtime.function import TensorSpec


def as_int(value: Any, what: str) -> int:
    v = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if v.ndim != 0 or v.dtype.kind not in "iu":
        raise TypeError(f"{what} must be an integer scalar, got {value!r}")
    return int(v)


def batched_card(card: int, size: int, drop: bool) -> int:
    if card < 0:
        return card
    return card // size if drop else -(-card // size)


def groups(items: Iterator[structure.Flat], size: int, drop: bool) -> Iterator[list[Any]]:
    while True:
        group = []
        for item in items:
            group.append(item)
            if len(group) == size:
                break
        if not group or (drop and len(group) < size):
            return
        yield group
        if len(group) < size:
            return


def stack(group: list[structure.Flat]) -> structure.Flat:
    out = []
    for c, parts in enumerate(zip(*group, strict=True)):
        first = parts[0].shape
        for i, p in enumerate(parts):
            if p.shape != first:
                raise InvalidArgumentError(
                    f"Cannot batch tensors with different shapes in component {c}. First "
                    f"element had shape {list(first)} and element {i} had shape {list(p.shape)}."
                )
        out.append(np.stack(parts))
    return tuple(out)


def batch(ds: Any, batch_size: Any, drop_remainder: bool) -> Any:
    size = as_int(batch_size, "batch_size")
    if size <= 0:
        raise InvalidArgumentError(f"Batch size must be greater than zero, got {size}")
    dim = size if drop_remainder else None
    spec = structure.with_shapes(ds.element_spec, lambda s: _prepend(dim, s))
    card = batched_card(ds._card, size, bool(drop_remainder))
    return type(ds)(
        spec, card, lambda: map(stack, groups(ds._iterate(), size, bool(drop_remainder)))
    )


def _prepend(dim: int | None, shape: TensorShape) -> TensorShape:
    return TensorShape(None) if shape.rank is None else TensorShape([dim, *shape.as_list()])


def unbatch(ds: Any) -> Any:
    for s in structure.flatten(ds.element_spec):
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
    spec = structure.with_shapes(
        ds.element_spec,
        lambda sh: TensorShape(None) if sh.rank is None else TensorShape(sh.as_list()[1:]),
    )
    inner = ds.element_spec

    @primed
    def produce() -> Iterator[structure.Flat]:
        items = ds._iterate()
        yield ()
        for flat in items:
            n = {a.shape[0] for a in flat}
            if len(n) > 1:
                raise InvalidArgumentError(
                    f"Input element components must have the same leading dimension size; "
                    f"got {sorted(n)} in {inner}"
                )
            for i in range(n.pop() if n else 0):
                yield tuple(a[i] for a in flat)

    return type(ds)(spec, _unbatched_card(ds), produce)


def _unbatched_card(ds: Any) -> int:
    """Known when every component's batch size is (TF's UnbatchDataset)."""
    if ds._card < 0:
        return ds._card if ds._card == INFINITE else UNKNOWN
    sizes = {
        s.shape.as_list()[0] if s.shape.rank else None for s in structure.flatten(ds.element_spec)
    }
    n = sizes.pop() if len(sizes) == 1 else None
    return UNKNOWN if n is None else ds._card * n


def rebatch(ds: Any, batch_size: Any, drop_remainder: bool) -> Any:
    """``rebatch(n)``: the batches' rows regrouped into batches of ``n``."""
    size = as_int(batch_size, "batch_size")
    if any(s.shape.rank == 0 for s in structure.flatten(ds.element_spec)):
        raise ValueError(
            "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset "
            "with scalar elements. Fix the issue by adding the `batch` transformation to "
            "the dataset."
        )
    rows = unbatch(ds)
    out = batch(rows, size, drop_remainder)
    out._card = UNKNOWN if ds._card != INFINITE else INFINITE
    # TF's static batch size: known unless a partial batch may form
    dims = {s.shape.as_list()[0] for s in structure.flatten(ds.element_spec) if s.shape.rank}
    known = [d for d in dims if d is not None]
    if drop_remainder or (known and known[0] % size == 0):
        out._spec = structure.with_shapes(
            out.element_spec, lambda sh: _prepend(size, TensorShape(sh.as_list()[1:]))
        )
    return out


def padded_batch(
    ds: Any, batch_size: Any, padded_shapes: Any, padding_values: Any, drop: bool
) -> Any:
    size = as_int(batch_size, "batch_size")
    specs = structure.flatten(ds.element_spec)
    shapes = _padded_shapes(ds.element_spec, specs, padded_shapes)
    pads = _padding_values(ds.element_spec, specs, padding_values)
    dim = size if drop else None
    spec = structure.pack(
        ds.element_spec,
        [
            TensorSpec(TensorShape([dim, *sh.as_list()]), s.dtype)
            for sh, s in zip(shapes, specs, strict=True)
        ],
    )

    def pad_group(group: list[structure.Flat]) -> structure.Flat:
        return tuple(_pad(c, [g[c] for g in group], shapes[c], pads[c]) for c in range(len(specs)))

    card = batched_card(ds._card, size, drop)
    return type(ds)(spec, card, lambda: map(pad_group, groups(ds._iterate(), size, drop)))


def _padded_shapes(
    element_spec: Any, specs: list[TensorSpec], padded_shapes: Any
) -> list[TensorShape]:
    if padded_shapes is None:
        for s in specs:
            if s.shape.rank is None:
                raise ValueError(
                    "You must provide `padded_shapes` argument because component has unknown rank."
                )
        return [s.shape for s in specs]
    if len(specs) == 1 and not isinstance(padded_shapes, tuple | dict):
        given = [as_shape(padded_shapes)]
    else:
        given = [as_shape(p) for p in shape_leaves(element_spec, padded_shapes)]
    for g, s in zip(given, specs, strict=True):
        if not g.is_compatible_with(s.shape) and s.shape.rank is not None:
            raise ValueError(
                f"The padded shape {g} is not compatible with the shape {s.shape} of the "
                "corresponding input component."
            )
    return given


def shape_leaves(spec: Any, shapes: Any) -> list[Any]:
    if isinstance(spec, dict):
        return [x for k in sorted(spec) for x in shape_leaves(spec[k], shapes[k])]
    if isinstance(spec, tuple):
        return [x for s, p in zip(spec, shapes, strict=True) for x in shape_leaves(s, p)]
    return [shapes]


def _padding_values(element_spec: Any, specs: list[TensorSpec], values: Any) -> list[Any]:
    if values is None:
        return [np.zeros((), s.dtype.np) for s in specs]
    leaves = (
        [values] * len(specs)
        if not structure.is_structure(values)
        else shape_leaves(element_spec, values)
    )
    out = []
    for v, s in zip(leaves, specs, strict=True):
        a = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
        if hasattr(v, "dtype") and hasattr(v, "numpy") and v.dtype is not s.dtype:
            raise TypeError(
                f"Padding value dtype {v.dtype.name} does not match the component dtype "
                f"{s.dtype.name}"
            )
        out.append(a.astype(s.dtype.np))
    return out


def _pad(c: int, parts: list[np.ndarray], shape: TensorShape, value: np.ndarray) -> np.ndarray:
    dims = [
        d if d is not None else max(p.shape[i] for p in parts)
        for i, d in enumerate(shape.as_list())
    ]
    out = np.full([len(parts), *dims], value, dtype=parts[0].dtype)
    for i, p in enumerate(parts):
        if any(n > d for n, d in zip(p.shape, dims, strict=True)):
            raise InvalidArgumentError(
                f"Attempted to pad to a smaller size than the input element in component {c}: "
                f"element shape {list(p.shape)}, padded shape {dims}."
            )
        index: tuple[Any, ...] = (i, *[slice(0, n) for n in p.shape])
        out[index] = p
    return out
