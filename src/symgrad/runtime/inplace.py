"""In-place kernels for plan steps whose input dies there: ``np.add(a, b, out=a)``.

A plan knows statically after which step each buffer is last read.  When an elementwise
step is the last reader of its first input, its result may be written over that input
instead of into a new array; this saves an allocation (and its page faults) per step and
lowers peak memory.  Whether nobody *else* holds the array is checked when the step
runs, by reference count (as NumPy does for its own temporaries): a fed array, a
constant, a variable's value, or an array another slot still refers to is never
overwritten, and a view (``base`` set) never is either.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph import Operation

# References to a plan value inside an in-place kernel: the generated function's local,
# the kernel's parameter, and getrefcount's own argument.
_OWNED_REFS = 3

_BINARY: dict[str, Any] = {"Add": np.add, "AddV2": np.add, "Sub": np.subtract,
                           "Mul": np.multiply, "RealDiv": np.true_divide}
_UNARY: dict[str, Callable[[np.ndarray], Any]] = {
    "Relu": lambda x: np.maximum(x, x.dtype.type(0), out=x),
    "Neg": lambda x: np.negative(x, out=x),
    "Exp": lambda x: np.exp(x, out=x),
    "Tanh": lambda x: np.tanh(x, out=x),
}


def inplace_kernel(op: Operation, kernel: Callable[..., Any]) -> Callable[..., Any] | None:
    """A kernel for ``op`` that may overwrite its first input, or None if it has none."""
    if not op._dtypes or not op._dtypes[0].is_floating or \
            any(t.dtype is not op._dtypes[0] for t in op.inputs):
        return None
    if op.type in _BINARY:
        return _binary(_BINARY[op.type], kernel)
    if op.type in _UNARY:
        return _unary(_UNARY[op.type], kernel)
    if op.type == "ReluGrad":
        return _binary(lambda g, f, out: np.multiply(g, f > 0, out=out), kernel)
    return None


def _binary(ufunc: Any, kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(a: Any, b: Any) -> Any:
        if type(a) is np.ndarray and a.base is None and a.flags.writeable \
                and sys.getrefcount(a) <= _OWNED_REFS and _fits(a, b):
            return ufunc(a, b, out=a)
        return kernel(a, b)
    return run


def _unary(fn: Callable[[np.ndarray], Any], kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(a: Any) -> Any:
        if type(a) is np.ndarray and a.base is None and a.flags.writeable \
                and sys.getrefcount(a) <= _OWNED_REFS:
            return fn(a)
        return kernel(a)
    return run


def _fits(a: np.ndarray, b: Any) -> bool:
    """``a op b`` has ``a``'s shape: ``b`` is a scalar or a trailing slice of it."""
    sb = np.shape(b)
    return len(sb) <= a.ndim and a.shape[a.ndim - len(sb):] == sb
