"""ImageProjectiveTransformV3: TF's CPU kernel behind Keras's RandomRotation, RandomZoom
and ``keras.ops.image.affine_transform``.

Each output pixel (x, y) of image b reads the input at
``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1`` (the
row ``[a0 a1 a2 b0 b1 b2 c0 c1]`` of ``transforms``, or its single row for every image),
computed in float32 as TF's ``ProjectiveGenerator``.  A coordinate outside the image is
folded back by ``fill_mode`` (REFLECT, WRAP, NEAREST: scipy's rules as TF writes them,
WRAP dividing by ``len - 1`` as TF does; CONSTANT leaves it); then NEAREST rounds half
away from zero and BILINEAR blends four pixels, a pixel outside the image reading
``fill_value``.

TF's gradient (registered in ``image_ops.py``) is not the adjoint: it applies the inverse
transform to the incoming gradient (``MatrixInverse`` of the 3x3 matrices), and none for
the transform; symgrad's rule builds the same graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.cases import Case, fixed, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import slicing
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, stack
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image import sampling as S
from symgrad.ops.linalg.solve import inv

F32 = np.float32
DTYPES = (dt.uint8, dt.int32, dt.int64, dt.float16, dt.float32, dt.float64)


def _fold(xp: Any, c: Any, n: int, mode: str) -> Any:
    """TF's ``MapCoordinate``: an input coordinate folded into [0, n - 1] by ``mode``
    (``xp`` is NumPy, or jax.numpy for the XLA lowering).  TF multiplies integers and
    converts the product to float; a product of exact integers rounded once is the same
    float32 (the truncated quotient is an exact float32 integer)."""
    if mode == "CONSTANT":
        return c
    if mode == "NEAREST":
        return xp.clip(c, F32(0), F32(n - 1))
    low, high = c < 0, c > F32(n - 1)
    if n <= 1:
        c = xp.where(low | high, F32(0), c)
    elif mode == "REFLECT":
        sz2 = 2 * n
        shifted = F32(sz2) * xp.trunc(-c / F32(sz2)) + c
        below = xp.where(shifted < F32(-n), shifted + F32(sz2), -shifted - F32(1))
        above = c - F32(sz2) * xp.trunc(c / F32(sz2))
        above = xp.where(above >= F32(n), (F32(sz2) - above) - F32(1), above)
        c = xp.where(low, below, xp.where(high, above, c))
    else:  # WRAP (TF divides by len - 1)
        sz = n - 1
        below = c + F32(n) * (xp.trunc(-c / F32(sz)) + F32(1))
        above = c - F32(n) * xp.trunc(c / F32(sz))
        c = xp.where(low, below, xp.where(high, above, c))
    return xp.clip(c, F32(0), F32(n - 1))


def _index(xp: Any, v: Any) -> Any:
    """C++'s ``DenseIndex(v)`` (truncation), with non-finite values sent outside."""
    return xp.where(xp.isfinite(v), xp.clip(v, F32(-(2.0**30)), F32(2.0**30)), F32(-1)).astype(
        np.int32
    )


def _round_half_away(xp: Any, v: Any) -> Any:
    """``std::round``: halves away from zero (``|v| - floor(|v|)`` is exact)."""
    a = xp.abs(v)
    f = xp.floor(a)
    return xp.sign(v) * (f + (a - f >= F32(0.5)).astype(F32))


