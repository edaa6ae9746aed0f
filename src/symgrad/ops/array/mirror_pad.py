"""MirrorPad and MirrorPadGrad: ``tf.pad`` in modes ``REFLECT`` and ``SYMMETRIC``.

REFLECT mirrors about the edge element (``[1, 2, 3]`` padded by 2 on the left is
``[3, 2, 1, 2, 3]``), so each padding must be smaller than its dimension; SYMMETRIC
repeats the edge (``[2, 1, 1, 2, 3]``), so a padding may equal the dimension.  The
gradient folds each mirrored band back onto the elements it copied (``MirrorPadGrad``),
and the gradient of that is MirrorPad again, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import (
    ShapeError,
    Spec,
    apply_op1,
    constant_value,
    register_op,
)
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor

MODES = ("REFLECT", "SYMMETRIC")


def _too_large(dims: Any, pads: np.ndarray, mode: str) -> str | None:
    """TF's text when a padding reaches past what the mode can mirror, else None."""
    for d, (a, b) in zip(dims, pads, strict=True):
        if d is None:
            continue
        if mode == "REFLECT" and (a >= d or b >= d):
            return f"paddings must be less than the dimension size: {a}, {b} not less than {d}"
        if a > d or b > d:
            return f"paddings must be no greater than the dimension size: {a}, {b} greater than {d}"
    return None


def _check_pads(x_shape: TensorShape, p: Tensor, mode: str) -> np.ndarray | None:
    pads = constant_value(p)
    if pads is None:
        return None
    r = x_shape.rank
    if pads.ndim != 2 or pads.shape[1] != 2 or (r is not None and pads.shape[0] != r):
        raise ShapeError(
            f"paddings must be a matrix with 2 columns and a row for each dimension of "
            f"input (shape {x_shape}), but got shape {list(pads.shape)}"
        )
    if (pads < 0).any():
        raise ShapeError(f"paddings must be non-negative, got {pads.tolist()}")
    if x_shape.dims is not None and (text := _too_large(x_shape.dims, pads, mode)):
        raise ShapeError(text)
    return pads


def _mirror_pad_infer(inputs: list[Tensor], *, mode: str) -> Spec:
    x, p = inputs
    pads = _check_pads(x.shape, p, mode)
    if pads is None or x.shape.dims is None:
        r = x.shape.rank
        return TensorShape(None if r is None else [None] * r), x.dtype
    return TensorShape(
        [None if d is None else d + int(a) + int(b) for d, (a, b) in zip(x.shape.dims, pads)]
    ), x.dtype


def _mirror_pad(x: np.ndarray, p: np.ndarray, *, mode: str) -> np.ndarray:
    if text := _too_large(x.shape, p, mode):
        raise InvalidArgumentError(text)
    return np.pad(x, p, mode="reflect" if mode == "REFLECT" else "symmetric")


def _mirror_pad_grad_infer(inputs: list[Tensor], *, mode: str) -> Spec:
    g, p = inputs
    pads = constant_value(p)
    if pads is None or g.shape.dims is None:
        return TensorShape(None if g.shape.rank is None else [None] * g.shape.rank), g.dtype
    return TensorShape(
        [None if d is None else d - int(a) - int(b) for d, (a, b) in zip(g.shape.dims, pads)]
    ), g.dtype


def _mirror_pad_grad(g: np.ndarray, p: np.ndarray, *, mode: str) -> np.ndarray:
    """Sum each mirrored band back onto its source, one axis at a time."""
    edge = int(mode == "REFLECT")  # REFLECT skips the edge element itself
    for axis, (a, b) in enumerate(np.asarray(p, dtype=np.int64)):
        g = np.moveaxis(g, axis, 0)
        n = g.shape[0] - a - b
        if a > n - edge or b > n - edge:
            raise InvalidArgumentError(
                f"MirrorPadGrad: paddings {a}, {b} do not fit the gradient's dimension "
                f"{axis} of size {g.shape[0]} in mode {mode}"
            )
        core = g[a : a + n].copy()
        if a:
            core[edge : edge + a] += g[:a][::-1]
        if b:
            core[n - edge - b : n - edge] += g[a + n :][::-1]
        g = np.moveaxis(core, 0, axis)
    return g


def _pads_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    return c.apply([c.xs[0], const(np.reshape([0, 0, *c.ints(1)], (-1, 2)), c.xs[1])])


def _fold_ref(mode: str) -> Any:
    """MirrorPadGrad's reference: pad the element indices, then sum g by index."""

    def ref(g: np.ndarray, p: np.ndarray) -> np.ndarray:
        shape = tuple(d - a - b for d, (a, b) in zip(g.shape, p, strict=True))
        index = np.pad(np.arange(int(np.prod(shape))).reshape(shape), p, mode=mode.lower())  # type: ignore[call-overload]
        folded = np.bincount(index.ravel(), weights=g.ravel(), minlength=index.size)
        return folded[: int(np.prod(shape))].reshape(shape).astype(g.dtype)

    return ref


MIRROR_PAD = register_op(
    "MirrorPad",
    _mirror_pad_infer,
    _mirror_pad,
    batch=_pads_batch,
    cases=[
        Case(
            [randn(3, 4), ints([[1, 2], [3, 0]])],
            lambda x, p: np.pad(x, p, mode="reflect"),
            attrs={"mode": "REFLECT"},
            name="reflect",
        ),
        Case(
            [randn(2, 3, 4), ints([[2, 1], [0, 3], [1, 4]])],
            lambda x, p: np.pad(x, p, mode="symmetric"),
            attrs={"mode": "SYMMETRIC"},
            name="symmetric",
        ),
    ],
)
MIRROR_PAD_GRAD = register_op(
    "MirrorPadGrad",
    _mirror_pad_grad_infer,
    _mirror_pad_grad,
    batch=_pads_batch,
    cases=[
        Case(
            [randn(6, 7), ints([[1, 2], [3, 0]])],
            _fold_ref("REFLECT"),
            attrs={"mode": "REFLECT"},
            name="reflect",
        ),
        Case(
            [randn(7, 6), ints([[2, 2], [0, 1]])],
            _fold_ref("SYMMETRIC"),
            attrs={"mode": "SYMMETRIC"},
            name="symmetric",
        ),
    ],
)


@MIRROR_PAD.gradient
def _mirror_pad_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = MirrorPadGrad(g): each padded element's gradient goes to the one it copies."""
    p = op.inputs[1]
    return apply_op1("MirrorPadGrad", [grad, p], op.attrs), None


@MIRROR_PAD_GRAD.gradient
def _mirror_pad_grad_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """The adjoint of folding is mirroring: d g = MirrorPad(grad)."""
    return apply_op1("MirrorPad", [grad, op.inputs[1]], op.attrs), None


def mirror_pad(x: Any, paddings: Any, mode: str, name: str | None = None) -> Tensor:
    """``tf.pad`` in mode REFLECT or SYMMETRIC (op type ``MirrorPad``)."""
    x, p = convert_to_tensor(x), array.int_tensor(paddings, "paddings")
    return apply_op1("MirrorPad", [x, p], {"mode": mode}, name=name)
