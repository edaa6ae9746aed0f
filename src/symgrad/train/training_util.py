"""The global step (``tf.compat.v1.train.get_or_create_global_step``) and TF1's learning
rate decays, which read it.

The global step is an int64 scalar variable named ``global_step`` in the graph's
``GLOBAL_STEP`` collection, made by ``get_variable`` (so, as in a TF1 graph, one per graph;
symgrad's top level is such a graph too).

The decays (``exponential_decay``, ``piecewise_constant``, ``polynomial_decay``,
``cosine_decay`` ...) return, as TF does, a tensor in graph code (read by each Session
run) and a function of no arguments in eager code (so each step sees the current step).
At symgrad's top level, TF1 code (after ``compat.v1.disable_eager_execution()``) gets the
tensor, TF2 code the function.  Each computes as TF 2.21's schedule classes do, op for op
in the learning rate's dtype (so the same float32 roundings), with the same name scopes;
``pi`` is a float32 constant in the cosine ones, as in TF (a float64 learning rate fails
there, as in TF).  The values are TF's eager ones, and a TF1 Session's without Grappler:
TF's default Session folds ``x / constant`` into ``x * (1 / constant)``, which rounds
differently (``ceil(150 / 30)`` becomes 6 in ``polynomial_decay(cycle=True)``); symgrad's
runtime does not make that rewrite.
"""

from __future__ import annotations

import functools
import math as _math
from collections.abc import Callable
from typing import Any

from symgrad.api.init_ops import zeros_initializer
from symgrad.api.variable_scope import GraphKeys, get_collection, get_variable
from symgrad.control_flow.cond import cond
from symgrad.core import dtypes as dt
from symgrad.core.graph import Graph, Tensor, get_default_graph, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.cast_select import where
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.rounding import ceil, floor
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
    with name_scope(name or "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate)
        d = lr.dtype
        p = array.cast(step, d) / array.cast(decay_steps, d)
        if staircase:
            p = math.floordiv(p, convert_to_tensor(1, dtype=d))  # floor(p): p / 1 is exact
        return math.multiply(lr, math.pow(array.cast(decay_rate, d), p), name=scope)


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


piecewise_constant_decay = piecewise_constant


def _schedule(compute: Callable[..., Tensor], *args: Any) -> Any:
    """``compute(*args)`` now in graph code, or the function that computes it (eager)."""
    decayed = functools.partial(compute, *args)
    return decayed() if _graph_code() else decayed


def _start(learning_rate: Any) -> tuple[Tensor, Callable[[Any], Tensor]]:
    """The learning rate as a tensor and a cast to its dtype (TF's first lines)."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    return lr, lambda v: array.cast(v, lr.dtype)


def _polynomial(
    lr: Any, step: Any, steps: Any, end: Any, power: Any, cycle: bool, name: Any
) -> Tensor:
    with name_scope(name or "PolynomialDecay") as scope:
        lr, c = _start(lr)
        end, power, step_f, steps_f = c(end), c(power), c(step), c(steps)
        if cycle:  # the first multiple of decay_steps past the step (1 at step 0)
            multiplier = where(math.equal(step_f, 0), 1.0, ceil(step_f / steps))
            steps_f = math.multiply(steps_f, multiplier)
        else:
            step_f = math.minimum(step_f, steps_f)
        p = math.divide(step_f, steps_f)
        return math.add(math.multiply(lr - end, math.pow(1 - p, power)), end, name=scope)


def polynomial_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    end_learning_rate: Any = 0.0001,
    power: Any = 1.0,
    cycle: bool = False,
    name: str | None = None,
) -> Any:
    """``(lr - end) * (1 - step / decay_steps) ** power + end``, the step held at
    ``decay_steps`` (or, with ``cycle``, ``decay_steps`` raised to the next multiple)."""
    return _schedule(
        _polynomial, learning_rate, global_step, decay_steps, end_learning_rate, power, cycle, name
    )


def _cosine(lr: Any, step: Any, steps: Any, alpha: Any, name: Any) -> Tensor:
    with name_scope(name or "CosineDecay"):
        lr, c = _start(lr)
        steps_f = c(steps)
        fraction = math.minimum(c(step), steps_f) / steps_f
        cosine_decayed = 0.5 * (1.0 + math.cos(constant(_math.pi) * fraction))
        return math.multiply(lr, (1 - alpha) * cosine_decayed + alpha)


def cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    alpha: Any = 0.0,
    name: str | None = None,
) -> Any:
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)``, the step
    held at ``decay_steps``."""
    return _schedule(_cosine, learning_rate, global_step, decay_steps, alpha, name)


def _restarts(
    lr: Any, step: Any, first: Any, t_mul: Any, m_mul: Any, alpha: Any, name: Any
) -> Tensor:
    with name_scope(name or "SGDRDecay") as scope:
        lr, c = _start(lr)
        first, alpha, t_mul, m_mul = c(first), c(alpha), c(t_mul), c(m_mul)
        fraction = c(step) / first

        def restart(geometric: bool) -> tuple[Tensor, Tensor]:
            if geometric:  # periods of first, first·t, first·t²: which one, and how far
                i = floor(math.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
                done = (1.0 - t_mul**i) / (1.0 - t_mul)
                return i, (fraction - done) / t_mul**i
            i = floor(fraction)
            return i, fraction - i

        i, fraction = cond(math.equal(t_mul, 1.0), lambda: restart(False), lambda: restart(True))
        cosine_decayed = 0.5 * m_mul**i * (1.0 + math.cos(constant(_math.pi) * fraction))
        return math.multiply(lr, (1 - alpha) * cosine_decayed + alpha, name=scope)


def cosine_decay_restarts(
    learning_rate: Any,
    global_step: Any,
    first_decay_steps: Any,
    t_mul: Any = 2.0,
    m_mul: Any = 1.0,
    alpha: Any = 0.0,
    name: str | None = None,
) -> Any:
    """Cosine decay from 1 to ``alpha`` over ``first_decay_steps``, then again over periods
    ``t_mul`` times longer, each starting ``m_mul`` times lower (SGDR)."""
    return _schedule(
        _restarts, learning_rate, global_step, first_decay_steps, t_mul, m_mul, alpha, name
    )


def _linear_cosine(
    lr: Any, step: Any, steps: Any, periods: Any, alpha: Any, beta: Any, noise: Any, name: Any
) -> Tensor:
    """Linear and cosine decays multiplied; ``noise`` = (initial_variance, variance_decay)
    adds a normal draw to the linear part (``noisy_linear_cosine_decay``)."""
    with name_scope(name or ("NoisyLinearCosineDecay" if noise else "LinearCosineDecay")) as scope:
        lr, c = _start(lr)
        steps_f = c(steps)
        if noise:
            initial_variance, variance_decay = c(noise[0]), c(noise[1])
        periods, alpha, beta = c(periods), c(alpha), c(beta)
        step_f = math.minimum(c(step), steps_f)
        linear_decayed = (steps_f - step_f) / steps_f
        if noise:
            std = math.sqrt(initial_variance / math.pow(1.0 + step_f, variance_decay))
            linear_decayed = linear_decayed + _random.random_normal(
                linear_decayed.shape, stddev=std
            )
        fraction = 2.0 * periods * (step_f / steps_f)
        cosine_decayed = 0.5 * (1.0 + math.cos(constant(_math.pi) * fraction))
        return math.multiply(lr, (alpha + linear_decayed) * cosine_decayed + beta, name=scope)


def linear_cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    num_periods: Any = 0.5,
    alpha: Any = 0.0,
    beta: Any = 0.001,
    name: str | None = None,
) -> Any:
    """``lr * ((alpha + linear) * cosine + beta)``: ``linear`` falls from 1 to 0 over
    ``decay_steps``, ``cosine`` is ``0.5 * (1 + cos(2 pi num_periods step / decay_steps))``."""
    return _schedule(
        _linear_cosine,
        learning_rate,
        global_step,
        decay_steps,
        num_periods,
        alpha,
        beta,
        None,
        name,
    )


def noisy_linear_cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    initial_variance: Any = 1.0,
    variance_decay: Any = 0.55,
    num_periods: Any = 0.5,
    alpha: Any = 0.0,
    beta: Any = 0.001,
    name: str | None = None,
) -> Any:
    """``linear_cosine_decay`` with a normal draw of variance
    ``initial_variance / (1 + step) ** variance_decay`` added to the linear part, drawn by
    an unseeded ``random_normal`` (so with a graph or global seed, TF's draws)."""
    noise = (initial_variance, variance_decay)
    return _schedule(
        _linear_cosine,
        learning_rate,
        global_step,
        decay_steps,
        num_periods,
        alpha,
        beta,
        noise,
        name,
    )


