"""``tf.keras.activations``: Keras 3's activations by name, each the TF ops Keras's TF
backend calls (so their gradients are those ops' gradients)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.api.clip_ops import clip_by_value
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.math.safe_math import expm1
from symgrad.ops.math.safe_math import softsign as _softsign
from symgrad.ops.nn import activations as act
from symgrad.ops.nn import basic as nn
from symgrad.ops.nn.basic import log_sigmoid as _log_sigmoid

__all__ = [
    "celu", "deserialize", "elu", "exponential", "gelu", "get", "hard_sigmoid", "hard_silu",
    "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu",
    "serialize", "sigmoid", "silu", "softmax", "softplus", "softsign", "swish", "tanh",
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
