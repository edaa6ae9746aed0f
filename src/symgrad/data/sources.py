"""Datasets made from values: ``from_tensor_slices``, ``from_tensors``, ``range``,
``from_generator``, ``zip``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.context import init_scope
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.data import structure
from symgrad.data.base import INFINITE, UNKNOWN, DatasetBase, primed
from symgrad.data.batching import shape_leaves
from symgrad.data.v1_iterators import Feeds
from symgrad.runtime.concrete_function import FuncGraph
from symgrad.runtime.function import TensorSpec


def _values(tensors: Any) -> tuple[Any, structure.Flat, Feeds | None]:
    """The structure's tensors and their arrays, made eagerly even while tracing.  In a
    TF1 graph, tensors without a value are the source's ``Feeds`` (the arrays: None)."""
    with init_scope():
        value = structure.normalize(tensors)
    flat = structure.flatten(value)
    symbolic = [t for t in flat if not t.has_value()]
    if not symbolic:
        return value, structure.arrays(value), None
    for t in symbolic:
        if isinstance(t.graph, FuncGraph):
            raise ValueError(
                f"tf.data in symgrad builds datasets from values, and {t.name} is symbolic "
                "(an argument or result inside a `function`): make the dataset outside "
                "the function and pass its elements in"
            )
    return value, (), Feeds(symbolic)


def _made(ds: Any, feeds: Feeds | None) -> Any:
    if feeds is not None:
        ds._feeds = (feeds,)
    return ds


def from_tensors(cls: type, tensors: Any) -> Any:
    value, flat, feeds = _values(tensors)
    spec = structure.spec_of(value)
    if feeds is not None:  # read when a TF1 iterator's pass starts
        leaves = structure.flatten(value)
        return _made(cls(spec, 1, lambda: iter([feeds.arrays(leaves)])), feeds)
    return cls(spec, 1, lambda: iter([flat]))


def from_tensor_slices(cls: type, tensors: Any) -> Any:
    value, flat, feeds = _values(tensors)
    if not structure.flatten(value):
        raise ValueError("Unbatching a dataset is only supported for rank >= 1")
    spec = structure.spec_of(value, batch_dim=True)
    if feeds is not None:  # read when a TF1 iterator's pass starts
        leaves = structure.flatten(value)
        return _made(cls(spec, UNKNOWN, lambda: _slices(feeds.arrays(leaves))), feeds)
    return cls(spec, _rows(flat), lambda: zip(*flat))  # rows as views (NumPy scalars for 1-D)


def _rows(flat: structure.Flat) -> int:
    n = flat[0].shape[0]
    for a in flat[1:]:
        if a.shape[0] != n:
            sizes = ", ".join(str(x.shape[0]) for x in flat)
            raise ValueError(
                "Dimensions of the components given to from_tensor_slices differ: the first "
                f"dimensions are {sizes}; every component needs the same number of rows"
            )
    return n


def _slices(flat: structure.Flat) -> Any:
    _rows(flat)
    return zip(*flat)


