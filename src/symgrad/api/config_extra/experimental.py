"""``tf.config.experimental``: the device functions under their older names, and
``enable_op_determinism``."""

from __future__ import annotations

import os

from symgrad.core.devices import (
    LogicalDeviceConfiguration,
    get_logical_device_configuration,
    get_visible_devices,
    jax_started,
    list_logical_devices,
    list_physical_devices,
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
    "get_virtual_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
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
