"""Writing a mirrored variable from a replica, as TF's MirroredVariable does.

A variable made under ``strategy.scope()`` is one symgrad ``Variable`` (see
:mod:`.strategy`), so a write from each replica would apply once per replica.  As in TF,
a write from a replica is combined first, then applied once (through ``merge_call``), by
the variable's ``aggregation``: ``SUM`` / ``MEAN`` all-reduce the written value (the
delta of ``assign_add``/``assign_sub``); ``NONE`` and ``ONLY_FIRST_REPLICA`` apply the
first replica's (TF's ``NONE`` updates each copy with its own replica's value and reads
the first copy).  Variables with ``synchronization=ON_READ`` (Keras metrics) are written
by each replica in turn: one shared variable then holds the sum that TF's read gives.
"""

from __future__ import annotations

from typing import Any

from symgrad.distribute import distribute_lib
from symgrad.distribute.values import DistributedValues
from symgrad.ops.state import variables
from symgrad.ops.state.variable_enums import VariableSynchronization


class ReplicaWrites:
    """The hooks :class:`symgrad.Variable` calls (``variables.replica_hooks``)."""

    @staticmethod
    def created(var: Any) -> None:
        """A variable made in a strategy's scope is that strategy's, and lives on its
        first device unless a ``tf.device`` block says otherwise (TF's placement)."""
        if distribute_lib.local.replica is None and distribute_lib.has_strategy():
            strategy = distribute_lib.get_strategy()
            var._strategy = strategy
            if not var._device:
                var._device = strategy._devices()[0]

    @staticmethod
    def intercepts(var: Any) -> bool:
        replica = distribute_lib.replica_to_sync()
        return (
            replica is not None
            and var._strategy is replica.strategy
            and getattr(var, "_synchronization", None) is not VariableSynchronization.ON_READ
        )

    @staticmethod
    def write(var: Any, value: Any, mode: str, name: Any) -> Any:
        replica = distribute_lib.replica_to_sync()
        assert replica is not None
        aggregation = getattr(getattr(var, "_aggregation", None), "name", "NONE")
        if aggregation in ("SUM", "MEAN"):
            from symgrad.ops.core import convert_to_tensor

            value = replica.all_reduce(aggregation, convert_to_tensor(value, dtype=var.dtype))

        def merge(strategy: Any, v: Any) -> Any:
            first = v.values[0] if isinstance(v, DistributedValues) else v
            return var._write_now(first, mode, name)

        return replica.merge_call(merge, args=(value,))


variables.replica_hooks = ReplicaWrites()
