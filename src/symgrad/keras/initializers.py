"""``tf.keras.initializers``: Keras 3's initializers, drawn as Keras on TensorFlow draws them.

A seeded initializer draws with ``tf.random.stateless_*`` from the seed pair that
:mod:`symgrad.keras.random` makes, so ``GlorotUniform(seed=3)`` gives TF's exact values.
Called twice with the same int seed it gives the same values (as in Keras 3).
"""

from __future__ import annotations

import math
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras import backend
from symgrad.keras import random as krandom
from symgrad.ops.array import structure as array
from symgrad.ops.linalg.decomp import qr
from symgrad.ops.linalg.diag import diag_part, eye
from symgrad.ops.math import elementwise as m

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "deserialize",
    "get",
    "serialize",
]


def _d(dtype: Any) -> Any:
    return dt.as_dtype(backend.standardize_dtype(dtype))


class Initializer:
    """Base class: ``initializer(shape, dtype=None)`` returns a tensor."""

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        raise NotImplementedError(f"Initializer {type(self).__name__} does not implement __call__")

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)

    def clone(self) -> Any:
        return type(self).from_config(self.get_config())


class Constant(Initializer):
    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        d = _d(dtype)
        return m.multiply(array.cast(self.value, d), array.ones(shape, dtype=d))

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}


class Zeros(Initializer):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return array.zeros(shape, dtype=_d(dtype))


class Ones(Initializer):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return array.ones(shape, dtype=_d(dtype))


class Identity(Initializer):
    def __init__(self, gain: Any = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        if len(shape) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        return m.multiply(self.gain, eye(shape[0], shape[1], dtype=_d(dtype)))

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain}


class RandomInitializer(Initializer):
    def __init__(self, seed: Any = None) -> None:
        self._init_seed = seed
        if seed is None:
            seed = krandom.make_default_seed()
        elif not isinstance(seed, (int, krandom.SeedGenerator)):
            raise ValueError(
                "`seed` argument should be an instance of `keras.random.SeedGenerator()` "
                f"or an integer. Received: seed={seed}"
            )
        self.seed = seed

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._init_seed}


class RandomNormal(RandomInitializer):
    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: Any = None) -> None:
        self.mean, self.stddev = mean, stddev
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return krandom.normal(shape, self.mean, self.stddev, _d(dtype), self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return krandom.truncated_normal(shape, self.mean, self.stddev, _d(dtype), self.seed)


class RandomUniform(RandomInitializer):
    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05, seed: Any = None) -> None:
        self.minval, self.maxval = minval, maxval
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return krandom.uniform(shape, self.minval, self.maxval, _d(dtype), self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


def compute_fans(shape: Any, input_axes: Any = None, output_axes: Any = None) -> tuple[int, int]:
    """Keras's fans: a kernel ``(..., in, out)`` has ``in``/``out`` times the window size."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return int(math.prod(shape[a] for a in input_axes)), int(
            math.prod(shape[a] for a in output_axes)
        )
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    field = math.prod(shape[:-2])
    return int(shape[-2] * field), int(shape[-1] * field)


class VarianceScaling(RandomInitializer):
    def __init__(
        self,
        scale: Any = 1.0,
        mode: Any = "fan_in",
        distribution: Any = "truncated_normal",
        seed: Any = None,
        input_axes: Any = None,
        output_axes: Any = None,
    ) -> None:
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(
                f"Invalid `mode` argument: {mode}. Please use one of "
                "{'fan_in', 'fan_out', 'fan_avg'}"
            )
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in {"uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                f"Invalid `distribution` argument: {distribution}.Please use one of "
                "{'uniform', 'truncated_normal', 'untruncated_normal'}"
            )
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, fan[self.mode])
        d = _d(dtype)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / 0.87962566103423978
            return krandom.truncated_normal(shape, 0.0, stddev, d, self.seed)
        if self.distribution == "untruncated_normal":
            return krandom.normal(shape, 0.0, math.sqrt(scale), d, self.seed)
        limit = math.sqrt(3.0 * scale)
        return krandom.uniform(shape, -limit, limit, d, self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }


def _scaling(cls_name: str, scale: float, mode: str, distribution: str) -> type:
    def __init__(
        self: Any, seed: Any = None, input_axes: Any = None, output_axes: Any = None
    ) -> None:
        VarianceScaling.__init__(
            self, scale, mode, distribution, seed, input_axes=input_axes, output_axes=output_axes
        )

    def get_config(self: Any) -> dict[str, Any]:
        return {
            "seed": self._init_seed,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }

    return type(cls_name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config})


GlorotUniform = _scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
LecunNormal = _scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")
LecunUniform = _scaling("LecunUniform", 1.0, "fan_in", "uniform")
HeNormal = _scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
HeUniform = _scaling("HeUniform", 2.0, "fan_in", "uniform")


class Orthogonal(RandomInitializer):
    def __init__(self, gain: Any = 1.0, seed: Any = None) -> None:
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. Received: "
                f"shape={shape} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = krandom.normal((max(cols, rows), min(cols, rows)), seed=self.seed, dtype=_d(dtype))
        q, r = qr(a)
        q = m.multiply(q, m.sign(diag_part(r)))
        if rows < cols:
            q = array.transpose(q)
        return m.multiply(self.gain, array.reshape(q, shape))

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, **super().get_config()}


def _snake(name: str) -> str:
    return backend.snake_case(name)


_CLASSES = [
    Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Identity, LecunNormal,
    LecunUniform, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
    VarianceScaling, Zeros,
]  # fmt: skip
ALL_OBJECTS: dict[str, Any] = {c.__name__: c for c in _CLASSES}
ALL_OBJECTS.update({_snake(c.__name__): c for c in _CLASSES})
ALL_OBJECTS.update({"normal": RandomNormal, "one": Ones, "uniform": RandomUniform, "zero": Zeros})
ALL_OBJECTS.update({"IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal})


def serialize(initializer: Any) -> Any:
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    objects = {**ALL_OBJECTS, **(custom_objects or {})}
    return objects[config["class_name"]].from_config(config["config"])


def get(identifier: Any) -> Any:
    """An initializer from a name (``"glorot_uniform"``), a config dict, an instance or a
    callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier not in ALL_OBJECTS:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        return ALL_OBJECTS[identifier]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


# Keras's lower-case function names (``keras.initializers.glorot_uniform``).
constant, zeros, ones, identity, orthogonal = Constant, Zeros, Ones, Identity, Orthogonal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, glorot_uniform, glorot_normal = VarianceScaling, GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, LecunUniform
