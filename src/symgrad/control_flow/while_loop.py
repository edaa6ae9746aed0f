"""``while_loop`` (TensorFlow 2 semantics): the public wrapper, its checks, and the eager loop.

Eager (at top level, every loop variable has a value): the loop runs in Python, as TF eager
does; each iteration's ops are ordinary eager ops, so tapes and ``gradients`` see them.

Building a graph (a ``Graph``, a ``function`` trace, or loop variables without values): one
functional op, ``StatelessWhile`` or ``While`` (``while_op``, where its kernel, gradient
and memory costs are described); this module flattens the loop variables (TensorArrays
travel as their buffers: ``tensor_array_loop``), checks them, and packs the results.
Below are the ops' op-table rows, built through this wrapper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.control_flow import tensor_array_loop
from symgrad.control_flow.cond import row_builder, row_variable
from symgrad.control_flow.numerics_where import IterationTagger, at_iteration, numerics_error
from symgrad.control_flow.while_op import STATELESS_WHILE, WHILE, functional_while
from symgrad.core import context, nest
from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import constant, convert_to_tensor, identity
from symgrad.ops.math import elementwise as math
from symgrad.runtime.concrete_function import inherited


def _bare_tensor_error(t: Tensor) -> str:
    """TF's text: its while_loop takes ``len(loop_vars)``, which a tensor has not."""
    if t.has_value() and not get_default_graph().building_function and t.shape.rank == 0:
        return "Scalar tensor has no `len()`"
    return (
        f"len is not well defined for a symbolic Tensor ({t.name}). Please call `x.shape` "
        "rather than `len(x)` for shape information."
    )


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """Repeat ``body`` while ``cond`` is true (``tf.while_loop``); returns the final
    loop variables in the structure of ``loop_vars``.

    >>> import symgrad as tf
    >>> i, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, 1.0])
    >>> print(int(i), float(x))
    3 8.0
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if not nest.flatten(loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    if isinstance(loop_vars, Tensor):
        raise TypeError(_bare_tensor_error(loop_vars))
    if tensor_array_loop.has_arrays(loop_vars):  # TensorArrays travel as their buffers
        return tensor_array_loop.loop_over_arrays(
            while_loop,
            cond,
            body,
            loop_vars,
            shape_invariants,
            maximum_iterations,
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            name=name,
        )
    flat = [convert_to_tensor(v) for v in nest.flatten(loop_vars)]
    graph = get_default_graph()
    if graph.eager and not graph.building_function and all(t.has_value() for t in flat):
        return _eager_loop(cond, body, loop_vars, maximum_iterations)
    invariants = _invariants(loop_vars, flat, shape_invariants)
    with graph.name_scope(name or "while") as scope:  # TF's names; TF2: its cond's and body's
        maximum = convert_to_tensor(
            -1 if maximum_iterations is None else maximum_iterations,
            dtype=dt.int32,
            name="maximum_iterations",
        )
        if maximum.shape.rank not in (None, 0):
            raise ValueError(f"maximum_iterations must be a scalar, saw shape: {maximum.shape}")
        counter = constant(0, dt.int32, name="loop_counter")
        outs = _graph_loop(
            cond, body, loop_vars, flat, invariants, maximum, back_prop, scope, counter
        )
    return nest.pack_sequence_as(loop_vars, outs) if nest.is_nested(loop_vars) else outs[0]


def _graph_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    flat: list[Tensor],
    invariants: list[Any],
    maximum: Tensor,
    back_prop: bool,
    scope: str,
    counter: Tensor,
) -> list[Tensor]:
    """``while_loop``'s op in a graph, named ``scope``; the final values as TF hands them
    out: an ``Identity`` of each of the op's outputs (the counter's and maximum's too, so
    the numbering is TF's: the first loop variable's is ``while/Identity_2``)."""

    def flat_cond(vars_: list[Tensor]) -> list[Tensor]:
        return [convert_to_tensor(cond(*_pack(loop_vars, vars_[1:])))]

    def flat_body(vars_: list[Tensor]) -> list[Tensor]:
        result = body(*_pack(loop_vars, vars_[1:]))
        if not nest.is_nested(result):
            result = [result]
        _check_structure(loop_vars, result)
        return nest.flatten(result)

    op = functional_while(
        flat_cond, flat_body, flat, invariants, maximum, back_prop, scope, counter, inherited(scope)
    )[0].op
    return [identity(t) for t in op.outputs[: 2 + len(flat)]][2:]


def _pack(structure: Any, flat: list[Tensor]) -> list[Any]:
    """The arguments ``cond`` and ``body`` are called with (loop_vars unpacked)."""
    if nest.is_nested(structure) and isinstance(structure, list | tuple):
        return list(nest.pack_sequence_as(structure, flat))
    return [nest.pack_sequence_as(structure, flat)]


def _check_structure(loop_vars: Any, result: Any) -> None:
    def shape_of(s: Any) -> Any:
        if isinstance(s, dict):
            return ("dict", tuple((k, shape_of(s[k])) for k in sorted(s)))
        if nest.is_nested(s):
            return ("seq", tuple(shape_of(c) for c in s))
        return "."

    if shape_of(list(loop_vars) if isinstance(loop_vars, tuple) else loop_vars) != shape_of(
        list(result) if isinstance(result, tuple) else result
    ):
        raise _structure_error(result, loop_vars)


def _structure_error(first: Any, second: Any) -> ValueError:
    """TF's text for two structures that differ (the body's result comes first)."""
    text = (
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: type={type(first).__name__} str={first}\n\n"
        f"Second structure: type={type(second).__name__} str={second}"
    )
    if len(nest.flatten(first)) != len(nest.flatten(second)):
        text += "\n\nMore specifically: The two structures don't have the same number of elements."
    return ValueError(text)


def _invariants(loop_vars: Any, flat: list[Tensor], shape_invariants: Any) -> list[TensorShape]:
    if shape_invariants is None:
        return [t.shape for t in flat]
    if nest.is_nested(loop_vars) != nest.is_nested(shape_invariants) or (
        nest.is_nested(loop_vars) and len(nest.flatten(shape_invariants)) != len(flat)
    ):
        raise _structure_error(loop_vars, shape_invariants)
    shapes = [as_shape(s) for s in nest.flatten(shape_invariants)]
    for t, s in zip(flat, shapes, strict=True):
        if not s.is_compatible_with(t.shape):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the "
                f"initial shape of the loop variable. It enters the loop with shape "
                f"{t.shape}, but the specified shape invariant is {s}."
            )
    return shapes


def _eager_loop(
    cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, maximum_iterations: Any
) -> Any:
    """TF eager: a Python loop of eager ops (Python numbers stay Python numbers until
    the end, as in TF)."""
    n = None if maximum_iterations is None else int(maximum_iterations)
    flat_seq = isinstance(loop_vars, list | tuple) and not any(map(nest.is_nested, loop_vars))
    size = len(loop_vars) if flat_seq else -1
    state = loop_vars
    i = 0
    tagger = IterationTagger("while_loop")
    context.push_recorder(tagger)
    try:
        while n is None or i < n:
            tagger.iteration = i
            args = list(state) if flat_seq else _pack(loop_vars, nest.flatten(state))
            if not bool(cond(*args)):
                break
            result = body(*args)
            if not nest.is_nested(result):
                result = [result]
            if not (
                flat_seq
                and type(result) in (list, tuple)
                and len(result) == size
                and not any(map(nest.is_nested, result))
            ):
                _check_structure(loop_vars, result)
            state = result
            i += 1
    except InvalidArgumentError as e:  # enable_check_numerics: say which iteration
        if not numerics_error(e):
            raise
        raise at_iteration(e, "while_loop", i, "cond or body") from None
    finally:
        context.remove_recorder(tagger)
    return nest.map_structure(convert_to_tensor, state)  # the body's structure, as TF


# --------------------------------------------------------------------------------------
# Op-table rows: loops over a matrix and a captured vector, built by the public wrapper


def _ref_loop(x: Any, w: Any) -> Any:
    for _ in range(3):
        x = np.sin(x) * w + x * 0.5
    return x


def _ref_pair(x: Any, y: Any) -> Any:
    for _ in range(2):
        x, y = x * np.cos(y), y + np.tanh(x) * 0.3
    return x, y


STATELESS_WHILE.add_cases(
    Case(
        [randn(3, 4), randn(4)],
        _ref_loop,
        row_builder(
            lambda x, w: while_loop(
                lambda i, a: i < 3, lambda i, a: (i + 1, math.sin(a) * w + a * 0.5), [0, x]
            )[1]
        ),
        name="captured",
    ),
    Case(
        [randn(2, 3), randn(2, 3)],
        _ref_pair,
        row_builder(
            lambda x, y: while_loop(
                lambda i, a, b: i < 2,
                lambda i, a, b: (i + 1, a * math.cos(b), b + math.tanh(a) * 0.3),
                [0, x, y],
            )[1:]
        ),
        name="two_vars",
    ),
)


def _scaled_loop(x: Tensor, w: Tensor) -> Tensor:
    def body(i: Tensor, a: Tensor) -> tuple[Tensor, Tensor]:
        return i + 1, math.sin(a) * w * array.cast(row_variable(), a.dtype) + a * 0.5

    return while_loop(lambda i, a: i < 3, body, [0, x])[1]


WHILE.add_cases(
    Case(
        [randn(3, 4), randn(4)],
        lambda x, w: _ref_loop(x, w * 0.75),
        row_builder(_scaled_loop),
        name="reads_variable",
    )
)
