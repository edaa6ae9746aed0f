"""Run a sub-graph for K values of one tensor at once: a small ``pfor`` / ``vmap``.

``vectorize(seed, batched_seed, outputs)`` takes ops already built on a symbolic
``seed`` and rebuilds the ones that depend on it so they compute, in one go, what they
would compute for each of the K slices of ``batched_seed`` (shape ``[K] + seed.shape``).
Ops that do not depend on the seed are loop-invariant and are reused as they are.  Each
dependent op is rebuilt by the **batching rule** in its op record (``OPDEF.batch``, see
``symgrad.core.batching``): the rule gets the op's inputs, batched ones with an extra leading
axis of size K, and returns batched outputs built with ordinary ops, so the result can be
differentiated again.

An op type with no rule, a rule that declines (say, an axis that is not a constant) or a
rule whose output has the wrong static shape raises ``NotVectorizable`` naming the op;
callers then fall back to a loop.  Shapes must be statically known where a rule needs them.
"""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.autodiff.backprop import Key, key
from symgrad.core.batching import Call, NotVectorizable, known_dims
from symgrad.core.graph import Operation, Tensor, walk_ops
from symgrad.core.op_registry import OPS
from symgrad.ops.array import structure as array

# --------------------------------------------------------------------------------------
# The transform


def vectorize(
    seed: Tensor | Sequence[Tensor],
    batched_seed: Tensor | Sequence[Tensor],
    outputs: Sequence[Tensor | None],
) -> list[Tensor | None]:
    """``outputs`` recomputed for each of the K slices of ``batched_seed`` (``[K] + ...``);
    with lists of seeds, slice k of every batched seed stands for its seed together.

    Raises ``NotVectorizable`` when some op in between cannot be batched.
    """
    seeds = [seed] if isinstance(seed, Tensor) else list(seed)
    batched_seeds = [batched_seed] if isinstance(batched_seed, Tensor) else list(batched_seed)
    k = known_dims(seeds[0].op, batched_seeds[0], "the batched seed")[0]
    new: dict[Key, Tensor] = {key(s): b for s, b in zip(seeds, batched_seeds, strict=True)}
    for op in _dependent_ops(seeds, [o for o in outputs if o is not None]):
        rule = OPS[op.type].batch_rule if op.type in OPS else None
        if rule is None:
            raise NotVectorizable(op, "no batching rule")
        call = Call(
            op, [new.get(key(t), t) for t in op.inputs], [key(t) in new for t in op.inputs], k
        )
        try:
            batched = rule(call)
        except (ValueError, TypeError) as e:  # a case the rule did not foresee: use the loop
            raise NotVectorizable(op, f"its batching rule failed ({e})") from e
        if len(batched) != op.num_outputs:
            raise NotVectorizable(op, f"its batching rule gave {len(batched)} outputs")
        for t, b in zip(op.outputs, batched, strict=True):
            _check_shape(op, t, b, k)
            new[key(t)] = b
    return [None if o is None else new[key(o)] if key(o) in new else _tile(o, k) for o in outputs]


def _check_shape(op: Operation, t: Tensor, b: Tensor, k: int) -> None:
    if t.shape.dims is None or b.shape.dims is None:
        return
    want: list[int | None] = [k, *t.shape.dims]
    # A dimension the original left unknown may be known in the batched run (an eager
    # op's static shape is its value's), so compatible is enough.
    if len(b.shape.dims) != len(want) or any(
        w is not None and d != w for d, w in zip(b.shape.dims, want, strict=True)
    ):
        raise NotVectorizable(op, f"the batching rule gave shape {b.shape}, expected {want}")


def _tile(t: Tensor, k: int) -> Tensor:
    """An output that does not depend on the seed: the same value for every slice."""
    return array.broadcast_to(t, [k] + known_dims(t.op, t, "a gradient"))


def _dependent_ops(seeds: Sequence[Tensor], outputs: Sequence[Tensor]) -> list[Operation]:
    """The ops between ``seeds`` and ``outputs``, in topological order (no recursion)."""
    order = walk_ops([o.op for o in outputs])
    dependent = {id(s.op) for s in seeds}
    result = []
    for op in order:
        if id(op) not in dependent and any(id(t.op) in dependent for t in op.inputs):
            dependent.add(id(op))
            result.append(op)
    return result
