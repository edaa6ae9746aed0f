"""``tf.config.optimizer.set_jit`` / ``get_jit``: XLA for every ``function`` by default.

TF's setting turns on auto-clustering: ops XLA supports are compiled, the others run as
usual.  Here a ``function`` with ``jit_compile=None`` then compiles its whole trace when
every op of it has a JAX lowering (and JAX is installed), and runs on NumPy otherwise;
``jit_compile=True`` always compiles (or fails), ``False`` never does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_jit", "set_jit"]

_STATE = {"jit": ""}


def set_jit(enabled: Any) -> None:
    """``True`` or ``"autoclustering"``: compile functions by default; ``False``: not."""
    _STATE["jit"] = "autoclustering" if enabled else ""


def get_jit() -> str:
    """``"autoclustering"`` when set, else ``""`` (as TF)."""
    return _STATE["jit"]
