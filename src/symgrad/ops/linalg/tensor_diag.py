"""Diag and DiagPart: the "tensor" diagonal of TF1's ``tf.diag`` / ``tf.diag_part``
(``tf.linalg.tensor_diag`` / ``tensor_diag_part`` in TF 2).

Unlike ``tf.linalg.diag`` (batches of matrices), ``Diag`` of a rank-k tensor of shape
``s`` is the rank-2k tensor of shape ``s + s`` that holds x[i...] at [i..., i...] and zero
elsewhere; ``DiagPart`` reads that diagonal back.  Each is the other's gradient (TF's
array_grad.py), so derivatives of any order stay in the pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call
from symgrad.core.cases import Case, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.core import NUMERIC, check_dtype, convert_to_tensor
from symgrad.ops.linalg import diag as linalg_diag


def _diag_kernel(x: np.ndarray) -> np.ndarray:
    n = x.size
    out = np.zeros((n, n), x.dtype)
    out[np.arange(n), np.arange(n)] = x.ravel()
    return out.reshape(x.shape + x.shape)


def _diag_part_kernel(x: np.ndarray) -> np.ndarray:
    k = x.ndim // 2
    if x.ndim == 0 or x.ndim % 2:
        raise ShapeError(f"The rank of the tensor should be even and positive, got shape {x.shape}")
    half = x.shape[:k]
    n = math.prod(half)
    return np.ascontiguousarray(x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(half))


def _diag_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    (x,) = inputs
    check_dtype("Diag", x, NUMERIC, "diagonal")
    if x.shape.rank == 0:
        raise ShapeError("Input must be at least rank 1, got 0")
    if x.shape.dims is None:
        return TensorShape(None), x.dtype
    return TensorShape(list(x.shape.dims) * 2), x.dtype


def _diag_part_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    (x,) = inputs
    check_dtype("DiagPart", x, NUMERIC, "input")
    dims = x.shape.dims
    if dims is None:
        return TensorShape(None), x.dtype
    if not dims or len(dims) % 2:
        raise ShapeError(f"Input must have even and non-zero rank, input rank is {len(dims)}")
    k = len(dims) // 2
    out = []
    shown = ",".join("?" if d is None else str(d) for d in dims)
    for i, (a, b) in enumerate(zip(dims[:k], dims[k:])):
        if a is not None and b is not None and a != b:
            raise ShapeError(f"Invalid shape [{shown}]: dimensions {i} and {i + k} do not match.")
        out.append(a if a is not None else b)
    return TensorShape(out), x.dtype


DIAG = register_op(
    "Diag",
    _diag_infer,
    _diag_kernel,
    cases=[
        Case([randn(3)], np.diag, dtypes=(np.float32, np.float64, np.complex128)),
        Case([randn(2, 3)], _diag_kernel, name="rank2"),
    ],
)
DIAG_PART = register_op(
    "DiagPart",
    _diag_part_infer,
    _diag_part_kernel,
    cases=[
        Case([randn(4, 4)], np.diag, dtypes=(np.float32, np.float64, np.complex128)),
        Case([randn(2, 3, 2, 3)], _diag_part_kernel, name="rank4"),
    ],
)


def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """The rank-2k tensor with ``diagonal`` (rank k) on its diagonal (TF1's ``tf.diag``)."""
    return apply_op1("Diag", [convert_to_tensor(diagonal)], name=name)


def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:
    """The diagonal of a rank-2k tensor of shape ``s + s`` (TF1's ``tf.diag_part``)."""
    return apply_op1("DiagPart", [convert_to_tensor(input)], name=name)


@DIAG.gradient
def _diag_grad(op: Any, grad: Tensor) -> Tensor:
    """The gradient's diagonal."""
    return tensor_diag_part(grad)


@DIAG_PART.gradient
def _diag_part_grad(op: Any, grad: Tensor) -> Tensor:
    """The gradient placed on the diagonal."""
    return tensor_diag(grad)


# Batching: Diag of [K, *s] would pair every example with every other ([K, *s, K, *s]),
# so the K examples go through the matrix diagonal ops on [K, n] / [K, n, n] instead.


@DIAG.batching
def _diag_batch(c: Call) -> list[Tensor]:
    dims = c.dims(0)
    flat = array.reshape(c.xs[0], [c.k, math.prod(dims)])
    return [array.reshape(linalg_diag.diag(flat), [c.k, *dims, *dims])]


@DIAG_PART.batching
def _diag_part_batch(c: Call) -> list[Tensor]:
    half = c.out_dims(0)
    n = math.prod(half)
    square = array.reshape(c.xs[0], [c.k, n, n])
    return [array.reshape(linalg_diag.diag_part(square), [c.k, *half])]
