"""ResizeBilinear, ResizeNearestNeighbor and their gradient ops, as TF's CPU kernels.

Bilinear: each output pixel blends its four nearest input pixels in float32, as TF's
``compute_lerp`` (``top = tl + (tr - tl) * x_lerp`` ...); the output is float32 whatever
the input's dtype, and a resize to the same size is a cast.  ``ResizeBilinearGrad`` spreads
each incoming float32 gradient over the four taps (``g * y_weight * x_weight`` in float32,
cast to the image's dtype) and is not differentiable (TF: ``NotDifferentiable``).

Nearest neighbour copies one input pixel per output pixel and keeps the dtype; its
gradient sums the incoming gradient onto the copied pixels (``ResizeNearestNeighborGrad``),
whose own gradient is the forward resize again (TF registers none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op1, register_op
from symgrad.ops.array import slicing
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image import sampling as S

F32 = np.float32


def _attrs(align_corners: bool, half_pixel_centers: bool) -> dict[str, Any]:
    return {"align_corners": bool(align_corners), "half_pixel_centers": bool(half_pixel_centers)}


# -- ResizeBilinear


def _bilinear(
    images: np.ndarray, size: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    _, h, w, _, oh, ow = S.image_dims(images, size, align_corners, half_pixel_centers)
    x = images.astype(F32)
    if (oh, ow) == (h, w):
        return x
    y0, y1, ylerp = S.linear_plan(h, oh, S.scale(h, oh, align_corners), half_pixel_centers)
    x0, x1, xlerp = S.linear_plan(w, ow, S.scale(w, ow, align_corners), half_pixel_centers)
    top_rows, bottom_rows = x[:, y0], x[:, y1]
    xl = xlerp[:, None]
    top = top_rows[:, :, x0] + (top_rows[:, :, x1] - top_rows[:, :, x0]) * xl
    bottom = bottom_rows[:, :, x0] + (bottom_rows[:, :, x1] - bottom_rows[:, :, x0]) * xl
    return top + (bottom - top) * ylerp[:, None, None]  # type: ignore[no-any-return]


def _bilinear_grad(
    grads: np.ndarray, original: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    S.grad_dims(grads, original.shape, align_corners, half_pixel_centers)
    b, h, w, c = original.shape
    rh, rw = grads.shape[1:3]
    y0, y1, ylerp = S.linear_plan(h, rh, S.scale(h, rh, align_corners), half_pixel_centers)
    x0, x1, xlerp = S.linear_plan(w, rw, S.scale(w, rw, align_corners), half_pixel_centers)
    wy = [F32(1) - ylerp, F32(1) - ylerp, ylerp, ylerp]  # top-left, top-right, bottom-left, -right
    wx = [F32(1) - xlerp, xlerp, F32(1) - xlerp, xlerp]
    g = grads.astype(F32)
    parts = np.stack([g * a[:, None, None] * v[:, None] for a, v in zip(wy, wx)], axis=3)
    rows = np.stack([y0, y0, y1, y1], axis=1)[:, None, :]
    cols = np.stack([x0, x1, x0, x1], axis=1)[None, :, :]
    acc = F32 if original.dtype == np.float16 else original.dtype  # TF sums halves in float
    out = S.scatter_add((b, h, w, c), acc, rows, cols, parts.astype(acc))
    return out.astype(original.dtype, copy=False)


def _bilinear_infer(inputs: list[Tensor], **_: Any) -> Spec:
    return S.resize_infer(inputs, dt.float32)


def _bilinear_grad_infer(inputs: list[Tensor], **_: Any) -> Spec:
    grads, original = inputs
    if grads.dtype is not dt.float32:
        raise TypeError(f"input_grad must be of type float, got {grads.dtype.name}")
    if original.dtype not in (dt.float16, dt.float32, dt.float64):
        raise TypeError(
            f"Value for attr 'T' of {original.dtype.name} is not in the list of allowed "
            "values: half, float, double"
        )
    S.check_rank4(grads, "grads", inputs)
    S.check_rank4(original, "original_image", inputs)
    return original.shape, original.dtype


def _linear_ref(n_in: int, n_out: int, align: bool, half: bool) -> np.ndarray:
    """The interpolation matrix in float64 (an independent reference)."""
    s = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        p = (i + 0.5) * s - 0.5 if half else i * s
        lo = int(np.floor(p))
        t = p - lo
        m[i, min(max(lo, 0), n_in - 1)] += 1 - t
        m[i, min(max(lo + 1, 0), n_in - 1)] += t
    return m


def _bilinear_ref(align: bool, half: bool) -> Any:
    def ref(x: np.ndarray, size: np.ndarray) -> np.ndarray:
        my = _linear_ref(x.shape[1], int(size[0]), align, half)
        mx = _linear_ref(x.shape[2], int(size[1]), align, half)
        return np.einsum("yi,xj,bijc->byxc", my, mx, x.astype(np.float64))

    return ref


def _bilinear_grad_ref(align: bool, half: bool) -> Any:
    def ref(g: np.ndarray, x: np.ndarray) -> np.ndarray:
        my = _linear_ref(x.shape[1], g.shape[1], align, half)
        mx = _linear_ref(x.shape[2], g.shape[2], align, half)
        return np.einsum("yi,xj,byxc->bijc", my, mx, g.astype(np.float64)).astype(x.dtype)

    return ref


_FLOAT32_OUT = "float32 output: tests/ops/test_image_resize.py checks its gradient"
RESIZE_BILINEAR = register_op(
    "ResizeBilinear",
    _bilinear_infer,
    _bilinear,
    batch=S.fold_batch([0]),
    cases=[
        Case(
            [randn(2, 3, 5, 2), ints([5, 4])],
            _bilinear_ref(False, True),
            attrs=_attrs(False, True),
            order=0,
            note=_FLOAT32_OUT,
            name="half_pixel",
        ),
        Case(
            [randn(1, 4, 3, 3), ints([2, 7])],
            _bilinear_ref(True, False),
            attrs=_attrs(True, False),
            order=0,
            note=_FLOAT32_OUT,
            name="align_corners",
        ),
        Case(
            [randn(2, 5, 4, 1), ints([3, 6])],
            _bilinear_ref(False, False),
            attrs=_attrs(False, False),
            order=0,
            note=_FLOAT32_OUT,
            name="legacy",
        ),
    ],
)
RESIZE_BILINEAR_GRAD = register_op(
    "ResizeBilinearGrad",
    _bilinear_grad_infer,
    _bilinear_grad,
    batch=S.fold_batch([0, 1]),
    cases=[
        Case(
            [lambda rng, d: rng.standard_normal((2, 5, 4, 2)).astype(F32), randn(2, 3, 5, 2)],
            _bilinear_grad_ref(False, True),
            attrs=_attrs(False, True),
            order=0,
            note="TF: NotDifferentiable",
            name="half_pixel",
        ),
        Case(
            [lambda rng, d: rng.standard_normal((1, 2, 7, 3)).astype(F32), randn(1, 4, 3, 3)],
            _bilinear_grad_ref(True, False),
            attrs=_attrs(True, False),
            order=0,
            note="TF: NotDifferentiable",
            name="align_corners",
        ),
    ],
)
RESIZE_BILINEAR_GRAD.no_gradient()


@RESIZE_BILINEAR.gradient
def _resize_bilinear_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dimages = ResizeBilinearGrad(g, images): each tap gets g times its weight."""
    return apply_op1("ResizeBilinearGrad", [grad, op.inputs[0]], dict(op.attrs)), None


