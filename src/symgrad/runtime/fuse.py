"""Plan fusions: two steps run as one kernel where that saves a pass over a large array.

- ``ReluGrad(MaxPoolGrad(x, y, g), x)``, the backward pass of ``max_pool(relu(...))`` in
  every small CNN (the ReLU's output is both the pool's input and the ReluGrad's
  features): the pooling gradient is nonzero only at each window's maximum, where x > 0
  iff that maximum is > 0, so the ReLU's mask is applied to g, a quarter of the size for
  2×2 windows, and the full-size product and its mask are never made.  The kernel is
  MaxPoolGrad's with ``relu=True``; the values are the two ops' exactly (the product is
  ReluGrad's: inf · 0 is nan, -g · 0 is -0.0).

- ``Relu(BiasAdd(Conv2D(x, w), b))`` (or ``AddV2`` with a bias of shape [C] or
  [1, ..., 1, C], as Keras adds it; the Relu optional), channels-last, TF's own
  ``_FusedConv2D`` pattern: the bias and the ReLU are applied to each block of the
  convolution's output right after its matmul, while it is in cache, instead of in two
  more passes over the whole output.  The same additions and maxima, so the same values.

- ``MaxPool(x)`` and its ``MaxPoolGrad(x, y, g)``: the forward step also returns where
  each window's first maximum is (as TF's ``MaxPoolWithArgmax``), in a new slot that the
  gradient step reads instead of finding them again from x.  The hits are those the
  gradient would find (the same x, the same rule), so the values are the same.

A fusion applies only when the inner result has no other reader and is not fetched.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from symgrad.core.op_registry import OPS
from symgrad.runtime.rewrite import Step

POOL_GRADS = {"MaxPoolGrad": "MaxPool", "MaxPool3DGrad": "MaxPool3D"}
CONVS = {"Conv2D": "NHWC", "Conv3D": "NDHWC"}


def fuse(steps: list[Step], keep: set[int], slots: int) -> tuple[list[Step], int]:
    """``steps`` with each fusable chain made one step; and the number of slots, counting
    the new ones (the pool's hits) from ``slots``."""
    readers = Counter(s for step in steps for s in step.ins)
    producer = {s: step for step in steps for s in step.outs}
    dropped: set[int] = set()
    relu = _pool_relu_grads(steps, keep, readers, producer, dropped)
    slots = _pool_hits(steps, producer, relu, slots)
    _conv_bias_relu(steps, keep, readers, dropped)
    return [step for step in steps if id(step) not in dropped] if dropped else steps, slots


def _pool_hits(steps: list[Step], producer: dict[int, Step], relu: set[int], slots: int) -> int:
    """Pairs each MaxPoolGrad with its MaxPool (one gradient per pool: the gradient uses
    the hits up); every MaxPoolGrad gets its kernel, with ``relu`` where fused."""
    grads: dict[int, tuple[Step, list[Step]]] = {}
    for step in steps:
        forward = producer.get(step.ins[1]) if step.op.type in POOL_GRADS else None
        if (
            forward is not None
            and forward.op.type == POOL_GRADS[step.op.type]
            and forward.attrs is None
            and forward.ins[0] == step.ins[0]
            and forward.op.attrs == step.op.attrs
        ):
            grads.setdefault(id(forward), (forward, []))[1].append(step)
    pairs = {id(gs[0]): f for f, gs in grads.values() if len(gs) == 1}
    for step in steps:
        if step.op.type not in POOL_GRADS or step.attrs is not None:
            continue
        kernel, attrs = OPS[step.op.type].kernel, step.op.attrs
        step.fn = functools.partial(kernel, relu=id(step) in relu, **attrs)
        forward = pairs.get(id(step))
        if forward is not None:
            forward.fn = functools.partial(OPS[forward.op.type].kernel, hits=True, **attrs)
            forward.outs, step.ins = (*forward.outs, slots), (*step.ins, slots)
            slots += 1
    return slots


def _single_reader(
    slot: int, steps: dict[int, Step], readers: Counter[int], keep: set[int]
) -> Step | None:
    """The step that alone reads ``slot`` (once), if it is not fetched."""
    return steps.get(slot) if readers[slot] == 1 and slot not in keep else None


def _conv_bias_relu(
    steps: list[Step], keep: set[int], readers: Counter[int], dropped: set[int]
) -> None:
    reader = {s: step for step in steps for s in step.ins}
    for conv in steps:
        fmt = CONVS.get(conv.op.type)
        if fmt is None or conv.attrs is not None or conv.op.attrs.get("data_format", fmt) != fmt:
            continue
        add = _single_reader(conv.outs[0], reader, readers, keep)
        bias = _bias_slot(add, conv) if add is not None else None
        if add is None or bias is None:
            continue
        relu = _single_reader(add.outs[0], reader, readers, keep)
        relu = relu if relu is not None and relu.op.type == "Relu" else None
        kernel = OPS[conv.op.type].kernel
        add.fn = functools.partial(_conv_then, kernel, relu is not None, conv.op.attrs)
        add.op, add.ins = conv.op, (*conv.ins, bias)
        if relu is not None:
            add.outs = relu.outs
            dropped.add(id(relu))
        dropped.add(id(conv))


def _bias_slot(add: Step, conv: Step) -> int | None:
    """The slot of the bias that ``add`` adds to the conv's output, if it is one."""
    t = add.op.type
    if t == "BiasAdd" and add.attrs is None and add.op.attrs.get("data_format") != "NCHW":
        other = 1
    elif t == "AddV2" and add.ins[0] != add.ins[1]:
        other = 1 if add.ins[0] == conv.outs[0] else 0
    else:
        return None
    b, y = add.op.inputs[other], conv.op.outputs[0]
    dims, c = b.shape.dims, y.shape.dims[-1] if y.shape.dims else None
    if b.dtype != y.dtype or dims is None or c is None or add.op.outputs[0].shape != y.shape:
        return None
    return add.ins[other] if list(dims)[-1:] == [c] and all(d == 1 for d in dims[:-1]) else None


def _conv_then(kernel: Any, relu: bool, attrs: dict[str, Any], x: Any, w: Any, b: Any) -> Any:
    return kernel(x, w, bias=b, relu=relu, **attrs)


def _pool_relu_grads(
    steps: list[Step],
    keep: set[int],
    readers: Counter[int],
    producer: dict[int, Step],
    dropped: set[int],
) -> set[int]:
    """The MaxPoolGrad steps that take over the ReluGrad after them (by id)."""
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
            inner.outs = step.outs
            fused.add(id(inner))
            dropped.add(id(step))
    return fused
