"""``tf.config``: the runtime settings symgrad has.

``set_atomic_runs`` is symgrad's own (TF has no such setting): it turns off the undo
journal that makes a failed ``Session.run`` or ``function`` call leave every variable as it
was, for memory-bound training (see ``docs/semantics.md``).

``set_refcount_checks`` is symgrad's own too: with ``False``, symgrad never decides by a
reference count that an array is unshared (``symgrad.core.refcounts``), so it copies instead of
writing in place and keeps eager history; ``SYMGRAD_NO_REFCOUNT=1`` in the environment
does the same from the start.
"""

from __future__ import annotations

from symgrad.api.config_extra import experimental, threading
from symgrad.core import missing as _missing
from symgrad.core import refcounts
from symgrad.core.devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)
from symgrad.ops.state.variables import atomic_runs_enabled, set_atomic_runs
from symgrad.runtime.xla import jit_setting as optimizer  # tf.config.optimizer.set_jit / get_jit

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "atomic_runs_enabled",
    "experimental",
    "get_logical_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "optimizer",
    "refcount_checks_enabled",
    "set_atomic_runs",
    "set_logical_device_configuration",
    "set_refcount_checks",
    "set_visible_devices",
    "threading",
]


def set_refcount_checks(enabled: bool) -> None:
    """Let reference counts decide in-place writes and eager history (the default, where
    the interpreter passed the checks made at import), or never (copy, keep history)."""
    refcounts.set_enabled(enabled)


def refcount_checks_enabled() -> bool:
    """Whether reference counts decide (switched on, and the import-time checks passed)."""
    return refcounts.enabled()


__getattr__ = _missing.module_getattr("tf.config")