def range_(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``Dataset.range(stop)`` / ``(start, stop[, step])``, int64 unless ``output_type``
    says; TF reads no other keyword (``dtype=`` is ignored there, and here)."""
    dtype = kwargs.get("output_type", dt.int64)
    if not 1 <= len(args) <= 3:
        raise ValueError(f"Invalid arguments to Dataset.range: {args}")
    bounds = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    d = dt.as_dtype(dtype)
    spec = TensorSpec([], d)
    symbolic = [v for v in bounds if isinstance(v, Tensor) and not v.has_value()]
    if symbolic:  # a TF1 graph's tensors: the bounds are read when an iterator's pass starts
        feeds = Feeds(symbolic)

        def produce() -> Any:
            fed = dict(zip(map(id, symbolic), feeds.arrays(symbolic), strict=True))
            start, stop, step = (_int(fed.get(id(v), v)) for v in bounds)
            return _range(start, stop, step, d)

        return _made(cls(spec, UNKNOWN, produce), feeds)
    start, stop, step = (_int(v) for v in bounds)
    if step == 0:
        raise InvalidArgumentError("step must be a non-zero integer.")
    return cls(spec, len(range(start, stop, step)), lambda: _range(start, stop, step, d))


def _range(start: int, stop: int, step: int, d: Any) -> Any:
    if step == 0:
        raise InvalidArgumentError("step must be a non-zero integer.")
    return ((np.asarray(v, d.np),) for v in range(start, stop, step))


def _int(v: Any) -> int:
    return int(np.asarray(v.numpy() if hasattr(v, "numpy") else v))


def from_generator(
    cls: type,
    generator: Callable[..., Any],
    output_types: Any,
    output_shapes: Any,
    args: Any,
    output_signature: Any,
) -> Any:
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    spec = _generator_spec(output_types, output_shapes, output_signature)
    specs = structure.flatten(spec)
    call_args = tuple(np.asarray(a.numpy() if hasattr(a, "numpy") else a) for a in args or ())

    def produce() -> Any:
        for value in generator(*call_args):
            yield _generated(spec, specs, value)

    return cls(spec, UNKNOWN, produce)


def _generator_spec(output_types: Any, output_shapes: Any, output_signature: Any) -> Any:
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError(
                "The `output_types` and `output_shapes` arguments can only be used when "
                "`output_signature` is not specified."
            )
        return output_signature
    if output_types is None:
        raise TypeError("The `output_signature` argument must be set.")
    types = structure.flatten(output_types)
    if output_shapes is None:
        shapes: list[Any] = [TensorShape(None)] * len(types)
    else:
        shapes = [as_shape(s) for s in shape_leaves(output_types, output_shapes)]
    specs = [TensorSpec(s, t) for s, t in zip(shapes, types, strict=True)]
    return structure.pack(output_types, specs)


def _generated(spec: Any, specs: list[Any], value: Any) -> structure.Flat:
    if isinstance(value, list) and structure.is_structure(spec) and isinstance(spec, tuple):
        value = tuple(value)
    try:
        leaves = _leaves(spec, value)
    except (ValueError, TypeError):
        raise TypeError(
            f"`generator` yielded an element that did not match the expected structure. The "
            f"expected structure was {spec}, but the yielded element was {value!r}."
        ) from None
    out = []
    for x, s in zip(leaves, specs, strict=True):
        try:  # TF's FuncRegistry._convert: np.asarray with the expected dtype
            a = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=s.dtype.np)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"`generator` yielded an element that could not be converted to the expected "
                f"type. The expected type was {s.dtype.name}, but the yielded element was {x!r}."
            ) from e
        if not s.shape.is_compatible_with(TensorShape.of_array(a.shape)):
            raise InvalidArgumentError(
                f"`generator` yielded an element of shape {a.shape} where an element of "
                f"shape {s.shape} was expected."
            )
        out.append(a)
    return tuple(out)


def _leaves(spec: Any, value: Any) -> list[Any]:
    """``value``'s leaves in ``spec``'s structure, where a list in ``value`` is a leaf."""
    if isinstance(spec, dict):
        return [x for k in sorted(spec) for x in _leaves(spec[k], value[k])]
    if isinstance(spec, tuple):
        if not isinstance(value, tuple | list) or len(value) != len(spec):
            raise ValueError("structure")
        if isinstance(value, list):
            value = tuple(value)
        return [x for s, v in zip(spec, value, strict=True) for x in _leaves(s, v)]
    return [value]


def zip_(cls: type, datasets: Any) -> Any:
    parts = structure.flatten(datasets)
    for d in parts:
        if not isinstance(d, DatasetBase):
            raise TypeError(
                "Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                f"`tf.data.Dataset` objects but encountered object of type {type(d)}."
            )
    spec = structure.pack(datasets, [d.element_spec for d in parts])
    cards = [d._card for d in parts]
    finite = [c for c in cards if c >= 0]
    card = min(finite) if finite else (UNKNOWN if UNKNOWN in cards else INFINITE)
    if UNKNOWN in cards and finite and min(finite) > 0:
        card = UNKNOWN

    @primed
    def produce() -> Any:
        its = [d._iterate() for d in parts]
        yield ()
        while True:
            items = [next(it, None) for it in its]
            if any(i is None for i in items):
                return
            yield tuple(a for item in items if item is not None for a in item)

    return cls(spec, card, produce)
