"""``strategy.run`` inside ``function(jit_compile=True)`` as one sharded XLA program.

The runner installed in :mod:`.hooks`.  When a ``MirroredStrategy`` over several JAX
devices (one process) runs a step while a ``jit_compile=True`` function traces, the step
is traced once, for one replica, in a replica context whose all-reduce is a
``CrossReplicaSum`` op (``lax.psum`` over the replicas) and whose ``merge_call`` runs in
place (every replica runs the merge on the all-reduced values, so the variables get the
same update on every device).  One ``ReplicaCall`` op runs that trace: per-replica
arguments stacked on a leading axis split over the devices, the rest replicated
(:mod:`symgrad.runtime.xla.spmd`).  Anything else (the NumPy path, uneven per-replica
shapes, several processes) is declined and runs replica by replica (:mod:`.mirrored_run`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.core import nest
from symgrad.core.devices import device as device_scope
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.distribute import distribute_lib, hooks
from symgrad.distribute.values import ReduceOp, regroup, select_replica


class _SpmdReplicaContext(distribute_lib.ReplicaContext):
    """The replica context of a step traced once for all replicas."""

    @property
    def replica_id_in_sync_group(self) -> Any:
        from symgrad.core.op_registry import apply_op

        return apply_op("ReplicaId", [], name="replica_id_in_sync_group").output(0)

    def merge_call(self, merge_fn: Callable[..., Any], args: Any = (), kwargs: Any = None) -> Any:
        """``merge_fn`` on this replica's values, run by every replica: its all-reduces
        are cross-replica sums, so each replica gets the same result."""
        local = distribute_lib.local
        local.replica = None
        try:
            with distribute_lib.cross_replica(self._strategy):
                return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            local.replica = self


def all_reduce(op: ReduceOp, tensor: Any, n: int) -> Any:
    """SUM / MEAN over the replicas of one replica's ``tensor`` (inside a sharded step)."""
    from symgrad.core.op_registry import apply_op
    from symgrad.distribute.reduce import add_tensors

    total = apply_op("CrossReplicaSum", [tensor], name="CrossReplicaSum").output(0)
    return total if op is ReduceOp.SUM else add_tensors(op, [total], n)


def _splits(strategy: Any, args: Any, n: int) -> list[list[Any]] | None:
    """Each leaf's values on the n replicas (the same object where shared), or None when
    a per-replica leaf is not a tensor, or its shapes or dtypes differ."""
    flats = [nest.flatten(select_replica(i, args)) for i in range(n)]
    columns = [list(col) for col in zip(*flats, strict=True)]
    for col in columns:
        if all(v is col[0] for v in col):
            continue
        if not all(isinstance(v, Tensor) for v in col):
            return None
        first = col[0]
        if any(v.dtype != first.dtype or v.shape.as_list() != first.shape.as_list() for v in col):
            return None
    return columns


def _eligible(strategy: Any) -> bool:
    graph = get_default_graph()
    ext = strategy.extended
    return (
        getattr(graph, "jit_compile", False)
        and distribute_lib.local.replica is None
        and ext._num_replicas > 1
        and ext._collective is not None
        and ext._replica_offset == 0
        and ext._collective.n == ext._num_replicas == len(strategy._devices())
    )


def run_sharded(
    strategy: Any, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``strategy.run`` as one ``ReplicaCall`` op, or NotImplemented (see the module)."""
    if not _eligible(strategy):
        return NotImplemented
    n = strategy.extended._num_replicas
    columns = _splits(strategy, (args, kwargs), n)
    if columns is None or any(
        isinstance(c[0], Tensor) and c[0].shape.as_list() is None for c in columns
    ):
        return NotImplemented
    f = _trace(strategy, fn, select_replica(0, (args, kwargs)))
    return _call(strategy, f, columns, n)


def _trace(strategy: Any, fn: Callable[..., Any], first: Any) -> Any:
    from symgrad.runtime.function import trace_graph
    from symgrad.runtime.xla import spmd  # noqa: F401  (registers the ops)

    args, kwargs = first
    local = distribute_lib.local
    local.replica, local.spmd = _SpmdReplicaContext(strategy, 0), True
    try:
        with device_scope(strategy.extended.worker_devices[0]):
            return trace_graph(lambda: fn(*args, **kwargs), "replica_step")
    finally:
        local.replica, local.spmd = None, False


def _call(strategy: Any, f: Any, columns: list[list[Any]], n: int) -> Any:
    """The ReplicaCall op on ``f``'s captures, its outputs regrouped as PerReplica."""
    from symgrad.core.op_registry import apply_op
    from symgrad.ops.array.joining import stack, unstack
    from symgrad.runtime.concrete_function import packer

    per_replica = {id(c[0]): c for c in columns if not all(v is c[0] for v in c)}
    inputs, sharded = [], []
    for t in f.captured:
        col = per_replica.get(id(t))
        inputs.append(t if col is None else stack(col))
        sharded.append(col is not None)
    mesh = strategy.extended._collective.sharded.mesh
    attrs = {"f": f, "sharded": tuple(sharded), "mesh": mesh}
    op = apply_op("ReplicaCall", inputs, attrs, name="replica_step")
    outs = [unstack(t, num=n) for t in op.outputs]
    pack = packer(f._structure)
    return regroup([pack([o[i] for o in outs]) for i in range(n)])


hooks.set_sharded_runner(run_sharded)
