"""The TF1 optimizers of ``tf.compat.v1.train``, each update as TF's fused kernel computes it.

Every formula below follows ``tensorflow/core/kernels/training_ops.cc`` operation by
operation in the variable's dtype (``T(1) - beta1()`` is a float32 subtraction, not
Python's), with the hyperparameters made float32 tensors and cast as ``_prepare`` and
``_apply_dense`` do.  Slot names are TF's: ``get_slot(var, "m")`` for Adam's first moment,
``"v"``, ``"momentum"``, ``"accumulator"``, ``"rms"``, ``"mg"``; their variables are named
``<var>/<optimizer name>``, ``<var>/<optimizer name>_1`` ...

Sparse (IndexedSlices) gradients follow TF's resource-variable path: GradientDescent
scatter-adds ``-g * lr`` (duplicates applied one by one); the others get duplicate rows
summed and update the touched rows with the formulas of TF's ``SparseApply*`` kernels
(which differ from the dense ones in operation order); Adam decays ``m`` and ``v`` whole,
scatter-adds the new rows, and updates the variable densely (TF's ``_apply_sparse_shared``).
"""

from __future__ import annotations

from typing import Any

from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.control import control_dependencies, group
from symgrad.ops.math import elementwise as math
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import Variable
from symgrad.train.optimizer_v1 import Optimizer, cast_to, hyper
from symgrad.train.variable_io import outermost


class GradientDescentOptimizer(Optimizer):
    """var -= grad * lr."""

    def __init__(
        self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self) -> None:
        self._lr_t = hyper(self._call_if_callable(self._learning_rate), "learning_rate")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        return var.assign_sub(grad * cast_to(self._lr_t, var.dtype)).op

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Variable) -> Operation:
        """No summing of duplicates: var[i] += -g * lr for each row, in order."""
        step = -grad.values * cast_to(self._lr_t, var.dtype)
        return var.scatter_add(IndexedSlices(step, grad.indices)).op


