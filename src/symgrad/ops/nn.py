"""Neural-network ops: Relu, Softmax, LogSoftmax, Softplus, L2Loss and the cross entropies.

The softmax family works on the last axis, as TF's kernels do; the public functions move
another ``axis`` to the end with transposes, and the cross entropies flatten to
``[batch, classes]`` with Reshape ops, exactly where TF's Python wrappers do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..errors import InvalidArgumentError
from ..gradient_registry import RegisterGradient
from ..graph import Tensor, name_scope
from ..op_registry import ShapeError, Spec, apply_op, constant_value, register_op
from ..shapes import TensorShape
from . import array
from .core import FLOATS, REAL, check_dtype, convert_to_tensor, same_dtype
from .math import sigmoid
from .reduction import reduce_sum

_LABELS = (dt.int32, dt.int64)


def _elementwise_infer(op_type: str, allowed: Sequence[dt.DType], min_rank: int = 0) -> Any:
    def infer(inputs: Sequence[Tensor]) -> Spec:
        x = inputs[0]
        check_dtype(op_type, x, allowed, "features" if op_type != "L2Loss" else "t")
        if x.shape.rank is not None and x.shape.rank < min_rank:
            raise ShapeError(f"logits must have >= {min_rank} dimension, got {x.shape}")
        return x.shape, x.dtype
    return infer


def _unary(op_type: str, x: Any, name: str | None) -> Tensor:
    return apply_op(op_type, [convert_to_tensor(x)], name=name)._output(0)


# --------------------------------------------------------------------------------------
# Relu and ReluGrad


def _relu_grad_infer(inputs: Sequence[Tensor]) -> Spec:
    g, f = inputs
    return g.shape.merge_with(f.shape), same_dtype(inputs, ("gradients", "features"))


def _relu_specialize(op: Any, consts: list[Any]) -> Any:
    zero = op._dtypes[0].np.type(0)  # made once per plan, not once per run
    return lambda x: np.maximum(x, zero)


register_op("Relu", _elementwise_infer("Relu", REAL), lambda x: np.maximum(x, x.dtype.type(0)),
            specialize=_relu_specialize)
register_op("ReluGrad", _relu_grad_infer, lambda g, f: g * (f > 0))


def relu(features: Any, name: str | None = None) -> Tensor:
    """max(features, 0) elementwise (op type ``Relu``)."""
    return _unary("Relu", features, name)


@RegisterGradient("Relu")
def _relu_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g where y > 0 else 0; relu'(0) = 0, as TF (a unit at 0 stays off)."""
    return apply_op("ReluGrad", [grad, op.outputs[0]])._output(0)


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d gradients = ReluGrad(g, features); d features = 0 (piecewise constant)."""
    features = op.inputs[1]
    return apply_op("ReluGrad", [grad, features])._output(0), array.zeros_like(features)


# --------------------------------------------------------------------------------------
# Softplus, L2Loss


register_op("Softplus", _elementwise_infer("Softplus", FLOATS),
            lambda x: np.logaddexp(np.zeros_like(x), x))  # log(1 + e^x) without overflow


def softplus(features: Any, name: str | None = None) -> Tensor:
    """log(1 + exp(features)), computed stably (op type ``Softplus``)."""
    return _unary("Softplus", features, name)


@RegisterGradient("Softplus")
def _softplus_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · sigmoid(x)."""
    return grad * sigmoid(op.inputs[0])


