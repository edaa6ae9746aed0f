"""Devices: ``tf.device`` placement, the device list of ``tf.config``, and JAX's devices.

symgrad computes on the CPU with NumPy.  The devices it reports are TensorFlow's: one
physical CPU, split into logical CPUs by ``tf.config.set_logical_device_configuration``
(TF's way to test several devices on one host), and the GPUs JAX can see where JAX is
installed with a GPU plugin (none otherwise, TF's answer on a CPU-only host).  Where JAX
is installed, the logical CPU count becomes XLA's host device count
(``jax_num_cpu_devices``, as ``--xla_force_host_platform_device_count``), so that the
devices of ``tf.distribute`` are JAX's local devices; it must be set before JAX starts.

``tf.device(name)`` records the requested device on every op created in its block
(``op.device``, ``Tensor.device``): a graph's tensors keep the request as written
(``/device:CPU:1``), an eager tensor names the device it ran on, with TF's soft placement
(a device this process lacks, such as ``/GPU:0`` on a CPU-only host, is CPU:0).  This
module sits below the graph IR: it imports only :mod:`symgrad.core.context`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, NamedTuple

from symgrad.core.context import current

LOCAL = "/job:localhost/replica:0/task:0"
_FIELD = re.compile(r"^(job|replica|task|device):(.+)$", re.IGNORECASE)
_TYPE_INDEX = re.compile(r"^([A-Za-z_]+)(?::(\d+|\*))?$")


class PhysicalDevice(NamedTuple):
    """``tf.config.PhysicalDevice``: a device of this host, before any splitting."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """``tf.config.LogicalDevice``: a device ops are placed on."""

    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    """``tf.config.LogicalDeviceConfiguration``: one logical device made from a physical
    one (symgrad honours the count of CPU ones; the fields are recorded, not used)."""

    memory_limit: Any = None
    experimental_priority: Any = None
    experimental_device_ordinal: Any = None


class _State:
    """The process's device settings (TF's context: fixed once initialized)."""

    def __init__(self) -> None:
        self.initialized = False
        self.logical: dict[str, list[LogicalDeviceConfiguration]] = {}
        self.hidden_gpus = False
        self.intra_op = 0
        self.inter_op = 0
        self.determinism = False
        self.synchronous: bool | None = None  # set_synchronous_execution (None: the default)


state = _State()


# --------------------------------------------------------------------------------------
# JAX, where installed


def jax_module() -> Any:
    """``jax`` if it can be imported, else None."""
    if importlib.util.find_spec("jax") is None:
        return None
    try:
        return importlib.import_module("jax")
    except ImportError:  # installed but broken (or blocked): the NumPy path
        return None


def jax_started() -> bool:
    """Whether JAX has initialized its backends (its device count is then fixed).  Does
    not import JAX: symgrad imports it only when it uses it."""
    if "jax" not in sys.modules:
        return False
    from jax._src import xla_bridge

    return bool(xla_bridge._backends)


def _jax_gpus() -> list[Any]:
    """JAX's GPU devices; JAX is imported and started only where a GPU plugin is."""
    plugins = ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm60_plugin")
    if not jax_started() and not any(importlib.util.find_spec(p) for p in plugins):
        return []
    jax = jax_module()
    if jax is None:
        return []
    prepare_jax()
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # no GPU backend
        return []


def jax_device(device_type: str, index: int) -> Any:
    """JAX's device for logical device ``device_type:index``, or None (no JAX, no such
    device).  Starts JAX."""
    jax = jax_module()
    if jax is None:
        return None
    prepare_jax()
    found = _jax_gpus() if device_type == "GPU" else list(jax.devices("cpu"))
    return found[index] if index < len(found) else None


def _n_cpus() -> int:
    """The logical CPUs: as configured, else XLA's host device count from ``XLA_FLAGS``
    (``--xla_force_host_platform_device_count=4``: JAX's CPU devices are then TF's)."""
    configured = len(state.logical.get("CPU", ()))
    if configured:
        return configured
    m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return int(m.group(1)) if m else 1


