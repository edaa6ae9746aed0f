"""What a strategy hands around: ``ReduceOp``, ``PerReplica`` and ``Mirrored`` values.

A ``PerReplica`` holds one value per replica (``strategy.run``'s results, a distributed
dataset's batches); a ``Mirrored`` holds the same value on every replica (an
``all_reduce``'s result, seen from cross-replica code).  Both print as TF's do.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any


class ReduceOp(enum.Enum):
    """``tf.distribute.ReduceOp``: how values from the replicas are combined."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> ReduceOp:
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation}")
        return ReduceOp[name]


def as_reduce_op(reduce_op: Any) -> ReduceOp:
    """``ReduceOp.SUM`` or ``"SUM"`` (TF accepts both) -> ReduceOp; anything else an error."""
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp[reduce_op.upper()]
    raise ValueError(
        f"reduce_op must be tf.distribute.ReduceOp.SUM or .MEAN (or 'SUM'/'MEAN'), "
        f"got {reduce_op!r}"
    )


class DistributedValues(tuple):
    """``tf.distribute.DistributedValues``: one value per replica of a strategy.

    A tuple of the values, so that ``tf.nest`` (and so a traced ``function``'s arguments
    and results) sees the tensors inside, as TF's composite tensors; the strategy's own
    code treats it as one leaf (:func:`map_values`)."""

    _kind = "DistributedValues"

    def __new__(cls, values: Sequence[Any] = ()) -> DistributedValues:
        return super().__new__(cls, tuple(values))

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        rows = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self))
        return f"{self._kind}:{{\n{rows}\n}}"

    __str__ = __repr__


class PerReplica(DistributedValues):
    """Values that differ from replica to replica."""

    _kind = "PerReplica"


class Mirrored(DistributedValues):
    """The same value on each replica."""

    _kind = "Mirrored"


def map_values(fn: Callable[[Any], Any], structure: Any) -> Any:
    """``fn`` on each leaf of a structure, a DistributedValues being one leaf."""
    if isinstance(structure, DistributedValues):
        return fn(structure)
    if isinstance(structure, dict):
        return type(structure)((k, map_values(fn, v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_values(fn, v) for v in structure))
    if isinstance(structure, list | tuple):
        return type(structure)(map_values(fn, v) for v in structure)
    return fn(structure)


def flatten_values(structure: Any) -> list[Any]:
    """The leaves of a structure, a DistributedValues being one leaf."""
    out: list[Any] = []
    map_values(out.append, structure)
    return out


def pack_values(structure: Any, flat: Sequence[Any]) -> Any:
    """``structure`` with its leaves (DistributedValues included) replaced, in order."""
    it = iter(flat)
    return map_values(lambda _: next(it), structure)


def regroup(per_replica: Sequence[Any], wrap: type = PerReplica) -> Any:
    """[structure from replica 0, from replica 1, ...] -> one structure of PerReplica
    leaves (None stays None; one replica's structure comes back as it is)."""
    if len(per_replica) == 1:
        return per_replica[0]
    flats = [flatten_values(s) for s in per_replica]
    leaves = [None if col[0] is None else wrap(col) for col in zip(*flats)]
    return pack_values(per_replica[0], leaves)


def select_replica(index: int, structure: Any) -> Any:
    """Replica ``index``'s part of a structure that may hold DistributedValues."""

    def pick(v: Any) -> Any:
        return v.values[index] if isinstance(v, DistributedValues) else v

    return map_values(pick, structure)


def local_results(value: Any) -> tuple[Any, ...]:
    """``experimental_local_results`` of one value: its per-replica values, or (value,)."""
    return value.values if isinstance(value, DistributedValues) else (value,)
