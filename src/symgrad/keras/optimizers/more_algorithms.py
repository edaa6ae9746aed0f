"""Keras 3's Adadelta, Ftrl, Lion and Adafactor, with its update formulas op for op.

As in ``algorithms.py``, each ``update_step`` is Keras's (``keras/src/optimizers/*.py``):
the same float32 operations in the same order.  A Python-float hyperparameter is combined
in double where Keras combines it in Python (Adadelta's ``1 - rho``) and in float32 where
Keras casts it first (Lion's ``1 - beta_1``).  An IndexedSlices gradient goes through
Keras's sparse arithmetic (``sparse.py``): Adadelta and Adafactor update only the touched
rows; Ftrl and Lion densify it where Keras adds it to a dense tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api.clip_ops import clip_by_value
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor
from symgrad.keras.optimizers import sparse as sp
from symgrad.keras.optimizers.base import Optimizer, base_options
from symgrad.ops.array import structure as array
from symgrad.ops.array.shape import expand_dims
from symgrad.ops.control import group
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction.reduce import reduce_mean
from symgrad.ops.sparse.indexed_slices import dense


class Adadelta(Optimizer):
    """acc_g = ρ·acc_g + (1 - ρ)·g²; Δ = -√(acc_Δ + ε)·g / √(acc_g + ε);
    acc_Δ = ρ·acc_Δ + (1 - ρ)·Δ²; var += lr·Δ."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.95,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **base_options(locals()), **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"]
        )

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        i = self._get_variable_index(variable)
        acc_grad, acc_delta = self._accumulated_grads[i], self._accumulated_delta_vars[i]
        rho = self.rho

        def rms(x: Any) -> Tensor:
            return math.sqrt(math.add(x, self.epsilon))

        acc_grad_t = acc_grad.assign(sp.add(rho * acc_grad, sp.mul(1 - rho, sp.square(g))))
        delta = sp.negative(sp.div(sp.mul(rms(acc_delta), g), rms(acc_grad_t)))
        acc_delta_t = acc_delta.assign(
            sp.add(math.multiply(rho, acc_delta), sp.mul(1 - rho, sp.square(delta)))
        )
        return group(acc_grad_t, acc_delta_t, sp.assign_add(variable, sp.mul(lr, delta)))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


class Ftrl(Optimizer):
    """Follow the regularized leader (McMahan et al., 2013), with p = -learning_rate_power:
    n' = n + g²; linear += g + 2·l2_shrinkage·var - (n'ᵖ - nᵖ) / lr · var;
    var = (clip(linear, ±l1) - linear) / (n'ᵖ / lr + 2·(l2 + beta / (2·lr))); n = n'."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **base_options(locals()), **kwargs)
        _check_at_least_zero("initial_accumulator_value", initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError(
                "`learning_rate_power` needs to be negative or zero. Received: "
                f"learning_rate_power={learning_rate_power}."
            )
        _check_at_least_zero("l1_regularization_strength", l1_regularization_strength)
        _check_at_least_zero("l2_regularization_strength", l2_regularization_strength)
        _check_at_least_zero(
            "l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength
        )
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        # Keras's Constant initializer: a float32 value, then cast (see Adagrad)
        start = float(np.float32(self.initial_accumulator_value))
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"], initializer=[start, "zeros"]
        )

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        i = self._get_variable_index(variable)
        accum, linear = self._accumulators[i], self._linears[i]
        power = -self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrinkage = math.multiply(2 * self.l2_shrinkage_regularization_strength, variable)
        grad_to_use = sp.add(g, shrinkage)
        new_accum = sp.add(accum, sp.square(g))
        new_accum_power = math.pow(new_accum, power)
        sigma = math.divide(math.subtract(new_accum_power, math.pow(accum, power)), lr)
        linear_t = linear.assign_add(math.subtract(grad_to_use, math.multiply(sigma, variable)))
        quadratic = math.add(math.divide(new_accum_power, lr), 2 * l2_reg)
        l1 = self.l1_regularization_strength
        clipped = clip_by_value(linear_t, -l1, l1)
        var_t = variable.assign(math.divide(math.subtract(clipped, linear_t), quadratic))
        return group(linear_t, var_t, accum.assign(new_accum))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }


def _check_at_least_zero(name: str, value: float) -> None:
    if value < 0.0:
        raise ValueError(f"`{name}` needs to be positive or zero. Received: {name}={value}.")


class Lion(Optimizer):
    """Evolved sign momentum (Chen et al., 2023):
    var -= lr·sign(β1·m + (1 - β1)·g); m = β2·m + (1 - β2)·g."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **base_options(locals()), **kwargs)
        self.beta_1, self.beta_2 = beta_1, beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer "
                f"degenerates to SignSGD. Received: beta_1={beta_1}."
            )

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        beta_1, beta_2 = array.cast(self.beta_1, d), array.cast(self.beta_2, d)
        m = self._momentums[self._get_variable_index(variable)]
        direction = math.sign(sp.add(math.multiply(m, beta_1), sp.mul(g, 1.0 - beta_1)))
        var_t = variable.assign_sub(math.multiply(lr, direction))
        m_t = m.assign(sp.add(math.multiply(m, beta_2), sp.mul(g, 1.0 - beta_2)))
        return group(var_t, m_t)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}


