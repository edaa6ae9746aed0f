"""ExtractImagePatches: ``tf.image.extract_patches``, each window of ``ksizes`` (dilated by
``rates``, stepped by ``strides``, padded by ``padding`` as a convolution's) laid out along
the depth axis as ``(row, column, channel)``; zeros where a window leaves the image.

Its gradient is TF's composite (``array_grad.py``): the patches of an image of pixel
numbers say where each patch entry came from, and ``UnsortedSegmentSum`` adds the
incoming gradient back onto those pixels (padding's entries, numbered -1, are dropped).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, randn
from symgrad.core.errors import InvalidArgumentError, UnimplementedError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import unsorted_segment_sum
from symgrad.ops.array.joining import stack, unstack
from symgrad.ops.core import NUMERIC, convert_to_tensor
from symgrad.ops.image import sampling as S


def _check_attrs(ksizes: Any, strides: Any, rates: Any, padding: str) -> None:
    for name, value in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if len(value) < 4:
            raise ShapeError(f"Length for attr '{name}' of {len(value)} must be at least minimum 4")
    if padding not in ("SAME", "VALID"):
        raise ShapeError(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID"'
        )


def geometry(n: int, k: int, stride: int, rate: int, padding: str) -> tuple[int, int]:
    """(output size, padding before) of one axis, as TF's ``GetWindowedOutputSize``."""
    eff = k + (k - 1) * (rate - 1)
    if padding == "VALID":
        num = n - eff + stride
        out = num // stride if num >= 0 else -(-num // stride)  # C's division truncates
        if out < 0:
            raise InvalidArgumentError(
                f"Computed output size would be negative: {out} [input_size: {n}, "
                f"effective_filter_size: {eff}, stride: {stride}]"
            )
        return out, 0
    out = (n + stride - 1) // stride
    return out, max(0, (out - 1) * stride + eff - n) // 2


def _taps(n: int, k: int, stride: int, rate: int, padding: str) -> np.ndarray:
    """[out, k]: the input index of each window tap (outside [0, n) where padded)."""
    out, before = geometry(n, k, stride, rate, padding)
    return (np.arange(out) * stride - before)[:, None] + np.arange(k) * rate  # type: ignore[no-any-return]


def _patches(
    images: np.ndarray, *, ksizes: Any, strides: Any, rates: Any, padding: str
) -> np.ndarray:
    for name, value in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if value[0] != 1 or value[3] != 1:
            raise UnimplementedError(f"Only support {name} across space.")
    if min(strides) <= 0:
        raise InvalidArgumentError("strides is out of range.")
    if min(rates) <= 0:
        raise InvalidArgumentError("rates is out of range.")
    b, h, w, _ = images.shape
    rows = _taps(h, ksizes[1], strides[1], rates[1], padding)
    cols = _taps(w, ksizes[2], strides[2], rates[2], padding)
    r, q = rows[:, None, :, None], cols[None, :, None, :]
    inside = (r >= 0) & (r < h) & (q >= 0) & (q < w)
    got = images[:, np.clip(r, 0, h - 1), np.clip(q, 0, w - 1)]  # [b, R, C, kr, kc, c]
    got = np.where(inside[None, ..., None], got, np.zeros((), images.dtype))
    depth = ksizes[1] * ksizes[2] * images.shape[3]
    return got.reshape(b, rows.shape[0], cols.shape[0], depth)  # type: ignore[no-any-return]


def _patches_infer(
    inputs: list[Tensor], *, ksizes: Any, strides: Any, rates: Any, padding: str
) -> Spec:
    (x,) = inputs
    _check_attrs(ksizes, strides, rates, padding)
    if x.dtype not in NUMERIC:
        raise TypeError(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values"
        )
    S.check_rank4(x, "images", inputs)
    dims = x.shape.dims or [None] * 4
    out = [dims[0], None, None, None if dims[3] is None else dims[3] * ksizes[1] * ksizes[2]]
    for axis in (1, 2):
        n = dims[axis]
        if n is not None and min(strides[axis], rates[axis]) > 0:
            try:
                out[axis] = geometry(n, ksizes[axis], strides[axis], rates[axis], padding)[0]
            except InvalidArgumentError as e:
                raise ShapeError(str(e)) from None
    return TensorShape(out), x.dtype