register_op("L2Loss", lambda i: (TensorShape([]), _elementwise_infer("L2Loss", FLOATS)(i)[1]),
            lambda x: np.asarray(np.sum(x * x) / 2, x.dtype))


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """sum(t²) / 2 (op type ``L2Loss``)."""
    return _unary("L2Loss", t, name)


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = x · g."""
    return op.inputs[0] * grad


# --------------------------------------------------------------------------------------
# Softmax, LogSoftmax (last axis)


def _softmax_kernel(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, -1, keepdims=True))
    return e / np.sum(e, -1, keepdims=True)  # type: ignore[no-any-return]


def _log_softmax_kernel(x: np.ndarray) -> np.ndarray:
    s = x - np.max(x, -1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), -1, keepdims=True))  # type: ignore[no-any-return]


register_op("Softmax", _elementwise_infer("Softmax", FLOATS, 1), _softmax_kernel)
register_op("LogSoftmax", _elementwise_infer("LogSoftmax", FLOATS, 1), _log_softmax_kernel)


def _on_last_axis(op_type: str, logits: Any, axis: Any, name: str | None) -> Tensor:
    """Apply a last-axis op along ``axis``: swap it with the last axis and back, as TF."""
    x = convert_to_tensor(logits)
    n = x.shape.rank
    ax = -1 if axis is None else int(axis)
    if ax == -1 or n is not None and ax == n - 1:
        return apply_op(op_type, [x], name=name)._output(0)
    if n is None:
        raise ValueError(f"{op_type} along axis {ax} needs a tensor of known rank")
    if not -n <= ax < n:
        raise InvalidArgumentError(
            f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in "
            f"the input. Received: dim={ax}")
    perm = list(range(n))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    y = apply_op(op_type, [array.transpose(x, perm)])._output(0)
    return array.transpose(y, perm, name=name)


def softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """exp(logits) / sum(exp(logits), axis) (op type ``Softmax``; default axis -1)."""
    return _on_last_axis("Softmax", logits, axis, name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """logits - log(sum(exp(logits), axis)) (op type ``LogSoftmax``; default axis -1)."""
    return _on_last_axis("LogSoftmax", logits, axis, name)


@RegisterGradient("Softmax")
def _softmax_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = (g - sum(g · y, -1)) · y."""
    y = op.outputs[0]
    return (grad - reduce_sum(grad * y, -1, keepdims=True)) * y


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g - sum(g, -1) · exp(y)."""
    from .math import exp

    return grad - reduce_sum(grad, -1, keepdims=True) * exp(op.outputs[0])


# --------------------------------------------------------------------------------------
# SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
# Two outputs: loss [batch] and backprop [batch, classes] = softmax(logits) - labels.


def _xent_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    logits, labels = inputs
    d = same_dtype(inputs, ("features", "labels"))
    check_dtype("SoftmaxCrossEntropyWithLogits", logits, FLOATS, "features")
    for t in inputs:
        if t.shape.rank not in (None, 2):
            raise ShapeError("logits and labels must be either 2-dimensional, or broadcasted "
                             f"to be 2-dimensional; got shapes {logits.shape} and {labels.shape}")
    if not logits.shape.is_compatible_with(labels.shape):
        raise ShapeError(f"logits and labels must be broadcastable: logits_size="
                         f"{_tf_list(logits.shape)} labels_size={_tf_list(labels.shape)}")
    s = logits.shape.merge_with(labels.shape)
    return [(TensorShape(None if s.rank is None else [s[0]]), d), (s, d)]


def _xent_kernel(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's formulas: with s = logits - max and e = exp(s),
    loss = sum(labels * (log(sum e) - s)) and backprop = e / sum(e) - labels."""
    s = logits - np.maximum.reduce(logits, -1, keepdims=True)
    e = np.exp(s)
    total = np.add.reduce(e, -1, keepdims=True)
    np.subtract(np.log(total), s, out=s)
    s *= labels
    e /= total
    e -= labels
    return np.add.reduce(s, -1), e


def _tf_list(s: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in s.dims or ()) + "]"


def _sparse_xent_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    logits, labels = inputs
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", logits, FLOATS, "features")
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", labels, _LABELS, "labels")
    if logits.shape.rank not in (None, 2) or labels.shape.rank not in (None, 1):
        raise ShapeError(f"logits must be 2-D and labels 1-D, got shapes {logits.shape} and "
                         f"{labels.shape}")
    batch = TensorShape([None] if logits.shape.rank is None else [logits.shape[0]])
    if not batch.is_compatible_with(labels.shape):
        raise ShapeError(f"logits and labels must have the same first dimension, got logits "
                         f"shape {logits.shape} and labels shape {labels.shape}")
    batch = batch.merge_with(labels.shape)
    c = logits.shape[1] if logits.shape.rank is not None else None
    return [(batch, logits.dtype), (TensorShape([batch[0], c]), logits.dtype)]


