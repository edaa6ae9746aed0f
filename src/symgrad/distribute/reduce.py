"""Combining the replicas' values: with JAX's collectives where the replicas are JAX
devices, else with symgrad's own ops (``AddN``, which also works inside a trace).

The JAX path places each replica's array on its device (``jax.device_put``), makes one
global array sharded over a one-axis mesh of the replicas' devices (every process's, for
``MultiWorkerMirroredStrategy``), and sums it over that axis in a ``jax.jit``-compiled
function whose output is replicated: XLA does the all-reduce (across processes through
``jax.distributed``'s collectives).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.distribute.values import ReduceOp


class JaxCollective:
    """All-reduce over ``devices`` (all replicas', in replica order), this process owning
    those listed in ``local``."""

    def __init__(self, jax: Any, devices: Sequence[Any], local: Sequence[Any]) -> None:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        self.jax, self.local = jax, list(local)
        mesh = Mesh(np.array(list(devices)), ("replica",))
        self.n = len(devices)
        self.sharded = NamedSharding(mesh, PartitionSpec("replica"))
        self.replicated = NamedSharding(mesh, PartitionSpec())

    @functools.cache  # noqa: B019  (one compiled function per op, for the strategy's life)
    def _fn(self, op: ReduceOp) -> Any:
        def reduce(a: Any) -> Any:
            return a.sum(0) if op is ReduceOp.SUM else a.sum(0) / a.shape[0]

        return self.jax.jit(reduce, out_shardings=self.replicated)

    def reduce(self, op: ReduceOp, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """The arrays of this process's replicas -> the reduction over all replicas."""
        jax = self.jax
        with jax.enable_x64(True):  # a float64 value stays float64
            shards = [jax.device_put(a[None], d) for a, d in zip(arrays, self.local)]
            shape = (self.n, *np.shape(arrays[0]))
            g = jax.make_array_from_single_device_arrays(shape, self.sharded, shards)
            out = self._fn(op)(g)
            return np.asarray(out.addressable_data(0)).astype(arrays[0].dtype, copy=False)


def add_tensors(op: ReduceOp, tensors: Sequence[Any], n: int) -> Any:
    """SUM / MEAN of ``tensors`` with symgrad's ops (eager or traced)."""
    from symgrad.ops.array.structure import cast
    from symgrad.ops.math.add_n import add_n
    from symgrad.ops.math.elementwise import divide, floordiv

    total = add_n(list(tensors)) if len(tensors) > 1 else tensors[0]
    if op is ReduceOp.SUM:
        return total
    count = cast(n, total.dtype)
    return floordiv(total, count) if total.dtype.is_integer else divide(total, count)


def reduce_parts(strategy: Any, op: ReduceOp, parts: Sequence[Any], axis: Any) -> Any:
    """``strategy.reduce`` of one value's per-replica parts (along ``axis`` first)."""
    from symgrad.distribute.values import PerReplica
    from symgrad.ops.array.structure import shape
    from symgrad.ops.core import convert_to_tensor
    from symgrad.ops.reduction.reduce import reduce_sum

    parts = [convert_to_tensor(p) for p in parts]
    if axis is None:
        return strategy.extended._all_reduce(op, PerReplica(parts))
    sums = PerReplica([reduce_sum(p, axis) for p in parts])
    total = strategy.extended._all_reduce(ReduceOp.SUM, sums)
    if op is ReduceOp.SUM:
        return total
    counts = PerReplica([shape(p, out_type=dt.int64)[axis] for p in parts])
    count = strategy.extended._all_reduce(ReduceOp.SUM, counts)
    from symgrad.ops.array.structure import cast
    from symgrad.ops.math.elementwise import divide

    return divide(total, cast(count, total.dtype))
