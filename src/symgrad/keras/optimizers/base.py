"""``tf.keras.optimizers.Optimizer``: Keras 3's optimizer base, as TF 2.21 ships it.

The order of work in ``apply`` is Keras's: build the slot variables on the first call, drop
None gradients (with Keras's warning), clip, apply weight decay, run each variable's
``update_step`` with the learning rate of the current iteration, then add one to
``iterations``.  Updates are Variable assigns, so the same optimizer runs eagerly and
inside a ``function``; each ``update_step`` uses the value an assign returns rather than a
new read, so the order is explicit in a graph too.

Keras 3 has no ``minimize``; symgrad keeps Keras 2's ``minimize(loss, var_list, tape=None)``
(a loss function or a tensor and its tape) because TF2 programs written before Keras 3
call it.
"""

from __future__ import annotations

import collections
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.api.clip_ops import clip_by_norm, clip_by_value
from symgrad.autodiff.tape import GradientTape
from symgrad.control_flow.cond import cond
from symgrad.core import dtypes as dt
from symgrad.core.context import current, executing_eagerly
from symgrad.core.eager import EagerTensor
from symgrad.core.graph import Tensor, name_scope, user_frame
from symgrad.distribute.distribute_lib import replica_to_sync
from symgrad.keras.optimizers import schedules, sparse
from symgrad.keras.optimizers.schedules import LearningRateSchedule
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.control import control_dependencies
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.sparse.indexed_slices import IndexedSlices, dense
from symgrad.ops.state.variables import Variable
from symgrad.train.variable_io import assign_values, check_values

_TENSORS = (Tensor, EagerTensor)  # (``_gradient``'s: a tensor is its own)
_NAME_UIDS: collections.defaultdict[str, int] = collections.defaultdict(int)


