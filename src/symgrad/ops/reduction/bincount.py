"""Counting: DenseBincount and ``bincount``.

``bincount`` builds TF's graph: the output size is ``max(arr) + 1`` (0 for an empty
``arr``), raised to ``minlength`` and cut to ``maxlength``; values at or beyond the size are
not counted.  ``axis=-1`` counts each row of a matrix on its own; ``binary_output`` records
presence instead of counts; ``weights`` sum instead of counting (and set the dtype).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor, static_ints
from symgrad.ops.math.elementwise import greater, maximum, minimum
from symgrad.ops.reduction import reduce as reduction

_BIN_WEIGHTS = (dt.int32, dt.int64, dt.float32, dt.float64)


def _bincount_infer(inputs: Sequence[Tensor], *, binary_output: bool = False) -> Spec:
    arr, size, w = inputs
    check_dtype("DenseBincount", arr, array.INDEX, "input")
    check_dtype("DenseBincount", size, array.INDEX, "size")
    check_dtype("DenseBincount", w, _BIN_WEIGHTS, "weights")
    if arr.shape.rank not in (None, 1, 2):
        raise ShapeError(f"input must be 1-D or 2-D, got shape {arr.shape}")
    if size.shape.rank not in (None, 0):
        raise ShapeError(f"size must be a scalar, got shape {size.shape}")
    if w.shape.dims not in (None, [0], (0,)) and not w.shape.is_compatible_with(arr.shape):
        raise ShapeError(
            f"weights must be empty or have the shape of input {arr.shape}, got {w.shape}"
        )
    n = static_ints(size, "size")
    last = None if n is None else n[0]
    if arr.shape.dims is None:
        return TensorShape(None), w.dtype
    return TensorShape([*arr.shape.dims[:-1], last]), w.dtype


def _bincount_kernel(
    arr: np.ndarray, size: np.ndarray, w: np.ndarray, *, binary_output: bool = False
) -> np.ndarray:
    n = int(size)
    if n < 0:
        raise ValueError(f"size ({n}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise ValueError("Input arr must be non-negative!")
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
    keep = rows < n
    flat = (rows + n * np.arange(len(rows))[:, None])[keep]
    if binary_output:
        counts = np.zeros(len(rows) * n, w.dtype)
        counts[flat] = 1
    else:
        weights = w.reshape(rows.shape)[keep] if w.size else None
        counts = np.bincount(flat, weights, minlength=len(rows) * n).astype(w.dtype)
    return counts.reshape((*arr.shape[:-1], n) if arr.ndim == 2 else (n,))


DENSE_BINCOUNT = register_op(
    "DenseBincount",
    _bincount_infer,
    _bincount_kernel,
    cases=[
        Case(
            [ints([1, 1, 3, 0, 5, 1]), ints(4), randn(6)],
            lambda a, s, w: np.bincount(a[a < 4], w[a < 4], minlength=4),
            attrs={"binary_output": False},
            diff=[2],
        ),
        Case(
            [ints([[1, 1, 3], [0, 2, 2]]), ints(4), ints([])],
            lambda a, s, w: np.array([[0, 1, 0, 1], [1, 0, 1, 0]], np.int32),
            dtypes=(np.int32,),
            attrs={"binary_output": True},
            order=0,
            name="binary_rows",
            note="counts: not differentiable",
        ),
    ],
)


@DENSE_BINCOUNT.batching
def _bincount_batch(c: Call) -> list[Tensor]:
    """Batched weights: every (example, row) pair becomes a row of the 2-D form."""
    c.only_batched(2)
    dims = c.dims(0)
    rows = array.reshape(c.full(0), [-1, dims[-1]])
    (out,) = c.apply([rows, c.xs[1], array.reshape(c.xs[2], [-1, dims[-1]])])
    return [array.reshape(out, [c.k, *dims[:-1], -1])]


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = dt.int32,
    name: str | None = None,
    axis: Any = None,
    binary_output: bool = False,
) -> Tensor:
    """How often each value occurs in ``arr`` (summing ``weights`` instead, if given); axis=-1
    counts each row of a matrix separately."""
    a = convert_to_tensor(arr)
    w = None if weights is None else convert_to_tensor(weights)
    if w is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. "
            "Please specify only one."
        )
    if not a.dtype.is_integer:
        a = array.cast(a, dt.int32)
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(
            f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported."
        )
    nonempty = array.cast(greater(array.size(a), 0), a.dtype)
    size = nonempty * (reduction.reduce_max(a) + 1)
    if minlength is not None:
        size = maximum(convert_to_tensor(minlength, a.dtype), size)
    if maxlength is not None:
        size = minimum(convert_to_tensor(maxlength, a.dtype), size)
    if axis == 0:
        a = array.reshape(a, [-1])
        w = None if w is None else array.reshape(w, [-1])
    if w is None:
        w = convert_to_tensor(np.zeros(0, dt.as_dtype(dtype).np))
    return apply_op1("DenseBincount", [a, size, w], {"binary_output": bool(binary_output)}, name)


@DENSE_BINCOUNT.gradient
def _bincount_grad(op: Any, grad: Tensor) -> tuple[None, None, Tensor | None]:
    """dweights[i] = g[arr[i]] (0 where arr[i] >= size); None for counts or binary output.

    TF registers no gradient for DenseBincount; this is the derivative of the weighted sum.
    """
    arr, size, w = op.inputs
    if op.get_attr("binary_output") or not w.dtype.is_floating or w.shape.dims in ([0], (0,)):
        return None, None, None
    hot = array.one_hot(arr, array.cast(size, dt.int32), dtype=grad.dtype)
    return None, None, reduction.reduce_sum(hot * array.expand_dims(grad, -2), -1)
