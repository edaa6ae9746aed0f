"""ResizeBicubic and ResizeBicubicGrad, as TF's CPU kernels.

Four taps a side weighted from TF's 1025-entry float32 table of the cubic convolution
kernel (Keys' ``a = -0.5`` with half-pixel centres, where taps outside the image get
weight 0 and the rest are renormalised; ``a = -0.75`` in the legacy mode, where edge
pixels repeat).  Rows are blended first, then columns, each as
``((v0*w0 + v1*w1) + v2*w2) + v3*w3`` in float32.  The gradient spreads each incoming
gradient over the 16 taps in TF's order, in the image's dtype; its own gradient is the
forward resize (TF registers none).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op1, register_op
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image import sampling as S
from symgrad.ops.image.resize import _FLOAT32_OUT, _attrs, _height_width

F32 = np.float32
TABLE = 1024


@functools.cache
def _coefficients(a: float) -> np.ndarray:
    """TF's ``InitCoeffsTable``: [i, 0] the kernel at i/1024, [i, 1] at 1 + i/1024."""
    x = (np.arange(TABLE + 1) * 1.0 / TABLE).astype(F32).astype(np.float64)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x = x + 1.0
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.stack([near, far], axis=1).astype(F32)


def cubic_plan(n_in: int, n_out: int, s: np.float32, half_pixel: bool) -> tuple[Any, Any]:
    """TF's ``GetWeightsAndIndices`` for each output pixel: indices and float32 weights,
    each [n_out, 4]."""
    p = S.positions(n_out, s, half_pixel)
    loc = np.floor(p).astype(np.int64)
    offset = np.rint((p - loc.astype(F32)) * F32(TABLE)).astype(np.int64)  # lrintf
    table = _coefficients(-0.5 if half_pixel else -0.75)
    w = np.stack(
        [table[offset, 1], table[offset, 0], table[TABLE - offset, 0], table[TABLE - offset, 1]],
        axis=1,
    )
    want = loc[:, None] + np.arange(-1, 3)
    idx = np.clip(want, 0, n_in - 1)
    if half_pixel:  # Keys: taps outside the image weigh 0, the rest renormalised
        w = np.where(idx == want, w, F32(0))
        total = ((w[:, 0] + w[:, 1]) + w[:, 2]) + w[:, 3]
        ok = np.abs(total) >= F32(1000) * np.finfo(F32).tiny
        w = np.where(ok[:, None], w * (F32(1) / total)[:, None], w)
    return idx, w


def _blend(parts: list[np.ndarray], w: list[np.ndarray]) -> np.ndarray:
    return ((parts[0] * w[0] + parts[1] * w[1]) + parts[2] * w[2]) + parts[3] * w[3]  # type: ignore[no-any-return]


def _bicubic(
    images: np.ndarray, size: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    _, h, w, _, oh, ow = S.image_dims(images, size, align_corners, half_pixel_centers)
    yi, yw = cubic_plan(h, oh, S.scale(h, oh, align_corners), half_pixel_centers)
    xi, xw = cubic_plan(w, ow, S.scale(w, ow, align_corners), half_pixel_centers)
    x = images.astype(F32)
    rows = _blend([x[:, yi[:, k]] for k in range(4)], [yw[:, k, None, None] for k in range(4)])
    return _blend([rows[:, :, xi[:, k]] for k in range(4)], [xw[:, k, None] for k in range(4)])


def _bicubic_grad(
    grads: np.ndarray, original: np.ndarray, *, align_corners: bool, half_pixel_centers: bool
) -> np.ndarray:
    S.grad_dims(grads, original.shape, align_corners, half_pixel_centers)
    b, h, w, c = original.shape
    rh, rw = grads.shape[1:3]
    yi, yw = cubic_plan(h, rh, S.scale(h, rh, align_corners), half_pixel_centers)
    xi, xw = cubic_plan(w, rw, S.scale(w, rw, align_corners), half_pixel_centers)
    t = original.dtype
    g = grads.astype(t)[:, :, :, None, None, :]  # [b, y, x, k, l, c]
    parts = g * yw.astype(t)[:, None, :, None, None] * xw.astype(t)[None, :, None, :, None]
    rows = np.broadcast_to(yi[:, None, :, None], (rh, rw, 4, 4))
    cols = np.broadcast_to(xi[None, :, None, :], (rh, rw, 4, 4))
    return S.scatter_add((b, h, w, c), t, rows, cols, parts)


def _bicubic_infer(inputs: list[Tensor], **_: Any) -> Spec:
    return S.resize_infer(inputs, dt.float32)


def _bicubic_grad_infer(inputs: list[Tensor], **_: Any) -> Spec:
    grads, original = inputs
    if grads.dtype is not dt.float32:
        raise TypeError(f"input_grad must be of type float, got {grads.dtype.name}")
    if original.dtype not in (dt.float32, dt.float64):
        raise TypeError(
            f"Value for attr 'T' of {original.dtype.name} is not in the list of allowed "
            "values: float, double"
        )
    S.check_rank4(grads, "grads", inputs)
    S.check_rank4(original, "original_image", inputs)
    return original.shape, original.dtype


def _cubic_ref(n_in: int, n_out: int, align: bool, half: bool) -> np.ndarray:
    """The bicubic interpolation matrix from the kernel itself (float64, no table)."""
    a = -0.5 if half else -0.75
    s = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out

    def k(d: float) -> float:
        d = abs(d)
        if d <= 1:
            return ((a + 2) * d - (a + 3)) * d * d + 1
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a if d < 2 else 0.0

    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        p = (i + 0.5) * s - 0.5 if half else i * s
        lo = int(np.floor(p))
        taps = [(j, k(p - j)) for j in range(lo - 1, lo + 3)]
        if half:
            taps = [(j, v) for j, v in taps if 0 <= j < n_in]
            total = sum(v for _, v in taps)
            taps = [(j, v / total) for j, v in taps]
        for j, v in taps:
            m[i, min(max(j, 0), n_in - 1)] += v
    return m


def _bicubic_ref(align: bool, half: bool) -> Any:
    def ref(x: np.ndarray, size: np.ndarray) -> np.ndarray:
        my = _cubic_ref(x.shape[1], int(size[0]), align, half)
        mx = _cubic_ref(x.shape[2], int(size[1]), align, half)
        return np.einsum("yi,xj,bijc->byxc", my, mx, x.astype(np.float64))

    return ref


def _bicubic_grad_ref(align: bool, half: bool) -> Any:
    def ref(g: np.ndarray, x: np.ndarray) -> np.ndarray:
        my = _cubic_ref(x.shape[1], g.shape[1], align, half)
        mx = _cubic_ref(x.shape[2], g.shape[2], align, half)
        return np.einsum("yi,xj,byxc->bijc", my, mx, g.astype(np.float64))

    return ref


def _float32_grads(*shape: int) -> Any:
    return lambda rng, d: rng.standard_normal(shape).astype(F32)


RESIZE_BICUBIC = register_op(
    "ResizeBicubic",
    _bicubic_infer,
    _bicubic,
    batch=S.fold_batch([0]),
    cases=[
        Case(
            [randn(2, 3, 5, 2), ints([5, 4])],
            _bicubic_ref(False, True),
            attrs=_attrs(False, True),
            rtol=2e-3,
            atol=2e-3,
            order=0,
            note=_FLOAT32_OUT,
            name="half_pixel",
        ),
        Case(
            [randn(1, 4, 3, 3), ints([2, 7])],
            _bicubic_ref(True, False),
            attrs=_attrs(True, False),
            rtol=2e-3,
            atol=2e-3,
            order=0,
            note=_FLOAT32_OUT,
            name="align_corners",
        ),
    ],
)
RESIZE_BICUBIC_GRAD = register_op(
    "ResizeBicubicGrad",
    _bicubic_grad_infer,
    _bicubic_grad,
    batch=S.fold_batch([0, 1]),
    cases=[
        Case(
            [_float32_grads(2, 5, 4, 2), randn(2, 3, 5, 2)],
            _bicubic_grad_ref(False, True),
            attrs=_attrs(False, True),
            rtol=2e-3,
            atol=2e-3,
            order=0,
            note=_FLOAT32_OUT,
            name="half_pixel",
        ),
        Case(
            [_float32_grads(1, 2, 7, 3), randn(1, 4, 3, 3)],
            _bicubic_grad_ref(False, False),
            attrs=_attrs(False, False),
            rtol=2e-3,
            atol=2e-3,
            order=0,
            note=_FLOAT32_OUT,
            name="legacy",
        ),
    ],
)


@RESIZE_BICUBIC.gradient
def _resize_bicubic_gradient(op: Any, grad: Tensor) -> tuple[Tensor | None, None]:
    """dimages = ResizeBicubicGrad(g, images) for float32/float64 images, else None."""
    image = op.inputs[0]
    if image.dtype not in (dt.float32, dt.float64):
        return None, None
    return apply_op1("ResizeBicubicGrad", [grad, image], dict(op.attrs)), None


@RESIZE_BICUBIC_GRAD.gradient
def _resize_bicubic_grad_gradient(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """The adjoint of spreading over the taps is blending them: ResizeBicubic."""
    g = apply_op1("ResizeBicubic", [grad, _height_width(op.inputs[0])], dict(op.attrs))
    return g, None


def resize_bicubic(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """TF's raw ``ResizeBicubic``: float32 [b, new_h, new_w, c] from 4-D ``images``."""
    x, s = convert_to_tensor(images), convert_to_tensor(size, dtype=dt.int32)
    return apply_op1("ResizeBicubic", [x, s], _attrs(align_corners, half_pixel_centers), name)
