"""Op-table cases: the sample calls every op record carries.

A ``Case`` is one way to call an op, with the NumPy answer it must give.  The same records
serve three readers: the op-table test (forward values against ``ref``, the shape rule
against the kernel's output, first and second order against float64 finite differences
through ``symgrad.test.check_vjp``), ``python -m symgrad check-gradients``, and the
completeness test that refuses an op without one.

Input generators are ``gen(rng, dtype) -> array``.  Shapes are distinct and never square,
because square shapes hide swapped axes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Gen = Callable[[np.random.Generator, Any], np.ndarray]
FLOAT = (np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)


@dataclass(frozen=True)
class Case:
    """One op-table row.

    ``fn(*tensors)`` builds the op (the public wrapper, or a lambda with its arguments);
    without ``fn`` the op is applied by type with ``attrs``.  ``ref(*arrays)`` is NumPy's
    answer (None: the forward check is only shape and dtype).  ``order`` is the highest
    derivative order checked (0: not differentiable here, with ``note`` saying why);
    ``diff`` picks the arguments to differentiate (default: every float/complex one).
    """

    inputs: Sequence[Gen]
    ref: Callable[..., Any] | None = None
    fn: Callable[..., Any] | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    dtypes: Sequence[Any] = FLOAT
    order: int = 2
    diff: Sequence[int] | None = None
    name: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-5
    note: str = ""

    def arrays(self, dtype: Any, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [g(rng, dtype) for g in self.inputs]

    @property
    def grad_dtype(self) -> Any:
        """float64, or complex128 for rows that only take complex inputs."""
        return np.complex128 if all(np.dtype(d).kind == "c" for d in self.dtypes) else np.float64


# -- input generators: gen(rng, dtype) -> array


def randn(*shape: int) -> Gen:
    return lambda rng, d: rng.standard_normal(shape).astype(d)


def uniform(lo: float, hi: float, *shape: int) -> Gen:
    return lambda rng, d: rng.uniform(lo, hi, shape).astype(d)


def positive(*shape: int) -> Gen:
    return uniform(0.5, 2.0, *shape)


def away(*shape: int) -> Gen:
    """|x| in [0.2, 2]: a kink at 0 stays out of the finite differences' reach."""
    return lambda rng, d: (np.sign(rng.standard_normal(shape)) * rng.uniform(0.2, 2, shape)).astype(
        d
    )


def distinct(*shape: int) -> Gen:
    """No ties, so Max/Min/ArgMax select one entry and sorts are stable."""
    n = int(np.prod(shape))
    return lambda rng, d: ((rng.permutation(n).reshape(shape) - n / 2) * 0.37).astype(d)


def complex_randn(*shape: int) -> Gen:
    return lambda rng, d: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)


def labels(*shape: int) -> Gen:
    """Rows of a probability distribution over the last axis."""

    def gen(rng: np.random.Generator, d: Any) -> np.ndarray:
        e = np.exp(rng.standard_normal(shape))
        return (e / e.sum(-1, keepdims=True)).astype(d)

    return gen


def fixed(value: Any, dtype: Any = None) -> Gen:
    """A constant argument (indices, axes, masks) whose dtype does not follow the row's."""
    arr = np.asarray(value, dtype=dtype)
    return lambda rng, d: arr.copy()


def ints(value: Any) -> Gen:
    return fixed(value, np.int32)
