"""``tf.keras.random``: Keras 3's seeded random numbers, drawn as Keras on TensorFlow draws them.

Keras 3 turns every seed into a stateless TF seed pair: an int ``seed`` is ``[seed, 0]``; a
``SeedGenerator(seed)`` holds the state ``[seed, 0]`` and each draw takes the state and then
adds ``[0, 1]``; no seed uses a global generator that starts at Python's
``random.randint(1, 1e9)`` (not reproducible in TF either) and steps by
``(state + 1) * 5387 % 933199``.  The pair is reduced ``mod (2**31 - 2)`` to int32 and
given to ``tf.random.stateless_*``, which symgrad computes with TF's Philox bits, so a
seeded initializer or dropout mask is TF's to the bit.
"""

from __future__ import annotations

import random as python_random
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras import backend
from symgrad.keras.layers.variables import KerasVariable, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.random.stateless import (
    stateless_random_normal,
    stateless_random_uniform,
    stateless_truncated_normal,
)

_GLOBAL: dict[str, Any] = {"generator": None}
_INT32_MAX = 2**31 - 1

__all__ = ["SeedGenerator", "dropout", "normal", "shuffle", "truncated_normal", "uniform"]


class SeedGenerator:
    """A seed state that each random draw advances (Keras's ``keras.random.SeedGenerator``)."""

    def __init__(self, seed: Any = None, name: Any = None, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self.name = name if name is not None else backend.auto_name(type(self).__name__)
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        # A Keras variable, as Keras's: a layer lists it in ``variables`` (not ``weights``)
        # under the path "<generator name>/seed_generator_state".
        with name_scope(self.name, caller=self):
            self.state = KerasVariable(
                np.array([seed, 0], np.int64), (2,), "int64", False, "seed_generator_state"
            )

    def next(self, ordered: bool = True) -> Any:
        value = m.multiply(self.state, 1)
        if ordered:
            self.state.assign_add(np.array([0, 1], np.int64))
        else:
            self.state.assign(m.floormod(m.multiply(m.add(self.state, 1), 5387), 933199))
        return value

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._initial_seed, "name": self.name}


def make_default_seed() -> int:
    return python_random.randint(1, int(1e9))


def draw_seed(seed: Any) -> Any:
    """The int32 seed pair for one draw (see the module docstring)."""
    if isinstance(seed, SeedGenerator):
        pair = seed.next()
    elif isinstance(seed, int) and not isinstance(seed, bool):
        # Keras 3 reinterprets a uint32 seed's bits as int32 (seed_generator.draw_seed)
        s = ((seed & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
        return convert_to_tensor([s, 0], dtype=dt.int32)
    elif seed is None:
        if _GLOBAL["generator"] is None:
            _GLOBAL["generator"] = SeedGenerator()
        pair = _GLOBAL["generator"].next(ordered=False)
    else:
        raise ValueError(
            "Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
            f"Received: seed={seed} (of type {type(seed)})"
        )
    return array.cast(m.floormod(pair, _INT32_MAX - 1), dt.int32)


def _dtype(dtype: Any) -> Any:
    return dt.as_dtype(dtype or backend.floatx())


def normal(
    shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    return stateless_random_normal(
        shape, draw_seed(seed), mean=mean, stddev=stddev, dtype=_dtype(dtype)
    )


def uniform(
    shape: Any, minval: Any = 0.0, maxval: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    d = _dtype(dtype)
    return stateless_random_uniform(
        shape, draw_seed(seed), minval=array.cast(minval, d), maxval=array.cast(maxval, d), dtype=d
    )


def truncated_normal(
    shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    return stateless_truncated_normal(
        shape, draw_seed(seed), mean=mean, stddev=stddev, dtype=_dtype(dtype)
    )


def dropout(inputs: Any, rate: Any, noise_shape: Any = None, seed: Any = None) -> Any:
    """``tf.nn.experimental.stateless_dropout`` as Keras calls it: keep where a uniform
    draw is ``>= rate``, scale the kept values by ``1 / (1 - rate)``."""
    x = convert_to_tensor(inputs)
    if rate == 1.0:
        return array.zeros_like(x)
    if rate == 0.0:
        return x
    pair = draw_seed(seed)
    shape = array.shape(x)
    if noise_shape is not None:
        shape = stack(
            [shape[i] if n is None else n for i, n in enumerate(noise_shape)]  # type: ignore[index]
        )
    noise = stateless_random_uniform(shape, pair, dtype=x.dtype)
    keep = array.cast(m.greater_equal(noise, rate), x.dtype)
    return m.multiply(m.multiply(x, 1.0 / (1.0 - rate)), keep)


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    from symgrad.ops.array.gather import gather
    from symgrad.ops.array.sorting import argsort

    x = convert_to_tensor(x)
    noise = stateless_random_uniform(array.shape(x)[axis : axis + 1], draw_seed(seed))
    return gather(x, argsort(noise), axis=axis)
