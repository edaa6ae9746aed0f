"""Where a compiled call runs: TF's placement of a ``jit_compile=True`` call on JAX's devices.

TF 2.21 places the whole compiled call on the device of the ``tf.device`` block around
the call (a block inside the function is ignored), with soft placement: a device the
process lacks (``/GPU:0`` on a CPU-only host, ``/CPU:5`` with two CPUs) is CPU:0, and
no block is the default device (the first GPU where there is one).  Its outputs are on
that device; its inputs are copied there.  A variable lives on the device of the block it
was created in, and a compiled call on another device that reads or writes it fails:
"Trying to access resource w/2 ... located in device .../CPU:1 from device .../CPU:0".

Here the default is JAX's default device (the first GPU where JAX has one, else CPU:0),
and a call placed there runs as before (no context, no copy: the training loop's
route).  A call placed elsewhere runs under ``jax.default_device`` with its feeds put on
that device.  A ``Placement`` is found once per requested name (a dict lookup when the
block's name changes between calls); the variables are checked when a program's
placement changes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from symgrad.core import devices
from symgrad.core.errors import InvalidArgumentError


class Placement(NamedTuple):
    """``device``: the JAX device; ``pinned``: it, or None where it is JAX's default
    device; ``name``: TF's full name of it; ``report``: that name where it differs from
    what an eager tensor made in the same block reports (a GPU default), else None."""

    device: Any
    pinned: Any
    name: str
    report: str | None


_FOUND: dict[str, Placement] = {}


def resolve(requested: str) -> Placement:
    """The placement of a compiled call made in a ``tf.device(requested)`` block ('' for
    none)."""
    found = _FOUND.get(requested)
    if found is None:
        found = _FOUND[requested] = _resolve(requested)
    return found


def _resolve(requested: str) -> Placement:
    import jax

    devices.prepare_jax()  # (the first compiled call starts JAX: its settings first)
    default = jax.devices()[0]
    device = default
    if requested:
        kind, index = devices.placed(requested)  # soft placement: ("CPU", 0) if absent
        device = devices.jax_device(kind, index) or default
    name = tf_name(device)
    report = None if name == devices.eager_name(requested) else name
    return Placement(device, None if device == default else device, name, report)


def tf_name(device: Any) -> str:
    """TF's full name of a JAX device (``.../device:CPU:1``, ``.../device:GPU:0``)."""
    import jax

    kind = "CPU" if device.platform == "cpu" else "GPU"
    index = list(jax.devices(device.platform)).index(device)
    return f"{devices.LOCAL}/device:{kind}:{index}"


def check_variables(variables: list[Any], at: Placement, name: str) -> None:
    """TF's error where a variable lives on another device than the call's."""
    for v in variables:
        home = resolve(getattr(v, "_device", "") or "")
        if home.device != at.device:
            raise InvalidArgumentError(
                f"Trying to access resource {_resource(v)} located in device "
                f"{home.name} from device {at.name}\n Cf. https://www.tensorflow.org/xla/"
                f"known_issues#tfvariable_on_a_different_device [Op:__inference_{name}]"
            )


def _resource(v: Any) -> str:
    """TF's name of a variable's resource: its name and its number among variables."""
    return f"{getattr(v, '_op_name', v.name)}/{getattr(v, '_uid', 0)}"
