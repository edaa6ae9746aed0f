"""``tf.linspace``, ``tf.repeat``, ``tf.meshgrid``, ``tf.sequence_mask`` and
``tf.math.confusion_matrix``, composed as TF's ``array_ops``, ``math_ops`` and
``confusion_matrix`` compose them, from public ops.

No op type of their own: each is built from the same ops in the same order as TF's
Python code, so values round as TF's do and gradients come from the ops' rules
(``repeat``'s gradient sums each element's copies through Tile and BooleanMask, as
TF's; ``linspace``'s reaches ``start`` and ``stop`` through its arithmetic).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api.debugging import assert_greater_equal, assert_less
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, get_default_graph, name_scope
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import structure as array
from symgrad.ops.array.boolean_mask import boolean_mask
from symgrad.ops.array.gather import scatter_nd
from symgrad.ops.array.joining import concat, stack
from symgrad.ops.array.slicing import slice as slice_
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import Variable


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), along a new
    ``axis`` where ``start`` and ``stop`` are tensors: ``start + i * delta`` with
    ``delta = (stop - start) / (num - 1)``, and ``stop`` itself last, as TF's
    ``linspace_nd``.  Integer ends give float64 (TF's true division)."""
    with name_scope(name or "linspace"):
        start = convert_to_tensor(start)
        stop = convert_to_tensor(stop, dtype=start.dtype)
        num_int = array.int_tensor(num, "num")
        first = array.expand_dims(start, axis)
        last = array.expand_dims(stop, axis)
        shape = array.shape(first)
        ndims = first.shape.rank
        if axis < 0:
            if ndims is None:
                raise ValueError(f"linspace: axis={axis} needs the rank of start, unknown here")
            axis += ndims
        num_fill = math.maximum(num_int - 2, 0)
        n_steps = math.maximum(num_int - 1, 1)
        delta = math.truediv(last - first, array.cast(n_steps, last.dtype))
        first, last = array.cast(first, delta.dtype), array.cast(last, delta.dtype)
        range_end = array.where(num_int >= 0, n_steps, -1)
        steps = array.cast(array.range(1, range_end, dtype=dt.int64), delta.dtype)
        mask = math.equal(axis, array.range(ndims if ndims is not None else array.rank(first)))
        steps = array.reshape(steps, array.where(mask, num_fill, 1))
        filled = first + delta * steps
        whole = concat([first, filled, last], axis=axis)
        size = array.where(mask, num_int, shape)
        result = slice_(whole, array.zeros_like(shape), size)
        if ndims is not None:  # the static shape, as TF's shape inference finds it
            n = constant_value(num_int)
            dims = list(first.shape.dims or [])
            dims[axis] = None if n is None else max(int(n), 0)
            result.set_shape(dims)
        return result


