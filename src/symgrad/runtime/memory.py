"""A static memory estimate for a plan: predicted peak bytes, and what the backward pass holds.

``estimate_memory(fetches, feed_dict)`` compiles the same plan ``Session.run`` would, then
replays its schedule without running a kernel: each step allocates its outputs and frees
the buffers whose last reader it is.  Output shapes come from the ops' own shape rules,
re-run with the fed shapes, so an unknown batch size is resolved as it will be at run
time.  Values that only re-label memory (variable reads, reshapes, identities) cost
nothing; variables are counted once, as persistent memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.core import nest
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS
from symgrad.core.shapes import TensorShape
from symgrad.runtime.plan import Plan


@dataclass
class MemoryEstimate:
    """Predicted memory of one run of a plan (bytes)."""

    peak_bytes: int
    variable_bytes: int
    feed_bytes: int
    peak_step: str
    held_for_backward: list[tuple[str, int]] = field(default_factory=list)

    @property
    def held_bytes(self) -> int:
        return sum(b for _, b in self.held_for_backward)

    def __str__(self) -> str:
        mib = 1 << 20
        lines = [
            f"predicted peak: {self.peak_bytes / mib:.1f} MiB (at {self.peak_step})",
            f"  variables {self.variable_bytes / mib:.1f} MiB, feeds "
            f"{self.feed_bytes / mib:.1f} MiB, values held for the backward pass "
            f"{self.held_bytes / mib:.1f} MiB in {len(self.held_for_backward)} tensors",
        ]
        for name, b in sorted(self.held_for_backward, key=lambda x: -x[1])[:10]:
            lines.append(f"    {name:<50} {b / mib:8.2f} MiB")
        return "\n".join(lines)


class _Spec:
    """Stands in for a Tensor when re-running a shape rule with concrete shapes."""

    __slots__ = ("dtype", "eager_value", "graph", "op", "shape")

    def __init__(self, t: Tensor, shape: TensorShape, value: Any) -> None:
        self.shape, self.dtype, self.eager_value, self.op, self.graph = (
            shape,
            t.dtype,
            value,
            t.op,
            t.graph,
        )

    def get_shape(self) -> TensorShape:
        return self.shape


def estimate_memory(fetches: Any, feed_dict: dict[Any, Any] | None = None) -> MemoryEstimate:
    """Predict the peak memory of ``Session.run(fetches, feed_dict)`` without running it."""
    feed_dict = feed_dict or {}
    tensors = [f for f in nest.flatten(fetches) if isinstance(f, Tensor)]
    targets = [f for f in nest.flatten(fetches) if not isinstance(f, Tensor)]
    feeds = list(feed_dict)
    plan = Plan(tensors, [getattr(t, "op", t) for t in targets], feeds)
    shapes = {
        slot: TensorShape(np.shape(v)) for slot, v in zip(plan.feed_slots, feed_dict.values())
    }
    return _simulate(plan, shapes, [np.asarray(v) for v in feed_dict.values()])


def _simulate(
    plan: Plan, shapes: dict[int, TensorShape], feed_values: Sequence[Any]
) -> MemoryEstimate:
    sizes: dict[int, int] = {}
    variables: dict[int, int] = {}
    live = feed = sum(int(np.asarray(v).nbytes) for v in feed_values)
    peak, peak_step = live, "feeds"
    producer: dict[int, str] = {}
    held: list[tuple[str, int]] = []
    for _, ins, outs, free, op in plan.steps:
        attrs = plan.attrs.get(id(op))
        out_shapes = _infer(op, ins, shapes, plan.consts, op.attrs if attrs is None else attrs)
        for slot, shape, d in zip(outs, out_shapes, op.output_dtypes):
            shapes[slot] = shape
            n = shape.num_elements()
            nbytes = 0 if n is None or OPS[op.type].view else n * d.size
            sizes[slot] = nbytes
            producer[slot] = op.name
            live += nbytes
        if OPS[op.type].variable == "read":
            var = op.get_attr("var")
            variables[id(var)] = _nbytes(op.output_shapes[0], op.output_dtypes[0])
        if live > peak:
            peak, peak_step = live, f"{op.type} '{op.name}'"
        for slot in free:
            live -= sizes.get(slot, 0)
            if _is_gradient(op.name) and not _is_gradient(producer.get(slot, "gradients/")):
                held.append((producer[slot], sizes.get(slot, 0)))
    var_bytes = sum(variables.values())
    return MemoryEstimate(peak + var_bytes, var_bytes, feed, peak_step, [h for h in held if h[1]])


def _infer(
    op: Any,
    ins: Sequence[int],
    shapes: dict[int, TensorShape],
    consts: dict[int, Any],
    attrs: dict[str, Any],
) -> list[TensorShape]:
    """The op's output shapes given its inputs' concrete shapes (static ones as fallback),
    with the attrs of its step (a rewrite may have changed them: transposes folded)."""
    specs = []
    for t, slot in zip(op.inputs, ins):
        value = consts.get(slot)
        shape = TensorShape(np.shape(value)) if value is not None else shapes.get(slot, t.shape)
        specs.append(_Spec(t, shape, value))
    try:
        out = OPS[op.type].infer(specs, **attrs)
    except Exception:
        return list(op.output_shapes)
    got = [s for s, _ in (out if isinstance(out, list) else [out])]
    # a fused step reads other slots than its op's inputs (runtime.fuse: a MaxPool's step
    # reads the conv's x): a shape its op's graph contradicts is not this step's
    return [g if g.is_compatible_with(s) else s for g, s in zip(got, op.output_shapes)]


def _nbytes(shape: TensorShape, d: Any) -> int:
    n = shape.num_elements()
    return 0 if n is None else n * d.size


def _is_gradient(name: str) -> bool:
    return name.startswith("gradients") or "_grad/" in name
