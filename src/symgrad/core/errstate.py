"""Kernels run with NumPy's floating-point warnings off (inf and nan are values, as in TF),
whatever the caller's ``np.errstate``, which they leave as it was.

``np.errstate(all="ignore")`` does that, but entering it costs more than a small kernel.
Two cheaper ways, each used only where the public API confirms here, at import, that it
does what ``np.errstate`` does (both reach private NumPy objects):

* ``ERRSTATE`` / ``ERRSTATE_IGNORE``: an object whose ``set(ERRSTATE_IGNORE)`` turns the
  warnings off for this thread and returns a token, and whose ``reset(token)`` restores
  the caller's state.  On NumPy 2 it is NumPy's error-state context variable; on NumPy
  1.x, ``_ErrObj`` over NumPy's per-thread error object.  (None, None) where neither works.
* ``ctx["quiet_run"] or quiet_run(ctx)``: a function ``run(kernel, *args)`` that
  calls the kernel so, made once per thread and kept in the thread's context dict ``ctx``
  (``symgrad.core.context.current.__dict__``).  On NumPy 2 it is the
  ``run`` of a ``contextvars.Context`` of this thread in which NumPy's variable is
  "ignore": entering a context is a pointer swap, where setting the variable and
  resetting it allocates a token and two new variable maps (callgrind, a [4] ``np.sin``:
  3.6K instructions bare, 5.3K with set/reset, 3.9K in the context).  A kernel running in
  it sees every other context variable at its default.  A context cannot be entered twice
  at once: a kernel that runs an op's fast path gets RuntimeError, which the fast path
  treats as any kernel failure (the general path reruns the op with ``ERRSTATE``).
  On NumPy 1.x it sets and resets ``ERRSTATE`` around the call.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np


def _errstate_var() -> tuple[Any, Any]:
    """(ERRSTATE, ERRSTATE_IGNORE) as the module docstring describes them, or (None, None)."""
    try:
        from numpy._core import _ufunc_config

        var = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
        with np.errstate(all="ignore"):
            ignore = var.get()
    except Exception:  # no such variable: NumPy 1.x
        var, ignore = _ErrObj.made()
    if var is None:
        return None, None
    try:
        with np.errstate(all="raise"):
            token = var.set(ignore)
            try:  # raises FloatingPointError where setting the variable did nothing
                quiet = _quiet_now()
            finally:
                var.reset(token)
            restored = np.geterr()["divide"] == "raise"
    except Exception:  # not one that works so
        return None, None
    return (var, ignore) if quiet and restored else (None, None)


def _quiet_now() -> bool:
    """Are NumPy's floating-point warnings off now?  Raises FloatingPointError where the
    caller's ``np.errstate(all="raise")`` is still in force."""
    return bool(np.geterr() == _IGNORED and np.divide(np.ones(1), 0.0)[0] == np.inf)


class _ErrObj:
    """NumPy 1.x's error state with the context variable's ``set``/``reset`` interface:
    its per-thread error object (``[buffer size, error mask, callback]``), whose mask 0
    ignores every floating-point error, set and restored in C without ``np.seterr``."""

    __slots__ = ("_get", "_put")

    def __init__(self, get: Any, put: Any) -> None:
        self._get, self._put = get, put

    @classmethod
    def made(cls) -> tuple[Any, Any]:
        try:
            from numpy.core import umath  # NumPy 1.x

            get, put = umath.geterrobj, umath.seterrobj  # type: ignore[attr-defined]
            with np.errstate(all="ignore"):
                mask = get()[1]
        except Exception:
            return None, None
        return cls(get, put), mask

    def get(self) -> int:
        """The current mask (what ``set`` takes, as the context variable's ``get``)."""
        return self._get()[1]  # type: ignore[no-any-return]

    def set(self, mask: int) -> list[Any]:
        old = self._get()
        self._put([old[0], mask, old[2]])
        return old  # type: ignore[no-any-return]

    def reset(self, token: list[Any]) -> None:
        self._put(token)


_IGNORED = dict.fromkeys(("divide", "over", "under", "invalid"), "ignore")
ERRSTATE, ERRSTATE_IGNORE = _errstate_var()


def _set_and_reset(kernel: Callable[..., Any], *args: Any) -> Any:
    """``quiet_run``'s function where no context works (NumPy 1.x's ``_ErrObj``)."""
    token = ERRSTATE.set(ERRSTATE_IGNORE)
    try:
        return kernel(*args)
    finally:
        ERRSTATE.reset(token)


def _context_run() -> Callable[..., Any] | None:
    """A new context's ``run`` in which NumPy's warnings are off, if entering it does
    what ``np.errstate(all="ignore")`` does and leaves the caller's state; else None."""
    if not isinstance(ERRSTATE, contextvars.ContextVar):
        return None
    context = contextvars.Context()
    context.run(ERRSTATE.set, ERRSTATE_IGNORE)
    try:
        with np.errstate(all="raise"):
            quiet = context.run(_quiet_now)
            restored = np.geterr()["divide"] == "raise"
    except Exception:
        return None
    return context.run if quiet and restored else None


_CONTEXTS = _context_run() is not None  # checked once; each thread makes its own context


def quiet_run(ctx: dict[str, Any]) -> Callable[..., Any]:
    """This thread's ``run(kernel, *args)`` (the module docstring), made now and kept as
    ``ctx["quiet_run"]``: callers read that first.  Only where ``ERRSTATE`` is not None."""
    run = ctx["quiet_run"] = (_context_run() if _CONTEXTS else None) or _set_and_reset
    return run