def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Each element of ``input`` (flattened where ``axis`` is None) ``repeats`` times
    along ``axis``: ``repeats`` a scalar, or one count for each element along ``axis``."""
    if axis is None:
        input, axis = array.reshape(input, [-1]), 0
    if not isinstance(axis, int | np.integer):
        raise TypeError(
            f"Argument `axis` must be an int. Received `axis` = {axis} of type "
            f"{type(axis).__name__}"
        )
    with name_scope(name or "Repeat"):
        data = convert_to_tensor(input)
        repeats = array.int_tensor(repeats, "repeats")
        if repeats.shape.rank is not None and repeats.shape.rank > 1:
            raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
        if data.shape.rank == 0:
            data = array.reshape(data, [1])
        rank = data.shape.rank
        data_shape = array.shape(data, out_type=repeats.dtype)
        if rank is not None:
            if not -rank <= axis < rank:
                raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
            axis = int(axis) % rank
        count = data.shape[axis] if rank is not None else None
        if repeats.shape.rank == 1 and count is not None and repeats.shape[0] not in (None, count):
            raise ValueError(
                f"Dimensions {count} and {repeats.shape[0]} are not compatible: "
                "repeats must have one count for each element along axis"
            )
        counts = constant_value(repeats)
        outer = [data_shape[:axis], [-1], data_shape[axis + 1 :]]
        expanded = array.expand_dims(data, axis + 1)
        if repeats.shape.rank == 0:
            tiled = _tile_one(expanded, axis + 1, repeats)
            result = array.reshape(tiled, concat(outer, axis=0))
        else:
            if axis != 0:  # one count per position up to ``axis``
                broadcast = concat([data_shape[:axis], array.shape(repeats)], axis=0)
                repeats = array.broadcast_to(repeats, broadcast)
            longest = math.maximum(
                convert_to_tensor(0, repeats.dtype), reduction.reduce_max(repeats)
            )
            mask = math.less(array.range(longest), array.expand_dims(repeats, -1))
            masked = boolean_mask(_tile_one(expanded, axis + 1, longest), mask)
            result = masked if axis == 0 else array.reshape(masked, concat(outer, axis=0))
        if rank is not None:  # the static shape: the repeated axis's where the counts are known
            dims = list(data.shape.dims or [])
            size = dims[axis]
            if counts is None:
                dims[axis] = None
            elif counts.ndim:
                dims[axis] = int(counts.sum())
            else:
                dims[axis] = None if size is None else int(counts) * size
            result.set_shape(dims)
        return result


def _tile_one(data: Tensor, axis: int, multiple: Tensor) -> Tensor:
    """``data`` tiled ``multiple`` times along ``axis`` alone."""
    multiples: list[Any] = [convert_to_tensor(1, multiple.dtype)] * (data.shape.rank or 0)
    multiples[axis] = multiple
    return array.tile(data, stack(multiples))


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D coordinate vectors, as NumPy's: ``indexing="xy"``
    (Cartesian, the default: the first two outputs' axes swapped) or ``"ij"`` (matrix);
    ``name``.  TF's signature, ``(*args, **kwargs)``."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"Argument `indexing` parameter must be either 'xy' or 'ij', got {indexing!r}"
        )
    with name_scope(name):
        ndim = len(args)
        ones = (1,) * ndim
        tensors = [convert_to_tensor(x) for x in args]
        output = [array.reshape(x, ones[:i] + (-1,) + ones[i + 1 :]) for i, x in enumerate(tensors)]
        shapes = [array.size(x) for x in tensors]
        dtype = tensors[0].dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        factor = array.ones(shapes, dtype) if ndim else None
        sizes = [t.shape.num_elements() for t in tensors]
        if indexing == "xy" and ndim > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        grids = [x * factor for x in output]
        for g in grids:
            g.set_shape(sizes)
        return grids


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = dt.bool_, name: str | None = None
) -> Tensor:
    """``mask[..., j] = j < lengths[...]`` for ``j`` in ``range(maxlen)`` (``maxlen``: the
    longest of ``lengths`` where not given), of ``dtype``, as TF's."""
    with name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = math.maximum(0, reduction.reduce_max(lengths))
        else:
            maxlen = convert_to_tensor(maxlen)
            if maxlen.shape.rank not in (None, 0):
                raise ValueError(
                    "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                    f"{constant_value(maxlen)} with shape '{maxlen.shape}' instead"
                )
        row = array.range(maxlen)
        mask = math.less(row, array.cast(array.expand_dims(lengths, -1), maxlen.dtype))
        want = dt.as_dtype(dtype)
        return mask if want is dt.bool_ else array.cast(mask, want)


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    weights: Any = None,
    dtype: Any = dt.int32,
    name: str | None = None,
) -> Tensor:
    """``m[i, j]``: how many (or what total ``weights``) of the examples labelled ``i``
    were predicted ``j``; ``num_classes`` where not given is one more than the largest
    label or prediction.  Negative or (with ``num_classes``) too large labels and
    predictions raise, as TF's checks."""
    with name_scope(name or "confusion_matrix"):
        predictions = array.cast(convert_to_tensor(predictions), dt.int64)
        labels = array.cast(convert_to_tensor(labels), dt.int64)
        labels = _checked(labels, assert_greater_equal, 0, "`labels` contains negative values")
        predictions = _checked(
            predictions, assert_greater_equal, 0, "`predictions` contains negative values"
        )
        if num_classes is None:
            num_classes = (
                math.maximum(reduction.reduce_max(predictions), reduction.reduce_max(labels)) + 1
            )
        else:
            num_classes = array.cast(convert_to_tensor(num_classes), dt.int64)
            labels = _checked(labels, assert_less, num_classes, "`labels` out of bound")
            predictions = _checked(
                predictions, assert_less, num_classes, "`predictions` out of bound"
            )
        want = dt.as_dtype(dtype)
        if weights is None:
            values = array.ones_like(predictions, want)
        else:
            weights = convert_to_tensor(weights)
            if not predictions.shape.is_compatible_with(weights.shape):
                raise ValueError(f"Shapes {predictions.shape} and {weights.shape} are incompatible")
            values = array.cast(weights, want)
        shape = stack([num_classes, num_classes])
        return scatter_nd(stack([labels, predictions], axis=1), values, shape)


def _checked(x: Tensor, check: Any, bound: Any, message: str) -> Tensor:
    """``x``, after ``check(x, bound)`` (eagerly: raised now, if it fails)."""
    assertion = check(x, bound, message=message)
    if assertion is None:  # eager: passed
        return x
    with get_default_graph().control_dependencies([assertion]):
        return identity(x)


# tf.is_tensor and tf.get_static_value (TF's tensor_util).


def is_tensor(x: Any) -> bool:
    """True for a Tensor, a Variable, IndexedSlices or a tensor-like object."""
    return isinstance(x, (Tensor, Variable, IndexedSlices)) or bool(
        getattr(x, "is_tensor_like", False)
    )


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """``tensor``'s value as a NumPy array when known without running a graph, else None;
    a non-tensor comes back as it is (TF's ``tensor_util.constant_value``)."""
    if isinstance(tensor, Tensor) and tensor.eager_value is not None:
        return np.asarray(tensor.eager_value)
    if not is_tensor(tensor):
        return tensor
    if not isinstance(tensor, Tensor):
        return None  # a Variable's value may change
    op = tensor.op
    if op.type in ("Shape", "Size", "Rank"):
        s = op.inputs[0].shape
        if op.type == "Rank":
            return None if s.rank is None else np.array(s.rank, np.int32)
        if not s.is_fully_defined():
            return None
        v = s.as_list() if op.type == "Shape" else s.num_elements()
        return np.array(v, tensor.dtype.np)
    if op.type == "Pack" and partial and op.get_attr("axis") == 0 and op.inputs:
        values = [get_static_value(x, partial) for x in op.inputs]
        try:
            return np.array(values)
        except ValueError:
            return np.array(values, dtype=object)
    return constant_value(tensor)
