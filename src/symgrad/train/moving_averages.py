"""``tf.train.ExponentialMovingAverage`` and ``assign_moving_average``, as TF's
``moving_averages.py``: each tracked variable gets a shadow variable (``<var>/<name>``,
not trainable, starting at the variable's value) and ``apply()`` returns one op that
moves every shadow towards its variable: ``avg -= (avg - var) * (1 - decay)``, with
``decay = min(decay, (1 + n) / (10 + n))`` when ``num_updates`` (n) is given.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.variable_scope import GraphKeys, add_to_collection, get_collection
from symgrad.core import dtypes as dt
from symgrad.core.graph import Operation, Tensor, name_scope
from symgrad.ops import control, core
from symgrad.ops.array import structure as array
from symgrad.ops.math import elementwise as math
from symgrad.ops.state.variables import Variable

_FLOATS = (dt.float16, dt.float32, dt.float64)


def assign_moving_average(
    variable: Any, value: Any, decay: Any, zero_debias: bool = True, name: str | None = None
) -> Tensor:
    """``variable -= (variable - value) * (1 - decay)``; its new value."""
    if zero_debias:
        raise NotImplementedError(
            "assign_moving_average(zero_debias=True) is not implemented in symgrad yet; "
            "pass zero_debias=False (ExponentialMovingAverage's default)"
        )
    with name_scope(name, "AssignMovingAvg") as scope:
        d = math.subtract(1.0, core.convert_to_tensor(decay))
        if d.dtype is not variable.dtype:
            d = array.cast(d, variable.dtype)
        step = math.multiply(math.subtract(variable, value), d)
        return variable.assign_sub(step, name=scope)


class ExponentialMovingAverage:
    """Shadow variables that follow ``var_list``'s moving averages (TF's class)."""

    def __init__(
        self,
        decay: Any,
        num_updates: Any = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        self._decay, self._num_updates = decay, num_updates
        self._zero_debias, self._name = zero_debias, name
        self._averages: dict[int, tuple[Any, Variable]] = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Any = None) -> Operation:
        """Create the shadow variables (once per variable) and return the op that moves
        them (eagerly: move them now)."""
        from symgrad.api.variable_scope import trainable_variables

        var_list = list(trainable_variables() if var_list is None else var_list)
        for v in var_list:
            if v.dtype not in _FLOATS:
                raise TypeError(
                    "The variables must be half, float, or double: "
                    f"{v.name} has dtype {v.dtype.name}"
                )
        for v in var_list:  # a second apply (each eager step) moves the same shadows again
            if id(v) not in self._averages:
                self._averages[id(v)] = (v, self._shadow(v))
        with name_scope(self._name) as scope:
            decay = core.convert_to_tensor(self._decay, dtype=dt.float32, name="decay")
            if self._num_updates is not None:
                n = array.cast(self._num_updates, dt.float32, name="num_updates")
                decay = math.minimum(decay, math.divide(1.0 + n, 10.0 + n))
            updates = [
                assign_moving_average(self._averages[id(v)][1], v, decay, self._zero_debias)
                for v in var_list
            ]
            return control.group(*updates, name=scope)

    def _shadow(self, var: Any) -> Variable:
        if not isinstance(var, Variable):
            raise TypeError(f"ExponentialMovingAverage in symgrad tracks Variables, got {var!r}")
        graph = var.graph
        with graph.as_default(), graph.control_dependencies(None):  # TF's init_scope
            initial = var.read_value() if var.is_initialized() else var.initial_value
            with name_scope(None):
                avg = Variable(initial, trainable=False, name=f"{var._op_name}/{self._name}")
        add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
        return avg

    def average(self, var: Any) -> Variable | None:
        """The shadow variable of ``var`` (None when ``apply`` has not tracked it)."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var: Any) -> str:
        """The shadow variable's name without ``:0`` (what a Saver stores it as)."""
        avg = self.average(var)
        if avg is not None:
            return avg.name[: -len(":0")]
        return f"{var.name[: -len(':0')]}/{self._name}"

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Any]:
        """``{name in the checkpoint: variable}`` that restores each variable from its
        moving average (and every other global variable from itself)."""
        from symgrad.api.variable_scope import global_variables, trainable_variables

        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        tracked = {id(v): v for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in tracked.values()}
        tracked_names = {v.name for v in tracked.values()}
        for v in global_variables():
            op_name = v.name[: -len(":0")]
            if v.name not in tracked_names and op_name not in name_map:
                name_map[op_name] = v
        return name_map


def moving_average_variables(scope: str | None = None) -> list[Any]:
    """``tf.compat.v1.moving_average_variables``: the variables an EMA tracks."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)
