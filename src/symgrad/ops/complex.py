"""Complex numbers: Conj, Real, Imag, Complex, ComplexAbs, Angle.

Convention (TF's): for a real loss L of complex z the gradient passed back is
dL/dRe z + i dL/dIm z.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..gradient_registry import RegisterGradient
from ..graph import Tensor
from ..op_registry import Spec, apply_op, register_op
from .core import (
    COMPLEX,
    NUMERIC,
    binary_grad,
    broadcast_infer,
    check_dtype,
    convert_n,
    convert_to_tensor,
    same_dtype,
)

_TO_REAL = {dt.complex64: dt.float32, dt.complex128: dt.float64}
_TO_COMPLEX = {dt.float32: dt.complex64, dt.float64: dt.complex128}


def _conj_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    check_dtype("Conj", inputs[0], NUMERIC, "input")
    return inputs[0].shape, inputs[0].dtype


register_op("Conj", _conj_infer, np.conj)


def conj(x: Any, name: str | None = None) -> Tensor:
    """Complex conjugate; on real tensors the identity (and no op is created, as in TF)."""
    t = convert_to_tensor(x)
    if not t.dtype.is_complex:
        return t
    return apply_op("Conj", [t], name=name)._output(0)


@RegisterGradient("Conj")
def _conj_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = conj(g)."""
    return conj(grad)


def _part_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        check_dtype(op_type, inputs[0], COMPLEX, "input")
        return inputs[0].shape, _TO_REAL[inputs[0].dtype]
    return infer


register_op("Real", _part_infer("Real"), np.real)
register_op("Imag", _part_infer("Imag"), np.imag)
register_op("ComplexAbs", _part_infer("ComplexAbs"), np.abs)
register_op("Angle", _part_infer("Angle"), np.angle)


def real(input: Any, name: str | None = None) -> Tensor:
    """Real part; a real tensor is returned as is."""
    t = convert_to_tensor(input)
    return apply_op("Real", [t], name=name)._output(0) if t.dtype.is_complex else t


def imag(input: Any, name: str | None = None) -> Tensor:
    """Imaginary part; zeros for a real tensor."""
    t = convert_to_tensor(input)
    if not t.dtype.is_complex:
        from .array import zeros_like
        return zeros_like(t)
    return apply_op("Imag", [t], name=name)._output(0)


def angle(input: Any, name: str | None = None) -> Tensor:
    return apply_op("Angle", [convert_to_tensor(input)], name=name)._output(0)


def _complex_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    d = same_dtype(inputs, ("real", "imag"))
    check_dtype("Complex", inputs[0], (dt.float32, dt.float64), "real")
    return broadcast_infer("Complex", inputs), _TO_COMPLEX[d]


register_op("Complex", _complex_infer, lambda re, im: re + 1j * im)


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001
    """``real + i·imag`` (float32 -> complex64, float64 -> complex128)."""
    return apply_op("Complex", convert_n((real, imag)), name=name)._output(0)


@RegisterGradient("Real")
def _real_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = complex(g, 0)."""
    return complex(grad, zeros(grad))


@RegisterGradient("Imag")
def _imag_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = complex(0, g)."""
    return complex(zeros(grad), grad)


@binary_grad("Complex")
def _complex_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(real(g), imag(g))."""
    return real(grad), imag(grad)


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = g · z / |z|, and 0 where |z| = 0."""
    from .array import where
    from .math import equal

    z, r = op.inputs[0], op.outputs[0]
    safe_r = where(equal(r, 0), ones(r), r)
    unit = where(equal(r, 0), zeros(z), z / complex(safe_r, zeros(r)))
    return complex(grad, zeros(grad)) * unit


@RegisterGradient("Angle")
def _angle_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = -g / (Im z + i Re z)... written as g · (-1 / conj(i·conj(z)))."""
    z = op.inputs[0]
    re, im = real(z), imag(z)
    return complex(grad, zeros(grad)) * (-1 / complex(im, re))


def zeros(like: Tensor) -> Tensor:
    from .array import zeros_like
    return zeros_like(like)


def ones(like: Tensor) -> Tensor:
    from .array import ones_like
    return ones_like(like)
