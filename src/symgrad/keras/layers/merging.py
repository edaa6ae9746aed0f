# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Merge layers (Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot):
called on a list of tensors, combined pairwise in order as Keras 3 does."""

from __future__ import annotations

from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat
from symgrad.ops.linalg.contraction import einsum
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn.normalization import l2_normalize
from symgrad.ops.reduction.reduce import reduce_any, reduce_sum


class Merge(Layer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, (list, tuple)) or not isinstance(
            input_shape[0], (list, tuple)
        ):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: input_shape={input_shape} (not a list of shapes)"
            )
        if len(input_shape) < 1:
            raise ValueError(
                "A merge layer should be called on a list of at least 1 input. "
                f"Got {len(input_shape)} inputs."
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self._merge_function(list(inputs))

    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = self._pair(out, x)
        return out

    def _pair(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Keras's merge mask: the OR of the inputs' masks, None unless all have one."""
        if mask is None or any(mk is None for mk in mask):
            return None
        out = mask[0]
        for mk in mask[1:]:
            out = m.logical_or(out, mk)
        return out


class Add(Merge):
    def _pair(self, a: Any, b: Any) -> Any:
        return m.add(a, b)


class Subtract(Merge):
    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        if len(input_shape) != 2:
            shapes = [tuple(s) for s in input_shape]
            raise ValueError(
                f"A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: input_shape={shapes}"
            )

    def _merge_function(self, inputs: list[Any]) -> Any:
        if len(inputs) != 2:
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. "
                f"Received: inputs={inputs}"
            )
        return m.subtract(inputs[0], inputs[1])


class Multiply(Merge):
    def _pair(self, a: Any, b: Any) -> Any:
        return m.multiply(a, b)


class Average(Merge):
    def _merge_function(self, inputs: list[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = m.add(out, x)
        return m.divide(out, len(inputs))


class Maximum(Merge):
    def _pair(self, a: Any, b: Any) -> Any:
        return m.maximum(a, b)


class Minimum(Merge):
    def _pair(self, a: Any, b: Any) -> Any:
        return m.minimum(a, b)


class Concatenate(Merge):
    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def _merge_function(self, inputs: list[Any]) -> Any:
        return concat(inputs, axis=self.axis)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Keras's: each input's mask (all True where it has none, broadcast over the
        features where it is shorter), concatenated along ``axis``, then any() over the
        last axis."""
        if mask is None or all(mk is None for mk in mask):
            return None
        full = []
        for x, mk in zip(inputs, mask):
            if mk is None:
                full.append(array.ones_like(x, dtype=dt.bool_))
            elif mk.shape.rank < x.shape.rank:
                zeros = array.zeros_like(x, dtype=dt.bool_)
                full.append(m.logical_or(array.expand_dims(array.cast(mk, dt.bool_), -1), zeros))
            else:
                full.append(mk)
        return reduce_any(concat(full, axis=self.axis), axis=-1)


class Dot(Merge):
    """Per-sample dot products of two tensors along ``axes`` (2-D and 3-D inputs)."""

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize
        self.supports_masking = False

    def _merge_function(self, inputs: list[Any]) -> Any:
        if len(inputs) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}"
            )
        x1, x2 = inputs
        axes = self.axes if isinstance(self.axes, (list, tuple)) else [self.axes, self.axes]
        axes = [a % x.shape.rank for a, x in zip(axes, (x1, x2))]
        if self.normalize:
            x1, x2 = l2_normalize(x1, axis=axes[0]), l2_normalize(x2, axis=axes[1])
        r1, r2 = x1.shape.rank, x2.shape.rank
        if r1 == 2 and r2 == 2:
            return reduce_sum(m.multiply(x1, x2), axis=1, keepdims=True)
        if r1 == 3 and r2 == 3:
            a = "bmc" if axes[0] == 2 else "bcm"
            b = "bnc" if axes[1] == 2 else "bcn"
            return einsum(f"{a},{b}->bmn", x1, x2)
        raise NotImplementedError("symgrad's Dot supports 2-D or 3-D inputs")


# Keras 3's functional forms: the layer made from ``kwargs`` and called on ``inputs``.
def add(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Add`` layer."""
    return Add(**kwargs)(inputs)


def subtract(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Subtract`` layer."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Multiply`` layer."""
    return Multiply(**kwargs)(inputs)


def average(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Average`` layer."""
    return Average(**kwargs)(inputs)


def maximum(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Maximum`` layer."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Any, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Minimum`` layer."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Any, axis: Any = -1, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Concatenate`` layer."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: Any, axes: Any = -1, **kwargs: Any) -> Any:
    """Functional interface to the ``keras.layers.Dot`` layer."""
    return Dot(axes=axes, **kwargs)(inputs)