def project(
    xp: Any, images: Any, transforms: Any, size: tuple[int, int], fill: Any, attrs: dict[str, Any]
) -> Any:
    """The kernel on arrays of ``xp``: ``images`` [n, h, w, c], float32 ``transforms``
    [n or 1, 8], the output ``size``, ``fill`` already of the images' dtype."""
    n, h, w = images.shape[:3]
    t = xp.broadcast_to(transforms.astype(F32), (n, 8))[:, :, None, None]
    oy = xp.arange(size[0], dtype=F32)[None, :, None]
    ox = xp.arange(size[1], dtype=F32)[None, None, :]
    k = (t[:, 6] * ox + t[:, 7] * oy) + F32(1)
    mode = attrs["fill_mode"]
    ix = _fold(xp, ((t[:, 0] * ox + t[:, 1] * oy) + t[:, 2]) / k, w, mode)
    iy = _fold(xp, ((t[:, 3] * ox + t[:, 4] * oy) + t[:, 5]) / k, h, mode)
    b = xp.arange(n)[:, None, None]

    def read(y: Any, x: Any) -> Any:
        inside = (y >= 0) & (y < h) & (x >= 0) & (x < w)
        got = images[b, xp.clip(y, 0, h - 1), xp.clip(x, 0, w - 1)]
        return xp.where(inside[..., None], got, fill)

    if attrs["interpolation"] == "NEAREST":
        out = read(_index(xp, _round_half_away(xp, iy)), _index(xp, _round_half_away(xp, ix)))
    else:
        yf, xf = xp.floor(iy), xp.floor(ix)
        yc, xc = yf + F32(1), xf + F32(1)
        yi, xi, yj, xj = (_index(xp, v) for v in (yf, xf, yc, xc))
        wx0, wx1 = (xc - ix)[..., None], (ix - xf)[..., None]
        low = wx0 * read(yi, xi).astype(F32) + wx1 * read(yi, xj).astype(F32)
        high = wx0 * read(yj, xi).astype(F32) + wx1 * read(yj, xj).astype(F32)
        out = ((yc - iy)[..., None] * low + (iy - yf)[..., None] * high).astype(images.dtype)
    return xp.where((k == 0)[..., None], fill, out)


def _transform(
    images: np.ndarray,
    transforms: np.ndarray,
    output_shape: np.ndarray,
    fill_value: np.ndarray,
    **attrs: Any,
) -> np.ndarray:
    if images.ndim != 4:
        raise InvalidArgumentError("Input images must have rank 4")
    n = images.shape[0]
    if transforms.ndim != 2 or transforms.shape[0] not in (n, 1) or transforms.shape[1] != 8:
        raise InvalidArgumentError("Input transform should be num_images x 8 or 1 x 8")
    oh, ow = (int(v) for v in np.ravel(output_shape))
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError("output dimensions must be positive")
    fill = np.asarray(F32(fill_value)).astype(images.dtype)
    with np.errstate(all="ignore"):
        return project(np, images, transforms, (oh, ow), fill, attrs)  # type: ignore[no-any-return]


def _transform_infer(inputs: list[Tensor], **_: Any) -> Spec:
    images, transforms, output_shape, fill_value = inputs
    if images.dtype not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(
            f"Value for attr 'dtype' of {images.dtype.name} is not in the list of allowed "
            f"values: {names}"
        )
    if transforms.dtype is not dt.float32 or fill_value.dtype is not dt.float32:
        raise TypeError("transforms and fill_value must be float32")
    S.check_rank4(images, "images", inputs)
    if transforms.shape.rank not in (None, 2):
        rank = transforms.shape.rank
        raise ShapeError(f"Shape must be rank 2 but is rank {rank} for input 'transforms'")
    h, w = S.static_size(output_shape, inputs)
    dims = images.shape.dims
    b, c = (None, None) if dims is None else (dims[0], dims[3])
    return TensorShape([b, h, w, c]), images.dtype


