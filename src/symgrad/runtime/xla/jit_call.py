"""Which traces of a ``function`` run on XLA (``jit_compile`` and ``set_jit``)."""

from __future__ import annotations

from typing import Any

from symgrad.runtime.xla import available, compile_function
from symgrad.runtime.xla.engine import UnsupportedOpError
from symgrad.runtime.xla.jit_setting import get_jit


def attach(cf: Any, jit_compile: bool | None) -> None:
    """Give trace ``cf`` its compiled form (``cf.compiled``), or False for none.

    ``jit_compile=True``: compile, or raise (TF's unsupported-operations error, or the
    ImportError naming the extra); ``None``: compile only under ``set_jit(True)``, when
    JAX is installed and every op lowers (else the NumPy plan runs, as TF's
    auto-clustering leaves unsupported ops to the usual kernels)."""
    if jit_compile:
        cf.compiled = compile_function(cf)
        return
    if not get_jit() or not available():
        cf.compiled = False
        return
    try:
        cf.compiled = compile_function(cf)
    except UnsupportedOpError:
        cf.compiled = False