# -- ResizeNearestNeighbor


def _nearest(
    images: np.ndarray, size: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    _, h, w, _, oh, ow = S.image_dims(images, size, align_corners, half_pixel_centers)
    ys = S.nearest_plan(h, oh, S.scale(h, oh, align_corners), align_corners, half_pixel_centers)
    xs = S.nearest_plan(w, ow, S.scale(w, ow, align_corners), align_corners, half_pixel_centers)
    return images[:, ys][:, :, xs]  # type: ignore[no-any-return]


def _nearest_grad(
    grads: np.ndarray, size: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    if grads.ndim != 4:
        raise S.InvalidArgumentError(
            f"input must be 4-dimensional{list(grads.shape)}".replace(" ", "")
        )
    size = np.asarray(size)
    if size.ndim != 1 or size.size != 2:
        raise S.InvalidArgumentError("shape_t must be 1-dimensional with two elements")
    h, w = (int(v) for v in size)
    if h <= 0 or w <= 0:
        raise S.InvalidArgumentError("shape_t's elements must be positive")
    b, rh, rw, c = grads.shape
    ys = S.nearest_plan(h, rh, S.scale(h, rh, align_corners), align_corners, half_pixel_centers)
    xs = S.nearest_plan(w, rw, S.scale(w, rw, align_corners), align_corners, half_pixel_centers)
    return S.scatter_add((b, h, w, c), grads.dtype, ys[:, None], xs[None, :], grads)


def _nearest_infer(inputs: list[Tensor], **_: Any) -> Spec:
    return S.resize_infer(inputs, None)


def _nearest_ref(align: bool, half: bool) -> Any:
    def index(n_in: int, n_out: int) -> list[int]:
        s = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
        out = []
        for i in range(n_out):
            p = (i + 0.5) * s if half else i * s
            out.append(max(min(int(np.floor(p + 0.5) if align else np.floor(p)), n_in - 1), 0))
        return out

    def ref(x: np.ndarray, size: np.ndarray) -> np.ndarray:
        return x[:, index(x.shape[1], int(size[0]))][:, :, index(x.shape[2], int(size[1]))]

    return ref


def _nearest_grad_ref(align: bool, half: bool) -> Any:
    forward = _nearest_ref(align, half)

    def ref(g: np.ndarray, size: np.ndarray) -> np.ndarray:
        b, _, _, c = g.shape
        probe = np.arange(b * int(size[0]) * int(size[1]) * c).reshape(b, *size, c)
        picked = forward(probe, np.asarray(g.shape[1:3]))
        sums = np.bincount(picked.ravel(), g.ravel().astype(np.float64), probe.size)
        return sums.reshape(probe.shape)

    return ref


RESIZE_NEAREST = register_op(
    "ResizeNearestNeighbor",
    _nearest_infer,
    _nearest,
    batch=S.fold_batch([0]),
    cases=[
        Case(
            [randn(2, 3, 5, 2), ints([5, 4])],
            _nearest_ref(False, True),
            attrs=_attrs(False, True),
            name="half_pixel",
        ),
        Case(
            [randn(1, 4, 3, 3), ints([3, 7])],
            _nearest_ref(True, False),
            attrs=_attrs(True, False),
            name="align_corners",
        ),
        Case(
            [randn(2, 5, 4, 1), ints([3, 6])],
            _nearest_ref(False, False),
            attrs=_attrs(False, False),
            name="legacy",
        ),
    ],
)
RESIZE_NEAREST_GRAD = register_op(
    "ResizeNearestNeighborGrad",
    _nearest_infer,
    _nearest_grad,
    batch=S.fold_batch([0]),
    cases=[
        Case(
            [randn(2, 5, 4, 2), ints([3, 5])],
            _nearest_grad_ref(False, True),
            attrs=_attrs(False, True),
            name="half_pixel",
        ),
        Case(
            [randn(1, 3, 7, 3), ints([4, 3])],
            _nearest_grad_ref(True, False),
            attrs=_attrs(True, False),
            name="align_corners",
        ),
    ],
)


def _height_width(t: Tensor) -> Tensor:
    """[h, w] of a 4-D tensor: a constant where its shape says, else sliced from Shape."""
    dims = t.shape.dims
    if dims is not None and None not in dims[1:3]:
        return array.constant(dims[1:3], dt.int32)
    return slicing.slice(array.shape(t), [1], [2])


@RESIZE_NEAREST.gradient
def _resize_nearest_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dimages = ResizeNearestNeighborGrad(g, [h, w]): each copy's gradient goes home."""
    return apply_op1(
        "ResizeNearestNeighborGrad", [grad, _height_width(op.inputs[0])], dict(op.attrs)
    ), None


@RESIZE_NEAREST_GRAD.gradient
def _resize_nearest_grad_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """The adjoint of summing onto the copied pixels is copying: ResizeNearestNeighbor."""
    return apply_op1(
        "ResizeNearestNeighbor", [grad, _height_width(op.inputs[0])], dict(op.attrs)
    ), None


def resize_bilinear(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """TF's raw ``ResizeBilinear``: float32 [b, new_h, new_w, c] from 4-D ``images``."""
    x, s = convert_to_tensor(images), convert_to_tensor(size, dtype=dt.int32)
    return apply_op1("ResizeBilinear", [x, s], _attrs(align_corners, half_pixel_centers), name)


def resize_nearest_neighbor(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """TF's raw ``ResizeNearestNeighbor``: the images' dtype, [b, new_h, new_w, c]."""
    x, s = convert_to_tensor(images), convert_to_tensor(size, dtype=dt.int32)
    return apply_op1(
        "ResizeNearestNeighbor", [x, s], _attrs(align_corners, half_pixel_centers), name
    )
