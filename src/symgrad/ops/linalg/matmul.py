"""MatMul (rank 2) and BatchMatMulV2 (rank >= 2, broadcast batch dimensions).

Each op is one record (shape rule, kernel, batching rule, op-table cases) with its
gradient rule beside it.  For complex dtypes the products' adjoints conjugate, as TF's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call
from symgrad.core.cases import COMPLEX, Case, complex_randn, randn
from symgrad.core.eager import VARIABLE_TYPES, EagerTensor
from symgrad.core.fast_path import FastOp, fast_apply
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import _DEFAULT_NAMES, OPS, ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape, broadcast_shapes
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import conj as conj_a
from symgrad.ops.array_vjp import kernel, unbroadcast
from symgrad.ops.core import NUMERIC, binary_grad, check_dtype, convert_n, same_dtype, wanted
from symgrad.ops.math.complex import conj

# --------------------------------------------------------------------------------------
# matmul: MatMul for rank 2, BatchMatMulV2 otherwise


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix product ``a @ b``: MatMul for rank 2, BatchMatMulV2 for rank >= 3 or mixed."""
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        raise ValueError(
            "Only one of transpose_a and adjoint_a (or transpose_b and adjoint_b) can be True."
        )
    x: Tensor
    y: Tensor
    if type(a) is EagerTensor and type(b) in VARIABLE_TYPES:
        x, y = a, b._read_up(4)  # the read convert_n makes (the first operand is a
        # tensor), its user's line looked for from matmul's caller on
    elif type(a) in _TENSORS and type(b) in _TENSORS:
        x, y = a, b
    else:
        x, y = convert_n((a, b))
    dx, dy = x.shape.dims, y.shape.dims
    if dx is not None and dy is not None and len(dx) == 2 and len(dy) == 2:
        if adjoint_a and x.dtype.is_complex:
            x = conj(x)
        if adjoint_b and y.dtype.is_complex:
            y = conj(y)
        ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
        attrs = {"transpose_a": ta, "transpose_b": tb}
        if name is None:  # core/eager.py's light tensor, if it can
            run = _bind_matmul(transpose_a=ta, transpose_b=tb) if ta or tb else np.matmul
            spec = _SPECS.get((dx, dy, id(x.dtype), id(y.dtype), ta, tb))  # (memo first)
            t = fast_apply(_FAST_MATMUL, (x, y), attrs, run, spec or _matmul_spec(x, y, ta, tb))
            if t is not None:
                return t
        return apply_op1("MatMul", [x, y], attrs, name)
    if transpose_a and x.dtype.is_complex:
        x = conj(x)  # transpose = adjoint of the conjugate
    if transpose_b and y.dtype.is_complex:
        y = conj(y)
    return apply_op1(
        "BatchMatMulV2",
        [x, y],
        {"adj_x": transpose_a or adjoint_a, "adj_y": transpose_b or adjoint_b},
        name,
    )


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix-vector product ``a @ b[..., None]`` without the last axis, as tf.linalg.matvec
    (a product of matrices underneath, so its gradients are matmul's)."""
    x, v = convert_n((a, b))
    col = array.expand_dims(v, -1)
    y = matmul(x, col, transpose_a=transpose_a, adjoint_a=adjoint_a, name=name)
    return array.squeeze(y, [-1])


def _mm(a: Tensor, b: Tensor, ta: bool = False, tb: bool = False) -> Tensor:
    return apply_op1("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb})


def _bmm(x: Tensor, y: Tensor, adj_x: bool = False, adj_y: bool = False) -> Tensor:
    return apply_op1("BatchMatMulV2", [x, y], {"adj_x": adj_x, "adj_y": adj_y})


# --------------------------------------------------------------------------------------
# MatMul

_NUMERIC_IDS = frozenset(map(id, NUMERIC))  # dtypes are singletons: id hashes in C
_TENSORS = (Tensor, EagerTensor)


def _matmul_infer(
    inputs: Sequence[Tensor], *, transpose_a: bool = False, transpose_b: bool = False
) -> Spec:
    a, b = inputs
    d = a.dtype
    sa, sb = a.shape.dims, b.shape.dims
    if (  # the common case (every eager call): known rank-2 sizes, one dtype
        b.dtype is d
        and id(d) in _NUMERIC_IDS
        and sa is not None
        and sb is not None
        and len(sa) == 2
        and len(sb) == 2
        and None not in sa
        and None not in sb
    ):
        m, k = (sa[1], sa[0]) if transpose_a else sa
        j, n = (sb[1], sb[0]) if transpose_b else sb
        if k == j:  # ... whose inner sizes agree
            return TensorShape.of_array((m, n)), d  # type: ignore[arg-type]  # known (above)
    return _matmul_infer_checked(inputs, transpose_a, transpose_b)


def _matmul_infer_checked(inputs: Sequence[Tensor], transpose_a: bool, transpose_b: bool) -> Spec:
    """The rule in full: partial shapes, and the errors for bad input."""
    a, b = inputs
    d = same_dtype(inputs, ("a", "b"))
    check_dtype("MatMul", a, NUMERIC, "a")
    for t, arg in ((a, "a"), (b, "b")):
        if t.shape.rank is not None and t.shape.rank != 2:
            raise ShapeError(
                f"Shape must be rank 2 but is rank {t.shape.rank} for input '{arg}' "
                f"with shape {t.shape}"
            )
    sa = a.shape.dims or (None, None)
    sb = b.shape.dims or (None, None)
    m, ka = (sa[1], sa[0]) if transpose_a else (sa[0], sa[1])
    kb, n = (sb[1], sb[0]) if transpose_b else (sb[0], sb[1])
    if ka is not None and kb is not None and ka != kb:
        raise ShapeError(
            f"Matrix size-incompatible: In[0]: {list(sa)}, In[1]: {list(sb)} "
            f"(transpose_a={transpose_a}, transpose_b={transpose_b}): inner "
            f"dimensions {ka} and {kb} differ"
        )
    return TensorShape([m, n]), d


def _matmul_spec(x: Tensor, y: Tensor, ta: bool, tb: bool) -> Spec | None:
    """``_matmul_infer``'s result for ``x`` and ``y``, remembered by their sizes, dtypes
    and the transposes (the same few every step; a few hundred at most; ``matmul`` reads
    the memo first); None where the rule raises (``fast_apply`` reruns it: the general
    path reports)."""
    key = (x.shape.dims, y.shape.dims, id(x.dtype), id(y.dtype), ta, tb)  # (dtypes: singletons)
    spec = _SPECS.get(key)
    if spec is None:
        try:
            spec = _matmul_infer((x, y), transpose_a=ta, transpose_b=tb)
        except Exception:
            return None
        if len(_SPECS) >= 256:
            _SPECS.clear()
        _SPECS[key] = spec
    return spec


_SPECS: dict[Any, Spec] = {}


def _matmul_kernel(
    a: np.ndarray, b: np.ndarray, *, transpose_a: bool = False, transpose_b: bool = False
) -> np.ndarray:
    return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


def _bind_matmul(*, transpose_a: bool = False, transpose_b: bool = False) -> Any:
    if not (transpose_a or transpose_b):
        return np.matmul
    if transpose_a and transpose_b:
        return lambda a, b: np.matmul(a.T, b.T)
    if transpose_a:
        return lambda a, b: np.matmul(a.T, b)
    return lambda a, b: np.matmul(a, b.T)


def _transposes(ta: bool, tb: bool) -> dict[str, bool]:
    return {"transpose_a": ta, "transpose_b": tb}


_FAST_MATMUL = FastOp("MatMul", _matmul_infer, frozenset(), None, OPS, _DEFAULT_NAMES)
MATMUL_DEF = register_op(
    "MatMul",
    _matmul_infer,
    _matmul_kernel,
    bind=_bind_matmul,
    cases=[
        Case([randn(3, 4), randn(4, 5)], np.matmul, attrs=_transposes(False, False)),
        Case(
            [randn(4, 3), randn(4, 5)],
            lambda a, b: a.T @ b,
            name="ta",
            fn=lambda a, b: matmul(a, b, transpose_a=True),
        ),
        Case(
            [randn(3, 4), randn(5, 4)],
            lambda a, b: a @ b.T,
            name="tb",
            fn=lambda a, b: matmul(a, b, transpose_b=True),
        ),
        Case(
            [randn(4, 3), randn(5, 4)],
            lambda a, b: a.T @ b.T,
            attrs=_transposes(True, True),
            name="ta_tb",
        ),
        Case(
            [complex_randn(4, 3), complex_randn(4, 5)],
            lambda a, b: a.conj().T @ b,
            fn=lambda a, b: matmul(a, b, adjoint_a=True),
            dtypes=COMPLEX,
            name="complex_adjoint",
        ),
    ],
)


@MATMUL_DEF.gradient
def _matmul_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """Four transpose cases; for a b: da = g conj(b)ᵀ, db = conj(a)ᵀ g."""
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    if not ta and not tb:
        return wanted(op, lambda: _mm(grad, b, tb=True), lambda: _mm(a, grad, ta=True))
    if not ta and tb:
        return wanted(op, lambda: _mm(grad, b), lambda: _mm(grad, a, ta=True))
    if ta and not tb:
        return wanted(op, lambda: _mm(b, grad, tb=True), lambda: _mm(a, grad))
    return wanted(
        op, lambda: _mm(b, grad, ta=True, tb=True), lambda: _mm(grad, a, ta=True, tb=True)
    )


@array_rule("MatMul")
def _matmul_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    a, b = xs
    g = grads[0]
    if a.dtype.kind == "c" or b.dtype.kind == "c":  # (``conj_a`` of real arrays: themselves)
        a, b = conj_a(a), conj_a(b)
    # The rule's four transpose cases, each product's operands transposed (views) here.
    if not attrs["transpose_a"]:
        if not attrs["transpose_b"]:
            return [
                _mm_array(g, b.T) if needs[0] else None,
                _mm_array(a.T, g) if needs[1] else None,
            ]
        return [_mm_array(g, b) if needs[0] else None, _mm_array(g.T, a) if needs[1] else None]
    if not attrs["transpose_b"]:
        return [_mm_array(b, g.T) if needs[0] else None, _mm_array(a, g) if needs[1] else None]
    return [_mm_array(b.T, g.T) if needs[0] else None, _mm_array(g.T, a.T) if needs[1] else None]


def _mm_array(p: Any, q: Any) -> Any:
    """The MatMul kernel (``_matmul_kernel``) as ``kernel("MatMul")`` runs it, called
    directly on the operands as transposed: a backward pass runs two a product, and the
    wrapper cost a fifth of each.  (Its dtype: p's, which p.T has.)"""
    v = np.matmul(p, q)
    return v if type(v) is np.ndarray and v.dtype == p.dtype else np.asarray(v, dtype=p.dtype)


@MATMUL_DEF.batching
def _matmul_batch(c: Call) -> list[Tensor]:
    """Transposes made explicit, then a broadcasting batched product (a reshape for a·B)."""
    a, b = c.xs
    ta, tb = c.op.get_attr("transpose_a"), c.op.get_attr("transpose_b")
    if c.batched[0] and not c.batched[1] and not ta:
        m, n = c.dims(0)
        flat = matmul(array.reshape(a, [c.k * m, n]), b, transpose_b=tb)
        return [array.reshape(flat, [c.k] + c.out_dims())]
    a = _swap_last(a, 2 + c.batched[0]) if ta else a
    b = _swap_last(b, 2 + c.batched[1]) if tb else b
    return [_bmm(a, b)]


def _swap_last(x: Tensor, rank: int) -> Tensor:
    return array.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


# --------------------------------------------------------------------------------------
# BatchMatMulV2


def _batch_matmul_infer(
    inputs: Sequence[Tensor], *, adj_x: bool = False, adj_y: bool = False
) -> Spec:
    x, y = inputs
    d = same_dtype(inputs, ("x", "y"))
    check_dtype("BatchMatMulV2", x, NUMERIC)
    if x.shape.dims is None or y.shape.dims is None:
        return TensorShape(None), d
    for t, arg in ((x, "x"), (y, "y")):
        if len(t.shape.dims) < 2:  # type: ignore[arg-type]
            raise ShapeError(f"input '{arg}' must have rank >= 2, got shape {t.shape}")
    sx, sy = list(x.shape.dims), list(y.shape.dims)  # type: ignore[arg-type]
    m, kx = (sx[-1], sx[-2]) if adj_x else (sx[-2], sx[-1])
    ky, n = (sy[-1], sy[-2]) if adj_y else (sy[-2], sy[-1])
    if kx is not None and ky is not None and kx != ky:
        raise ShapeError(
            f"Matrix size-incompatible: In[0]: {sx}, In[1]: {sy}: inner "
            f"dimensions {kx} and {ky} differ"
        )
    batch = broadcast_shapes(TensorShape(sx[:-2]), TensorShape(sy[:-2]))
    if batch is None:
        raise ShapeError(f"batch dimensions {sx[:-2]} and {sy[:-2]} cannot be broadcast")
    return TensorShape(list(batch.dims) + [m, n]), d  # type: ignore[arg-type]


def _adjoint(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _batch_matmul_kernel(
    x: np.ndarray, y: np.ndarray, *, adj_x: bool = False, adj_y: bool = False
) -> np.ndarray:
    return np.matmul(_adjoint(x) if adj_x else x, _adjoint(y) if adj_y else y)


BATCH_MATMUL_DEF = register_op(
    "BatchMatMulV2",
    _batch_matmul_infer,
    _batch_matmul_kernel,
    cases=[
        Case([randn(2, 3, 4), randn(2, 4, 5)], np.matmul, fn=lambda a, b: matmul(a, b)),
        Case(
            [randn(2, 1, 3, 4), randn(5, 4, 6)],
            np.matmul,
            attrs={"adj_x": False, "adj_y": False},
            name="broadcast",
        ),
        Case([randn(3, 4), randn(2, 4, 5)], np.matmul, fn=lambda a, b: matmul(a, b), name="mixed"),
        Case(
            [complex_randn(2, 4, 3), complex_randn(2, 5, 4)],
            lambda a, b: _adjoint(a) @ _adjoint(b),
            attrs={"adj_x": True, "adj_y": True},
            dtypes=COMPLEX,
            name="adjoint",
        ),
    ],
)


@binary_grad("BatchMatMulV2")
def _batch_matmul_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """Adjoint cases (y^H = conj transpose); batch axes are un-broadcast by binary_grad."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        return _bmm(grad, y, adj_y=True), _bmm(x, grad, adj_x=True)
    if not adj_x and adj_y:
        return _bmm(grad, y), _bmm(grad, x, adj_x=True)
    if adj_x and not adj_y:
        return _bmm(y, grad, adj_y=True), _bmm(x, grad)
    return _bmm(y, grad, adj_x=True, adj_y=True), _bmm(grad, x, adj_x=True, adj_y=True)


@array_rule("BatchMatMulV2")
def _batch_matmul_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    (x, y), g = xs, grads[0]
    adj_x, adj_y = attrs["adj_x"], attrs["adj_y"]
    if not adj_x and not adj_y:
        pa, pb = (g, y, False, True), (x, g, True, False)
    elif not adj_x and adj_y:
        pa, pb = (g, y, False, False), (g, x, True, False)
    elif adj_x and not adj_y:
        pa, pb = (y, g, False, True), (x, g, False, False)
    else:
        pa, pb = (y, g, True, True), (g, x, True, True)
    return [
        unbroadcast(_BMM(*pa[:2], adj_x=pa[2], adj_y=pa[3]), x.shape) if needs[0] else None,
        unbroadcast(_BMM(*pb[:2], adj_x=pb[2], adj_y=pb[3]), y.shape) if needs[1] else None,
    ]


_BMM = kernel("BatchMatMulV2")


@BATCH_MATMUL_DEF.batching
def _batch_matmul_batch(c: Call) -> list[Tensor]:
    """The unbatched operand gets size-1 batch axes; the product broadcasts them."""
    rank = c.op.outputs[0].shape.rank or 0
    return c.apply([c.aligned(0, rank), c.aligned(1, rank)])
