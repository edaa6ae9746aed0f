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

- ``MaxPool(Relu(Conv2D(x, w) + b))`` and, in its gradient, ``MaxPoolGrad`` (+ the
  ``ReluGrad``) read only by the ``Conv2DBackpropFilter`` of x (and the bias's ``Sum``):
  two steps (``ops.nn.conv_pool``) in which the conv's output and its gradient are never
  made, for the first layer of a small CNN.  These alone are not bit for bit: the same
  values within float rounding (the bias is summed inside the product, the gradients'
  sums run in another order).

A fusion applies only when the inner result has no other reader and is not fetched.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from symgrad.core.op_registry import OPS
from symgrad.ops.nn import conv_pool
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
    convs = _conv_bias_relu(steps, keep, readers, dropped)
    slots = conv_pool_steps(steps, keep, dropped, convs, relu, slots)
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
) -> dict[int, bool]:
    """Fuses each conv's bias and ReLU; the fused steps' ids, each with whether it has
    the ReLU."""
    fused: dict[int, bool] = {}
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
        fused[id(add)] = relu is not None
    return fused


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


# --- Conv2D (+ bias, + ReLU) and the MaxPool after it, forward and backward -------------

WINDOW_ATTRS = ("strides", "padding", "dilations", "explicit_paddings", "data_format")


def conv_pool_steps(
    steps: list[Step],
    keep: set[int],
    dropped: set[int],
    convs: dict[int, bool],
    relu_grads: set[int],
    slots: int,
) -> int:
    """``Conv2D`` (+ bias, + ReLU) → ``MaxPool``, and in the gradient the pool's
    ``MaxPoolGrad`` (+ ``ReluGrad``) → ``Conv2DBackpropFilter`` (+ the bias's ``Sum`` or
    ``BiasAddGrad``), each made one step (``ops.nn.conv_pool``) where the conv's output
    and its gradient have no other reader; the first takes the MaxPool's place, the
    second the MaxPoolGrad's.  Returns the slot count, with the windows' new slot."""
    live = [s for s in steps if id(s) not in dropped]
    reader: dict[int, list[Step]] = {}
    for step in live:
        for s in set(step.ins):
            reader.setdefault(s, []).append(step)
    for conv in live:
        found = _conv_pool_chain(conv, convs, relu_grads, reader, keep)
        if found is None:
            continue
        pool, grad, filt, bias = found
        relu = convs.get(id(conv), False)
        _fuse_forward(conv, pool, relu, slots)
        _fuse_backward(conv, pool, grad, filt, bias, relu, slots)
        dropped.update(id(s) for s in (conv, filt, bias) if s is not None)
        slots += 1
    return slots


def _conv_pool_chain(
    conv: Step,
    convs: dict[int, bool],
    relu_grads: set[int],
    reader: dict[int, list[Step]],
    keep: set[int],
) -> tuple[Step, Step, Step, Step | None] | None:
    """(MaxPool, MaxPoolGrad, Conv2DBackpropFilter, bias gradient or None) after
    ``conv`` when all of them can run as the two fused steps."""
    if conv.op.type != "Conv2D" or (id(conv) not in convs and (conv.attrs or len(conv.ins) != 2)):
        return None
    y = conv.outs[0]
    users = reader.get(y, [])
    if y in keep or len(users) != 2:
        return None
    pool = next((s for s in users if s.op.type == "MaxPool"), None)
    grad = next((s for s in users if s.op.type == "MaxPoolGrad"), None)
    if pool is None or grad is None or len(pool.outs) != 2 or pool.ins != (y,):
        return None
    if grad.ins != (y, pool.outs[0], grad.ins[2], pool.outs[1]):
        return None  # not the pool's own gradient, with its hits
    if (id(grad) in relu_grads) != convs.get(id(conv), False):
        return None
    dy = grad.outs[0]
    users = reader.get(dy, [])
    filt = next((s for s in users if s.op.type == "Conv2DBackpropFilter"), None)
    bias = next((s for s in users if s is not filt), None)
    if dy in keep or filt is None or len(users) != 1 + (bias is not None):
        return None
    same = all(filt.op.attrs.get(k) == conv.op.attrs.get(k) for k in WINDOW_ATTRS)
    if filt.attrs is not None or filt.ins[0] != conv.ins[0] or filt.ins[2] != dy or not same:
        return None
    if not _filter_sizes_are(filt, conv.op.inputs[1].shape.dims):
        return None
    if bias is not None and (len(conv.ins) != 3 or not _sums_the_bias(bias, dy)):
        return None
    return pool, grad, filt, bias


