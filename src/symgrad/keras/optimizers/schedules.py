"""``tf.keras.optimizers.schedules``: learning rates as functions of the optimizer's step,
computed as Keras 3 computes them (float32 from Python floats, the step cast to it)."""

from __future__ import annotations

import math as pymath
from typing import Any

from symgrad.control_flow.cond import cond
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.rounding import ceil, floor


class LearningRateSchedule:
    """Base class: ``schedule(step)`` -> the learning rate at ``step``."""

    def __call__(self, step: Any) -> Tensor:
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`."
        )

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must "
            "override `get_config()` in order to be serializable."
        )

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate · decay_rate ^ (step / decay_steps), the exponent floored when
    ``staircase``."""

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name
        _check_decay_steps(decay_steps)

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            lr = convert_to_tensor(self.initial_learning_rate)
            d = lr.dtype
            p = array.cast(step, d) / array.cast(self.decay_steps, d)
            if self.staircase:
                p = math.floordiv(p, convert_to_tensor(1, dtype=d))  # floor(p): p / 1 is exact
            return math.multiply(lr, math.pow(array.cast(self.decay_rate, d), p))

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class InverseTimeDecay(ExponentialDecay):
    """initial_learning_rate / (1 + decay_rate · step / decay_steps), the quotient floored
    when ``staircase`` (the overfit-and-underfit tutorial's schedule)."""

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            lr = convert_to_tensor(self.initial_learning_rate)
            d = lr.dtype
            p = array.cast(step, d) / array.cast(self.decay_steps, d)
            if self.staircase:
                p = math.floordiv(p, convert_to_tensor(1, dtype=d))
            one = convert_to_tensor(1, dtype=d)
            return lr / (one + array.cast(self.decay_rate, d) * p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] up to boundaries[0], values[i] on (boundaries[i-1], boundaries[i]], the
    last value after the last boundary: Keras's sum of masked values."""

    def __init__(self, boundaries: Any, values: Any, name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                f"values={values} of length {len(values)}."
            )
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            step = convert_to_tensor(step)
            bounds = [
                b if b.dtype is step.dtype else array.cast(b, step.dtype)
                for b in map(convert_to_tensor, self.boundaries)
            ]
            values = [convert_to_tensor(v) for v in self.values]
            d = values[0].dtype
            result = convert_to_tensor(0, dtype=d)
            result = result + array.cast(step <= bounds[0], d) * values[0]
            result = result + array.cast(step > bounds[-1], d) * values[-1]
            for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1]):
                inside = math.logical_and(step > low, step <= high)
                result = result + array.cast(inside, d) * value
            return result

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """(initial - end) · (1 - step / decay_steps) ^ power + end, the step held at
    ``decay_steps``; with ``cycle``, decay_steps grows to the first multiple of it past
    the step instead."""

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        end_learning_rate: Any = 0.0001,
        power: Any = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power = end_learning_rate, power
        self.cycle, self.name = cycle, name
        _check_decay_steps(decay_steps)

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            lr = convert_to_tensor(self.initial_learning_rate)
            d = lr.dtype
            end, power = array.cast(self.end_learning_rate, d), array.cast(self.power, d)
            step, steps = array.cast(step, d), array.cast(self.decay_steps, d)
            if self.cycle:  # the first multiple of decay_steps past the step (1 at step 0)
                multiplier = array.where(math.equal(step, 0), 1.0, ceil(step / self.decay_steps))
                steps = math.multiply(steps, multiplier)
            else:
                step = math.minimum(step, steps)
            p = math.divide(step, steps)
            return math.add(math.multiply(lr - end, math.pow(1 - p, power)), end)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class CosineDecay(LearningRateSchedule):
    """initial · ((1 - alpha) · ½(1 + cos(π · step / decay_steps)) + alpha), the step held
    at ``decay_steps``; with ``warmup_target``, first a linear rise from the initial rate
    to it over ``warmup_steps``, then the decay from it."""

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        alpha: Any = 0.0,
        name: str = "CosineDecay",
        warmup_target: Any = None,
        warmup_steps: Any = 0,
    ) -> None:
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps
        _check_decay_steps(decay_steps)

    def _decay(self, step: Tensor, steps: Tensor, start: Tensor) -> Tensor:
        with name_scope(self.name):
            fraction = math.divide(step, steps)
            pi = convert_to_tensor(pymath.pi, dtype=step.dtype)
            cosine = 0.5 * (1.0 + math.cos(math.multiply(pi, fraction)))
            return math.multiply(start, (1 - self.alpha) * cosine + self.alpha)

    def _warmup(self, step: Tensor, steps: Tensor, target: Tensor, lr: Tensor) -> Tensor:
        with name_scope(self.name):
            return (target - lr) * (step / steps) + lr

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            lr = convert_to_tensor(self.initial_learning_rate)
            d = lr.dtype
            steps, step = array.cast(self.decay_steps, d), array.cast(step, d)
            if self.warmup_target is None:
                return self._decay(math.minimum(step, steps), steps, lr)
            target = array.cast(self.warmup_target, d)
            warmup = array.cast(self.warmup_steps, d)
            step = math.minimum(step, steps + warmup)
            return cond(  # type: ignore[no-any-return]
                step < warmup,
                lambda: self._warmup(step, warmup, target, lr),
                lambda: self._decay(step - warmup, steps, target),
            )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): period i lasts first_decay_steps · t_mulⁱ
    steps and starts at m_mulⁱ times the initial rate.  With f = step / first_decay_steps,
    i = ⌊f⌋ when t_mul is 1, else ⌊log(1 - f(1 - t_mul)) / log t_mul⌋, and f' the part of
    period i done, the rate is initial · ((1 - alpha) · m_mulⁱ · ½(1 + cos(π f')) + alpha)."""

    def __init__(
        self,
        initial_learning_rate: Any,
        first_decay_steps: Any,
        t_mul: Any = 2.0,
        m_mul: Any = 1.0,
        alpha: Any = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        self.initial_learning_rate, self.first_decay_steps = (
            initial_learning_rate,
            first_decay_steps,
        )
        self._t_mul, self._m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name
        if first_decay_steps <= 0:
            raise ValueError(
                "Argument `first_decay_steps` must be > 0. "
                f"Received: first_decay_steps={first_decay_steps}"
            )

    def __call__(self, step: Any) -> Tensor:
        with name_scope(self.name):
            lr = convert_to_tensor(self.initial_learning_rate)
            d = lr.dtype
            first_steps, alpha = array.cast(self.first_decay_steps, d), array.cast(self.alpha, d)
            t_mul, m_mul = array.cast(self._t_mul, d), array.cast(self._m_mul, d)
            fraction = array.cast(step, d) / first_steps
            i_restart, fraction = cond(
                math.equal(t_mul, 1.0),
                lambda: _equal_periods(fraction),
                lambda: _growing_periods(fraction, t_mul),
            )
            pi = convert_to_tensor(pymath.pi, dtype=d)
            cosine = 0.5 * math.pow(m_mul, i_restart) * (1.0 + math.cos(pi * fraction))
            return math.multiply(lr, math.add(math.multiply(1 - alpha, cosine), alpha))

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


def _equal_periods(fraction: Tensor) -> tuple[Tensor, Tensor]:
    """The period a fraction of the first falls in, and the part of it done."""
    i_restart = floor(fraction)
    return i_restart, fraction - i_restart


def _growing_periods(fraction: Tensor, t_mul: Tensor) -> tuple[Tensor, Tensor]:
    """As ``_equal_periods``, period i lasting t_mulⁱ first periods (geometric sums)."""
    i_restart = floor(math.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
    sum_r = math.divide(1.0 - math.pow(t_mul, i_restart), 1.0 - t_mul)
    return i_restart, math.divide(math.subtract(fraction, sum_r), math.pow(t_mul, i_restart))


def _check_decay_steps(decay_steps: Any) -> None:
    if decay_steps <= 0:
        raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict[str, Any]:
    """Keras's dict for a schedule: a built-in one by its public module, a user's subclass
    by its own module (None for ``__main__``) and class name."""
    cls = type(learning_rate_schedule)
    module: str | None
    if cls in _SCHEDULES:
        module, registered_name = "keras.optimizers.schedules", None
    else:
        module = None if cls.__module__ == "__main__" else cls.__module__
        registered_name = cls.__name__
    return {
        "module": module,
        "class_name": cls.__name__,
        "config": learning_rate_schedule.get_config(),
        "registered_name": registered_name,
    }


def deserialize(config: dict[str, Any], custom_objects: Any = None) -> LearningRateSchedule:
    classes: dict[str, Any] = {c.__name__: c for c in _SCHEDULES}
    classes.update(custom_objects or {})
    return classes[config["class_name"]].from_config(config["config"])  # type: ignore


_SCHEDULES = (
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
)


__all__ = [
    "CosineDecay",
    "CosineDecayRestarts",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "deserialize",
    "serialize",
]


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"symgrad implements tf.keras.optimizers.schedules CosineDecay, CosineDecayRestarts, "
        f"ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay and PolynomialDecay "
        f"(and LearningRateSchedule to derive from), not {name}"
    )
