"""``tf.keras.activations``: Keras 3's activations by name, each the TF ops Keras's TF
backend calls (so their gradients are those ops' gradients)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.api.clip_ops import clip_by_value
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import split
from symgrad.ops.array.slicing import getitem
from symgrad.ops.array.sorting import sort
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.math.safe_math import expm1
from symgrad.ops.math.safe_math import softsign as _softsign
from symgrad.ops.nn import activations as act
from symgrad.ops.nn import basic as nn
from symgrad.ops.nn.basic import log_sigmoid as _log_sigmoid
from symgrad.ops.reduction.reduce import cumsum, reduce_sum

__all__ = [
    "celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink",
    "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear",
    "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize", "sigmoid",
    "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink", "threshold",
]  # fmt: skip


def relu(x: Any, negative_slope: Any = 0.0, max_value: Any = None, threshold: Any = 0.0) -> Any:
    x = convert_to_tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return act.leaky_relu(x, alpha=negative_slope)
        negative_part = nn.relu(
            m.add(m.negative(x), threshold) if threshold != 0 else m.negative(x)
        )
    clip_max = max_value is not None
    if threshold != 0:
        x = array.where(m.greater(x, array.cast(threshold, x.dtype)), x, array.zeros_like(x))
    elif max_value == 6:
        x, clip_max = act.relu6(x), False
    else:
        x = nn.relu(x)
    if clip_max:
        x = clip_by_value(x, array.cast(0.0, x.dtype), array.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x = m.subtract(x, m.multiply(negative_slope, negative_part))
    return x


def leaky_relu(x: Any, negative_slope: Any = 0.2) -> Any:
    return act.leaky_relu(x, alpha=negative_slope)


def relu6(x: Any) -> Any:
    return act.relu6(x)


def softmax(x: Any, axis: Any = -1) -> Any:
    return nn.softmax(x, axis=axis)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    return nn.log_softmax(x, axis=axis)


def elu(x: Any, alpha: Any = 1.0) -> Any:
    res = act.elu(x)
    if alpha == 1:
        return res
    return array.where(m.greater(x, 0), res, m.multiply(alpha, res))


def selu(x: Any) -> Any:
    return act.selu(x)


def softplus(x: Any) -> Any:
    return nn.softplus(x)


def silu(x: Any) -> Any:
    return act.silu(x)


swish = silu


def gelu(x: Any, approximate: Any = False) -> Any:
    return act.gelu(x, approximate=approximate)


def celu(x: Any, alpha: Any = 1.0) -> Any:
    x = convert_to_tensor(x)
    neg = m.multiply(alpha, expm1(m.divide(m.minimum(x, 0.0), alpha)))
    return m.add(m.maximum(x, 0.0), neg)


def tanh(x: Any) -> Any:
    return m.tanh(x)


def sigmoid(x: Any) -> Any:
    return m.sigmoid(x)


def exponential(x: Any) -> Any:
    return m.exp(x)


def hard_sigmoid(x: Any) -> Any:
    x = convert_to_tensor(x)
    three, six = array.cast(3.0, x.dtype), array.cast(6.0, x.dtype)
    return m.divide(act.relu6(m.add(x, three)), six)


def hard_silu(x: Any) -> Any:
    return m.multiply(x, hard_sigmoid(x))


def mish(x: Any) -> Any:
    return m.multiply(x, m.tanh(nn.softplus(x)))


def log_sigmoid(x: Any) -> Any:
    return _log_sigmoid(x)


def softsign(x: Any) -> Any:
    return _softsign(x)


def linear(x: Any) -> Any:
    return x


# Keras 3's newer activations, each the TF ops of Keras's TF backend (keras/src/backend/
# tensorflow/nn.py), so their values and gradients are those ops'.
def glu(x: Any, axis: Any = -1) -> Any:
    x = convert_to_tensor(x)
    if x.shape[axis] % 2 != 0:
        shape = tuple(x.shape.as_list())
        raise ValueError(
            f"axis size must be divisible by 2. Received: x.shape={shape} with axis={axis}"
        )
    x1, x2 = split(x, 2, axis=axis)
    return m.multiply(x1, m.sigmoid(x2))


def hard_shrink(x: Any, threshold: Any = 0.5) -> Any:
    x = convert_to_tensor(x)
    big = m.greater(m.abs(x), convert_to_tensor(threshold, dtype=x.dtype))
    return array.where(big, x, array.zeros_like(x))


def hard_tanh(x: Any) -> Any:
    x = convert_to_tensor(x)
    return clip_by_value(x, array.cast(-1.0, x.dtype), array.cast(1.0, x.dtype))


def soft_shrink(x: Any, threshold: Any = 0.5) -> Any:
    x = convert_to_tensor(x)
    t = convert_to_tensor(threshold, dtype=x.dtype)
    inner = array.where(m.less(x, m.negative(t)), m.add(x, t), array.zeros_like(x))
    return array.where(m.greater(x, t), m.subtract(x, t), inner)


def sparse_plus(x: Any) -> Any:
    x = convert_to_tensor(x)
    one = array.cast(1.0, x.dtype)
    square = m.multiply(array.cast(0.25, x.dtype), m.pow(m.add(x, one), array.cast(2, x.dtype)))
    inner = array.where(m.less(x, one), square, x)
    return array.where(m.less_equal(x, m.negative(one)), array.zeros_like(x), inner)


def sparse_sigmoid(x: Any) -> Any:
    x = convert_to_tensor(x)
    one = array.cast(1.0, x.dtype)
    half = m.multiply(array.cast(0.5, x.dtype), m.add(x, one))
    inner = array.where(m.greater_equal(x, one), array.ones_like(x), half)
    return array.where(m.less_equal(x, m.negative(one)), array.zeros_like(x), inner)


def squareplus(x: Any, b: Any = 4) -> Any:
    x = convert_to_tensor(x)
    b = convert_to_tensor(b, dtype=x.dtype)
    y = m.add(x, m.sqrt(m.add(m.square(x), b)))
    return m.divide(y, array.cast(2, x.dtype))


def tanh_shrink(x: Any) -> Any:
    x = convert_to_tensor(x)
    return m.subtract(x, m.tanh(x))


def threshold(x: Any, threshold: Any, default_value: Any) -> Any:
    x = convert_to_tensor(x)
    above = m.greater(x, convert_to_tensor(threshold, dtype=x.dtype))
    return array.where(above, x, convert_to_tensor(default_value, dtype=x.dtype))


def sparsemax(x: Any, axis: Any = -1) -> Any:
    """Keras 3's TF sparsemax, line for line (its threshold included)."""
    logits = convert_to_tensor(x)
    d = logits.dtype
    ordered = sort(logits, axis=axis, direction="DESCENDING")
    running = cumsum(ordered, axis=axis)
    n = getitem(array.shape(logits), axis)
    r = array.range(1, m.add(n, 1), dtype=d)
    r_shape = [1] * int(logits.shape.rank or 0)
    r_shape[axis] = -1
    r = array.reshape(r, r_shape)
    one = array.cast(1.0, d)
    support = m.greater(m.subtract(ordered, m.divide(m.subtract(running, one), r)), 0)
    safe = array.where(support, running, array.zeros_like(running))
    k = reduce_sum(array.cast(support, d), axis=axis, keepdims=True)
    tau = m.divide(m.subtract(reduce_sum(safe, axis=axis, keepdims=True), one), k)
    return m.maximum(m.subtract(logits, tau), array.zeros_like(logits))