def _ref(x: np.ndarray, t: np.ndarray, size: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """A pixel-by-pixel float64 reference for a map whose points fall inside (NEAREST)."""
    out = np.zeros((x.shape[0], *(int(v) for v in size), x.shape[3]))
    for bi in range(x.shape[0]):
        a = t[min(bi, t.shape[0] - 1)]
        for yy in range(out.shape[1]):
            for xx in range(out.shape[2]):
                k = a[6] * xx + a[7] * yy + 1
                sx, sy = (a[0] * xx + a[1] * yy + a[2]) / k, (a[3] * xx + a[4] * yy + a[5]) / k
                sx = min(max(sx, 0), x.shape[2] - 1)
                sy = min(max(sy, 0), x.shape[1] - 1)
                out[bi, yy, xx] = x[bi, int(np.floor(sy + 0.5)), int(np.floor(sx + 0.5))]
    return out


def _transform_batch(c: Call) -> list[Tensor]:
    """K stacked batches of images (and of transforms) as one batch of K * n."""
    if c.batched[2] or c.batched[3]:
        raise NotVectorizable(c.op, "a batched output size or fill value")
    n, h, w, ch = c.dims(0)
    images = array.reshape(c.full(0), [c.k * n, h, w, ch])
    m = c.dims(1)[0]
    t = c.xs[1]
    if c.batched[1]:
        t = array.reshape(array.broadcast_to(t, [c.k, n, 8]), [c.k * n, 8])
    elif m != 1:
        t = array.tile(t, [c.k, 1])
    out = apply_op1(c.op.type, [images, t, c.xs[2], c.xs[3]], dict(c.op.attrs))
    return [array.reshape(out, [c.k, *c.out_dims(0)])]


_SHIFT = fixed([[1.0, 0.0, 0.4, 0.0, 1.0, 0.7, 0.0, 0.0]], F32)
IMAGE_PROJECTIVE_TRANSFORM = register_op(
    "ImageProjectiveTransformV3",
    _transform_infer,
    _transform,
    batch=_transform_batch,
    cases=[
        Case(
            [randn(2, 4, 5, 2), _SHIFT, ints([4, 5]), fixed(0.0, F32)],
            _ref,
            attrs={"interpolation": "NEAREST", "fill_mode": "NEAREST"},
            diff=[0],
            order=0,
            name="nearest",
            note="TF's gradient is the inverse transform, not the adjoint: "
            "tests/keras/test_image_preprocessing.py checks it against TF's numbers",
        ),
    ],
)


@IMAGE_PROJECTIVE_TRANSFORM.gradient
def _projective_transform_gradient(op: Any, grad: Tensor) -> list[Tensor | None]:
    """dimages = transform(g, inverse transform) (TF's rule; not the adjoint); no
    gradient for the transform."""
    images, transforms = op.inputs[0], op.inputs[1]
    flat = array.reshape(transforms, [-1, 8])
    ones = array.ones(stack([array.shape(flat)[0], 1]), dt.float32)
    matrices = array.reshape(concat([flat, ones], axis=1), [-1, 3, 3])
    inverse = array.reshape(inv(matrices), [-1, 9])
    inverse = inverse / slicing.slice(inverse, [0, 8], [-1, 1])
    flat_inverse = slicing.slice(inverse, [0, 0], [-1, 8])
    size = slicing.slice(array.shape(images), [1], [2])
    zero = convert_to_tensor(np.float32(0))
    out = apply_op1("ImageProjectiveTransformV3", [grad, flat_inverse, size, zero], dict(op.attrs))
    return [out, None, None, None]


def image_projective_transform_v3(
    images: Any,
    transforms: Any,
    output_shape: Any,
    fill_value: Any,
    interpolation: str,
    fill_mode: str = "CONSTANT",
    name: str | None = None,
) -> Tensor:
    """TF's raw ``ImageProjectiveTransformV3`` (``tf.raw_ops``)."""
    inputs = [
        convert_to_tensor(images),
        convert_to_tensor(transforms, dtype=dt.float32),
        convert_to_tensor(output_shape, dtype=dt.int32),
        convert_to_tensor(fill_value, dtype=dt.float32),
    ]
    attrs = {"interpolation": interpolation, "fill_mode": fill_mode}
    return apply_op1("ImageProjectiveTransformV3", inputs, attrs, name)
