"""Keras 3's ``LossScaleOptimizer``: dynamic loss scaling around an inner optimizer.

``scale_loss`` multiplies the loss by ``dynamic_scale`` (``initial_scale`` = 2**15 before
the first step).  ``apply`` then checks every gradient: all finite, it divides them by the
scale, lets the inner optimizer apply them and counts the step, doubling the scale (and
restarting the count) after ``dynamic_growth_steps`` finite steps in a row; any Inf or NaN,
it skips the update, halves the scale and restarts the count.  Its variables are its own
``iteration``, ``learning_rate`` (0), ``step_counter`` and ``dynamic_scale``, then the
inner optimizer's; ``iterations`` and ``learning_rate`` are the inner optimizer's.  A
mixed_float16 model's ``compile`` wraps its optimizer in one (``auto_scale_loss``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.control_flow.cond import cond
from symgrad.core import dtypes as dt
from symgrad.keras.optimizers import sparse
from symgrad.keras.optimizers.base import Optimizer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.control import control_dependencies
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.math.safe_math import is_finite
from symgrad.ops.reduction.reduce import reduce_all
from symgrad.ops.sparse.indexed_slices import IndexedSlices

_BASE_DEFAULTS = {
    "weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
    "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
    "loss_scale_factor": None, "gradient_accumulation_steps": None,
}  # fmt: skip


class LossScaleOptimizer(Optimizer):
    def __init__(
        self,
        inner_optimizer: Any,
        initial_scale: float = 2.0**15,
        dynamic_growth_steps: int = 2000,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                "`loss_scale_factor` directly on the `inner_optimizer`."
            )
        for arg, default in _BASE_DEFAULTS.items():
            if arg not in kwargs:
                continue
            value = kwargs.pop(arg)
            if (default is None and value is not None) or value != default:
                raise ValueError(
                    f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on "
                    "the `inner_optimizer`."
                )
        if kwargs:
            raise ValueError(
                f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`."
            )
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list: Sequence[Any]) -> None:
        self.step_counter = self.add_variable((), "zeros", dt.int64, name="step_counter")
        self.dynamic_scale = self.add_variable(
            (), float(self.initial_scale), dt.float32, name="dynamic_scale"
        )
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self) -> list[Any]:
        return self._variables + self.inner_optimizer.variables

    @property
    def iterations(self) -> Any:
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> None:
        self.inner_optimizer.learning_rate = learning_rate

    def scale_loss(self, loss: Any) -> Any:
        scale = self.dynamic_scale if self.built else self.initial_scale
        loss = convert_to_tensor(loss)
        return m.multiply(loss, array.cast(scale, loss.dtype))

    def check_finite(self, grads: Sequence[Any]) -> Any:
        values = [g.values if isinstance(g, IndexedSlices) else g for g in grads if g is not None]
        return reduce_all(stack([reduce_all(is_finite(convert_to_tensor(g))) for g in values]))

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        if not self.built:
            self.build(list(trainable_variables or []))
        grads = list(grads)
        variables = list(trainable_variables) if trainable_variables is not None else None
        finite = self.check_finite(grads)
        scale = self.dynamic_scale.value()
        counter = self.step_counter.value()

        def on_finite() -> Any:
            unscaled = [None if g is None else sparse.div(g, scale) for g in grads]
            self.inner_optimizer.apply(unscaled, trainable_variables=variables)
            grow = m.equal(counter, self.dynamic_growth_steps - 1)
            with control_dependencies([self.inner_optimizer._iterations.value()]):
                a = self.step_counter.assign(array.where(grow, counter - counter, counter + 1))
                b = self.dynamic_scale.assign(array.where(grow, scale * 2.0, scale))
            return [a, b]

        def on_overflow() -> Any:
            return [
                self.step_counter.assign(counter - counter),
                self.dynamic_scale.assign(scale * 0.5),
            ]

        cond(finite, on_finite, on_overflow)

    def finalize_variable_values(self, var_list: Any) -> None:
        finalize = getattr(self.inner_optimizer, "finalize_variable_values", None)
        if finalize is not None:
            finalize(var_list)

    def get_config(self) -> dict[str, Any]:
        inner = self.inner_optimizer
        return {
            "name": self.name,
            "inner_optimizer": {
                "module": "keras.optimizers", "class_name": type(inner).__name__,
                "config": inner.get_config(), "registered_name": None,
            },
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }  # fmt: skip

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from symgrad.keras.optimizers import get

        config = dict(config)
        inner = get(config.pop("inner_optimizer"))
        return cls(inner, **config)
