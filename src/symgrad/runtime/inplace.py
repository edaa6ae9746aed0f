"""In-place kernels for plan steps whose input dies there: ``np.add(a, b, out=a)``.

A plan knows statically after which step each buffer is last read.  When an elementwise
step is the last reader of one of its inputs, its result may be written over that input
instead of into a new array; this saves an allocation (and its page faults) per step and
lowers peak memory.  Whether nobody *else* holds the array is checked when the step
runs, by reference count (as NumPy does for its own temporaries): a fed array, a
constant, a variable's value, or an array another slot still refers to is never
overwritten, and a view (``base`` set) never is either.  The count each kernel compares
with is checked at import on probes run as a plan runs its steps; where that check fails,
or while reference counts are not trusted (``symgrad.core.refcounts``: a tracer, the switch),
steps make new arrays.

What can be decided when the plan is compiled is decided then: a result whose static
shape is that of the input needs no shape check at run time, and a result known to be
small is not worth the checks at all (a fresh small array costs less than they do).
An op that updates its first input (a list's row write, ``inplace`` on an op that is not
elementwise) writes into it at any size: the copy it saves is of the whole list.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import refcounts
from symgrad.core.graph import Operation
from symgrad.core.op_registry import OPS
from symgrad.ops.reduction import row_blocks

# References to a plan value inside an in-place kernel: the generated function's local,
# the kernel's parameter, and getrefcount's own argument.
_OWNED_REFS = 3
# Results with fewer elements than this (statically known) are always new arrays.
MIN_ELEMENTS = 1 << 14

_getrefcount = sys.getrefcount
_trusted = refcounts.trusted


def inplace_kernel(
    op: Operation, kernel: Callable[..., Any], position: int
) -> Callable[..., Any] | None:
    """A kernel for ``op`` that may write over input ``position``, or None if not worth it.

    ``position`` is an input that dies at this step and that the step reads only once.
    """
    if not refcounts.enabled():
        return None
    opdef = OPS.get(op.type)
    if opdef is not None and opdef.inplace is not None and not opdef.elementwise:
        # an update of input 0, such as a list's row write: a copy saved at any size
        update = functools.partial(opdef.inplace, **op.attrs)
        return _updating(update, kernel) if position == 0 else None
    ufunc = opdef.inplace if opdef is not None else None
    dtype = op.output_dtypes[0] if op.output_dtypes else None
    if (
        ufunc is None
        or dtype is None
        or not dtype.is_floating
        or any(t.dtype is not dtype for t in op.inputs)
    ):
        return None
    out_dims, in_dims = op.output_shapes[0].dims, op.inputs[position].shape.dims
    static = out_dims is not None and None not in out_dims
    if static and int(np.prod(out_dims)) < MIN_ELEMENTS:  # type: ignore[arg-type]
        return None
    if static and out_dims == in_dims:
        check = None
    elif static and in_dims is not None and None not in in_dims:
        return None  # statically known to broadcast: the result cannot fit
    else:
        check = _fits
    make = _unary if len(op.inputs) == 1 else _into_first if position == 0 else _into_second
    if len(op.inputs) == 2 and check is None:
        ufunc = _long_rows(ufunc, out_dims, op.inputs[1 - position].shape.dims, position)
    return make(ufunc, kernel, check)


def _long_rows(ufunc: Any, out_dims: Any, small: Any, position: int) -> Any:
    """``ufunc`` in place, for a large operand and a small one that repeats along its
    leading axes (a bias [C] or [1, 1, 1, C] on [N, H, W, C]): rows of the large one laid
    side by side and the small one tiled to match (``ops/reduction/row_blocks.py``), so
    NumPy's loops run over long rows, not C-long ones (0.26 -> 0.13 ms on [32, 26, 26, 32] float32).
    The plain ufunc where the shapes are not such."""
    if small is None or None in small:
        return ufunc
    inner = list(small)
    while inner and inner[0] == 1:
        inner.pop(0)
    block = int(np.prod(inner))
    if not inner or len(inner) > len(out_dims) or list(out_dims[-len(inner) :]) != inner:
        return ufunc
    f = row_blocks.fold(int(np.prod(out_dims)) // block, block)
    if f is None:
        return ufunc

    def run(a: Any, b: Any, out: np.ndarray) -> Any:
        big = a if position == 0 else b
        if not (big.flags.c_contiguous and out.flags.c_contiguous):
            return ufunc(a, b, out=out)
        rows, n = out.reshape(-1, f * block), f * block
        tiled = row_blocks.tile(b if position == 0 else a, f)
        if position == 0:
            ufunc(a.reshape(-1, n), tiled, out=rows)
        else:
            ufunc(tiled, b.reshape(-1, n), out=rows)
        return out

    return run


def _owned(a: Any) -> bool:
    """Whether ``a`` is an array only the running step holds, whole and writable."""
    return (
        type(a) is np.ndarray
        and a.base is None
        and a.flags.writeable
        and _getrefcount(a) <= _OWNED_REFS + 1  # + this function's parameter
        and _trusted()
    )


def _updating(update: Callable[..., Any], kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(a: Any, *rest: Any) -> Any:
        return update(a, *rest, out=a) if _owned(a) else kernel(a, *rest)

    return run


def _unary(ufunc: Any, kernel: Callable[..., Any], check: Any) -> Callable[..., Any]:
    def run(a: Any) -> Any:
        if (
            type(a) is np.ndarray
            and a.base is None
            and a.flags.writeable
            and _getrefcount(a) <= _OWNED_REFS
            and _trusted()
        ):
            return ufunc(a, out=a)
        return kernel(a)

    return run


def _into_first(ufunc: Any, kernel: Callable[..., Any], check: Any) -> Callable[..., Any]:
    if check is None:

        def run(a: Any, b: Any) -> Any:
            if (
                type(a) is np.ndarray
                and a.base is None
                and a.flags.writeable
                and _getrefcount(a) <= _OWNED_REFS
                and _trusted()
            ):
                return ufunc(a, b, out=a)
            return kernel(a, b)

        return run

    def run_checked(a: Any, b: Any) -> Any:
        if (
            type(a) is np.ndarray
            and a.base is None
            and a.flags.writeable
            and _getrefcount(a) <= _OWNED_REFS
            and _trusted()
            and check(a, b)
        ):
            return ufunc(a, b, out=a)
        return kernel(a, b)

    return run_checked


def _into_second(ufunc: Any, kernel: Callable[..., Any], check: Any) -> Callable[..., Any]:
    if check is None:

        def run(a: Any, b: Any) -> Any:
            if (
                type(b) is np.ndarray
                and b.base is None
                and b.flags.writeable
                and _getrefcount(b) <= _OWNED_REFS
                and _trusted()
            ):
                return ufunc(a, b, out=b)
            return kernel(a, b)

        return run

    def run_checked(a: Any, b: Any) -> Any:
        if (
            type(b) is np.ndarray
            and b.base is None
            and b.flags.writeable
            and _getrefcount(b) <= _OWNED_REFS
            and _trusted()
            and check(b, a)
        ):
            return ufunc(a, b, out=b)
        return kernel(a, b)

    return run_checked


def _fits(a: np.ndarray, other: Any) -> bool:
    """``a op other`` has ``a``'s shape: ``other`` is a scalar or a trailing slice of it."""
    so = np.shape(other)
    return len(so) <= a.ndim and a.shape[a.ndim - len(so) :] == so