def _sparse_xent_kernel(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = logits.shape[-1]
    bad = (labels < 0) | (labels >= n)
    if np.any(bad):
        raise InvalidArgumentError(
            f"Received a label value of {labels[bad][0]} which is outside the valid range of "
            f"[0, {n}).  Label values: {' '.join(str(v) for v in labels.ravel())}")
    rows = np.arange(len(labels))
    s = logits - np.max(logits, -1, keepdims=True)
    lse = np.log(np.sum(np.exp(s), -1))
    backprop = np.exp(s - lse[:, None])
    backprop[rows, labels] -= 1
    return lse - s[rows, labels], backprop


register_op("SoftmaxCrossEntropyWithLogits", _xent_infer, _xent_kernel)
register_op("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_infer, _sparse_xent_kernel)


def _is_zeros(t: Tensor) -> bool:
    if t.op.type == "ZerosLike":
        return True
    v = constant_value(t)
    return v is not None and not np.any(v)


def _xent_logits_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> Tensor:
    """g_loss · backprop, plus (g_bp - sum(g_bp · p, -1)) · p when backprop is used (p=softmax)."""
    grad = array.expand_dims(grad_loss, -1) * op.outputs[1]
    if not _is_zeros(grad_backprop):
        p = softmax(op.inputs[0])
        grad = grad + (grad_backprop - reduce_sum(grad_backprop * p, -1, keepdims=True)) * p
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _xent_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> tuple[Tensor, Tensor]:
    """d logits = g·(softmax - labels) (+ second-order term); d labels = g·(-log_softmax)."""
    d_labels = array.expand_dims(grad_loss, -1) * -log_softmax(op.inputs[0])
    return _xent_logits_grad(op, grad_loss, grad_backprop), d_labels


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> tuple[Tensor, None]:
    """d logits = g·(softmax - one_hot(labels)) (+ second-order term); labels: None."""
    return _xent_logits_grad(op, grad_loss, grad_backprop), None


def _outer_shape(x: Tensor) -> list[int] | Tensor:
    """x's shape without its last axis (static if known, else a Slice of Shape, as TF)."""
    dims = x.shape.dims
    if dims is not None and all(d is not None for d in dims[:-1]):
        return [int(d) for d in dims[:-1]]  # type: ignore[arg-type]
    from .slicing import slice as slice_

    return slice_(array.shape(x), [0], array.reshape(array.rank(x) - 1, [1]))


def _flat_shape(x: Tensor) -> Any:
    """[-1, classes]: the shape that flattens x's outer axes."""
    dims = x.shape.dims
    if dims is not None and dims[-1] is not None:
        return [-1, int(dims[-1])]
    from .slicing import slice as slice_

    c = slice_(array.shape(x), array.reshape(array.rank(x) - 1, [1]), [1])
    return c * np.array([0, 1], np.int32) + np.array([-1, 0], np.int32)


def _precise(logits: Tensor) -> Tensor:
    return array.cast(logits, dt.float32) if logits.dtype is dt.float16 else logits


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1,
                                      name: str | None = None) -> Tensor:
    """-sum(labels · log_softmax(logits), axis); one loss per row (other axes kept)."""
    with name_scope(name, "softmax_cross_entropy_with_logits"):
        x = convert_to_tensor(logits)
        y = convert_to_tensor(labels)
        px = _precise(x)
        y = array.cast(y, px.dtype) if y.dtype is not px.dtype else y
        n = px.shape.rank
        if n == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={x}")
        if axis != -1 and n is None:
            raise ValueError(f"softmax_cross_entropy_with_logits along axis {axis} needs logits "
                             "of known rank")
        if n is not None and axis not in (-1, n - 1):
            ax = axis % n
            perm = [i for i in range(n) if i != ax] + [ax]
            px, y = array.transpose(px, perm), array.transpose(y, perm)
        if not px.shape.is_compatible_with(y.shape):
            raise ValueError(f"logits and labels must be broadcastable: logits_size="
                             f"{_tf_list(px.shape)} labels_size={_tf_list(y.shape)}")
        if px.shape.rank == 2 and y.shape.rank == 2:  # already [batch, classes]
            cost = apply_op("SoftmaxCrossEntropyWithLogits", [px, y])._output(0)
        else:
            out_shape = _outer_shape(px)
            cost = apply_op("SoftmaxCrossEntropyWithLogits", [
                array.reshape(px, _flat_shape(px)), array.reshape(y, _flat_shape(px))])._output(0)
            cost = array.reshape(cost, out_shape)
        return array.cast(cost, x.dtype) if px is not x and x.dtype is dt.float16 else cost


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any,
                                             name: str | None = None) -> Tensor:
    """-log_softmax(logits)[labels] per row; ``labels`` are int class indices."""
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits"):
        y = convert_to_tensor(labels)
        x = convert_to_tensor(logits)
        px = _precise(x)
        rx, ry = x.shape.rank, y.shape.rank
        if rx == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={x}`")
        if rx is not None and ry is not None and ry != rx - 1:
            raise ValueError(
                "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                f"labels.shape={y.shape} of rank {ry} and logits.shape={x.shape} of rank {rx}")
        if x.shape.is_fully_defined() and y.shape.is_fully_defined() and \
                y.shape.dims != x.shape.dims[:-1]:  # type: ignore[index]
            raise ValueError("`labels.shape` must equal `logits.shape` except for the last "
                             f"dimension. Received: labels.shape={y.shape} and "
                             f"logits.shape={x.shape}")
        if rx == 2:
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", [px, y], name=name)._output(0)
        else:
            flat = [array.reshape(px, _flat_shape(px)), array.reshape(y, [-1])]
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", flat, name=name)._output(0)
            cost = array.reshape(cost, y.shape.as_list() if y.shape.is_fully_defined()
                                 else array.shape(y))
        return array.cast(cost, x.dtype) if px is not x else cost
