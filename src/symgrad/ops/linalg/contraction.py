"""Tensor contractions: Einsum (``einsum``) and ``tensordot``.

``einsum`` checks the equation as TF's Python function does and, like it, sends one Einsum
op per pair of operands (left to right; TF asks opt_einsum for the order).  The op itself
also takes equations the public function refuses, with a label repeated in the output
("i->ii", a diagonal): the gradient of a trace needs them.  The gradient rule is TF's
(linalg_grad.py): the VJP of ``x, y -> z`` is ``z, y -> x`` with the labels only ``x`` has
summed separately, and ellipsis axes broadcast between operands are summed back.
``tensordot`` is TF's Transpose / Reshape / MatMul construction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.cases import Case, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape, broadcast_shapes
from symgrad.ops.array import structure as array
from symgrad.ops.core import NUMERIC, check_dtype, convert_n, same_dtype
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math.complex import conj
from symgrad.ops.reduction import reduce as reduction

_ELL = "."  # one character stands for "..." inside parsed subscripts


def _parse(equation: str, n: int | None = None) -> tuple[list[str], str]:
    """Input and output subscripts, with "..." written as a single ".", and checked."""
    eq = equation.replace(" ", "").replace("...", _ELL)
    if not re.fullmatch(r"[a-zA-Z.,]*(->[a-zA-Z.]*)?", eq):
        raise ValueError(f"Subscripts have incorrect format: {equation}")
    lhs, _, out = eq.partition("->")
    ins = lhs.split(",")
    if n is not None and len(ins) != n:
        raise ValueError(f'Got {n} inputs for equation "{equation}", expecting {len(ins)}')
    if "->" not in eq:
        counts = {c: lhs.count(c) for c in lhs if c not in ",."}
        out = (_ELL if _ELL in lhs else "") + "".join(sorted(c for c in counts if counts[c] == 1))
    if any(s.count(_ELL) > 1 for s in ins) or out.count(_ELL) > 1:
        raise ValueError(f"Too many ellipses in equation {equation}")
    return ins, out


def _label_dims(ins: list[str], shapes: Sequence[TensorShape]) -> tuple[dict[str, Any], Any]:
    """The size of each label (None when unknown) and the broadcast ellipsis shape."""
    sizes: dict[str, Any] = {}
    ell: TensorShape | None = TensorShape([])
    for i, (sub, shape) in enumerate(zip(ins, shapes)):
        if shape.dims is None:
            ell = None if _ELL in sub else ell
            continue
        dims, named = list(shape.dims), len(sub) - (_ELL in sub)
        if len(dims) < named or (_ELL not in sub and len(dims) != named):
            raise ShapeError(f"Expected input {i} to have rank {named} but got: {len(dims)}")
        k = sub.find(_ELL)
        if k >= 0:
            cut = len(dims) - (named - k)
            e = TensorShape(dims[k:cut])
            ell = None if ell is None else broadcast_shapes(ell, e)
            if ell is None and e.dims is not None:
                raise ShapeError(f"ellipsis dimensions {e} of input {i} do not broadcast")
            dims = dims[:k] + dims[cut:]
        for axis, (c, d) in enumerate(zip(sub.replace(_ELL, ""), dims)):
            if sizes.get(c) is not None and d is not None and sizes[c] != d:
                raise ShapeError(
                    f"Expected dimension {sizes[c]} at axis {axis} of the input "
                    f"shaped {shape} but got dimension {d}"
                )
            sizes[c] = d if d is not None else sizes.get(c)
    return sizes, ell


def _einsum_infer(inputs: Sequence[Tensor], *, equation: str, N: int) -> Spec:
    d = same_dtype(inputs, [f"inputs[{i}]" for i in range(len(inputs))])
    check_dtype("Einsum", inputs[0], NUMERIC, "inputs")
    ins, out = _parse(equation, len(inputs))
    for c in out:
        if c != _ELL and not any(c in s for s in ins):
            raise ShapeError(
                f"Output subscripts contain the label {c} not present in the input subscripts."
            )
    sizes, ell = _label_dims(ins, [t.shape for t in inputs])
    if _ELL in out and ell is None:
        return TensorShape(None), d
    dims: list[Any] = []
    for c in out:
        dims.extend(list(ell.dims) if c == _ELL else [sizes.get(c)])  # type: ignore[union-attr,arg-type]
    return TensorShape(dims), d


def _np_subs(subs: str) -> str:
    return subs.replace(_ELL, "...")


def _einsum_kernel(*xs: np.ndarray, equation: str, N: int) -> np.ndarray:
    ins, out = _parse(equation)
    uniq = "".join(dict.fromkeys(out))
    res = np.asarray(np.einsum(f"{','.join(map(_np_subs, ins))}->{_np_subs(uniq)}", *xs))
    return res if uniq == out else _on_diagonal(res, uniq, out)


def _on_diagonal(res: np.ndarray, uniq: str, out: str) -> np.ndarray:
    """``res`` (labels ``uniq``) placed on the diagonal of zeros labelled ``out``, where a
    label repeats ("i->ii"): each output axis indexes with its label's open grid."""
    names = [f"E{j}" for j in range(res.ndim - (len(uniq) - (_ELL in uniq)))]
    axes_u = [n for c in uniq for n in (names if c == _ELL else [c])]
    axes_o = [n for c in out for n in (names if c == _ELL else [c])]
    grid = np.ix_(*[np.arange(n) for n in res.shape])
    full = np.zeros([res.shape[axes_u.index(c)] for c in axes_o], res.dtype)
    full[tuple(grid[axes_u.index(c)] for c in axes_o)] = res
    return full