def natural_exp_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Any:
    """``exponential_decay`` with rate ``exp(-decay_rate)``: TF computes that rate once,
    when called, as a float32 ``Exp`` (and raises it to ``step / decay_steps``)."""
    rate = math.exp(math.negative(decay_rate))
    return _schedule(
        _staged, "ExponentialDecay", learning_rate, global_step, decay_steps, rate, staircase, name
    )


def inverse_time_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Any:
    """``lr / (1 + decay_rate * step / decay_steps)`` (the quotient floored with
    ``staircase``)."""
    return _schedule(
        _staged,
        "InverseTimeDecay",
        learning_rate,
        global_step,
        decay_steps,
        decay_rate,
        staircase,
        name,
    )


def _staged(
    kind: str, lr: Any, step: Any, steps: Any, rate: Any, staircase: bool, name: Any
) -> Tensor:
    """TF's ExponentialDecay (``lr · rate ** p``) and InverseTimeDecay (``lr / (1 + rate ·
    p)``), ``p = step / decay_steps`` floored when ``staircase``."""
    with name_scope(name or kind) as scope:
        lr, c = _start(lr)
        steps_f, rate = c(steps), c(rate)
        p = c(step) / steps_f
        if staircase:
            p = floor(p)
        if kind == "ExponentialDecay":
            return math.multiply(lr, math.pow(rate, p), name=scope)
        denom = math.add(c(constant(1)), math.multiply(rate, p))
        return math.divide(lr, denom, name=scope)