class MomentumOptimizer(Optimizer):
    """accum = accum * momentum + grad; var -= accum * lr, or with Nesterov
    var -= grad * lr + accum * momentum * lr."""

    def __init__(
        self,
        learning_rate: Any,
        momentum: Any,
        use_locking: bool = False,
        name: str = "Momentum",
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum")

    def _prepare(self) -> None:
        self._lr_t = hyper(self._call_if_callable(self._learning_rate), "learning_rate")
        self._momentum_t = hyper(self._call_if_callable(self._momentum), "momentum")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        accum = self._slots["momentum"][id(var)]
        lr, mu = cast_to(self._lr_t, var.dtype), cast_to(self._momentum_t, var.dtype)
        accum_t = accum.assign(accum * mu + grad)
        if self._use_nesterov:
            update = var.assign_sub(grad * lr + accum_t * mu * lr)
        else:
            update = var.assign_sub(accum_t * lr)
        return group(accum_t, update)

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """Per touched row (SparseApplyMomentum): a = a * μ + g; var -= lr * a, or with
        Nesterov var -= lr * g + lr * a * μ."""
        accum = self._slots["momentum"][id(var)]
        lr, mu = cast_to(self._lr_t, var.dtype), cast_to(self._momentum_t, var.dtype)
        g, idx = grad.values, grad.indices
        a = gather(accum, idx) * mu + g
        step = lr * g + lr * a * mu if self._use_nesterov else lr * a
        rows = gather(var, idx) - step
        return group(set_rows(accum, idx, a), set_rows(var, idx, rows))


class AdamOptimizer(Optimizer):
    """m += (g - m)(1 - β1); v += (g² - v)(1 - β2);
    var -= m · lr √(1 - β2ᵗ) / (1 - β1ᵗ) / (√v + ε̂), with β1ᵗ, β2ᵗ kept in the non-slot
    variables ``beta1_power`` and ``beta2_power`` (multiplied by β after each step)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta1: Any = 0.9,
        beta2: Any = 0.999,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adam",
        use_own_namescope_for_non_slot_vars: bool = False,
    ) -> None:
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self, var: Variable) -> tuple[Variable, Variable]:
        return (
            self._get_non_slot_variable("beta1_power", var.graph),
            self._get_non_slot_variable("beta2_power", var.graph),
        )

    def _create_slots(self, var_list: list[Variable]) -> None:
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m")
            self._zeros_slot(v, "v")

    def _prepare(self) -> None:
        c = self._call_if_callable
        self._lr_t = hyper(c(self._lr), "learning_rate")
        self._beta1_t = hyper(c(self._beta1), "beta1")
        self._beta2_t = hyper(c(self._beta2), "beta2")
        self._epsilon_t = hyper(c(self._epsilon), "epsilon")

    def _step(self, var: Variable) -> tuple[Variable, Variable, Any, Any, Any, Any]:
        """var's slots m and v, the step size lr·√(1-β2ᵗ)/(1-β1ᵗ), β1, β2 and ε, in its dtype."""
        m, v = self._slots["m"][id(var)], self._slots["v"][id(var)]
        d = var.dtype
        b1p, b2p = (array.cast(p, d) for p in self._get_beta_accumulators(var))
        lr, b1, b2, eps = (
            cast_to(t, d) for t in (self._lr_t, self._beta1_t, self._beta2_t, self._epsilon_t)
        )
        alpha = lr * math.sqrt(1 - b2p) / (1 - b1p)
        return m, v, alpha, b1, b2, eps

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        m, v, alpha, b1, b2, eps = self._step(var)
        m_t = m.assign_add((grad - m) * (1 - b1))
        v_t = v.assign_add((math.square(grad) - v) * (1 - b2))
        update = var.assign_sub((m_t * alpha) / (math.sqrt(v_t) + eps))
        return group(m_t, v_t, update)

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """TF's ``_apply_sparse_shared``: m = m β1, then m[rows] += g (1 - β1); v likewise
        with g²; var -= lr_t m / (√v + ε) over the whole variable."""
        m, v, alpha, b1, b2, eps = self._step(var)
        g, idx = grad.values, grad.indices
        m_scaled, v_scaled = g * (1 - b1), (g * g) * (1 - b2)
        with control_dependencies([m.assign(m * b1)]):
            m_t = m.scatter_add(IndexedSlices(m_scaled, idx))
        with control_dependencies([v.assign(v * b2)]):
            v_t = v.scatter_add(IndexedSlices(v_scaled, idx))
        update = var.assign_sub(alpha * m_t / (math.sqrt(v_t) + eps))
        return group(update, m_t, v_t)

    def _finish(self, update_ops: list[Operation], name_scope: str) -> Operation:
        """After the updates: β1ᵗ *= β1 and β2ᵗ *= β2, once per step for all variables."""
        graph = outermost(get_default_graph())
        beta1_power = self._get_non_slot_variable("beta1_power", graph)
        beta2_power = self._get_non_slot_variable("beta2_power", graph)
        with control_dependencies(update_ops):
            update_beta1 = beta1_power.assign(beta1_power * self._beta1_t)
            update_beta2 = beta2_power.assign(beta2_power * self._beta2_t)
        return group(*update_ops, update_beta1, update_beta2, name=name_scope)


class AdagradOptimizer(Optimizer):
    """accum += grad²; var -= grad * lr * rsqrt(accum)."""

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        use_locking: bool = False,
        name: str = "Adagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._filled_slot(v, "accumulator", self._initial_accumulator_value)

    def _prepare(self) -> None:
        self._lr_t = hyper(self._call_if_callable(self._learning_rate), "learning_rate")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        acc = self._slots["accumulator"][id(var)]
        acc_t = acc.assign_add(math.square(grad))
        update = var.assign_sub(grad * cast_to(self._lr_t, var.dtype) * math.rsqrt(acc_t))
        return group(acc_t, update)

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """Per touched row (SparseApplyAdagrad): a += g²; var -= lr g rsqrt(a) (for
        rows of one element: lr g / √a)."""
        acc = self._slots["accumulator"][id(var)]
        lr = cast_to(self._lr_t, var.dtype)
        g, idx = grad.values, grad.indices
        a = gather(acc, idx) + g * g
        inner = var.shape.num_elements() // var.shape[0] if var.shape.rank else 1
        step = lr * g * math.rsqrt(a) if inner > 1 else lr * g / math.sqrt(a)
        return group(set_rows(acc, idx, a), set_rows(var, idx, gather(var, idx) - step))


class RMSPropOptimizer(Optimizer):
    """ms += (g² - ms)(1 - ρ); mom = mom · μ + g · lr / √(ms + ε); var -= mom.
    Centered: mg += (g - mg)(1 - ρ) and the root is of (ms - mg²) + ε."""

    def __init__(
        self,
        learning_rate: Any,
        decay: Any = 0.9,
        momentum: Any = 0.0,
        epsilon: Any = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        name: str = "RMSProp",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._decay = learning_rate, decay
        self._momentum, self._epsilon, self._centered = momentum, epsilon, centered

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._filled_slot(v, "rms", 1.0)
            if self._centered:
                self._zeros_slot(v, "mg")
            self._zeros_slot(v, "momentum")

    def _prepare(self) -> None:
        c = self._call_if_callable
        self._lr_t = hyper(c(self._learning_rate), "learning_rate")
        self._decay_t = hyper(c(self._decay), "decay")
        self._momentum_t = hyper(c(self._momentum), "momentum")
        self._epsilon_t = hyper(c(self._epsilon), "epsilon")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        rms, mom = self._slots["rms"][id(var)], self._slots["momentum"][id(var)]
        d = var.dtype
        lr, rho, mu, eps = (
            cast_to(t, d) for t in (self._lr_t, self._decay_t, self._momentum_t, self._epsilon_t)
        )
        ms_t = rms.assign_add((math.square(grad) - rms) * (1 - rho))
        parts: list[Any] = [ms_t]
        if self._centered:
            mg = self._slots["mg"][id(var)]
            mg_t = mg.assign_add((grad - mg) * (1 - rho))
            denom = (ms_t - math.square(mg_t)) + eps
            parts.append(mg_t)
        else:
            denom = ms_t + eps
        mom_t = mom.assign(mom * mu + (grad * lr) / math.sqrt(denom))
        return group(*parts, mom_t, var.assign_sub(mom_t))

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """Per touched row (SparseApply[Centered]RMSProp): ms = ms ρ + g² (1 - ρ);
        [mg = mg ρ + g (1 - ρ)]; mom = mom μ + rsqrt(ms + ε [- mg²]) lr g; var -= mom."""
        rms, mom = self._slots["rms"][id(var)], self._slots["momentum"][id(var)]
        d = var.dtype
        lr, rho, mu, eps = (
            cast_to(t, d) for t in (self._lr_t, self._decay_t, self._momentum_t, self._epsilon_t)
        )
        g, idx = grad.values, grad.indices
        ms = gather(rms, idx) * rho + g * g * (1 - rho)
        updates = [set_rows(rms, idx, ms)]
        denom = ms + eps
        if self._centered:
            mg_var = self._slots["mg"][id(var)]
            mg = gather(mg_var, idx) * rho + g * (1 - rho)
            denom = denom - math.square(mg)
            updates.append(set_rows(mg_var, idx, mg))
        m = gather(mom, idx) * mu + math.rsqrt(denom) * lr * g
        updates += [set_rows(mom, idx, m), set_rows(var, idx, gather(var, idx) - m)]
        return group(*updates)


def set_rows(var: Variable, indices: Tensor, rows: Tensor) -> Tensor:
    """var[indices] = rows (the indices are distinct: duplicates were summed first)."""
    return var.scatter_update(IndexedSlices(rows, indices))
