"""Helpers for array rules (``gradient_registry.array_rule``): a gradient rule's NumPy form.

An array rule is written beside its gradient rule and mirrors it op for op: each op the
rule would run eagerly is its registered kernel here (``kernel("Mul")``), called with the
same arguments in the same order, its result made an array of the op's dtype as the
eager path makes it.  So the rule's result is the registered rule's eager result bit for
bit, without building an op.  Python scalars in a rule (``2 * x``) are the constants the
rule's conversion makes (``scalar(2, x)``); ``unbroadcast`` is ``ops.core.unbroadcast``
for arrays (its Sum over kept axes, then over leading ones, then a Reshape).

Callers run array rules with NumPy's floating-point warnings off, as kernels run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.gradient_registry import array_rule
from symgrad.core.op_registry import OPS

Array = np.ndarray
Kernel = Callable[..., Array]


def kernel(op_type: str, out: int | Any = 0) -> Kernel:
    """``op_type``'s kernel as an eager op runs it: an array of the dtype of argument
    ``out`` (an index), or of dtype ``out`` (a NumPy dtype)."""
    fixed = None if isinstance(out, int) else np.dtype(out)

    def run(*args: Any, **attrs: Any) -> Array:
        value = OPS[op_type].kernel(*args, **attrs) if attrs else OPS[op_type].kernel(*args)
        d = fixed if fixed is not None else args[out].dtype
        # (A builtin dtype is one object: ``is`` first spares most calls the comparison.)
        if type(value) is not np.ndarray or (value.dtype is not d and value.dtype != d):
            value = np.asarray(value, dtype=d)
        return value

    run.__name__ = op_type
    return run


MUL, ADD, SUB, NEG = kernel("Mul"), kernel("AddV2"), kernel("Sub"), kernel("Neg")
DIV, CONJ, SUM, RESHAPE = kernel("RealDiv"), kernel("Conj"), kernel("Sum"), kernel("Reshape")
SELECT, ZEROS_LIKE = kernel("SelectV2", 1), kernel("ZerosLike")
_INT32 = np.int32


def conj(a: Array) -> Array:
    """``ops.math.complex.conj``: the Conj kernel for complex arrays, else ``a`` itself."""
    return CONJ(a) if a.dtype.kind == "c" else a


def scalar(value: Any, like: Array) -> Array:
    """The constant a rule's Python scalar becomes beside a tensor like ``like``."""
    return np.asarray(value, dtype=like.dtype)


def int32s(values: Any) -> Array:
    """An int32 constant (axes, shapes), as ``constant(values, int32)`` makes it."""
    return np.asarray(values, dtype=_INT32)


def unbroadcast(g: Array, shape: tuple[int, ...]) -> Array:
    """``ops.core.unbroadcast`` of ``g`` to an input of ``shape`` (static, as eager shapes are)."""
    gs = g.shape
    if gs == shape:
        return g
    kept, leading = _reduction_axes(gs, shape)
    if kept:
        g = _sum(g, kept, True)
    if leading:
        g = _sum(g, leading, False)
    if g.shape != shape:
        g = RESHAPE(g, int32s(shape))
    return g


