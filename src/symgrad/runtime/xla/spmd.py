"""One replica's traced step run on every replica's device as one SPMD program.

Under ``function(jit_compile=True)``, ``MirroredStrategy.run`` traces its step once, for
one replica (``symgrad.distribute.sharded``), and records one ``ReplicaCall`` op: its
inputs are the per-replica values stacked on a leading replica axis (split over the
devices) and the values every replica shares; its outputs are the replicas' results,
stacked the same way.  The op lowers to ``jax.shard_map`` over the strategy's one-axis
``"replica"`` mesh: each device runs the step on its own slice, the variables are
replicated (every device holds the same value, as TF's mirrored copies), and the step's
all-reduce is a ``CrossReplicaSum`` op, ``lax.psum`` over the mesh axis.  Because every
replica applies the same summed gradients, the variables stay equal on all devices; a
variable each replica writes on its own (``ON_READ``, a metric's total) gets the sum of
the replicas' changes.

These ops run only on XLA: their NumPy kernels raise (the NumPy path runs the replicas
one after another, ``symgrad.distribute.mirrored_run``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core.errors import UnimplementedError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, register_op
from symgrad.core.shapes import TensorShape

AXIS = "replica"


def _numpy_kernel(*_: Any, **__: Any) -> Any:
    raise UnimplementedError(
        "A MirroredStrategy step traced for XLA (jit_compile=True) runs only compiled", None
    )


def _call_infer(inputs: Sequence[Tensor], *, f: Any, sharded: Any, mesh: Any) -> list[Spec]:
    n = mesh.devices.size
    return [(TensorShape([n, *(t.shape.dims or [])]), t.dtype) for t in f.outputs]


def _sum_infer(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    return [(inputs[0].shape, inputs[0].dtype)]


def _id_infer(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    return [(TensorShape([]), dt.int32)]


_NO_CASES = "runs only inside a MirroredStrategy step compiled for XLA over several devices: "
register_op(
    "ReplicaCall",
    _call_infer,
    _numpy_kernel,
    stateful=True,
    pure=False,
    batch="runs a traced step on every replica's device",
    no_cases=_NO_CASES + "tests/distribute/test_mirrored_step.py",
)
register_op(
    "CrossReplicaSum",
    _sum_infer,
    _numpy_kernel,
    stateful=True,
    pure=False,
    batch="sums over the replicas, not a batch axis",
    no_cases=_NO_CASES + "tests/distribute/test_mirrored_step.py",
)
register_op(
    "ReplicaId",
    _id_infer,
    _numpy_kernel,
    stateful=True,
    pure=False,
    batch="has no inputs",
    no_cases=_NO_CASES + "tests/distribute/test_mirrored_step.py",
)


def _replica_call(ctx: Any, op: Any, *arrays: Any) -> Any:
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    from symgrad.runtime.xla import engine

    f, sharded, mesh = op.get_attr("f"), op.get_attr("sharded"), op.get_attr("mesh")
    prog = engine.program_of(f)
    keys, written = list(prog.variables), list(prog.written)

    summed = [_on_read(prog.written[k]) for k in written]

    def body(xs: list[Any], state: list[Any]) -> Any:
        old = dict(zip(keys, state, strict=True))
        inner = engine.Ctx(dict(old))
        feeds = [x[0] if s else x for x, s in zip(xs, sharded, strict=True)]
        outs = engine.run(prog, inner, feeds)
        new = [
            old[k] + jax.lax.psum(inner.state[k] - old[k], AXIS) if on_read else inner.state[k]
            for k, on_read in zip(written, summed, strict=True)
        ]
        return [jnp.asarray(o)[None] for o in outs], new

    specs = ([P(AXIS) if s else P() for s in sharded], [P()] * len(keys))
    run = jax.shard_map(
        body,
        mesh=mesh,
        in_specs=specs,
        out_specs=([P(AXIS)] * len(f.outputs), [P()] * len(written)),
        check_vma=False,  # the written variables are equal on every replica (see above)
    )
    outs, new = run(list(arrays), [ctx.state[k] for k in keys])
    ctx.state.update(zip(written, new, strict=True))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _on_read(var: Any) -> bool:
    """A variable each replica writes on its own (``synchronization=ON_READ``, a Keras
    metric's total): its value after the step is the old one plus every replica's change,
    as the NumPy path's replicas, writing it in turn, leave it."""
    return getattr(getattr(var, "_synchronization", None), "name", None) == "ON_READ"


def _cross_replica_sum(ctx: Any, op: Any, x: Any) -> Any:
    import jax

    return jax.lax.psum(x, AXIS)


def _replica_id(ctx: Any, op: Any) -> Any:
    import jax

    return jax.lax.axis_index(AXIS).astype("int32")


def table() -> dict[str, Any]:
    return {
        "ReplicaCall": _replica_call,
        "CrossReplicaSum": _cross_replica_sum,
        "ReplicaId": _replica_id,
    }
