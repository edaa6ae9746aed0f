"""Plan fusions: two steps run as one kernel where that saves a pass over a large array.

- ``ReluGrad(MaxPoolGrad(x, y, g), x)``, the backward pass of ``max_pool(relu(...))`` in
  every small CNN (the ReLU's output is both the pool's input and the ReluGrad's
  features): the pooling gradient is nonzero only at each window's maximum, where x > 0
  iff that maximum is > 0, so the ReLU's mask is applied to g, a quarter of the size for
  2×2 windows, and the full-size product and its mask are never made.  The kernel is
  MaxPoolGrad's with ``relu=True``; the values are the two ops' exactly (the product is
  ReluGrad's: inf · 0 is nan, -g · 0 is -0.0).

A fusion applies only when the inner result has no other reader and is not fetched.
"""

from __future__ import annotations

import functools
from collections import Counter

from ..op_registry import OPS
from .rewrite import Step

POOL_GRADS = ("MaxPoolGrad", "MaxPool3DGrad")


def fuse(steps: list[Step], keep: set[int]) -> list[Step]:
    """``steps`` with each fusable pair made one step (the inner op's, writing the outer
    op's output slot)."""
    readers = Counter(s for step in steps for s in step.ins)
    producer = {s: step for step in steps for s in step.outs}
    fused: set[int] = set()
    for step in steps:
        if step.op.type != "ReluGrad":
            continue
        inner = producer.get(step.ins[0])
        if (
            inner is not None
            and inner.op.type in POOL_GRADS
            and inner.attrs is None
            and inner.ins[0] == step.ins[1]
            and readers[step.ins[0]] == 1
            and step.ins[0] not in keep
        ):
            inner.fn = functools.partial(OPS[inner.op.type].kernel, relu=True, **inner.op.attrs)
            inner.outs = step.outs
            fused.add(id(step))
    return [step for step in steps if id(step) not in fused] if fused else steps
