# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""AlphaDropout and GaussianDropout as Keras 3 computes them on TensorFlow.

Both draw from a ``SeedGenerator(seed)`` through ``keras.random`` (TF's stateless Philox
draws), so a seeded layer's noise is Keras-on-TF's to the bit; at inference (or rate 0)
each is the identity.
"""

from __future__ import annotations

import math
from typing import Any

from symgrad.keras import random as krandom
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.math import elementwise as m

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


def _check_rate(rate: Any) -> None:
    if not 0 <= rate <= 1:
        raise ValueError(
            "Invalid value received for argument `rate`. Expected a float value between 0 "
            f"and 1. Received: rate={rate}"
        )


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalizing mean and variance: dropped values go to
    ``-alpha * scale``, then everything is mapped by ``a * x + b``."""

    def __init__(self, rate: Any, noise_shape: Any = None, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate, self.seed, self.noise_shape = rate, seed, noise_shape
        if rate > 0:
            self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if not (training and self.rate > 0):
            return inputs
        shape: Any = dynamic_shape(inputs)
        if self.noise_shape is not None:
            shape = [shape[i] if n is None else n for i, n in enumerate(self.noise_shape)]
        # keras.random.uniform in floatx, as Keras's ops.random.uniform(noise_shape, seed)
        if any(not isinstance(s, int) for s in shape):
            shape = stack(shape)
        noise = krandom.uniform(shape, seed=self.seed_generator)
        kept = array.cast(m.greater_equal(noise, self.rate), inputs.dtype)
        alpha_p = -_ALPHA * _SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        c = lambda v: array.cast(v, inputs.dtype)  # noqa: E731
        x = m.add(m.multiply(inputs, kept), m.multiply(c(alpha_p), m.subtract(c(1.0), kept)))
        return m.add(m.multiply(c(a), x), c(b))


class GaussianDropout(Layer):
    """Multiply by 1-centred Gaussian noise of stddev ``sqrt(rate / (1 - rate))``."""

    def __init__(self, rate: Any, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate, self.seed = rate, seed
        if rate > 0:
            self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if not (training and self.rate > 0):
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = krandom.normal(
            array.shape(inputs), 1.0, stddev, self.compute_dtype, self.seed_generator
        )
        return m.multiply(inputs, noise)