def _einsum_ref(equation: str) -> Any:
    return lambda *xs: np.einsum(equation, *xs)


EINSUM = register_op(
    "Einsum",
    _einsum_infer,
    _einsum_kernel,
    cases=[
        Case(
            [randn(2, 3), randn(4, 3)],
            _einsum_ref("ij,kj->ik"),
            fn=lambda a, b: einsum("ij,kj->ik", a, b),
            name="matmul_bt",
        ),
        Case(
            [randn(2, 3, 4), randn(2, 4, 5)],
            _einsum_ref("bij,bjk->bik"),
            attrs={"equation": "bij,bjk->bik", "N": 2},
            name="batch_matmul",
        ),
        Case(
            [randn(2, 3, 4)],
            _einsum_ref("abc->ca"),
            attrs={"equation": "abc->ca", "N": 1},
            name="reduce_transpose",
        ),
        Case(
            [randn(3, 3, 2)],
            _einsum_ref("iij->j"),
            attrs={"equation": "iij->j", "N": 1},
            name="trace",
        ),
        Case(
            [randn(3, 2)],
            lambda x: np.einsum("ij,ik->ijk", x, np.eye(3)),
            attrs={"equation": "ij->iji", "N": 1},
            name="diagonal_out",
        ),
        Case(
            [randn(2, 1, 3, 4), randn(5, 4, 2)],
            _einsum_ref("...ij,...jk->...ik"),
            fn=lambda a, b: einsum("...ij,...jk->...ik", a, b),
            name="ellipsis_broadcast",
        ),
        Case(
            [randn(2, 3), randn(3, 4), randn(4, 5)],
            _einsum_ref("ab,bc,cd->ad"),
            fn=lambda a, b, c: einsum("ab,bc,cd->ad", a, b, c),
            name="three_operands",
        ),
        Case(
            [randn(3, 4), randn(4)],
            _einsum_ref("ij,j"),
            fn=lambda a, b: einsum("ij,j", a, b),
            name="implicit_output",
        ),
    ],
)


def _pair_equation(a: str, b: str, rest: Sequence[str], out: str) -> str:
    """The binary step ``a, b -> ab`` keeping the labels later operands or the output use."""
    later = "".join(rest) + out
    keep = [c for c in dict.fromkeys(a + b) if c in later or (c == _ELL and _ELL in a + b)]
    return f"{a},{b}->{''.join(keep)}"


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; "..." broadcasts."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(
            f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. "
            "Valid arguments: name, optimize, greedy."
        )
    ins, out = _parse(equation, len(inputs))
    if len(set(out)) != len(out):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for c in out:
        if c != _ELL and c not in "".join(ins):
            raise ValueError(
                f"Output subscripts contain the label {c} not present in the input subscripts."
            )
    ts = convert_n(inputs, "inputs")
    while len(ts) > 2:
        eq = _pair_equation(ins[0], ins[1], ins[2:], out)
        ts = [_einsum_op([ts[0], ts[1]], eq, None), *ts[2:]]
        ins = [eq.split("->")[1], *ins[2:]]
    return _einsum_op(ts, f"{','.join(ins)}->{out}", name)


