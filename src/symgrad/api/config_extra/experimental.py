"""``tf.config.experimental``: the device functions under their older names,
``enable_op_determinism`` and ``set_synchronous_execution``."""

from __future__ import annotations

import os
import sys

from symgrad.core.devices import (
    LogicalDeviceConfiguration,
    get_logical_device_configuration,
    get_visible_devices,
    jax_started,
    list_logical_devices,
    list_physical_devices,
    prepare_jax,
    set_logical_device_configuration,
    set_visible_devices,
    state,
)

VirtualDeviceConfiguration = LogicalDeviceConfiguration
get_virtual_device_configuration = get_logical_device_configuration
set_virtual_device_configuration = set_logical_device_configuration

# enable_op_determinism is left out of __all__: the API walk would list it under
# tf.compat.v1.config too (the same module), which TF1 lacks.
__all__ = [
    "VirtualDeviceConfiguration",
    "get_synchronous_execution",
    "get_virtual_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_synchronous_execution",
    "set_virtual_device_configuration",
    "set_visible_devices",
]


def enable_op_determinism() -> None:
    """Make ops deterministic.  symgrad's NumPy kernels are (same inputs, same bits);
    for XLA on a GPU this asks for its deterministic kernels, before JAX starts."""
    state.determinism = True
    flag = "--xla_gpu_deterministic_ops=true"
    flags = os.environ.get("XLA_FLAGS", "")
    if not jax_started() and flag not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {flag}".strip()


def op_determinism_enabled() -> bool:
    """Whether :func:`enable_op_determinism` was called (TF's internal getter)."""
    return state.determinism


def set_synchronous_execution(enable: bool | None) -> None:
    """Whether ops run synchronously (True, and None: the default) or may return before
    their results are ready (False).  symgrad's NumPy path is always synchronous; under
    ``jit_compile=True`` this is the dispatch mode of JAX's CPU client, which is fixed
    when JAX starts (``devices.prepare_jax``): a call after that records the setting
    alone.  Results are the same either way."""
    state.synchronous = None if enable is None else bool(enable)
    if "jax" in sys.modules and not jax_started():  # imported, not started: set it now
        prepare_jax()


def get_synchronous_execution() -> bool:
    """Whether ops run synchronously (TF's default: True)."""
    return state.synchronous is not False
