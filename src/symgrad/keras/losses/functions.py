"""Keras 3's loss functions (``keras/src/losses/losses.py`` and the TF backend's
crossentropies), line for line on symgrad's ops, so values and gradients are TF's.

Each returns the per-sample loss (the last axis reduced); the ``Loss`` classes reduce it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad.api import math as tm
from symgrad.api import nn as tnn
from symgrad.api.clip_ops import clip_by_value
from symgrad.control_flow.cond import cond
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import (
    epsilon,
    set_mask,
    squeeze_or_expand_to_same_rank,
    to_tensor,
)
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor


def _pair(y_true: Any, y_pred: Any, squeeze: bool = True) -> tuple[Tensor, Tensor]:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    if squeeze:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def _const(value: float, like: Tensor) -> Tensor:
    return convert_to_tensor(np.asarray(value, like.dtype.np))


def mean_squared_error(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    return tm.reduce_mean(tm.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    return tm.reduce_mean(tm.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _const(epsilon(), y_pred)
    diff = tm.abs((y_true - y_pred) / tm.maximum(tm.abs(y_true), eps))
    return 100.0 * tm.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    eps = _const(epsilon(), y_pred)
    first = tm.log(tm.maximum(y_pred, eps) + 1.0)
    second = tm.log(tm.maximum(y_true, eps) + 1.0)
    return tm.reduce_mean(tm.square(first - second), axis=-1)


def l2_normalize(x: Tensor, axis: int = -1) -> Tensor:
    """Keras's ``normalize(x, order=2)``: ``x * min(rsqrt(sum(x**2)), 1/epsilon)``."""
    inv = tm.rsqrt(tm.reduce_sum(tm.square(x), axis=axis, keepdims=True))
    return x * tm.minimum(inv, _const(1.0 / epsilon(), x))


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    return -tm.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    d = to_tensor(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tm.abs(error)
    half = _const(0.5, abs_error)
    quadratic = half * tm.square(error)
    linear = d * abs_error - half * tm.square(d)
    return tm.reduce_mean(array.where(abs_error <= d, quadratic, linear), axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    log2 = _const(float(np.log(np.float32(2.0))), y_pred)  # Keras: ops.log(2.0) in float32
    return tm.reduce_mean(x + tnn.softplus(x * -2.0) - log2, axis=-1)


def kl_divergence(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    y_true = clip_by_value(y_true, epsilon(), 1)
    y_pred = clip_by_value(y_pred, epsilon(), 1)
    return tm.reduce_sum(y_true * tm.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    return tm.reduce_mean(y_pred - y_true * tm.log(y_pred + _const(epsilon(), y_pred)), axis=-1)


def _hinge_labels(y_true: Tensor) -> Tensor:
    """Keras: labels that are all 0/1 become -1/1."""
    binary = tm.reduce_all(tm.logical_or(tm.equal(y_true, 0), tm.equal(y_true, 1)))
    return cond(binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def hinge(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    y_true = _hinge_labels(y_true)
    return tm.reduce_mean(tm.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    y_true = _hinge_labels(y_true)
    return tm.reduce_mean(tm.square(tm.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Tensor:
    y_true, y_pred = _pair(y_true, y_pred, squeeze=False)
    pos = tm.reduce_sum(y_true * y_pred, axis=-1)
    neg = tm.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tm.maximum(neg - pos + 1.0, _const(0.0, y_pred))


# -- crossentropies -----------------------------------------------------------------------


def _logits(output: Tensor, from_logits: bool, op_type: str) -> tuple[Tensor, bool]:
    """Keras's ``_get_logits``: a symbolic output of a Softmax/Sigmoid op is read back as
    its logits (more accurate), as the TF backend does inside a graph."""
    if not from_logits and not output.has_value() and output.op.type == op_type:
        return output.op.inputs[0], True
    return output, from_logits


def _check_same_shape(target: Tensor, output: Tensor) -> None:
    if len(target.shape) != len(output.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    for a, b in zip(target.shape, output.shape, strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape. Received: "
                f"target.shape={target.shape}, output.shape={output.shape}"
            )


def backend_binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool = False
) -> Tensor:
    _check_same_shape(target, output)
    output, from_logits = _logits(output, from_logits, "Sigmoid")
    if from_logits:
        return tnn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    bce = target * tm.log(output)
    bce += (1 - target) * tm.log(1 - output)
    return -bce


def backend_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool = False, axis: int = -1
) -> Tensor:
    if len(target.shape) < 1:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    _check_same_shape(target, output)
    output, from_logits = _logits(output, from_logits, "Softmax")
    if from_logits:
        return tnn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / tm.reduce_sum(output, axis, keepdims=True)
    eps = epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    return -tm.reduce_sum(target * tm.log(output), axis)


def backend_sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool = False, axis: int = -1
) -> Tensor:
    if axis not in (-1, len(output.shape) - 1):
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits(output, from_logits, "Softmax")
    target = array.cast(convert_to_tensor(target), "int64")
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = shape.squeeze(target, [-1])
    if len(output.shape) < 1:
        raise ValueError(
            f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}"
        )
    if len(target.shape) != len(output.shape) - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    if not from_logits:
        eps = epsilon()
        output = tm.log(clip_by_value(output, eps, 1 - eps))
    return tnn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


def binary_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return tm.reduce_mean(backend_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = tm.sigmoid(y_pred)
    bce = backend_binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal = tm.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal
    return tm.reduce_mean(focal, axis=axis)


def _smoothed(y_true: Tensor, y_pred: Tensor, label_smoothing: float) -> Tensor:
    num_classes = array.cast(shape.shape(y_true)[-1], y_pred.dtype)
    return y_true * (1.0 - label_smoothing) + label_smoothing / num_classes


def _check_axis(axis: Any, name: str, y_pred: Tensor) -> None:
    if isinstance(axis, bool):
        raise ValueError(
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )
    if y_pred.shape[-1] == 1:
        warnings.warn(
            f"In loss {name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=3,
        )


def categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    _check_axis(axis, "categorical_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smoothed(y_true, y_pred, label_smoothing)
    return backend_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    _check_axis(axis, "categorical_focal_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smoothed(y_true, y_pred, label_smoothing)
    if from_logits:
        y_pred = tnn.softmax(y_pred, axis=axis)
    output = y_pred / tm.reduce_sum(y_pred, axis=axis, keepdims=True)
    eps = epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    cce = -y_true * tm.log(output)
    focal = tm.pow(1.0 - output, gamma) * alpha * cce
    return tm.reduce_sum(focal, axis=axis)


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    ignore_class: int | None = None,
    axis: int = -1,
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[axis] == 1:
        y_true = shape.squeeze(y_true, [axis])
    valid = None
    if ignore_class is not None:
        valid = tm.not_equal(y_true, array.cast(ignore_class, y_true.dtype))
        y_true = array.where(valid, y_true, array.zeros_like(y_true))
        y_pred = array.where(shape.expand_dims(valid, axis), y_pred, array.zeros_like(y_pred))
    res = backend_sparse_categorical_crossentropy(
        y_true, y_pred, from_logits=from_logits, axis=axis
    )
    if valid is not None:
        valid = shape.reshape(valid, shape.shape(res))
        res = array.where(valid, res, array.zeros_like(res))
        set_mask(res, valid)
    return res
