"""The strategy in force, replica contexts, and the ``Strategy`` base class.

Three contexts, as in TF: outside any ``strategy.scope()`` the *default* strategy (one
replica, the caller's device) is in force, with its default replica context; inside a
scope the caller's thread is in *cross-replica* context (``get_replica_context()`` is
None); inside ``strategy.run(fn)``, ``fn`` runs in a *replica* context, one per replica
(:mod:`.mirrored_run`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from symgrad.core import nest
from symgrad.distribute import reduce as reduce_lib
from symgrad.distribute.values import DistributedValues, as_reduce_op, local_results, map_values


class _Local(threading.local):
    def __init__(self) -> None:
        self.scopes: list[Any] = []  # strategies whose scope() this thread is in
        self.replica: ReplicaContext | None = None  # set on a replica's thread
        self.spmd = False  # tracing one replica's step for all (``sharded``)


local = _Local()


@contextlib.contextmanager
def cross_replica(strategy: Any) -> Iterator[None]:
    """The caller's thread in ``strategy``'s cross-replica context (a merge runs there)."""
    local.scopes.append(strategy)
    try:
        yield
    finally:
        local.scopes.pop()


def get_strategy() -> Any:
    """``tf.distribute.get_strategy``: the strategy in force (the default one outside)."""
    if local.replica is not None:
        return local.replica.strategy
    return local.scopes[-1] if local.scopes else default_strategy()


def has_strategy() -> bool:
    """``tf.distribute.has_strategy``: whether a strategy other than the default is in force."""
    return get_strategy() is not default_strategy()


def in_cross_replica_context() -> bool:
    """``tf.distribute.in_cross_replica_context``: inside a scope, outside ``run``."""
    return local.replica is None and bool(local.scopes)


def get_replica_context() -> ReplicaContext | None:
    """``tf.distribute.get_replica_context``: this replica's context; None in cross-replica
    context; the default strategy's replica context outside any scope."""
    if local.replica is not None:
        return local.replica
    if local.scopes:
        return None
    return default_strategy()._default_replica


def experimental_set_strategy(strategy: Any) -> None:
    """``tf.distribute.experimental_set_strategy``: enter ``strategy``'s scope for good
    (None leaves the one entered this way)."""
    while local.scopes and getattr(local.scopes[-1], "_set_globally", False):
        local.scopes.pop()._set_globally = False
    if strategy is not None:
        strategy._set_globally = True
        local.scopes.append(strategy)


class ReplicaContext:
    """``tf.distribute.ReplicaContext``: what code running on one replica can ask for."""

    def __init__(self, strategy: Any, replica_id_in_sync_group: Any) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group
        self._thread: Any = None  # the replica's thread (mirrored_run), None: default

    @property
    def strategy(self) -> Any:
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync  # type: ignore[no-any-return]

    @property
    def replica_id_in_sync_group(self) -> Any:
        from symgrad.ops.core import constant

        offset = self._strategy.extended._replica_offset
        return constant(self._replica_id + offset, name="replica_id_in_sync_group")

    @property
    def devices(self) -> tuple[str, ...]:
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def merge_call(self, merge_fn: Callable[..., Any], args: Any = (), kwargs: Any = None) -> Any:
        """Run ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, on
        every replica's arguments (PerReplica); each replica gets its part of the result."""
        if self._thread is None:
            with cross_replica(self._strategy):
                return merge_fn(self._strategy, *args, **(kwargs or {}))
        return self._thread.merge_call(merge_fn, args, kwargs)

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """``value`` (a structure of tensors) combined over all replicas, on each.  Its
        gradient is the all-reduce (the same op) of the replicas' gradients, as TF's."""
        from symgrad.autodiff.custom_gradient import custom_gradient
        from symgrad.ops.core import convert_to_tensor

        op = as_reduce_op(reduce_op)
        flat = [convert_to_tensor(v) for v in nest.flatten(value)]

        def merge(strategy: Any, v: Any) -> Any:
            return [strategy.extended._all_reduce(op, pr) for pr in v]

        @custom_gradient
        def reduce(*xs: Any) -> Any:
            def grad(*dys: Any) -> Any:
                return self.all_reduce(op, list(dys))

            return _on_my_device(self, self.merge_call(merge, args=(list(xs),))), grad

        reduced = reduce(*flat) if flat else []
        reduced = reduced if isinstance(reduced, list | tuple) else [reduced]
        return nest.pack_sequence_as(value, list(reduced))

    def all_gather(self, value: Any, axis: Any, options: Any = None) -> Any:
        """Every replica's ``value`` concatenated along ``axis``, on each replica."""

        def merge(strategy: Any, v: Any) -> Any:
            return map_values(lambda pr: strategy.extended._gather(pr, axis), v)

        return _on_my_device(self, self.merge_call(merge, args=(value,)))


def _on_my_device(ctx: ReplicaContext, structure: Any) -> Any:
    from symgrad.core.devices import device
    from symgrad.ops.core import identity

    with device(ctx.devices[0]):
        return nest.map_structure(lambda t: None if t is None else identity(t), structure)


class InputContext:
    """``tf.distribute.InputContext``: what ``distribute_datasets_from_function``'s
    function is told about the input pipeline it builds."""

    def __init__(
        self,
        num_input_pipelines: int = 1,
        input_pipeline_id: int = 0,
        num_replicas_in_sync: int = 1,
    ) -> None:
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self.num_replicas_in_sync != 0:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                f"`num_replicas_in_sync` {self.num_replicas_in_sync!r} "
            )
        return global_batch_size // self.num_replicas_in_sync

    def __str__(self) -> str:
        return (
            f"tf.distribute.InputContext(input pipeline id {self.input_pipeline_id}, "
            f"total: {self.num_input_pipelines})"
        )


_DEFAULT: list[Any] = []


def default_strategy() -> Any:
    """The default strategy (made at first use, the strategy module being above this)."""
    if not _DEFAULT:
        from symgrad.distribute.strategy import DefaultStrategy

        _DEFAULT.append(DefaultStrategy())
    return _DEFAULT[0]


def reduce_values(strategy: Any, reduce_op: Any, value: Any, axis: Any) -> Any:
    """``strategy.reduce``: each leaf over the replicas (and along ``axis`` first)."""
    op = as_reduce_op(reduce_op)
    local = len(strategy._devices())  # one local replica: a plain value is its value

    def one(v: Any) -> Any:
        parts = local_results(v)
        if not isinstance(v, DistributedValues) and local > 1 and axis is None:
            if op.name == "MEAN":
                return v
            raise ValueError(
                f"A non-DistributedValues value {v} cannot be reduced with the given "
                f"reduce op {op}."
            )
        return reduce_lib.reduce_parts(strategy, op, parts, axis)

    return map_values(one, value)


def replica_to_sync() -> ReplicaContext | None:
    """This thread's replica context when its strategy has several replicas (whose
    updates must then be combined), else None."""
    replica = local.replica
    return replica if replica is not None and replica.num_replicas_in_sync > 1 else None
