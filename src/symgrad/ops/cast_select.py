"""Cast, ZerosLike/OnesLike and SelectV2/Where: the array ops every family's gradients use.

They sit below the op families (math, array, reduction, ...), beside ``ops/core.py``, so
that an elementwise op's gradient can cast, zero or select without importing the array
family, whose own gradients use the math family.  Re-exported by ``ops/array/structure``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, randn, uniform
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op1, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array_vjp import cast as cast_a
from symgrad.ops.core import (
    ALL,
    FLOAT_COMPLEX,
    broadcast_infer,
    check_dtype,
    constant,
    convert_n,
    convert_to_tensor,
    same_dtype,
    unbroadcast,
)

_INT_OUTPUT = "its output is an integer tensor: not differentiable"
# --------------------------------------------------------------------------------------
# Cast


def _cast_infer(inputs: Sequence[Tensor], *, SrcT: dt.DType, DstT: dt.DType) -> Spec:
    return inputs[0].shape, DstT


def _cast_kernel(x: np.ndarray, *, SrcT: dt.DType, DstT: dt.DType) -> np.ndarray:
    if x.dtype.kind == "c" and DstT.np.kind != "c":
        x = x.real  # TF keeps the real part
    return x.astype(DstT.np)


CAST = register_op(
    "Cast",
    _cast_infer,
    _cast_kernel,
    batch=batching.elementwise,
    forwards=lambda op, consts: 0 if op.inputs[0].dtype is op.output_dtypes[0] else None,
)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert ``x`` to ``dtype`` (complex -> real keeps the real part, as TF)."""
    t = convert_to_tensor(x)
    d = dt.as_dtype(dtype)
    if t.dtype is d:
        return t
    return apply_op1("Cast", [t], {"SrcT": t.dtype, "DstT": d}, name)


CAST.add_cases(
    Case(
        [randn(3, 4)],
        lambda x: x.astype(np.complex128),
        dtypes=(np.float64,),
        attrs={"SrcT": dt.float64, "DstT": dt.complex128},
        name="to_complex",
    ),
    Case(
        [randn(3, 4)],
        lambda x: x.astype(np.float64),
        lambda x: cast(x, dt.float64),
        dtypes=(np.float32,),
        order=0,
        name="to_float64",
    ),
    Case(
        [randn(3, 4)],
        lambda x: x,
        lambda x: cast(cast(x, dt.complex128), dt.float64),
        dtypes=(np.float64,),
        name="via_complex",
    ),
    Case(
        [uniform(-3, 3, 3, 4)],
        lambda x: x.astype(np.int32),
        lambda x: cast(x, dt.int32),
        order=0,
        name="to_int",
    ),
)


@CAST.gradient
def _cast_grad(op: Any, grad: Tensor) -> Tensor | None:
    """cast(g, source dtype) between float/complex types; None otherwise (int cuts the path)."""
    src, dst = op.get_attr("SrcT"), op.get_attr("DstT")
    if src in FLOAT_COMPLEX and dst in FLOAT_COMPLEX:
        return cast(grad, src)
    return None


@array_rule("Cast")
def _cast_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    src, dst = attrs["SrcT"], attrs["DstT"]
    if src in FLOAT_COMPLEX and dst in FLOAT_COMPLEX:
        return [cast_a(grads[0], src)]
    return [None]


# --------------------------------------------------------------------------------------
# ZerosLike, OnesLike


ZEROS_LIKE = register_op(
    "ZerosLike",
    lambda i: (i[0].shape, i[0].dtype),
    np.zeros_like,
    shape_only=True,
    fill=True,
    batch=batching.elementwise,
)
ONES_LIKE = register_op(
    "OnesLike",
    lambda i: (i[0].shape, i[0].dtype),
    np.ones_like,
    shape_only=True,
    fill=True,
    batch=batching.elementwise,
)
ZEROS_LIKE.no_gradient()
ONES_LIKE.no_gradient()


_SMALL = 1000  # elements: TF's bound for a zeros/ones Const in a graph


def filled(dims: Sequence[Any], value: int, d: dt.DType, name: str) -> Tensor:
    """Zeros or ones of a fully known shape in a graph: a Const when small, else a Fill op, as
    TF builds them, so that a large ``zeros`` costs no memory until it runs."""
    if math.prod(dims) < _SMALL:
        return constant(np.full(dims, value, d.np), name=name)
    shape = convert_to_tensor(dims, dtype_hint=dt.int32)  # int64 where a size needs it
    return apply_op1("Fill", [shape, constant(np.array(value, d.np))], name=name)