hard_swish = hard_silu


_BY_NAME: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        celu,
        elu,
        exponential,
        gelu,
        hard_sigmoid,
        hard_silu,
        leaky_relu,
        linear,
        log_softmax,
        mish,
        relu,
        relu6,
        selu,
        sigmoid,
        silu,
        softmax,
        softplus,
        tanh,
        squareplus,
        soft_shrink,
        sparse_plus,
        glu,
        tanh_shrink,
        threshold,
        sparse_sigmoid,
        hard_tanh,
        hard_shrink,
        sparsemax,
    )
}
_BY_NAME.update({"swish": silu, "hard_swish": hard_silu, "softsign": softsign})
_BY_NAME["log_sigmoid"] = log_sigmoid


def serialize(activation: Any) -> Any:
    from symgrad.keras.object_registration import function_config

    registered = function_config(activation)
    if registered is not None:
        return registered
    for name, f in _BY_NAME.items():
        if f is activation:
            return name
    return str(getattr(activation, "__name__", activation))


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    if isinstance(config, dict):
        from symgrad.keras.object_registration import lookup

        return lookup(config, custom_objects, _BY_NAME)
    return get(config)


def get(identifier: Any) -> Callable[..., Any]:
    """An activation from its name (``"relu"``), a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)  # type: ignore[no-any-return]
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret activation function identifier: {identifier}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier  # type: ignore[no-any-return]
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")