def _auto_name(cls_name: str) -> str:
    """Keras's ``auto_name``: the class name in snake case, numbered after the first."""
    name = re.sub(r"\W+", "", cls_name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
    count = _NAME_UIDS[name]
    _NAME_UIDS[name] += 1
    return name if count == 0 else f"{name}_{count}"


class Optimizer:
    """Base of Keras's optimizers: subclasses write ``build`` and
    ``update_step(gradient, variable, learning_rate)``."""

    def __init__(
        self,
        learning_rate: Any,
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
        if kwargs.pop("decay", None) is not None:
            warnings.warn(
                "Argument `decay` is no longer supported and will be ignored.", stacklevel=2
            )
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        _check_ema_and_accumulation(
            use_ema, ema_momentum, ema_overwrite_frequency, gradient_accumulation_steps
        )
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be "
                f"set. Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                f"global_clipnorm={global_clipnorm}"
            )
        self.name = name if name is not None else _auto_name(type(self).__name__)
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.use_ema, self.ema_momentum = use_ema, ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._own_code = False  # (set by build)
        self._variables: list[Variable] = []
        self._trainable_variables: list[Any] = []
        self._index: dict[int, int] = {}
        self._pending: dict[int, np.ndarray] = {}  # restored before build (see checkpoint)
        self._iterations = self.add_variable((), "zeros", dt.int64, name="iteration")
        self._learning_rate = self._checked_learning_rate(learning_rate)

    def _checked_learning_rate(self, learning_rate: Any) -> Any:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if not isinstance(learning_rate, float):
            raise ValueError(
                "Argument `learning_rate` should be float, or an instance of "
                "LearningRateSchedule, or a callable (that takes in the current iteration "
                "value and returns the corresponding learning rate value). Received instead: "
                f"learning_rate={learning_rate}"
            )
        return self.add_variable((), learning_rate, dt.float32, name="learning_rate")

    # -- variables
    def add_variable(
        self,
        shape: Any,
        initializer: Any = "zeros",
        dtype: Any = None,
        aggregation: str = "none",
        layout: Any = None,
        name: str | None = None,
    ) -> Variable:
        """An optimizer variable ``<optimizer>/<name>``, filled with zeros, ones or a value."""
        d = dt.as_dtype(dtype) if dtype is not None else dt.float32
        dims = [int(n) for n in shape]
        fill = {"zeros": 0, "ones": 1}.get(initializer, initializer)
        if callable(fill):
            raise NotImplementedError(
                "symgrad's Keras optimizers take 'zeros', 'ones' or a "
                "number as a variable's initializer"
            )
        with name_scope(None):
            v = Variable(
                lambda: array.fill(dims, convert_to_tensor(fill, dtype=d)),
                trainable=False,
                name=f"{self.name}/{name or 'Variable'}",
                dtype=d,
            )
        v.path = f"{self.name}/{name}"  # type: ignore[attr-defined]
        self._variables.append(v)
        self._restore_pending(len(self._variables) - 1, v)
        return v

    def add_variable_from_reference(
        self, reference_variable: Any, name: str | None = None, initializer: Any = "zeros"
    ) -> Variable:
        """A variable shaped as ``reference_variable``, named ``<its name>_<name>`` (Keras's
        ``w_0_momentum`` for a variable ``w:0``)."""
        name = name or "var"
        path = getattr(reference_variable, "path", None)
        ref = (
            path.replace("/", "_")
            if path
            else str(reference_variable.name).replace("/", "_").replace(":", "_")
        )
        return self.add_variable(
            reference_variable.shape, initializer, reference_variable.dtype, name=f"{ref}_{name}"
        )

    def add_optimizer_variables(
        self, trainable_variables: Sequence[Any], name: Any, initializer: Any = "zeros"
    ) -> Any:
        """One variable per trainable variable and name, interleaved as Keras makes them;
        a list for one name, a tuple of lists for several (with one initializer for all,
        or a list of one per name)."""
        names = [name] if isinstance(name, str) else list(name)
        several = not isinstance(name, str) and isinstance(initializer, list | tuple)
        inits = list(initializer) if several else [initializer] * len(names)
        if len(inits) != len(names):
            raise ValueError(
                "The number of provided names must match the number of provided "
                f"initializers.  Received name='{name}', initializer='{initializer}'"
            )
        out: tuple[list[Variable], ...] = tuple([] for _ in names)
        for v in trainable_variables:
            for i, (n, init) in enumerate(zip(names, inits)):
                out[i].append(self.add_variable_from_reference(v, n, init))
        return out[0] if isinstance(name, str) else out

    def build(self, variables: Sequence[Any]) -> None:
        """Make the slot variables for ``variables`` (subclasses add theirs after this):
        Keras's order, the moving averages (``use_ema``) first, then the gradient
        accumulators (``gradient_accumulation_steps``)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(
                variables, "average"
            )
        self._accumulated_gradients = [
            self.add_variable_from_reference(v, name="gradient_accumulator")
            for v in (variables if self.gradient_accumulation_steps else ())
        ]
        for i, v in enumerate(variables):
            self._index[id(v)] = i
        self._trainable_variables = list(variables)
        # (``_own_step``: this class and the variables' are the package's)
        self._own_code = _own(type(self)) and all(_own(type(v)) for v in variables)
        self.built = True

    @property
    def variables(self) -> list[Variable]:
        return self._variables[:]

    @property
    def iterations(self) -> Any:
        """The steps applied: with ``gradient_accumulation_steps``, the calls to ``apply``
        floor-divided by it (a tensor, as Keras's); else the ``iteration`` variable."""
        if self.gradient_accumulation_steps:
            return math.floordiv(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    def _get_variable_index(self, variable: Any) -> int:
        return self._index[id(variable)]

    # -- the learning rate
    @property
    def learning_rate(self) -> Any:
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations)
        if isinstance(lr, Variable):
            return lr
        return lr() if callable(lr) else lr

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> None:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object "
                "as its `learning_rate` constructor argument, hence its learning "
                "rate is not settable. If you need the learning rate to be "
                "settable, you should instantiate the optimizer with a float "
                "`learning_rate` argument."
            )
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(learning_rate)
        else:
            self._learning_rate = self._checked_learning_rate(float(learning_rate))

    def scale_loss(self, loss: Any) -> Any:
        """The loss a training step differentiates: times ``loss_scale_factor`` when set."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    # -- applying gradients
    def apply_gradients(self, grads_and_vars: Any) -> Variable:
        grads, variables = zip(*grads_and_vars)
        self.apply(list(grads), list(variables))
        return self._iterations

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        """Update the variables from their gradients (see the module docstring's order)."""
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must "
                    "already be built on a list of variables. Call "
                    "`optimizer.build(trainable_variables)` first. "
                )
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                self.build(trainable_variables)
            self._check_variables_are_known(trainable_variables)
        grads, variables = self._filter_empty_gradients(list(grads), list(trainable_variables))
        if grads:
            if self.loss_scale_factor is not None:
                grads = [sparse.div(g, self.loss_scale_factor) for g in grads]
            grads = [g if type(g) in _TENSORS else self._gradient(g) for g in grads]
            if not self.gradient_accumulation_steps:  # else the average is clipped
                grads = self._clip_gradients(grads)
        replica = replica_to_sync()
        if replica is None:
            self._update(grads, variables)
            return
        # Keras's TF backend under a strategy: the replicas' gradients summed, then the
        # variables (one mirrored variable each) updated once, in cross-replica context.
        summed = replica.all_reduce("SUM", [dense(g) for g in grads]) if grads else []
        replica.merge_call(lambda _strategy: self._update(summed, variables))

    def _update(self, grads: list[Any], variables: list[Any]) -> None:
        """Keras's ``_backend_apply_gradients``, then the constraints and ``iterations``.

        Where only the package's code runs here (``_own_step``, and no constraint), every
        op it makes is made at the line that called the optimizer: that line is found once
        (the frame pinned, as for a built-in gradient rule's ops), not walked to from each
        op."""
        constrained = [v for v in variables if getattr(v, "constraint", None) is not None]
        ctx = current
        pinned = not constrained and ctx.frame is None and self._own_step()
        if pinned:
            ctx.frame = user_frame()
        try:
            self._update_now(grads, variables, constrained)
        finally:
            if pinned:
                ctx.frame = None

    def _update_now(self, grads: list[Any], variables: list[Any], constrained: list[Any]) -> None:
        updates: list[Any] = []
        if grads:
            if self.gradient_accumulation_steps:
                updates.append(self._accumulate(grads, variables))
            else:
                updates += self._step(grads, variables)
            if self.use_ema:
                updates += self._moving_average(updates)
            updates += self._apply_constraints(updates, constrained)
        one = convert_to_tensor(1, dtype=dt.int64)
        if executing_eagerly():  # the updates have run (TF's control_dependencies does
            self._iterations.assign_add(one)  # nothing eagerly; here it would build
            return  # each update's op, for nothing)
        with control_dependencies([u for u in updates if u is not None]):
            self._iterations.assign_add(one)

    def _step(self, grads: list[Any], variables: list[Any]) -> list[Any]:
        """Weight decay, then each variable's ``update_step`` (gradients already clipped)."""
        updates = self._apply_weight_decay(variables)
        learning_rate = self.learning_rate
        for g, v in zip(grads, variables):
            updates.append(self.update_step(g, v, learning_rate))
        return updates

    def _own_step(self) -> bool:
        """Does ``_update`` run only the package's code (eagerly)?  The optimizer's class and
        its variables' (``build``'s: every variable it updates) are the package's, and
        the learning rate is its variable (not a schedule or callable of the user's)."""
        return self._own_code and type(self._learning_rate) is Variable and executing_eagerly()

    def _accumulate(self, grads: list[Any], variables: list[Any]) -> Tensor:
        """Keras's gradient accumulation: on every ``steps``-th call (``iteration + 1``
        divisible by it) the step runs with ``(g + accumulated) / steps``, clipped, and the
        accumulators go back to zero; on the others the gradient is added to them."""
        steps = int(self.gradient_accumulation_steps)  # type: ignore[arg-type]
        accumulated = [self._accumulated_gradients[self._get_variable_index(v)] for v in variables]
        is_update_step = math.equal(math.floormod(math.add(self._iterations, 1), steps), 0)
        dense_grads = [dense(g) for g in grads]

        def update() -> Tensor:
            averaged = [(g + a) / steps for g, a in zip(dense_grads, accumulated)]
            done = self._step(self._clip_gradients(averaged), variables)
            with control_dependencies([u for u in done if u is not None]):
                done = [a.assign(array.zeros_like(a)) for a in self._accumulated_gradients]
            return _after(done)

        def increment() -> Tensor:
            return _after([a.assign(g + a) for g, a in zip(dense_grads, accumulated)])

        return cond(is_update_step, update, increment)  # type: ignore[no-any-return]

    def _moving_average(self, updates: list[Any]) -> list[Any]:
        """Keras's EMA of every trainable variable, after the step: ``average = m·average +
        (1 - m)·variable`` with ``m = ema_momentum``, 0 while ``iterations`` is 0; every
        ``ema_overwrite_frequency``-th step (``iterations + 1`` divisible by it) the
        variables are overwritten with their averages."""
        with control_dependencies([u for u in updates if u is not None]):
            done = []
            for v, average in zip(self._trainable_variables, self._model_variables_moving_average):
                not_first_step = math.not_equal(self.iterations, 0)
                momentum = math.multiply(array.cast(not_first_step, v.dtype), self.ema_momentum)
                done.append(
                    average.assign(
                        math.add(
                            math.multiply(momentum, average),
                            math.multiply(math.subtract(1, momentum), v),
                        )
                    )
                )
        frequency = self.ema_overwrite_frequency
        if not frequency:
            return done
        with control_dependencies(done):
            overwrite = math.equal(math.floormod(self.iterations + 1, frequency), 0)
            return [
                cond(
                    overwrite,
                    lambda: _after(self._overwrite_with_average(self._trainable_variables)),
                    lambda: _after([]),
                )
            ]

    def _overwrite_with_average(self, variables: Sequence[Any]) -> list[Any]:
        if len(variables) != len(self._model_variables_moving_average):
            raise ValueError(
                f"The length of model variables ({len(variables)}) to override does not "
                "match the length of model variables stored in the optimizer "
                f"({len(self._model_variables_moving_average)}). Please check if the "
                "optimizer was called on your model."
            )
        return [v.assign(a) for v, a in zip(variables, self._model_variables_moving_average)]

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        """With ``use_ema``, ``var_list`` overwritten with its moving averages (``fit``
        calls this at the end of training)."""
        if self.use_ema:
            self._overwrite_with_average(list(var_list))

    def _apply_constraints(self, updates: list[Any], constrained: list[Any]) -> list[Any]:
        """A Keras layer's ``kernel_constraint``: the variable projected after its update
        (``constrained``: the updated variables that have one)."""
        if not constrained:
            return []
        with control_dependencies([u for u in updates if u is not None]):
            return [v.assign(v.constraint(v)) for v in constrained]

    def _gradient(self, g: Any) -> Any:
        """A gradient as the update step takes it: an IndexedSlices stays sparse (the
        update steps treat it as Keras does, see ``sparse.py``), anything else a Tensor."""
        return g if isinstance(g, IndexedSlices) else convert_to_tensor(g)

    def minimize(self, loss: Any, var_list: Any, tape: GradientTape | None = None) -> Variable:
        """Keras 2's minimize: gradients of ``loss`` (a function, or a tensor recorded on
        ``tape``) w.r.t. ``var_list`` (a list or a function returning one), then applied."""
        if not callable(loss) and tape is None:
            raise ValueError(
                "`tape` is required when a `Tensor` loss is passed. "
                f"Received: loss={loss}, tape={tape}."
            )
        if callable(loss):
            tape = GradientTape()
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
        variables = var_list() if callable(var_list) else var_list
        grads = tape.gradient(loss, variables)  # type: ignore[union-attr]
        return self.apply_gradients(zip(grads, variables))

    def _check_variables_are_known(self, variables: Sequence[Any]) -> None:
        for v in variables:
            if id(v) not in self._index:
                raise ValueError(
                    f"Unknown variable: {v}. This optimizer can only be called for "
                    "the variables it was originally built with. When working "
                    "with a new set of variables, you should recreate a new "
                    "optimizer instance."
                )

    def _filter_empty_gradients(
        self, grads: list[Any], variables: list[Any]
    ) -> tuple[list[Any], list[Any]]:
        missing = [
            getattr(v, "path", None) or v.name for g, v in zip(grads, variables) if g is None
        ]
        if not missing and grads and len(grads) == len(variables):  # (the common case)
            return grads, variables
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        if missing:
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the "
                "loss. If using `model.compile()`, did you forget to provide a "
                "`loss` argument?",
                stacklevel=3,
            )
        return [g for g, _ in kept], [v for _, v in kept]

    def _clip_gradients(self, grads: list[Tensor]) -> list[Tensor]:
        if self.clipnorm and self.clipnorm > 0:
            return [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _keras_clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            return [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    # -- weight decay
    def exclude_from_weight_decay(
        self, var_list: Sequence[Any] | None = None, var_names: Sequence[str] | None = None
    ) -> None:
        """Variables (or names containing any of ``var_names``) that weight decay skips."""
        if self.built:
            raise ValueError(
                "`exclude_from_weight_decay()` can only be configured before the "
                "optimizer is built."
            )
        self._excluded = {id(v) for v in var_list or ()}
        self._excluded_pattern = re.compile("|".join(set(var_names))) if var_names else None

    def _use_weight_decay(self, variable: Any) -> bool:
        if id(variable) in getattr(self, "_excluded", ()):
            return False
        pattern = getattr(self, "_excluded_pattern", None)
        return pattern is None or re.search(pattern, variable.name) is None

    def _apply_weight_decay(self, variables: Sequence[Any]) -> list[Any]:
        """var -= var · wd · lr (Keras's TF backend), before the update step."""
        if self.weight_decay is None:
            return []
        done = []
        for v in variables:
            if self._use_weight_decay(v):
                lr = array.cast(self.learning_rate, v.dtype)
                wd = array.cast(self.weight_decay, v.dtype)
                done.append(v.assign_sub(v * wd * lr))
        return done

    def update_step(self, gradient: Tensor, variable: Any, learning_rate: Any) -> Any:
        raise NotImplementedError

    # Keras's helpers for custom optimizers' update_step
    # (an IndexedSlices value updates the rows it names, as Keras's TF backend does)
    def assign(self, variable: Variable, value: Any) -> Tensor:
        return sparse.assign(variable, value)  # type: ignore[no-any-return]

    def assign_add(self, variable: Variable, value: Any) -> Tensor:
        return sparse.assign_add(variable, value)  # type: ignore[no-any-return]

    def assign_sub(self, variable: Variable, value: Any) -> Tensor:
        return sparse.assign_sub(variable, value)  # type: ignore[no-any-return]

    # -- configuration and state
    def get_config(self) -> dict[str, Any]:
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            learning_rate: Any = schedules.serialize(lr)
        elif isinstance(lr, Variable):
            learning_rate = float(lr.numpy())
        else:
            learning_rate = lr
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        """``cls(**config)``, a learning rate schedule (``get_config``'s dict) made again
        first, as Keras's."""
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            config = {**config, "learning_rate": schedules.deserialize(lr, custom_objects)}
        return cls(**config)

    # -- checkpoints: the variables by creation index; slots restored before build wait
    def _checkpoint_children(self) -> list[tuple[str, Any]]:
        return [(str(i), v) for i, v in enumerate(self._variables)]

    def _checkpoint_defer(self, key: str, value: np.ndarray) -> bool:
        if not key.isdigit() or int(key) < len(self._variables):
            return False
        self._pending[int(key)] = value
        return True

    def _checkpoint_pending(self) -> int:
        return len(self._pending)

    def _restore_pending(self, index: int, v: Variable) -> None:
        """A value a checkpoint restored before this variable existed (set on creation)."""
        value = self._pending.pop(index, None)
        if value is not None:
            check_values([(f"{self.name} variable {index}", v, value)])
            assign_values([(v, value)])  # in the variable's graph, even while tracing


_OWN: dict[type, bool] = {}


def _own(cls: type) -> bool:
    """Is ``cls`` one of the package's classes (not a user's subclass)?  Remembered."""
    own = _OWN.get(cls)
    if own is None:
        own = _OWN[cls] = cls.__module__.startswith("symgrad.")
    return own


def _after(updates: list[Any]) -> Tensor:
    """A scalar that depends on ``updates``: a ``cond`` branch's output."""
    with control_dependencies([u for u in updates if u is not None]):
        return identity(convert_to_tensor(0, dtype=dt.int64))


def _check_ema_and_accumulation(
    use_ema: bool, momentum: float, frequency: Any, accumulation_steps: Any
) -> None:
    """Keras's checks of ``gradient_accumulation_steps`` and the EMA arguments."""
    if accumulation_steps and not accumulation_steps >= 2:
        raise ValueError(
            "`gradient_accumulation_steps` must be an integer >= 2. "
            f"Received: gradient_accumulation_steps={accumulation_steps}"
        )
    if not use_ema:
        return
    if momentum > 1 or momentum < 0:
        raise ValueError(
            f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={momentum}"
        )
    if frequency and (not isinstance(frequency, int) or frequency < 1):
        raise ValueError(
            "`ema_overwrite_frequency` must be an integer >= 1 or None. "
            f"Received: ema_overwrite_frequency={frequency}"
        )


_OPTIONS = (
    "weight_decay",
    "clipnorm",
    "clipvalue",
    "global_clipnorm",
    "use_ema",
    "ema_momentum",
    "ema_overwrite_frequency",
    "loss_scale_factor",
    "gradient_accumulation_steps",
    "name",
)


def base_options(arguments: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments every Keras optimizer passes on to ``Optimizer.__init__``,
    picked out of a subclass constructor's ``locals()``."""
    return {k: arguments[k] for k in _OPTIONS}


def _keras_clip_by_global_norm(values: list[Tensor], clip_norm: float) -> list[Tensor]:
    """Keras's own version (``sum(square)``, not TF's ``l2_loss``): the global_clipnorm path.
    An IndexedSlices is squared as slices, then densified by the sum (as Keras does), and
    comes out dense from the scaling."""
    use_norm = math.sqrt(
        reduction.reduce_sum(stack([reduction.reduce_sum(sparse.square(v)) for v in values]))
    )
    scale_for_finite = clip_norm * math.minimum(1.0 / use_norm, 1.0 / clip_norm)
    scale = scale_for_finite + (use_norm - use_norm)
    return [v * scale for v in values]
