"""A Keras model's step under a strategy, as Keras 3's TF backend runs it.

``fit``/``evaluate`` under ``strategy.scope()`` (the strategy in force at ``compile``)
split each global batch over the replicas (TF's rebatching: ``ceil(size / replicas)``
rows each), run the step once per replica with ``strategy.run``, and report the metrics
as the last replica reads them: the metrics' variables are shared (one per model, see
:mod:`.strategy`), so by then they hold every replica's updates, as TF's sync-on-read
metrics sum them.  The loss a replica differentiates is its loss divided by the number
of replicas (Keras's ``scale_loss_for_distribution``), so the summed gradients are the
global batch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.core import nest
from symgrad.distribute.distribute_lib import get_strategy, has_strategy, replica_to_sync
from symgrad.distribute.values import PerReplica, select_replica


def strategy_for_model() -> Any:
    """The strategy a model compiled now runs under (None: the default one)."""
    return get_strategy() if has_strategy() else None


def scale_loss(loss: Any) -> Any:
    """``loss / replicas`` on a replica of a multi-replica strategy; else ``loss``."""
    replica = replica_to_sync()
    if replica is None:
        return loss
    from symgrad.ops.array.structure import cast
    from symgrad.ops.math.elementwise import divide

    return divide(loss, cast(replica.num_replicas_in_sync, loss.dtype))


def _slices(t: Any, n: int) -> list[Any]:
    """TF's rebatching of one batch tensor: replica r gets rows [r·per, (r+1)·per)."""
    from symgrad.ops.array.structure import shape
    from symgrad.ops.core import convert_to_tensor
    from symgrad.ops.math.elementwise import minimum

    t = convert_to_tensor(t)
    size = t.shape.dims[0] if t.shape.rank else None
    if size is not None:  # static bounds keep the parts' static shapes
        per = -(-size // n)
        return [t[min(r * per, size) : min((r + 1) * per, size)] for r in range(n)]
    rows = shape(t)[0]
    per = (rows + n - 1) // n
    return [t[minimum(r * per, rows) : minimum((r + 1) * per, rows)] for r in range(n)]


def split_batch(strategy: Any, data: Any) -> Any:
    """A global batch (tensors, eager or traced) -> PerReplica parts, one per replica."""
    n = len(strategy._devices())
    flat = [None if leaf is None else _slices(leaf, n) for leaf in nest.flatten(data)]
    leaves = [None if parts is None else PerReplica(parts) for parts in flat]
    return nest.pack_sequence_as(data, leaves)


def distributed_step(strategy: Any, step: Callable[..., Any]) -> Callable[..., Any]:
    """``step(data)`` run over the replicas; the last replica's logs returned."""

    def run(data: Any) -> Any:
        out = strategy.run(step, args=(split_batch(strategy, data),))
        return select_replica(len(strategy._devices()) - 1, out)

    return run
