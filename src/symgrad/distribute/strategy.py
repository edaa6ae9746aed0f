"""``tf.distribute.Strategy`` and its one-process strategies: the default one,
``OneDeviceStrategy`` and ``MirroredStrategy``.

Variables created under ``strategy.scope()`` are mirrored the simple way: one symgrad
``Variable`` that every replica reads.  TF keeps a copy per device and updates each with
the same all-reduced gradient, so the copies never differ; one variable gives the same
numbers, and its updates run once, in cross-replica context (an optimizer's
``apply_gradients`` in replica context all-reduces the gradients, then updates through
``merge_call``, as Keras's TF backend does).
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

from symgrad.core import devices, nest
from symgrad.distribute import distribute_lib, hooks, input_lib, mirrored_run
from symgrad.distribute.reduce import JaxCollective, add_tensors
from symgrad.distribute.values import (
    DistributedValues,
    PerReplica,
    ReduceOp,
    flatten_values,
    local_results,
    map_values,
    pack_values,
    regroup,
)


class StrategyExtended:
    """``strategy.extended``: the devices, and how values are combined and updated."""

    def __init__(self, container_strategy: Any) -> None:
        self._container_strategy = container_strategy
        self.worker_devices: tuple[str, ...] = ()
        self._replica_offset = 0  # this process's first replica (multi-worker)
        self._num_replicas = 1
        self._collective: JaxCollective | None = None

    def _set_devices(self, worker_devices: tuple[str, ...]) -> StrategyExtended:
        self.worker_devices = worker_devices
        self._num_replicas = max(1, len(worker_devices))
        return self

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        return self.worker_devices

    def _all_reduce(self, op: ReduceOp, value: Any) -> Any:
        """One tensor: the SUM / MEAN of a PerReplica's values over all replicas."""
        from symgrad.ops.core import constant, convert_to_tensor

        tensors = [convert_to_tensor(v) for v in local_results(value)]
        if distribute_lib.local.spmd:  # one replica's step traced for all: XLA's psum
            from symgrad.distribute.sharded import all_reduce

            return all_reduce(op, tensors[0], self._num_replicas)
        if self._collective is not None and all(t.has_value() for t in tensors):
            arrays = [t.eager_value for t in tensors]
            return constant(self._collective.reduce(op, arrays))
        if len(tensors) != self._num_replicas:
            raise RuntimeError(
                "combining values across processes needs JAX (pip install symgrad[jax]) "
                "and eager values"
            )
        return add_tensors(op, tensors, self._num_replicas)

    def _gather(self, value: Any, axis: Any) -> Any:
        from symgrad.ops.array.joining import concat

        parts = list(local_results(value))
        return concat(parts, axis) if len(parts) > 1 else parts[0]

    def update(
        self,
        var: Any,
        fn: Callable[..., Any],
        args: Any = (),
        kwargs: Any = None,
        group: bool = True,
    ) -> Any:
        """``fn(var, *args, **kwargs)`` once: a mirrored variable is one variable here."""
        return fn(var, *args, **(kwargs or {}))

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        return contextlib.nullcontext()


class Strategy:
    """``tf.distribute.Strategy``: how a computation is spread over replicas."""

    def __init__(self, extended: Any) -> None:
        self._extended = extended
        self._local_replicas: tuple[str, ...] | None = None  # set by a multi-worker one
        self._set_globally = False

    @property
    def extended(self) -> Any:
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        return self._extended._num_replicas  # type: ignore[no-any-return]

    @property
    def cluster_resolver(self) -> Any:
        return None

    @contextlib.contextmanager
    def scope(self) -> Iterator[Any]:
        """Variables made in the block are this strategy's; ``get_strategy()`` is it."""
        outer = distribute_lib.get_strategy()
        if outer is not self and outer is not distribute_lib.default_strategy():
            raise ValueError(
                f"Mixing different tf.distribute.Strategy objects: {self} is not {outer}"
            )
        with distribute_lib.cross_replica(self):
            yield self

    def run(
        self, fn: Callable[..., Any], args: Any = (), kwargs: Any = None, options: Any = None
    ) -> Any:
        """``fn(*args, **kwargs)`` on each replica, each given its part of any PerReplica
        argument; the results as PerReplica values (one replica's as they are)."""
        if not callable(fn):
            raise TypeError(f"strategy.run takes a callable fn, got {fn!r}")
        args, kwargs = tuple(args), dict(kwargs or {})
        sharded = hooks.run_sharded(self, fn, args, kwargs)
        if sharded is not NotImplemented:
            return sharded
        if distribute_lib.local.replica is not None:  # already on a replica: just call
            return fn(*args, **kwargs)
        return self._call_for_each_replica(fn, args, kwargs)

    def _call_for_each_replica(self, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        return mirrored_run.call_for_each_replica(self, fn, args, kwargs)

    def reduce(self, reduce_op: Any, value: Any, axis: Any) -> Any:
        """``value`` combined over the replicas (and along ``axis`` first, if given)."""
        return distribute_lib.reduce_values(self, reduce_op, value, axis)

    def experimental_local_results(self, value: Any) -> Any:
        """The values of this process's replicas, as a tuple (``(value,)`` if plain)."""
        flat = [local_results(v) for v in flatten_values(value)]
        if not flat:
            return (value,)
        n = len(flat[0])
        return tuple(pack_values(value, [f[i] for f in flat]) for i in range(n))

    def gather(self, value: Any, axis: Any) -> Any:
        """The replicas' values concatenated along ``axis``."""
        return map_values(lambda v: self._extended._gather(v, axis), value)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """A dataset (or an iterable of NumPy batches) whose global batches are split
        over the replicas as TF splits them."""
        return input_lib.DistributedDataset(self, dataset)

    def distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any], options: Any = None
    ) -> Any:
        """``dataset_fn(input_context)`` gives per-replica batches, handed out in turn."""
        return input_lib.from_function(self, dataset_fn)

    def experimental_distribute_values_from_function(self, value_fn: Callable[..., Any]) -> Any:
        """``value_fn(ValueContext)`` once per replica, as PerReplica values."""
        n, offset = len(self._devices()), self._extended._replica_offset
        made = []
        for i in range(n):
            with devices.device(self._devices()[i]):
                made.append(value_fn(ValueContext(i + offset, self.num_replicas_in_sync)))
        return regroup(made)

    def _devices(self) -> tuple[str, ...]:
        return self._local_replicas or self._extended.worker_devices  # type: ignore[no-any-return]