def _filter_sizes_are(filt: Step, dims: Any) -> bool:
    """Whether the filter gradient's ``filter_sizes`` is a constant, the filter's shape."""
    sizes = filt.op.inputs[1]
    if sizes.op.type != "Const" or dims is None or None in dims:
        return False
    return [int(v) for v in sizes.op.get_attr("value").reshape(-1)] == list(dims)


def _sums_the_bias(step: Step, dy: int) -> bool:
    """Whether ``step`` is the bias's gradient from ``dy`` [N, H, W, C]: a ``Sum`` over
    the first three axes or a channels-last ``BiasAddGrad``, of a static shape."""
    dims = step.op.outputs[0].shape.dims
    if step.attrs is not None or step.ins[0] != dy or dims is None or None in dims:
        return False
    if step.op.type == "BiasAddGrad":
        return step.op.attrs.get("data_format", "NHWC") == "NHWC"
    if step.op.type != "Sum" or step.op.inputs[1].op.type != "Const":
        return False
    axes = step.op.inputs[1].op.get_attr("value").reshape(-1)
    return sorted(int(a) % 4 for a in axes) == [0, 1, 2]


def _fuse_forward(conv: Step, pool: Step, relu: bool, cols: int) -> None:
    """The MaxPool's step runs the conv too, and hands its windows on in slot ``cols``."""
    kernels = (OPS["Conv2D"].kernel, OPS["MaxPool"].kernel)
    pool.fn = functools.partial(_conv_pool, *kernels, conv.op.attrs, pool.op.attrs, relu)
    pool.ins, pool.outs = conv.ins, (*pool.outs, cols)


def _fuse_backward(
    conv: Step, pool: Step, grad: Step, filt: Step, bias: Step | None, relu: bool, cols: int
) -> None:
    """The MaxPoolGrad's step computes the filter's (and bias's) gradient instead."""
    shape = None if bias is None else tuple(bias.op.outputs[0].shape.dims)  # type: ignore[arg-type]
    fns = (grad.fn, filt.fn, None if bias is None else bias.fn)
    grad.fn = functools.partial(_conv_pool_grad, *fns, shape, relu)
    x, g, (y, hits) = conv.ins[0], grad.ins[2], pool.outs[:2]
    grad.ins = (x, filt.ins[1], g, y, hits, cols, *(() if bias is None else bias.ins[1:]))
    grad.outs = (*filt.outs, *(() if bias is None else bias.outs))
    grad.op = filt.op


def _conv_pool(
    conv: Any, pool: Any, conv_attrs: Any, pool_attrs: Any, relu: bool, x: Any, w: Any, b=None
) -> tuple[Any, Any, Any]:
    """The fused forward step: (pooled, hits, windows); where ``conv_pool`` does not
    apply, the ops' own kernels, the conv's output standing for the windows."""
    lay = conv_pool.layout(x, w, conv_attrs, pool_attrs)
    if lay is not None:
        return conv_pool.forward(x, w, b, lay, relu)
    y = conv(x, w, bias=b, relu=relu, **conv_attrs)
    pooled, hits = pool(y, hits=True, **pool_attrs)
    return pooled, hits, y


def _conv_pool_grad(
    grad: Any,
    filt: Any,
    bias: Any,
    shape: Any,
    relu: bool,
    x: Any,
    sizes: Any,
    g: Any,
    pooled: Any,
    hits: Any,
    cols: Any,
    *rest: Any,
) -> Any:
    """The fused gradient step: (the filter's gradient, the bias's if asked)."""
    if isinstance(cols, conv_pool.Windows):
        if cols.finite:
            dw, db = conv_pool.backward(x, g, pooled, hits, cols, relu)
            return dw if bias is None else (dw, db.reshape(shape))
        dy = conv_pool.conv_output_grad(g, pooled, hits, cols, relu)
    else:  # ``cols`` is the conv's output (``_conv_pool``)
        dy = grad(cols, pooled, g, hits)
    dw = filt(x, sizes, dy)
    return dw if bias is None else (dw, bias(dy, *rest))
