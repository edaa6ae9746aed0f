"""The global step (``tf.compat.v1.train.get_or_create_global_step``) and TF1's learning
rate decays, which read it.

The global step is an int64 scalar variable named ``global_step`` in the graph's
``GLOBAL_STEP`` collection, made by ``get_variable`` (so, as in a TF1 graph, one per graph;
symgrad's top level is such a graph too).

``exponential_decay`` and ``piecewise_constant`` return, as TF does, a tensor in graph code
(read by each Session run) and a function of no arguments in eager code (so each step sees
the current step).  At symgrad's top level, TF1 code (after
``compat.v1.disable_eager_execution()``) gets the tensor, TF2 code the function.
"""

from __future__ import annotations

import functools
from typing import Any

from symgrad.api.init_ops import zeros_initializer
from symgrad.api.variable_scope import GraphKeys, get_collection, get_variable
from symgrad.core import dtypes as dt
from symgrad.core.graph import Graph, Tensor, get_default_graph, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import seeded as _random
from symgrad.ops.state.variables import Variable
from symgrad.train.variable_io import outermost


def get_global_step(graph: Graph | None = None) -> Variable | None:
    """The graph's global step variable, or None."""
    with (graph or get_default_graph()).as_default():
        found = get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError(
            "There are multiple items in collection global_step: there should be "
            "only one global step."
        )
    return found[0] if found else None


def create_global_step(graph: Graph | None = None) -> Variable:
    """A new int64 ``global_step`` variable at 0 (an error if the graph has one)."""
    graph = outermost(graph or get_default_graph())
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), name_scope(None):
        return get_variable(
            GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=dt.int64,
            initializer=zeros_initializer(),
            trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph: Graph | None = None) -> Variable:
    return get_global_step(graph) or create_global_step(graph)


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The step's value as a Python int, read in ``sess``."""
    return int(sess.run(global_step_tensor))


def _graph_code() -> bool:
    """Whether TF would be building a graph here (a tensor, not a function, is wanted)."""
    graph = get_default_graph()
    return not graph.eager or _random._Context.graph_rules


def _exponential(
    learning_rate: Any,
    step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool,
    name: str | None,
) -> Tensor:
    """lr · rate^(step / decay_steps) (the exponent floored when ``staircase``), computed
    as TF's schedule does: in the learning rate's dtype, the step cast to it."""
    with name_scope(name or "ExponentialDecay"):
        lr = convert_to_tensor(learning_rate)
        d = lr.dtype
        p = array.cast(step, d) / array.cast(decay_steps, d)
        if staircase:
            p = math.floordiv(p, convert_to_tensor(1, dtype=d))  # floor(p): p / 1 is exact
        return math.multiply(lr, math.pow(array.cast(decay_rate, d), p))


def exponential_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Any:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``."""
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    decayed = functools.partial(
        _exponential, learning_rate, global_step, decay_steps, decay_rate, staircase, name
    )
    return decayed() if _graph_code() else decayed


def _piecewise(x: Any, boundaries: list[Any], values: list[Any], name: str | None) -> Tensor:
    with name_scope(name or "PiecewiseConstant"):
        step = convert_to_tensor(x)
        bounds = [
            b if b.dtype is step.dtype else array.cast(b, step.dtype)
            for b in map(convert_to_tensor, boundaries)
        ]
        vals = [convert_to_tensor(v) for v in values]
        result = vals[-1]
        # Checked from the last interval down, so the first matching one wins, as TF's case.
        for b, v in reversed(list(zip(bounds, vals[:-1]))):
            result = array.where(step <= b, v, result)
        return result


def piecewise_constant(x: Any, boundaries: Any, values: Any, name: str | None = None) -> Any:
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]`` (first and last open)."""
    boundaries, values = list(boundaries), list(values)
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    dtypes = {convert_to_tensor(v).dtype for v in values}
    if len(dtypes) > 1:
        raise ValueError(
            "Values must have elements all with the same dtype "
            f"({' vs '.join(sorted(d.name for d in dtypes))})."
        )
    decayed = functools.partial(_piecewise, x, boundaries, values, name)
    return decayed() if _graph_code() else decayed
