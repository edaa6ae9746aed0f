"""Complex numbers: Conj, Real, Imag, Angle, Complex, one record each.

ComplexAbs (``|z|``) is declared beside Abs in ``ops.math``, since ``tf.abs`` dispatches to
it and its rule needs the comparison ops.

Convention (TF's): for a real loss L of complex z the gradient passed back is
dL/dRe z + i dL/dIm z.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import COMPLEX, Case, complex_randn, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op1, register_op
from symgrad.ops import cast_select
from symgrad.ops.core import (
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


def conj(x: Any, name: str | None = None) -> Tensor:
    """Complex conjugate; on real tensors the identity (and no op is created, as in TF)."""
    t = convert_to_tensor(x)
    if not t.dtype.is_complex:
        return t
    return apply_op1("Conj", [t], name=name)


CONJ_DEF = register_op(
    "Conj",
    _conj_infer,
    np.conj,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([complex_randn(3, 4)], np.conj, fn=conj, dtypes=COMPLEX)],
)


@CONJ_DEF.gradient
def _conj_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = conj(g)."""
    return conj(grad)


def part_infer(op_type: str) -> Callable[..., Spec]:
    """The shape rule of an elementwise op from complex to real (Real, Imag, ComplexAbs)."""

    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        check_dtype(op_type, inputs[0], tuple(_TO_REAL), "input")
        return inputs[0].shape, _TO_REAL[inputs[0].dtype]

    return infer


def real(input: Any, name: str | None = None) -> Tensor:
    """Real part; a real tensor is returned as is."""
    t = convert_to_tensor(input)
    return apply_op1("Real", [t], name=name) if t.dtype.is_complex else t


REAL_DEF = register_op(
    "Real",
    part_infer("Real"),
    np.real,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([complex_randn(3, 4)], np.real, fn=real, dtypes=COMPLEX)],
)


@REAL_DEF.gradient
def _real_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = complex(g, 0)."""
    return complex(grad, cast_select.zeros_like(grad))


def imag(input: Any, name: str | None = None) -> Tensor:
    """Imaginary part; zeros for a real tensor."""
    t = convert_to_tensor(input)
    if not t.dtype.is_complex:
        return cast_select.zeros_like(t)
    return apply_op1("Imag", [t], name=name)


IMAG_DEF = register_op(
    "Imag",
    part_infer("Imag"),
    np.imag,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([complex_randn(3, 4)], np.imag, fn=imag, dtypes=COMPLEX)],
)


@IMAG_DEF.gradient
def _imag_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = complex(0, g)."""
    return complex(cast_select.zeros_like(grad), grad)


def angle(input: Any, name: str | None = None) -> Tensor:
    return apply_op1("Angle", [convert_to_tensor(input)], name=name)


ANGLE_DEF = register_op(
    "Angle",
    part_infer("Angle"),
    np.angle,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([complex_randn(3, 4)], np.angle, fn=angle, dtypes=COMPLEX)],
)


@ANGLE_DEF.gradient
def _angle_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = -g / (Im z + i Re z)... written as g · (-1 / conj(i·conj(z)))."""
    z = op.inputs[0]
    re, im = real(z), imag(z)
    return complex(grad, cast_select.zeros_like(grad)) * (-1 / complex(im, re))


def _complex_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    d = same_dtype(inputs, ("real", "imag"))
    check_dtype("Complex", inputs[0], (dt.float32, dt.float64), "real")
    return broadcast_infer("Complex", inputs), _TO_COMPLEX[d]


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:
    """``real + i·imag`` (float32 -> complex64, float64 -> complex128)."""
    return apply_op1("Complex", convert_n((real, imag)), name=name)


register_op(
    "Complex",
    _complex_infer,
    lambda re, im: re + 1j * im,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([randn(3, 4), randn(4)], lambda a, b: a + 1j * b, fn=complex)],
)


@binary_grad("Complex")
def _complex_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(real(g), imag(g))."""
    return real(grad), imag(grad)