def is_zeros(t: Tensor) -> bool:
    """Whether ``t`` is known to be all zeros when the graph is built (a gradient that
    filled in for an output nobody differentiated, say): a rule may then skip it."""
    if t.op.type == "ZerosLike":
        return True
    if t.op.type == "Fill":  # a big zeros constant (_filled)
        t = t.op.inputs[1]
    v = constant_value(t)
    return v is not None and not np.any(v)


def zeros_like(
    input: Any, dtype: Any = None, name: str | None = None, layout: Any = None
) -> Tensor:
    """Zeros with ``input``'s shape (and dtype unless given)."""
    t = convert_to_tensor(input)
    d = dt.as_dtype(dtype) if dtype is not None else t.dtype
    if t.shape.is_fully_defined() and not t.graph.eager:
        return filled(t.shape.as_list(), 0, d, name or "zeros_like")  # Fill if big, as TF
    out = apply_op1("ZerosLike", [t], name=name)
    return cast(out, d) if d is not t.dtype else out


def ones_like(input: Any, dtype: Any = None, name: str | None = None, layout: Any = None) -> Tensor:
    """Ones with ``input``'s shape (and dtype unless given)."""
    t = convert_to_tensor(input)
    d = dt.as_dtype(dtype) if dtype is not None else t.dtype
    if t.shape.is_fully_defined() and not t.graph.eager:
        return filled(t.shape.as_list(), 1, d, name or "ones_like")  # Fill if big, as TF
    out = apply_op1("OnesLike", [t], name=name)
    return cast(out, d) if d is not t.dtype else out


_CONSTANT_OUTPUT = "its output does not depend on the input's values"
ZEROS_LIKE.add_cases(
    Case([randn(3, 4)], np.zeros_like, fn=zeros_like, order=0, note=_CONSTANT_OUTPUT)
)
ONES_LIKE.add_cases(Case([randn(3, 4)], np.ones_like, fn=ones_like, order=0, note=_CONSTANT_OUTPUT))


# --------------------------------------------------------------------------------------
# SelectV2 (tf.where with three arguments), Where (with one)


def _select_infer(inputs: Sequence[Tensor]) -> Spec:
    c, x, y = inputs
    check_dtype("SelectV2", c, (dt.bool_,), "condition")
    d = same_dtype([x, y], ("x", "y"))
    check_dtype("SelectV2", x, ALL, "x")
    return broadcast_infer("SelectV2", inputs), d


SELECT_V2 = register_op(
    "SelectV2",
    _select_infer,
    lambda c, x, y: np.where(c, x, y),
    batch=batching.elementwise,
    cases=[Case([fixed([[True, False, True, False]]), randn(3, 4), randn(3, 1)], np.where)],
)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elementwise ``x if condition else y`` with broadcasting (op type ``SelectV2``)."""
    if x is None and y is None:
        return _where_indices(condition, name)
    if x is None or y is None:
        raise ValueError("x and y must both be given, or neither")
    c = convert_to_tensor(condition)
    a, b = convert_n((x, y))
    return apply_op1("SelectV2", [c, a, b], name=name)


@SELECT_V2.gradient
def _select_grad(op: Any, grad: Tensor) -> tuple[None, Tensor, Tensor]:
    """(None, where(c, g, 0), where(c, 0, g)), each un-broadcast to its input."""
    c, x, y = op.inputs
    z = zeros_like(grad)
    return (
        None,
        unbroadcast(where(c, grad, z), x, (c, y)),
        unbroadcast(where(c, z, grad), y, (c, x)),
    )


def _where_infer(inputs: Sequence[Tensor]) -> Spec:
    c = constant_value(inputs[0])  # the count is data-dependent: known only for constants
    return TensorShape(
        [None if c is None else int(np.count_nonzero(c)), inputs[0].shape.rank]
    ), dt.int64


WHERE = register_op(
    "Where",
    _where_infer,
    lambda c: np.argwhere(c).astype(np.int64),
    batch="its output has one row per true entry: the examples of a batch "
    "would give outputs of different lengths",
)
WHERE.no_gradient()


def _where_indices(condition: Any, name: str | None) -> Tensor:
    return apply_op1("Where", [convert_to_tensor(condition)], name=name)


WHERE.add_cases(
    Case(
        [fixed([[True, False], [False, True], [True, True]])],
        np.argwhere,
        fn=where,
        dtypes=(np.bool_,),
        order=0,
        note=_INT_OUTPUT,
    )
)