@functools.lru_cache(maxsize=256)
def _reduction_axes(
    gs: tuple[int, ...], shape: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``unbroadcast``'s Sums' axes, found once a (shape, shape) pair (a bias gradient's,
    each layer a step): the broadcast axes kept as 1, then the leading ones.  As tuples:
    the Sum kernel takes them as they are (``reduce._axes``), the values int32s(axes) give."""
    n, k = len(gs), len(shape)
    kept: tuple[int, ...] = ()
    if gs[n - k :] != shape:  # (a bias gradient's trailing sizes are its own: none kept)
        kept = tuple([i for i in range(max(n - k, 0), n) if shape[i - n + k] == 1 and gs[i] != 1])
    return kept, tuple(range(n - k))


def _sum(g: Array, axes: tuple[int, ...], keep_dims: bool) -> Array:
    """``SUM(g, axes, keep_dims=...)`` without its wrappers' calls (a bias gradient per
    layer): the function the Sum kernel runs on normalised axes (``reduce._sum``, which
    ``ops/reduction/reduce.py`` hands to ``sum_function``), while the registry holds the
    kernel it was handed with; else the kernel as registered."""
    fn, with_kernel = _SUM_FN
    if OPS["Sum"].kernel is not with_kernel:  # (a kernel is never None: unset says here)
        return SUM(g, axes, keep_dims=keep_dims)  # type: ignore[no-any-return]
    v = fn(g, axes, keep_dims)
    return v if type(v) is np.ndarray and v.dtype == g.dtype else np.asarray(v, dtype=g.dtype)


def sum_function(fn: Any, with_kernel: Any) -> None:
    """``reduce._sum`` and the Sum kernel registered with it (this module cannot import
    the reductions, which import it: ``.importlinter``'s family order)."""
    _SUM_FN[:] = [fn, with_kernel]


_SUM_FN: list[Any] = [None, None]  # reduce._sum, and the Sum kernel it was found beside


def unbroadcast_all(g: Array, shape: tuple[int, ...]) -> Array:
    """``ops.core.unbroadcast`` with no other inputs (BroadcastTo): one Sum over every
    broadcast axis (``reduction_axes``), then a Reshape to ``shape``."""
    gs = g.shape
    if gs == shape:
        return g
    n, k = len(gs), len(shape)
    padded = (1,) * (n - k) + shape
    dropped = [i for i in range(n) if i < n - k or (padded[i] == 1 and gs[i] != 1)]
    if dropped:
        g = SUM(g, int32s(dropped), keep_dims=False)
    if g.shape != shape:
        g = RESHAPE(g, int32s(shape))
    return g


def shape_of(a: Array) -> Array:
    """``array.shape(a)`` as an eager op makes it: the Shape kernel, int32."""
    return OPS["Shape"].kernel(a, out_type=dt.int32)  # type: ignore[no-any-return]


def cast(a: Array, d: Any) -> Array:
    """``cast_select.cast`` to the DType ``d``: ``a`` itself when of that dtype."""
    if a.dtype == d.np:
        return a
    return np.asarray(OPS["Cast"].kernel(a, SrcT=dt.as_dtype(a.dtype), DstT=d), dtype=d.np)


def reshape_like(g: Array, shape: tuple[int, ...]) -> Array:
    """``_reshape_like``: ``g`` itself when it has ``shape``, else a Reshape to it."""
    return g if g.shape == shape else RESHAPE(g, int32s(shape))


BinaryRule = Callable[[Array, Array, Array, Array, Sequence[bool]], Sequence[Array | None]]


def binary_array_rule(op_type: str) -> Callable[[BinaryRule], BinaryRule]:
    """``array_rule`` for a rule registered with ``binary_grad``: ``rule(x, y, z, g, needs)``
    gives the two gradients before un-broadcasting, which is done here as there."""

    def decorate(rule: BinaryRule) -> BinaryRule:
        def fn(xs: Sequence[Array], ys: Sequence[Array], attrs: Any, grads: Any, needs: Any) -> Any:
            x, y = xs
            dx, dy = rule(x, y, ys[0], grads[0], needs)
            need_x, need_y = needs
            if not need_x:
                dx = None
            elif dx is not None and dx.shape != x.shape:
                dx = unbroadcast(dx, x.shape)
            if not need_y:
                dy = None
            elif dy is not None and dy.shape != y.shape:
                dy = unbroadcast(dy, y.shape)
            return [dx, dy]

        fn.__name__ = rule.__name__
        array_rule(op_type)(fn)
        return rule

    return decorate


def unary_array_rule(op_type: str) -> Callable[[Callable[..., Array]], Callable[..., Array]]:
    """``array_rule`` for a one-input, one-output rule: ``rule(x, y, g)`` gives dx."""

    def decorate(rule: Callable[..., Array]) -> Callable[..., Array]:
        def fn(xs: Sequence[Array], ys: Sequence[Array], attrs: Any, grads: Any, needs: Any) -> Any:
            return [rule(xs[0], ys[0], grads[0])]

        fn.__name__ = rule.__name__
        array_rule(op_type)(fn)
        return rule

    return decorate