def prepare_jax() -> None:
    """Give JAX this process's settings before it starts (once started, they are fixed):
    the logical CPU count, and the dispatch mode of ``set_synchronous_execution``.
    Synchronous, TF's default, runs a single-device CPU program in the calling thread
    (``jax_cpu_enable_async_dispatch=False``): a training step's call then hands no work
    to another thread and waits for none (on a 2-core host, a small step's time fell by
    a fifth to a half).  JAX's own default (asynchronous) stays where the environment asks for it
    (``JAX_CPU_ENABLE_ASYNC_DISPATCH``) or ``set_synchronous_execution(False)`` was called.
    Called just before symgrad starts JAX; imports it."""
    if jax_started() or importlib.util.find_spec("jax") is None:
        return
    jax = jax_module()
    if jax is None:
        return
    n = len(state.logical.get("CPU", ())) or 1
    if n > 1:
        jax.config.update("jax_num_cpu_devices", n)
    if state.synchronous is not None or "JAX_CPU_ENABLE_ASYNC_DISPATCH" not in os.environ:
        jax.config.update("jax_cpu_enable_async_dispatch", state.synchronous is False)


# --------------------------------------------------------------------------------------
# tf.config's device list


def _check_type(device_type: Any) -> str | None:
    if device_type is None:
        return None
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a string such as 'GPU', got {device_type!r}")
    return device_type.upper()


def list_physical_devices(device_type: Any = None) -> list[PhysicalDevice]:
    """``tf.config.list_physical_devices``: CPU:0, and JAX's GPUs where it has any."""
    kind = _check_type(device_type)
    found = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    found += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(_n_gpus())]
    return [d for d in found if kind is None or d.device_type == kind]


def _n_gpus() -> int:
    return len(_jax_gpus())


def list_logical_devices(device_type: Any = None) -> list[LogicalDevice]:
    """``tf.config.list_logical_devices``: one per logical CPU (one unless configured),
    and one per visible GPU.  Fixes the device settings, as TF's call does."""
    kind = _check_type(device_type)
    state.initialized = True
    if len(state.logical.get("CPU", ())) > 1:  # (else JAX is not imported here)
        prepare_jax()
    n_cpu = _n_cpus()
    found = [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(n_cpu)]
    if not state.hidden_gpus:
        found += [LogicalDevice(f"/device:GPU:{i}", "GPU") for i in range(_n_gpus())]
    return [d for d in found if kind is None or d.device_type == kind]


def get_visible_devices(device_type: Any = None) -> list[PhysicalDevice]:
    """``tf.config.get_visible_devices``: the physical devices not hidden."""
    found = list_physical_devices(device_type)
    return [d for d in found if not (state.hidden_gpus and d.device_type == "GPU")]


def set_visible_devices(devices: Any, device_type: Any = None) -> None:
    """``tf.config.set_visible_devices``: symgrad can hide the GPUs (all or none)."""
    if state.initialized:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    chosen = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in chosen:
        if not isinstance(d, PhysicalDevice):
            raise TypeError(f"set_visible_devices takes PhysicalDevice objects, got {d!r}")
    kind = _check_type(device_type)
    if kind in (None, "CPU") and not any(d.device_type == "CPU" for d in chosen):
        raise ValueError("symgrad computes on the CPU: CPU:0 must stay visible")
    if kind in (None, "GPU"):
        gpus = [d for d in chosen if d.device_type == "GPU"]
        if gpus and len(gpus) != _n_gpus():
            raise ValueError("symgrad can hide all GPUs or none, not some of them")
        state.hidden_gpus = not gpus


def set_logical_device_configuration(device: Any, logical_devices: Any) -> None:
    """``tf.config.set_logical_device_configuration``: split the CPU into logical CPUs
    (JAX's host device count where JAX is installed; before JAX starts)."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"Unrecognized device: {device!r}")
    configs = None if logical_devices is None else list(logical_devices)
    if state.initialized:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    if device.device_type != "CPU":
        raise ValueError(f"symgrad splits only the CPU into logical devices, not {device.name}")
    for c in configs or ():
        if not isinstance(c, LogicalDeviceConfiguration):
            raise TypeError(f"logical_devices must be LogicalDeviceConfiguration, got {c!r}")
    if configs and jax_started() and len(jax_module().devices("cpu")) != len(configs):
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    if configs:
        state.logical["CPU"] = configs
    else:
        state.logical.pop("CPU", None)


def get_logical_device_configuration(device: Any) -> list[LogicalDeviceConfiguration] | None:
    """``tf.config.get_logical_device_configuration``: what was set, or None."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"Unrecognized device: {device!r}")
    configs = state.logical.get(device.device_type)
    return list(configs) if configs else None