# -------------------------------------------------------------------------------------
# The check, checked: each kernel run as a plan's generated code runs it (its argument a
# local the line then deletes) must write over an array nothing else holds, and must not
# write over one that another holder keeps.

_CALLER = """
def unshared(k, make, x):
    s0 = make()
    s1 = k({args})
    del s0
    return s1

def shared(k, make, x):
    s0 = make()
    s2 = s0
    s1 = k({args})
    del s0
    return s1 is s2
"""


def _callers(args: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """A plan's line ``s1 = k(...)`` with ``s0`` in ``args``; and the same with ``s0``
    also held by another local."""
    namespace: dict[str, Any] = {}
    exec(compile(_CALLER.format(args=args), "<symgrad plan probe>", "exec"), namespace)
    return namespace["unshared"], namespace["shared"]


def _probe() -> str | None:
    x = np.ones(4)
    cases = [
        ("unary", _unary(np.negative, np.negative, None), "s0"),
        ("updating", _updating(np.add, np.add), "s0, x"),
        ("into_first", _into_first(np.add, np.add, None), "s0, x"),
        ("into_first checked", _into_first(np.add, np.add, _fits), "s0, x"),
        ("into_second", _into_second(np.add, np.add, None), "x, s0"),
        ("into_second checked", _into_second(np.add, np.add, _fits), "x, s0"),
    ]
    made: list[int] = []

    def make() -> np.ndarray:
        a = np.zeros(4)
        made.append(id(a))
        return a

    for name, kernel, args in cases:
        unshared, shared = _callers(args)
        if id(unshared(kernel, make, x)) != made[-1]:
            return f"{name}: an unshared array was copied"
        if shared(kernel, make, x):
            return f"{name}: a shared array was written in place"
    return None


refcounts.calibrate("runtime.inplace", _probe)