class Adafactor(Optimizer):
    """Shazeer & Stern (2018), with t = iterations + 1: ĝ² = g² + ε1, β2ₜ = 1 - t^decay;
    a variable of rank ≥ 2 keeps the means of ĝ² over its last axis (r) and its
    second-last (c), v = r / mean(r) ⊗ c; a smaller one keeps v itself, each
    x = β2ₜ·x + (1 - β2ₜ)·ĝ²'s mean.  u = g / √v, clipped to rms(u) ≤ clip_threshold;
    var -= max(ε2, rms(var))·min(lr, 1/√t)·u.

    Keras's step takes min(lr, 1/√t) whether ``relative_step`` is set or not (the option
    only adds a second, equal minimum), so symgrad keeps it for the config alone.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **base_options(locals()), **kwargs)
        self.beta_2_decay, self.epsilon_1, self.epsilon_2 = beta_2_decay, epsilon_1, epsilon_2
        self.clip_threshold, self.relative_step = clip_threshold, relative_step

    def build(self, var_list: Any) -> None:
        """Per variable, as Keras orders them: r, c and the velocity v; a variable of
        rank < 2 gets two int32 zeros in r's and c's places (Keras's placeholders, which
        ``variables`` lists), named after the variable as r and c are.  Keras scopes the
        placeholders' paths with the optimizer's name when ``apply`` (or ``fit``) builds
        it, not when ``build`` is called directly; symgrad always does."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for var in var_list:
            shape = [int(n) for n in var.shape]
            if len(shape) < 2:
                self._r.append(self.add_variable((), 0, dt.int32, name=var.name))
                self._c.append(self.add_variable((), 0, dt.int32, name=var.name))
            else:
                self._r.append(self.add_variable(shape[:-1], dtype=var.dtype, name=var.name))
                c_shape = shape[:-2] + shape[-1:]
                self._c.append(self.add_variable(c_shape, dtype=var.dtype, name=var.name))
            self._v.append(self.add_variable_from_reference(var, "velocity"))

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        epsilon_2, one = array.cast(self.epsilon_2, d), array.cast(1.0, d)
        local_step = array.cast(math.add(self.iterations, 1), d)
        i = self._get_variable_index(variable)
        r, c, v = self._r[i], self._c[i], self._v[i]
        rho_t = math.minimum(lr, 1 / math.sqrt(local_step))
        alpha_t = math.maximum(epsilon_2, _rms(variable)) * rho_t
        # Keras adds ε1 to the squared slices as to a dense tensor: densified first
        grad_square = math.add(dense(sp.square(g)), self.epsilon_1)
        beta_2_t = 1 - math.pow(local_step, self.beta_2_decay)
        if variable.shape.rank >= 2:
            r_t = r.assign(_moving(beta_2_t, r, reduce_mean(grad_square, axis=-1)))
            c_t = c.assign(_moving(beta_2_t, c, reduce_mean(grad_square, axis=-2)))
            ratio = math.divide(r_t, reduce_mean(r_t, axis=-1, keepdims=True))
            v_t = v.assign(math.multiply(expand_dims(ratio, -1), expand_dims(c_t, -2)))
            parts = [r_t, c_t, v_t]
        else:
            v_t = v.assign(_moving(beta_2_t, v, grad_square))
            parts = [v_t]
        u_t = sp.div(g, math.sqrt(v_t))
        u_t_hat = sp.div(u_t, math.maximum(one, math.divide(_rms(u_t), self.clip_threshold)))
        return group(*parts, sp.assign_sub(variable, sp.mul(alpha_t, u_t_hat)))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_2_decay": self.beta_2_decay,
            "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2,
            "clip_threshold": self.clip_threshold,
            "relative_step": self.relative_step,
        }


def _rms(x: Any) -> Tensor:
    """√mean(x²) over all elements (slices: over the dense shape)."""
    return math.sqrt(sp.mean(sp.square(x)))


def _moving(beta: Tensor, x: Any, value: Tensor) -> Tensor:
    return math.add(math.multiply(beta, x), math.multiply(1 - beta, value))
