"""Keras 3's SGD, Adam, AdamW, Adamax, Nadam, RMSprop and Adagrad, with its update
formulas op for op.

Each ``update_step`` is Keras's (``keras/src/optimizers/*.py``): the same float32 operations
in the same order, with Python-float hyperparameters combined in double first where Keras
does (``1 - beta_1`` is computed by Python, then made float32), which is why these numbers
differ in the last digits from the TF1 optimizers' fused kernels.  An IndexedSlices
gradient goes through Keras's sparse arithmetic (``sparse.py``): SGD without momentum,
Adagrad and RMSprop without momentum update only the touched rows; the others densify
it where Keras does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.graph import Tensor
from symgrad.keras.optimizers import sparse as sp
from symgrad.keras.optimizers.base import Optimizer
from symgrad.ops.array import structure as array
from symgrad.ops.control import group
from symgrad.ops.math import elementwise as math
from symgrad.ops.sparse.indexed_slices import dense


class SGD(Optimizer):
    """m = m · momentum - g · lr; var += m (Nesterov: var += m · momentum - g · lr);
    without momentum var -= g · lr."""

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
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
        super().__init__(
            learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum, self.nesterov = momentum, nesterov

    def build(self, variables: Any) -> None:
        if self.built:
            return
        super().build(variables)
        self.momentums = (
            self.add_optimizer_variables(variables, "momentum") if self.momentum != 0 else []
        )

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        lr = sp.cast(learning_rate, variable.dtype)
        g = sp.cast(gradient, variable.dtype)
        if self.momentum == 0:
            return sp.assign_sub(variable, sp.mul(g, lr))
        m = self.momentums[self._get_variable_index(variable)]
        mu = array.cast(self.momentum, variable.dtype)
        m_t = m.assign(sp.sub(m * mu, sp.mul(g, lr)))
        step = sp.sub(m_t * mu, sp.mul(g, lr)) if self.nesterov else m_t
        return group(m_t, variable.assign_add(step))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class Adam(Optimizer):
    """alpha = lr √(1 - β2ᵗ) / (1 - β1ᵗ) with t = iterations + 1; m += (g - m)(1 - β1);
    v += (g² - v)(1 - β2) (v_hat = max(v_hat, v) with amsgrad); var -= m·alpha / (√v + ε)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
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
        super().__init__(
            learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        local_step = array.cast(math.add(self.iterations, 1), d)
        beta_1_power = math.pow(array.cast(self.beta_1, d), local_step)
        beta_2_power = math.pow(array.cast(self.beta_2, d), local_step)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        alpha = lr * math.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m_t = m.assign_add(sp.sub(g, m) * (1 - self.beta_1))
        v_t = v.assign_add(sp.sub(sp.square(g), v) * (1 - self.beta_2))
        parts = [m_t, v_t]
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            v_t = v_hat.assign(math.maximum(v_hat, v_t))
            parts.append(v_t)
        return group(*parts, variable.assign_sub((m_t * alpha) / (math.sqrt(v_t) + self.epsilon)))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


class _AdamVariant(Adam):
    """Adam's hyperparameters without ``amsgrad`` (Adamax's and Nadam's signature)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
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
        super().__init__(
            learning_rate,
            beta_1,
            beta_2,
            epsilon,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["amsgrad"]
        return config


class Adamax(_AdamVariant):
    """m += (g - m)(1 - β1); u = max(β2·u, |g|); var -= lr·m / ((1 - β1ᵗ)(u + ε)), with
    t = iterations + 1 (Adam with the infinity norm)."""

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        Optimizer.build(self, var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), dense(sp.cast(gradient, d))
        local_step = array.cast(math.add(self.iterations, 1), d)
        beta_1_power = math.pow(array.cast(self.beta_1, d), local_step)
        i = self._get_variable_index(variable)
        m, u = self._m[i], self._u[i]
        m_t = m.assign_add(math.multiply(math.subtract(g, m), 1 - self.beta_1))
        u_t = u.assign(math.maximum(math.multiply(self.beta_2, u), math.abs(g)))
        step = math.divide(
            math.multiply(lr, m_t), math.multiply(1 - beta_1_power, math.add(u_t, self.epsilon))
        )
        return group(m_t, u_t, variable.assign_sub(step))


class Nadam(_AdamVariant):
    """Adam with Nesterov momentum (Dozat): with μₜ = β1(1 - ½·0.96ᵗ) and the product
    Πμ kept across steps (updated once a step, before the variables),
    m̂ = μₜ₊₁m / (1 - Πμ·μₜ₊₁) + (1 - μₜ)g / (1 - Πμ); var -= lr·m̂ / (√(v / (1 - β2ᵗ)) + ε)."""

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        d = var_list[0].dtype if var_list else None
        Optimizer.build(self, var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        self._u_product = self.add_variable((), "ones", d, name="variable")

    def _update(self, grads: list[Any], variables: list[Any]) -> None:
        if grads:  # Keras's _backend_update_step: the product, once, before the variables
            u = self._u_product
            decay = math.pow(0.96, array.cast(math.add(self.iterations, 1), u.dtype))
            u.assign(math.multiply(math.multiply(u, self.beta_1), 1.0 - 0.5 * decay))
        super()._update(grads, variables)

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), dense(sp.cast(gradient, d))
        local_step = array.cast(math.add(self.iterations, 1), d)
        next_step = array.cast(math.add(self.iterations, 2), d)
        decay = array.cast(0.96, d)
        beta_1, beta_2 = array.cast(self.beta_1, d), array.cast(self.beta_2, d)
        u_t = beta_1 * (1.0 - 0.5 * math.pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * math.pow(decay, next_step))
        u_product_t = array.cast(self._u_product, d)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = math.pow(beta_2, local_step)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        m_t = m.assign_add(math.multiply(math.subtract(g, m), 1 - beta_1))
        v_t = v.assign_add(math.multiply(math.subtract(math.square(g), v), 1 - beta_2))
        m_hat = math.add(
            math.divide(math.multiply(u_t_1, m_t), 1 - u_product_t_1),
            math.divide(math.multiply(1 - u_t, g), 1 - u_product_t),
        )
        v_hat = math.divide(v_t, 1 - beta_2_power)
        step = math.divide(math.multiply(m_hat, lr), math.add(math.sqrt(v_hat), self.epsilon))
        return group(m_t, v_t, variable.assign_sub(step))


class AdamW(Adam):
    """Adam with decoupled weight decay (var -= var · wd · lr before each step)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
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
        super().__init__(
            learning_rate,
            beta_1,
            beta_2,
            epsilon,
            amsgrad,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")


class RMSprop(Optimizer):
    """v = ρ v + (1 - ρ) g²; with centered, a = ρ a + (1 - ρ) g and the denominator is
    v - a² + ε (else v + ε); inc = lr g / √denominator; momentum m = μ m + inc, var -= m
    (without momentum var -= inc)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
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
        super().__init__(
            learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = (
            self.add_optimizer_variables(var_list, "momentum") if self.momentum > 0 else []
        )
        self._average_gradients = (
            self.add_optimizer_variables(var_list, "average_gradient") if self.centered else []
        )

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        i = self._get_variable_index(variable)
        velocity, rho = self._velocities[i], self.rho
        v_t = velocity.assign(sp.add(rho * velocity, sp.mul(1 - rho, sp.square(g))))
        parts = [v_t]
        if self.centered:
            average = self._average_gradients[i]
            a_t = average.assign(sp.add(rho * average, sp.mul(1 - rho, g)))
            parts.append(a_t)
            denominator = v_t - math.square(a_t) + self.epsilon
        else:
            denominator = v_t + self.epsilon
        increment = sp.div(sp.mul(lr, g), math.sqrt(denominator))
        if self.momentum > 0:
            momentum = self._momentums[i]
            m_t = momentum.assign(sp.add(self.momentum * momentum, increment))
            return group(*parts, m_t, variable.assign_sub(m_t))
        return group(*parts, sp.assign_sub(variable, increment))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


class Adagrad(Optimizer):
    """acc += g²; var -= lr g / √(acc + ε), the accumulators starting at
    ``initial_accumulator_value``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
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
        super().__init__(
            learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        # Keras's Constant initializer converts the Python float to a float32 tensor
        # before the cast: a float64 accumulator starts at float32(0.1), as in TF.
        start = float(np.float32(self.initial_accumulator_value))
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=start
        )

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        d = variable.dtype
        lr, g = sp.cast(learning_rate, d), sp.cast(gradient, d)
        acc = self._accumulators[self._get_variable_index(variable)]
        acc_t = sp.assign_add(acc, sp.square(g))
        step = sp.div(sp.mul(lr, g), math.sqrt(acc_t + self.epsilon))
        return group(acc_t, sp.assign_sub(variable, step))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }
