"""More TF1 optimizers of ``tf.compat.v1.train``: Ftrl, Adadelta, ProximalGradientDescent,
ProximalAdagrad and AdagradDA, each update as TF's fused kernel computes it.

As in :mod:`symgrad.train.optimizers_v1`, every formula follows
``tensorflow/core/kernels/training_ops.cc`` operation by operation in the variable's dtype,
with the hyperparameters made tensors (a Python float becomes float32) and cast to it where
TF's ``_resource_apply_*`` casts them.  Slot names are TF's (``"accum"``, ``"linear"``,
``"accum_update"``, ``"accumulator"``, ``"gradient_accumulator"``,
``"gradient_squared_accumulator"``); their variables are ``<var>/<optimizer name>``,
``<var>/<optimizer name>_1``.

Sparse (IndexedSlices) gradients have their duplicate rows summed first (the base class),
then the touched rows are updated by the formulas of TF's ``SparseApply*`` kernels.  Those
kernels take one of two paths.  Rows of more than one element get the dense formulas row
by row (AdagradDA's in another order).  A variable whose rows are single elements (shape
``[n]`` or ``[n, 1]``) goes through a scalar loop that orders the operations differently
and, for Ftrl, uses ``pow`` even where the dense kernel uses ``sqrt``; in float32 it also
does some steps in double: ``1.0 + l2 * lr`` in the proximal updates, and nearly all of
AdagradDA's update.  Those steps are casts to float64 and back here, so the float32
roundings are TF's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.control import group
from symgrad.ops.core import identity
from symgrad.ops.math import elementwise as math
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import Variable
from symgrad.train.optimizer_v1 import Optimizer, cast_to, hyper
from symgrad.train.optimizers_v1 import set_rows


class FtrlOptimizer(Optimizer):
    """FTRL-proximal (McMahan et al., 2013).  With n the accumulator ("accum"), z the
    linear term ("linear") and p = learning_rate_power (n^-p is √n when p = -0.5):
    n' = n + g²; z += g̃ - (n'^-p - n^-p) / lr · var, where g̃ = g + 2·l2_shrinkage·var;
    var = (l1·sign(z) - z) / (n'^-p / lr + 2·l2) where |z| > l1, else 0; n = n'.
    The l2 the kernel gets is l2_regularization_strength + beta / (2·max(lr, 1e-36))."""

    def __init__(
        self,
        learning_rate: Any,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "Ftrl",
        accum_name: str | None = None,
        linear_name: str | None = None,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float | None = None,
    ) -> None:
        super().__init__(use_locking, name)
        for what, value, sign in (
            ("initial_accumulator_value", initial_accumulator_value, 1),
            ("learning_rate_power", learning_rate_power, -1),
            ("l1_regularization_strength", l1_regularization_strength, 1),
            ("l2_regularization_strength", l2_regularization_strength, 1),
            ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, 1),
        ):
            if sign * value < 0.0:
                kind = "positive" if sign > 0 else "negative"
                raise ValueError(f"{what} {value:f} needs to be {kind} or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            init = self._initial_accumulator_value
            self._filled_slot(v, "accum", init, self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self) -> None:
        """TF's tensors: the l2 given to the kernel is computed in float32 (for a Python
        learning rate) as l2 + beta / (2 · max(lr, 1e-36))."""
        lr = self._learning_rate
        self._lr_t = hyper(lr, "learning_rate")
        self._l1_t = hyper(self._l1, "l1_regularization_strength")
        self._l2_t = hyper(self._l2 + self._beta / (2.0 * math.maximum(lr, 1e-36)), "l2")
        self._shrinkage_t = hyper(self._l2_shrinkage, "l2_shrinkage_regularization_strength")
        self._power_t = hyper(self._learning_rate_power, "learning_rate_power")
        # The kernels test lr_power == -0.5 (then √ instead of pow); TF's constructor has
        # compared learning_rate_power with 0.0 already, so its value is known here.
        self._sqrt = constant_value(self._power_t) == -0.5

    def _hypers(self, d: dt.DType) -> tuple[Tensor, ...]:
        ts = (self._lr_t, self._l1_t, self._l2_t, self._shrinkage_t, self._power_t)
        return tuple(cast_to(t, d) for t in ts)

    def _root(self, n: Any, power: Tensor) -> Tensor:
        """n^-p, as the kernel takes it: √n when p is -0.5, else pow."""
        return math.sqrt(n) if self._sqrt else math.pow(n, -power)

    def _shrunk(self, grad: Tensor, var: Any, shrinkage: Tensor) -> Tensor:
        """g̃ = g + 2·l2_shrinkage·var (ApplyFtrlV2), only when l2_shrinkage > 0 as in TF."""
        return grad + 2 * shrinkage * var if self._l2_shrinkage > 0.0 else grad

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        accum, linear = self._slots["accum"][id(var)], self._slots["linear"][id(var)]
        lr, l1, l2, shrinkage, power = self._hypers(var.dtype)
        new_accum = accum + math.square(grad)
        root = self._root(new_accum, power)
        sigma = (root - self._root(accum, power)) / lr
        linear_t = linear.assign_add(self._shrunk(grad, var, shrinkage) - sigma * var)
        x = l1 * math.sign(linear_t) - linear_t
        y = root / lr + 2 * l2
        new_var = array.where(math.abs(linear_t) > l1, x / y, array.zeros_like(x))
        return group(linear_t, var.assign(new_var), accum.assign(new_accum))

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """SparseApplyFtrl[V2], per touched row: the dense formulas, with
        var = (clip(z, -l1, l1) - z) / y (the same numbers as the select).  Rows of one
        element: σ = (pow(n', -p) - pow(n, -p)) / lr (pow even for p = -0.5);
        z = (z + g̃) - σ·var."""
        accum, linear = self._slots["accum"][id(var)], self._slots["linear"][id(var)]
        lr, l1, l2, shrinkage, power = self._hypers(var.dtype)
        g, idx = grad.values, grad.indices
        n, z, v = gather(accum, idx), gather(linear, idx), gather(var, idx)
        new_n = n + g * g
        root = self._root(new_n, power)
        if _row_size(var) > 1:
            sigma = (root - self._root(n, power)) / lr
            new_z = z + (self._shrunk(g, v, shrinkage) - sigma * v)
        else:
            sigma = (math.pow(new_n, -power) - math.pow(n, -power)) / lr
            new_z = (z + self._shrunk(g, v, shrinkage)) - sigma * v
        clipped = math.maximum(math.minimum(new_z, l1), -l1)
        new_v = (clipped - new_z) / (root / lr + 2 * l2)
        return group(
            set_rows(linear, idx, new_z), set_rows(var, idx, new_v), set_rows(accum, idx, new_n)
        )


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, 2012): a = a·ρ + g²·(1 - ρ); u = √(a_u + ε) · rsqrt(a + ε) · g;
    var -= u·lr; a_u = a_u·ρ + u²·(1 - ρ), with slots "accum" (a) and "accum_update" (a_u)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.95,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adadelta",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum")
            self._zeros_slot(v, "accum_update")

    def _prepare(self) -> None:
        c = self._call_if_callable
        self._lr_t = hyper(c(self._lr), "lr")
        self._rho_t = hyper(c(self._rho), "rho")
        self._epsilon_t = hyper(c(self._epsilon), "epsilon")

    def _step(self, accum: Any, accum_update: Any, grad: Tensor, d: dt.DType) -> tuple[Any, ...]:
        """The new accum, the step u·lr and the new accum_update (ApplyAdadelta; the
        sparse kernel computes the same per row)."""
        lr, rho, eps = (cast_to(t, d) for t in (self._lr_t, self._rho_t, self._epsilon_t))
        accum_t = accum * rho + math.square(grad) * (1 - rho)
        update = math.sqrt(accum_update + eps) * math.rsqrt(accum_t + eps) * grad
        return accum_t, update * lr, accum_update * rho + math.square(update) * (1 - rho)

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        accum, accum_update = self._slots["accum"][id(var)], self._slots["accum_update"][id(var)]
        accum_t, step, update_t = self._step(accum, accum_update, grad, var.dtype)
        return group(accum.assign(accum_t), var.assign_sub(step), accum_update.assign(update_t))

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        accum, accum_update = self._slots["accum"][id(var)], self._slots["accum_update"][id(var)]
        idx = grad.indices
        a, u, v = gather(accum, idx), gather(accum_update, idx), gather(var, idx)
        accum_t, step, update_t = self._step(a, u, grad.values, var.dtype)
        return group(
            set_rows(accum, idx, accum_t),
            set_rows(var, idx, v - step),
            set_rows(accum_update, idx, update_t),
        )


class ProximalGradientDescentOptimizer(Optimizer):
    """FOBOS (Duchi et al., 2009) with a fixed rate: v = var - g·lr; with l1 > 0
    var = sign(v)·max(|v| - lr·l1, 0) / (1 + l2·lr), else var = v / (1 + l2·lr)."""

    def __init__(
        self,
        learning_rate: Any,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        use_locking: bool = False,
        name: str = "ProximalGradientDescent",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _prepare(self) -> None:
        self._lr_t = hyper(self._learning_rate, "learning_rate")
        self._l1_t = hyper(self._l1, "l1_regularization_strength")
        self._l2_t = hyper(self._l2, "l2_regularization_strength")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        """TF passes lr, l1 and l2 uncast: a float64 variable needs float64 ones."""
        lr, l1, l2 = self._lr_t, self._l1_t, self._l2_t
        _check_types(
            "ResourceApplyProximalGradientDescent",
            [("var", None), ("alpha", lr), ("l1", l1), ("l2", l2), ("delta", grad)],
        )
        return var.assign(_fobos(var - grad * lr, lr, l1, l2, self._l1_t)).op

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """Per touched row as dense; rows of one element: v = var - lr·g, divided in
        double by 1.0 + l2·lr."""
        lr, l1, l2 = (cast_to(t, var.dtype) for t in (self._lr_t, self._l1_t, self._l2_t))
        g, idx = grad.values, grad.indices
        v = gather(var, idx)
        if _row_size(var) > 1:
            new_v = _fobos(v - g * lr, lr, l1, l2, self._l1_t)
        else:
            new_v = _fobos(v - lr * g, lr, l1, l2, self._l1_t, in_double=True)
        return set_rows(var, idx, new_v).op


class ProximalAdagradOptimizer(Optimizer):
    """FOBOS with Adagrad's rate: a += g²; r = lr·rsqrt(a); v = var - g·r; with l1 > 0
    var = sign(v)·max(|v| - r·l1, 0) / (1 + l2·r), else var = v / (1 + l2·r)."""

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        use_locking: bool = False,
        name: str = "ProximalAdagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._filled_slot(v, "accumulator", self._initial_accumulator_value)

    def _prepare(self) -> None:
        self._lr_t = hyper(self._learning_rate, "learning_rate")
        self._l1_t = hyper(self._l1, "l1_regularization_strength")
        self._l2_t = hyper(self._l2, "l2_regularization_strength")

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        """TF passes lr, l1 and l2 uncast: a float64 variable needs float64 ones."""
        acc = self._slots["accumulator"][id(var)]
        lr, l1, l2 = self._lr_t, self._l1_t, self._l2_t
        _check_types(
            "ResourceApplyProximalAdagrad",
            [("var", None), ("accum", None), ("lr", lr), ("l1", l1), ("l2", l2), ("grad", grad)],
        )
        acc_t = acc + math.square(grad)
        rate = lr * math.rsqrt(acc_t)
        new_var = _fobos(var - grad * rate, rate, l1, l2, self._l1_t)
        return group(acc.assign(acc_t), var.assign(new_var))

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """Per touched row as dense; rows of one element: r = lr / √a, v = var - r·g,
        divided in double by 1.0 + l2·r."""
        acc = self._slots["accumulator"][id(var)]
        lr, l1, l2 = (cast_to(t, var.dtype) for t in (self._lr_t, self._l1_t, self._l2_t))
        g, idx = grad.values, grad.indices
        a, v = gather(acc, idx), gather(var, idx)
        if _row_size(var) > 1:
            a = a + math.square(g)
            rate = lr * math.rsqrt(a)
            new_v = _fobos(v - g * rate, rate, l1, l2, self._l1_t)
        else:
            a = a + g * g
            rate = lr / math.sqrt(a)
            new_v = _fobos(v - rate * g, rate, l1, l2, self._l1_t, in_double=True)
        return group(set_rows(acc, idx, a), set_rows(var, idx, new_v))


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging (Duchi et al., 2011), in closed form from the sums of the
    gradients ("gradient_accumulator", G) and of their squares ("gradient_squared_accumulator",
    S), with t the ``global_step`` tensor's value + 1 (read once per apply_gradients):
    var = -lr·sign(G)·max(|G| - t·l1, 0) / (l2·(t·lr) + √S) if l1 > 0, else
    var = -lr·G / (l2·(t·lr) + √S)."""

    def __init__(
        self,
        learning_rate: Any,
        global_step: Any,
        initial_gradient_squared_accumulator_value: float = 0.1,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        use_locking: bool = False,
        name: str = "AdagradDA",
    ) -> None:
        init = initial_gradient_squared_accumulator_value
        if init <= 0.0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: {init}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = init
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._filled_slot(v, "gradient_accumulator", 0.0)
            init = self._initial_gradient_squared_accumulator_value
            self._filled_slot(v, "gradient_squared_accumulator", init)

    def _prepare(self) -> None:
        self._lr_t = hyper(self._learning_rate, "learning_rate")
        self._l1_t = hyper(self._l1, "l1_regularization_strength")
        self._l2_t = hyper(self._l2, "l2_regularization_strength")
        self._step_t = identity(self._global_step) + 1

    def _slots_and_hypers(self, var: Variable, op_type: str, inputs: list[str]) -> tuple[Any, ...]:
        """G and S, lr, l1 and l2 in var's dtype, after TF's check that t is int64."""
        ins = [(name, self._step_t if name == "global_step" else None) for name in inputs]
        _check_types(op_type, ins)
        lr, l1, l2 = (cast_to(t, var.dtype) for t in (self._lr_t, self._l1_t, self._l2_t))
        ga = self._slots["gradient_accumulator"][id(var)]
        return ga, self._slots["gradient_squared_accumulator"][id(var)], lr, l1, l2

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        """ApplyAdagradDA: t is made a float first (``static_cast<float>``)."""
        ga, gg, lr, l1, l2 = self._slots_and_hypers(var, "ResourceApplyAdagradDA", _DA_DENSE)
        t = cast_to(array.cast(self._step_t, dt.float32), var.dtype)
        ga_t, gg_t = ga + grad, gg + math.square(grad)
        denom = l2 * (t * lr) + math.sqrt(gg_t)
        new_var = _if_positive(
            self._l1_t,
            l1,
            lambda: -lr * math.sign(ga_t) * math.maximum(math.abs(ga_t) - t * l1, 0) / denom,
            lambda: -(lr * ga_t) / denom,
        )
        return group(ga.assign(ga_t), gg.assign(gg_t), var.assign(new_var))

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        """SparseApplyAdagradDA, per touched row: var = -sign(G)·max(|G|/t - l1, 0) /
        (l2 + √S/(t·lr)), or -(G/t) / (l2 + √S/(t·lr)).  Rows of one element: in double,
        G += g, S += g·g (rounded to the dtype once), var = sign(-G)·lr·max(|G| - t·l1, 0)
        / (t·l2·lr + √S), or (-G·lr) / (t·l2·lr + √S)."""
        ga, gg, lr, l1, l2 = self._slots_and_hypers(var, "ResourceSparseApplyAdagradDA", _DA_SPARSE)
        g, idx = grad.values, grad.indices
        rows_g, rows_s = gather(ga, idx), gather(gg, idx)
        if _row_size(var) > 1:
            new_g, new_s, new_v = self._rows(g, rows_g, rows_s, lr, l1, l2)
        else:
            new_g, new_s, new_v = self._scalars(g, rows_g, rows_s, lr, l1, l2)
        return group(set_rows(ga, idx, new_g), set_rows(gg, idx, new_s), set_rows(var, idx, new_v))

    def _rows(self, g: Tensor, ga: Tensor, gg: Tensor, *hypers: Tensor) -> tuple[Tensor, ...]:
        lr, l1, l2 = hypers
        t = array.cast(self._step_t, g.dtype)
        ga, gg = ga + g, gg + math.square(g)
        denom = l2 + math.sqrt(gg) / (t * lr)
        new_v = _if_positive(
            self._l1_t,
            l1,
            lambda: -math.sign(ga) * math.maximum(math.abs(ga) / t - l1, 0) / denom,
            lambda: -(ga / t) / denom,
        )
        return ga, gg, new_v

    def _scalars(self, g: Tensor, ga: Tensor, gg: Tensor, *hypers: Tensor) -> tuple[Tensor, ...]:
        d, f64 = g.dtype, dt.float64
        lr, l1, l2 = (cast_to(h, f64) for h in hypers)
        t, g64 = array.cast(self._step_t, f64), cast_to(g, f64)
        ga = cast_to(cast_to(ga, f64) + g64, d)
        gg = cast_to(cast_to(gg, f64) + g64 * g64, d)
        denom = t * l2 * lr + cast_to(math.sqrt(gg), f64)
        new_v = _if_positive(
            self._l1_t,
            l1,
            lambda: (
                cast_to(math.sign(-ga), f64)
                * lr
                * math.maximum(cast_to(math.abs(ga), f64) - t * l1, 0)
                / denom
            ),
            lambda: cast_to(-ga, f64) * lr / denom,
        )
        return ga, gg, cast_to(new_v, d)


_DA_DENSE = ["var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1"]
_DA_DENSE += ["l2", "global_step"]
_DA_SPARSE = _DA_DENSE[:4] + ["indices"] + _DA_DENSE[4:]


def _row_size(var: Variable) -> int:
    """Elements per row: TF's sparse kernels take their scalar loop when it is 1."""
    return int(np.prod(np.asarray(var.shape.as_list()[1:], dtype=np.int64)))


def _if_positive(
    l1_t: Tensor, l1: Tensor, then: Callable[[], Tensor], otherwise: Callable[[], Tensor]
) -> Tensor:
    """The kernels' ``if (l1 > 0)``: a known l1 (a Python float) picks one formula; a fed
    one picks per element with where (the same numbers)."""
    value = constant_value(l1_t)
    if value is not None:
        return then() if value > 0 else otherwise()
    return array.where(l1 > 0, then(), otherwise())


def _fobos(
    v: Tensor, rate: Tensor, l1: Tensor, l2: Tensor, l1_t: Tensor, in_double: bool = False
) -> Tensor:
    """The proximal step from v = var - rate·g: sign(v)·max(|v| - rate·l1, 0) / (1 + l2·rate)
    when l1 > 0, else v / (1 + l2·rate).  ``in_double``: TF's scalar loop writes the
    denominator ``1.0 + l2 * rate``, a double, so the division is in double too."""
    scale = l2 * rate
    if in_double:
        denom = 1.0 + cast_to(scale, dt.float64)

        def divided(x: Tensor) -> Tensor:
            return cast_to(cast_to(x, dt.float64) / denom, v.dtype)
    else:
        denom = 1 + scale

        def divided(x: Tensor) -> Tensor:
            return x / denom

    return _if_positive(
        l1_t,
        l1,
        lambda: divided(math.sign(v) * math.maximum(math.abs(v) - rate * l1, 0)),
        lambda: divided(v),
    )


_KERNEL_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _check_types(op_type: str, inputs: Sequence[tuple[str, Tensor | None]]) -> None:
    """TF's type check of the training op's inputs that its optimizer passes uncast (None:
    not checked): each must have the dtype of the first (the kernel's T), and
    ``global_step`` must be int64.  A TypeError when the op is built in a graph, an
    InvalidArgumentError when it runs eagerly, each with TF's text."""
    first: tuple[str, dt.DType] | None = None
    for position, (name, x) in enumerate(inputs):
        if x is None:
            continue
        if name == "global_step":
            want, against = dt.int64, None
        elif first is None:
            first = (name, x.dtype)
            continue
        else:
            want, against = first[1], first[0]
        got = x.dtype
        if got == want:
            continue
        if get_default_graph().eager:
            raise InvalidArgumentError(
                f"cannot compute {op_type} as input #{position}(zero-based) was expected to be "
                f"a {_KERNEL_NAMES.get(want.name, want.name)} tensor but is a "
                f"{_KERNEL_NAMES.get(got.name, got.name)} tensor [Op:{op_type}] name: "
            )
        if against is None:
            raise TypeError(
                f"Input '{name}' of '{op_type}' Op has type {got.name} that does not match "
                f"expected type of {want.name}."
            )
        raise TypeError(
            f"Input '{name}' of '{op_type}' Op has type {got.name} that does not match type "
            f"{want.name} of argument '{against}'."
        )
