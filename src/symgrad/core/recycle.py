"""Output buffers a compiled plan hands from one run to the next, as TF's allocator does.

A plan step that makes a large new array (a convolution's output, a pooling gradient)
costs more than its arithmetic when the array is fresh: glibc gives the pages of a freed
multi-MB block back to the system, and touching them again faults each 4 KiB page in
(the Keras CNN step took 2,300 page faults a run, 3.5 ms of its 10.8).  So a plan whose
steps can draw from a pool keeps the large arrays that die in it and lets those steps
take them again, in the same run or the next.

- A kernel that can write into a given buffer asks ``empty(shape, dtype)`` (a plain
  ``np.empty`` outside a plan run) and its op type is listed in ``TAKERS``;
- the plan gives an array back where it drops a slot (``Pool.give``) only if nothing
  else holds it: the same reference-count test as the in-place kernels (checked at import
  on a probe in the generated code's calling pattern), never a view, a fed array, a
  fetched one, a variable's value or a constant;
- a kernel's own scratch arrays go back with ``done`` as soon as it is finished with them.

The pool keeps, per (shape, dtype), at most as many arrays as a run has taken of that
key, so it never holds more than one run's worth of what its takers draw.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import refcounts

# Arrays smaller than this come back from malloc's free lists without page faults.
MIN_BYTES = 1 << 16
# Op types whose kernels draw their outputs from ``empty``: a plan with none keeps no pool.
TAKERS: set[str] = set()
# References to a plan value inside ``give``: the generated function's local, the
# parameter, and getrefcount's own argument.
_OWNED_REFS = 3
_VIEWED_REFS = 3

Key = tuple[tuple[int, ...], str]
_current: contextvars.ContextVar[Pool | None] = contextvars.ContextVar(
    "symgrad_recycle_pool", default=None
)
_getrefcount = sys.getrefcount


class Pool:
    """One plan's spare arrays, by (shape, dtype)."""

    __slots__ = ("free", "taken", "wanted")

    def __init__(self) -> None:
        self.free: dict[Key, list[np.ndarray]] = {}
        self.wanted: dict[Key, int] = {}  # the most takes of a key in one run
        self.taken: dict[Key, int] = {}  # takes of each key in the current run

    def take(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        key = (shape, dtype.str)
        n = self.taken.get(key, 0) + 1
        self.taken[key] = n
        if n > self.wanted.get(key, 0):
            self.wanted[key] = n
        spare = self.free.setdefault(key, [])
        if spare:
            try:
                return spare.pop()
            except IndexError:  # another thread took the last one
                pass
        return np.empty(shape, dtype)

    def give(self, a: Any) -> None:
        """Keep ``a`` if nothing else holds it and a taker of its key is short of one;
        for a reshaped view nothing else holds (a Reshape's output), its whole base."""
        if type(a) is not np.ndarray or _getrefcount(a) > _OWNED_REFS:
            return
        base = a.base
        if base is not None:
            # the view's own reference, ``base`` here and getrefcount's argument
            if type(base) is not np.ndarray or _getrefcount(base) > _VIEWED_REFS:
                return
            a = base
        if a.base is not None or not a.flags.writeable:
            return
        spare = self.free.get((a.shape, a.dtype.str))
        if (
            spare is not None
            and len(spare) < self.wanted.get((a.shape, a.dtype.str), 0)
            and refcounts.trusted()
        ):
            spare.append(a)

    def put(self, a: np.ndarray) -> None:
        """Keep a scratch array its kernel made and no longer uses (no count needed)."""
        spare = self.free.get((a.shape, a.dtype.str))
        if spare is not None and len(spare) < self.wanted.get((a.shape, a.dtype.str), 0):
            spare.append(a)

    def enter(self) -> contextvars.Token[Pool | None]:
        """Start a run: its takes are counted afresh, and kernels find this pool."""
        self.taken = {}
        return _current.set(self)


def leave(token: contextvars.Token[Pool | None]) -> None:
    _current.reset(token)


def empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialized array: a spare of the running plan's pool if it has one."""
    pool = _current.get()
    dtype = np.dtype(dtype)
    if pool is None:
        return np.empty(shape, dtype)
    return pool.take(tuple(shape), dtype)


def scratch(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A kernel's temporary array; give it back with ``done`` when finished."""
    return empty(shape, dtype)


def done(*arrays: np.ndarray) -> None:
    """Scratch arrays their kernel has finished with (only it held them)."""
    pool = _current.get()
    if pool is not None:
        for a in arrays:
            pool.put(a)


def taker(*op_types: str) -> None:
    """Declare op types whose kernels take their outputs from ``empty``."""
    TAKERS.update(op_types)


def pooled_matmuls(steps: list[Any]) -> None:
    """In a plan that keeps a pool, its large 2-D MatMul outputs come from the pool too
    (a CNN's dense layer's input gradient, which a Reshape views; MatMul is no taker in
    general, so an MLP's plan keeps no pool and its matmuls stay bare ``np.matmul``)."""
    for step in steps:
        t = step.op.outputs[0] if step.op.type == "MatMul" else None
        if t is None or step.attrs is not None or not may_be_large(t):
            continue
        dims = t.shape.dims
        if dims is not None and None not in dims and t.dtype.is_floating:
            ta, tb = (bool(step.op.attrs.get(k)) for k in ("transpose_a", "transpose_b"))
            step.fn = _pooled_matmul((int(dims[0]), int(dims[1])), t.dtype.np, ta, tb)


def _pooled_matmul(shape: tuple[int, int], dtype: np.dtype, ta: bool, tb: bool) -> Any:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.matmul(a.T if ta else a, b.T if tb else b, out=empty(shape, dtype))

    return run


def may_be_large(t: Any) -> bool:
    """Whether a plan value may be worth keeping: numbers, with a static size of at least
    ``MIN_BYTES`` or a shape not known until run time."""
    if t.dtype.np.kind not in "biufc":
        return False
    dims = t.shape.dims
    if dims is None or None in dims:
        return True
    return int(np.prod(dims, dtype=np.int64)) * t.dtype.np.itemsize >= MIN_BYTES


# -------------------------------------------------------------------------------------
# The count ``give`` compares with, checked as the generated code calls it.

_CALLER = """
def unshared(give, make):
    s0 = make()
    give(s0)
    del s0

def shared(give, make, keep):
    s0 = make()
    keep.append(s0)
    give(s0)
    del s0
"""


def _probe() -> str | None:
    namespace: dict[str, Any] = {}
    exec(compile(_CALLER, "<symgrad plan probe>", "exec"), namespace)
    pool = Pool()
    key = ((4,), np.dtype(float).str)
    pool.free[key], pool.wanted[key] = [], 2
    make: Callable[[], np.ndarray] = lambda: np.zeros(4)  # noqa: E731
    namespace["unshared"](pool.give, make)
    if len(pool.free[key]) != 1:
        return "an unshared array was not kept"
    keep: list[np.ndarray] = []
    namespace["shared"](pool.give, make, keep)
    if len(pool.free[key]) != 1:
        return "a shared array was kept"
    pool.wanted[key] = 3
    namespace["unshared"](pool.give, lambda: np.zeros(4).reshape(2, 2))
    if len(pool.free[key]) != 2:
        return "the base of an unshared view was not kept"
    base = np.zeros(4)
    namespace["unshared"](pool.give, lambda: base.reshape(2, 2))
    if len(pool.free[key]) != 2:
        return "the base of a view was kept while another holder had it"
    return None


refcounts.calibrate("core.recycle", _probe)