def _einsum_op(ts: list[Tensor], eq: str, name: str | None) -> Tensor:
    return apply_op1("Einsum", ts, {"equation": eq.replace(_ELL, "..."), "N": len(ts)}, name)


# --------------------------------------------------------------------------------------
# Einsum's gradient (TF's rule) and batching rule


def _shape_of(x: Tensor) -> Any:
    return x.shape.as_list() if x.shape.is_fully_defined() else array.shape(x)


def _axis_of(subs: str, label: str) -> int:
    """The (leftmost) axis of ``label``, negative when it comes after the ellipsis."""
    head, _, tail = subs.partition(_ELL)
    return head.index(label) if label in head else tail.index(label) - len(tail)


def _grad_reduced(g: Tensor, out_subs: str, in_subs: str, x: Tensor, reduced: str) -> Tensor:
    """The VJP of the unary ``in_subs -> out_subs`` whose labels ``reduced`` are summed."""
    shape = _shape_of(x)
    axes = [_axis_of(in_subs, c) for c in reduced]
    rest = "".join(c for c in in_subs if c not in reduced)
    if (
        len(set(in_subs)) == len(in_subs)
        and len(set(out_subs)) == len(out_subs)
        and rest == out_subs
    ):
        kept = reduction.kept_dims_shape(x, batching.const(axes, dt.int32))
        return array.broadcast_to(array.reshape(g, kept), shape)
    dims = [shape[a] for a in axes]
    g_shape = _shape_of(g)
    if isinstance(shape, list) and isinstance(g_shape, list):
        g = array.broadcast_to(array.reshape(g, [1] * len(axes) + g_shape), dims + g_shape)
    else:
        raise NotImplementedError("Einsum's gradient with traces needs static shapes")
    return _einsum_op([g], f"{reduced + out_subs}->{in_subs}", None)


def _grad_wrt(
    g: Tensor, other: Tensor, x: Tensor, x_subs: str, other_subs: str, out_subs: str
) -> Tensor:
    """VJP for one operand: ``out, other -> x`` over the labels x shares, then the rest."""
    reduced = "".join(sorted(set(x_subs) - set(out_subs + other_subs + _ELL)))
    left = "".join(c for c in x_subs if c not in reduced)
    g_left = _einsum_op([g, other], f"{out_subs},{other_subs}->{left}", None)
    return _grad_reduced(g_left, left, x_subs, x, reduced) if reduced else g_left


def _ellipsis_dims(subs: str, x: Tensor) -> tuple[int, list[int]]:
    dims: list[int] = x.shape.as_list()  # type: ignore[assignment]
    k = subs.find(_ELL)
    return k, dims[k : len(dims) - (len(subs) - k - 1)]


@EINSUM.gradient
def _einsum_grad(op: Any, grad: Tensor) -> Any:
    """x, y -> z: dx = einsum(z, y -> x) (labels only x has: broadcast back), and dy alike;
    ellipsis axes broadcast between x and y are summed back to each one's shape."""
    ins, out = _parse(op.get_attr("equation"))
    if len(op.inputs) == 1:
        reduced = "".join(sorted(set(ins[0]) - set(out + _ELL)))
        if not reduced:
            return _einsum_op([grad], f"{out}->{ins[0]}", None)
        return _grad_reduced(grad, out, ins[0], op.inputs[0], reduced)
    xs, ys = (s + _ELL if _ELL in out and _ELL not in s else s for s in ins)
    x, y = op.inputs
    if grad.dtype.is_complex:
        x, y = conj(x), conj(y)
    gx = _grad_wrt(grad, y, op.inputs[0], xs, ys, out)
    gy = _grad_wrt(grad, x, op.inputs[1], ys, xs, out)
    if _ELL not in out:
        return gx, gy
    if not (op.inputs[0].shape.is_fully_defined() and op.inputs[1].shape.is_fully_defined()):
        raise NotImplementedError("Einsum's gradient with broadcast ellipses needs static shapes")
    (kx, ex), (ky, ey) = _ellipsis_dims(xs, op.inputs[0]), _ellipsis_dims(ys, op.inputs[1])
    if ex == ey:
        return gx, gy
    return _sum_ellipsis(gx, op.inputs[0], kx, ex, ey), _sum_ellipsis(gy, op.inputs[1], ky, ey, ex)