def _patches_ref(ksizes: Any, strides: Any, rates: Any, padding: str) -> Any:
    """Pixel-by-pixel loops (an independent reference)."""

    def ref(x: np.ndarray) -> np.ndarray:
        b, h, w, c = x.shape
        kr, kc = ksizes[1:3]
        er, ec = (kr - 1) * rates[1] + 1, (kc - 1) * rates[2] + 1
        if padding == "VALID":
            oh, ow, top, left = (h - er) // strides[1] + 1, (w - ec) // strides[2] + 1, 0, 0
        else:
            oh, ow = -(-h // strides[1]), -(-w // strides[2])
            top = max(0, (oh - 1) * strides[1] + er - h) // 2
            left = max(0, (ow - 1) * strides[2] + ec - w) // 2
        out = np.zeros((b, oh, ow, kr, kc, c))
        for i in range(oh):
            for j in range(ow):
                for p in range(kr):
                    for q in range(kc):
                        y, z = (
                            i * strides[1] + p * rates[1] - top,
                            j * strides[2] + q * rates[2] - left,
                        )
                        if 0 <= y < h and 0 <= z < w:
                            out[:, i, j, p, q] = x[:, y, z]
        return out.reshape(b, oh, ow, -1)

    return ref


_VALID: dict[str, Any] = {"ksizes": [1, 2, 3, 1], "strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1]}
_VALID["padding"] = "VALID"
_SAME: dict[str, Any] = {"ksizes": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "rates": [1, 1, 2, 1]}
_SAME["padding"] = "SAME"
EXTRACT_IMAGE_PATCHES = register_op(
    "ExtractImagePatches",
    _patches_infer,
    _patches,
    batch=S.fold_batch([0]),
    cases=[
        Case([randn(2, 5, 7, 2)], _patches_ref(**_VALID), attrs=_VALID, name="valid"),
        Case([randn(1, 4, 5, 3)], _patches_ref(**_SAME), attrs=_SAME, name="same"),
    ],
)


@EXTRACT_IMAGE_PATCHES.gradient
def _extract_image_patches_gradient(op: Any, grad: Tensor) -> Tensor:
    """dimages = unsorted_segment_sum(g, patches of the pixel numbers) (TF's rule)."""
    x, y = op.inputs[0], op.outputs[0]
    b, h, w, c = unstack(array.shape(x, out_type=dt.int64))
    rows_out, cols_out = unstack(array.shape(y, out_type=dt.int64)[1:3])
    kr, kc = op.get_attr("ksizes")[1:3]
    count = h * w
    numbers = array.reshape(array.range(1, count + 1, dtype=dt.float32), stack([1, h, w, 1]))
    patched = array.cast(apply_op1("ExtractImagePatches", [numbers], dict(op.attrs)), dt.int64)
    expanded = array.transpose(
        array.reshape(grad, stack([b, rows_out, cols_out, kr, kc, c])), [1, 2, 3, 4, 0, 5]
    )
    flat = array.reshape(expanded, stack([-1, b * c]))
    summed = unsorted_segment_sum(flat, array.reshape(patched, [-1]) - 1, count)
    return array.transpose(array.reshape(summed, stack([h, w, b, c])), [2, 0, 1, 3])


def extract_image_patches(
    images: Any, ksizes: Any, strides: Any, rates: Any, padding: str, name: str | None = None
) -> Tensor:
    """TF's raw ``ExtractImagePatches``."""
    attrs = {
        "ksizes": [int(v) for v in ksizes],
        "strides": [int(v) for v in strides],
        "rates": [int(v) for v in rates],
        "padding": padding,
    }
    return apply_op1("ExtractImagePatches", [convert_to_tensor(images)], attrs, name)