class ValueContext:
    """``tf.distribute.experimental.ValueContext``: which replica a value is made for."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1) -> None:
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class DefaultStrategy(Strategy):
    """The strategy in force outside any scope: one replica, wherever ops are placed."""

    def __init__(self) -> None:
        super().__init__(StrategyExtended(self)._set_devices(()))
        self._default_replica = distribute_lib.ReplicaContext(self, 0)

    def _call_for_each_replica(self, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def _devices(self) -> tuple[str, ...]:
        return (devices.current_device(),)  # wherever the caller places ops

    def reduce(self, reduce_op: Any, value: Any, axis: Any) -> Any:
        from symgrad.ops.reduction.reduce import reduce_mean, reduce_sum

        op = distribute_lib.as_reduce_op(reduce_op)
        if axis is None:
            return value
        red = reduce_sum if op is ReduceOp.SUM else reduce_mean
        return nest.map_structure(lambda v: red(v, axis), value)


class OneDeviceStrategy(Strategy):
    """``tf.distribute.OneDeviceStrategy``: one replica, placed on ``device``."""

    def __init__(self, device: Any) -> None:
        if not isinstance(device, str):
            raise ValueError(
                f"OneDeviceStrategy takes a device name such as '/gpu:0', got {device!r}"
            )
        super().__init__(StrategyExtended(self)._set_devices((devices.canonical(device),)))


def default_devices() -> tuple[str, ...]:
    """MirroredStrategy's devices when none are given: every GPU, else every logical CPU
    (TF 2.21's choice)."""
    found = devices.list_logical_devices("GPU") or devices.list_logical_devices("CPU")
    return tuple(devices.canonical(d.name) for d in found)


class MirroredStrategy(Strategy):
    """``tf.distribute.MirroredStrategy``: synchronous data parallelism over the devices
    of this process (JAX's local devices where JAX is installed; logical CPUs else)."""

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        names = default_devices() if devices is None else _device_names(devices)
        super().__init__(StrategyExtended(self)._set_devices(names))
        self._extended._collective = _jax_collective(names)


def _device_names(given: Any) -> tuple[str, ...]:
    if isinstance(given, str) or not isinstance(given, list | tuple):
        raise ValueError(f"`devices` must be a list or tuple of device names, got {given!r}")
    if not given:
        raise ValueError("`devices` cannot be empty")
    names = tuple(devices.canonical(d) if isinstance(d, str) else _bad(d) for d in given)
    if len(set(names)) != len(names):
        raise ValueError(f"No duplicates allowed in `devices` argument: {given}")
    return names


def _bad(d: Any) -> str:
    raise ValueError(f"a device in `devices` must be a name such as '/gpu:0', got {d!r}")


def _jax_collective(names: tuple[str, ...]) -> JaxCollective | None:
    """JAX's all-reduce over the replicas' JAX devices, when each has one (and >1)."""
    if len(names) < 2 or importlib.util.find_spec("jax") is None:
        return None
    wanted = [devices.type_index(n) for n in names]
    logical = {d.name for d in devices.list_logical_devices()}
    if any(f"/device:{kind}:{i}" not in logical for kind, i in wanted):
        return None  # soft-placed replicas: the NumPy path, without starting JAX
    found = [devices.jax_device(kind, i) for kind, i in wanted]
    if any(d is None for d in found):
        return None
    return JaxCollective(devices.jax_module(), found, found)


__all__ = ["DistributedValues", "MirroredStrategy", "OneDeviceStrategy", "PerReplica", "Strategy"]