# --------------------------------------------------------------------------------------
# tf.device


def _parse(spec: str) -> dict[str, str]:
    """``'/job:w/task:1/device:GPU:0'`` or ``'/cpu:0'`` -> its fields (type upper-cased)."""
    fields: dict[str, str] = {}
    for part in filter(None, spec.split("/")):
        m = _FIELD.match(part)
        key, val = (m.group(1).lower(), m.group(2)) if m else ("device", part)
        if key == "device":
            t = _TYPE_INDEX.match(val)
            if t is None:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
            fields["type"] = t.group(1).upper()
            fields["index"] = t.group(2) or "*"
        else:
            fields[key] = val
    return fields


def _format(fields: dict[str, str]) -> str:
    out = "".join(f"/{k}:{fields[k]}" for k in ("job", "replica", "task") if k in fields)
    if "type" in fields:
        out += f"/device:{fields['type']}:{fields['index']}"
    return out


def merged(spec: str | None) -> str:
    """The device a ``tf.device(spec)`` block places ops on, inside the current one."""
    if not spec:
        return ""
    fields = _parse(current_device() or "")
    fields.update(_parse(spec))
    return _format(fields)


def current_device() -> str:
    """The device requested by the innermost ``tf.device`` block ('' outside any)."""
    return getattr(current, "device", "")


@contextlib.contextmanager
def device(device_name: Any) -> Iterator[None]:
    """``tf.device``: ops created in the block are placed on ``device_name``."""
    if device_name is not None and not isinstance(device_name, str):
        raise RuntimeError(
            "tf.device does not support functions when eager execution is enabled; "
            f"give a device name such as '/GPU:0', got {device_name!r}"
        )
    outer = current_device()
    current.device = merged(device_name) if device_name else ""
    try:
        yield
    finally:
        current.device = outer


def placed(requested: str) -> tuple[str, int]:
    """Where an eager op requested on ``requested`` runs: (type, index), soft placement."""
    fields = _parse(requested) if requested else {}
    kind, index = fields.get("type", "CPU"), fields.get("index", "0")
    i = 0 if index == "*" else int(index)
    names = {d.name for d in list_logical_devices(kind)} if kind in ("CPU", "GPU") else set()
    if f"/device:{kind}:{i}" in names:
        return kind, i
    return "CPU", 0


def eager_name(requested: str) -> str:
    """An eager tensor's ``device``: the full name of the device it ran on."""
    kind, i = placed(requested)
    return f"{LOCAL}/device:{kind}:{i}"


def canonical(name: str) -> str:
    """A user's device name as a full local device name (``'/gpu:1'`` ->
    ``'/job:localhost/replica:0/task:0/device:GPU:1'``), for ``tf.distribute``."""
    fields = {"job": "localhost", "replica": "0", "task": "0"}
    fields.update(_parse(name))
    if "type" not in fields:
        raise ValueError(f"{name!r} names no device (such as '/gpu:0' or '/cpu:1')")
    if fields["index"] == "*":
        fields["index"] = "0"
    return _format(fields)


# --------------------------------------------------------------------------------------
# tf.test


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: Any = None) -> bool:
    """``tf.test.is_gpu_available`` (deprecated in TF): whether a GPU is visible."""
    return bool(list_logical_devices("GPU"))


def gpu_device_name() -> str:
    """``tf.test.gpu_device_name``: ``'/device:GPU:0'``, or '' without a GPU."""
    gpus = list_logical_devices("GPU")
    return gpus[0].name if gpus else ""


def type_index(name: str) -> tuple[str, int]:
    """``'/job:localhost/replica:0/task:0/device:GPU:1'`` -> ('GPU', 1)."""
    fields = _parse(name)
    index = fields.get("index", "0")
    return fields.get("type", "CPU"), 0 if index == "*" else int(index)


def _tensor_device(t: Any) -> str:
    """``Tensor.device``: an eager tensor's device (its full name); a graph tensor's
    requested one ('' for none), as TF's."""
    return eager_name(t.op.device) if t.op.graph.eager else t.op.device  # type: ignore[no-any-return]


def install() -> None:
    """Give ``Tensor`` its ``device`` (the graph IR sits below this module)."""
    from symgrad.core.graph import Tensor

    Tensor.device = property(_tensor_device)  # type: ignore[method-assign,assignment]