def _sum_ellipsis(g: Tensor, x: Tensor, start: int, mine: list[int], other: list[int]) -> Tensor:
    n = max(len(mine), len(other))
    full = [1] * (n - len(mine)) + mine
    wide = [1] * (n - len(other)) + other
    axes = [start + i for i in range(n) if (full[i] == 1 and wide[i] != 1) or i < n - len(mine)]
    if axes:
        g = reduction.reduce_sum(g, axes)
    return array.reshape(g, x.shape.as_list())


@EINSUM.batching
def _einsum_batch(c: Call) -> list[Tensor]:
    """A fresh label for the batch axis, in front of each batched operand and the output."""
    ins, out = _parse(c.op.get_attr("equation"))
    free = next(
        (
            ch
            for ch in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
            if ch not in "".join(ins) + out
        ),
        None,
    )
    if free is None:
        raise NotVectorizable(c.op, "no free label left for the batch axis")
    subs = [free + s if b else s for s, b in zip(ins, c.batched)]
    eq = f"{','.join(subs)}->{free + out}".replace(_ELL, "...")
    return c.apply(c.xs, equation=eq)


# --------------------------------------------------------------------------------------
# tensordot


def _tensordot_axes(axes: Any, ra: int, rb: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, int | np.integer):
        if axes < 0 or axes > min(ra, rb):
            raise ValueError(
                f"'axes' must be at most the rank of both operands and "
                f"non-negative, got {axes} for ranks {ra} and {rb}"
            )
        return list(range(ra - axes, ra)), list(range(axes))
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    a_axes, b_axes = ([x] if isinstance(x, int) else list(x) for x in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"Different number of contraction axes 'a' and 'b', {len(a_axes)} != {len(b_axes)}."
        )
    return [i % ra for i in a_axes], [i % rb for i in b_axes]


def _as_matrix(x: Tensor, free: list[int], summed: list[int], summed_first: bool) -> Tensor:
    dims: list[int] = x.shape.as_list()  # type: ignore[assignment]
    perm = summed + free if summed_first else free + summed
    if perm != list(range(len(dims))):
        x = array.transpose(x, perm)
    rows, cols = (
        int(np.prod([dims[i] for i in p]))
        for p in ((summed, free) if summed_first else (free, summed))
    )
    return x if x.shape.as_list() == [rows, cols] else array.reshape(x, [rows, cols])


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum of products over ``axes`` of ``a`` and ``b`` (an int N: the last N of ``a`` with
    the first N of ``b``), built as TF does from Transpose, Reshape and MatMul."""
    x, y = convert_n((a, b))
    if not (x.shape.is_fully_defined() and y.shape.is_fully_defined()):
        raise NotImplementedError("tensordot needs operands of static shape")
    sa, sb = x.shape.as_list(), y.shape.as_list()
    a_axes, b_axes = _tensordot_axes(axes, len(sa), len(sb))
    for i, j in zip(a_axes, b_axes):
        if sa[i] != sb[j]:
            raise ValueError(
                f"tensordot: axis {i} of a (size {sa[i]}) and axis {j} of b "
                f"(size {sb[j]}) must have the same size; shapes {sa} and {sb}"
            )
    a_free = [i for i in range(len(sa)) if i not in a_axes]
    b_free = [i for i in range(len(sb)) if i not in b_axes]
    product = matmul(_as_matrix(x, a_free, a_axes, False), _as_matrix(y, b_free, b_axes, True))
    out = [sa[i] for i in a_free] + [sb[i] for i in b_free]
    return product if product.shape.as_list() == out else array.reshape(product, out, name=name)
