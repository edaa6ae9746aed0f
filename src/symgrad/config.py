"""``tf.config``: the runtime settings symgrad has.

``set_atomic_runs`` is symgrad's own (TF has no such setting): it turns off the undo
journal that makes a failed ``Session.run`` or ``function`` call leave every variable as it
was, for memory-bound training (see ``docs/semantics.md``).
"""

from __future__ import annotations

from . import _missing
from .ops.variables import atomic_runs_enabled, set_atomic_runs

__all__ = ["atomic_runs_enabled", "set_atomic_runs"]

__getattr__ = _missing.module_getattr("tf.config")
