"""TensorArrays as ``while_loop`` variables.

A graph ``TensorArray`` enters a loop as its buffer tensor and is rebuilt around the
buffer inside ``cond`` and ``body`` and around the loop's result, so the functional
``While`` op, its accumulators and its gradient see only tensors.  Every iteration must
see a buffer of one shape, so an array not yet written gets its buffer before the loop:
its element shape is declared, or learnt by tracing the body once (the writes merge what
they write into the array's shape, as TF's ``infer_shape``).  Where that shape is known
only in part (a batch fed at run time), the buffer holds no values at first and takes
the first write's element shape, so its shape changes once, as a growing array's does.
An eager array needs none of this: an eager loop is a Python loop.

Cost: with ``back_prop`` the loop keeps every iteration's buffer (``while_loop``'s
accumulators), O(size) per iteration; a ``dynamic_size`` array that grows inside a graph
loop (or one whose size is known only at run time) keeps only its shape and the rows the
body reads (``tensor_array_grow``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.control_flow.tensor_array import TensorArray, _EagerTensorArray, _GraphTensorArray
from symgrad.core import context, nest
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.ops.array import joining, shape
from symgrad.ops.core import constant, convert_to_tensor, placeholder
from symgrad.ops.math import elementwise as math
from symgrad.runtime.concrete_function import FuncGraph


def has_arrays(loop_vars: Any) -> bool:
    return any(isinstance(v, TensorArray) for v in nest.flatten(loop_vars))


def loop_over_arrays(
    loop: Callable[..., Any],
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any,
    maximum_iterations: Any,
    **kwargs: Any,
) -> Any:
    """``while_loop`` over loop variables that include TensorArrays: each graph array
    travels as its buffer (made before the loop, so that every iteration sees the same
    shape) and is rebuilt around it in ``cond``, ``body`` and the result."""
    leaves = nest.flatten(loop_vars)
    g = get_default_graph()
    if any(isinstance(v, _EagerTensorArray) for v in leaves):
        if not (g.eager and not g.building_function):
            raise ValueError("A TensorArray made eagerly cannot enter a loop built in a graph.")
        return _eager_loop(cond, body, loop_vars, maximum_iterations)
    leaves = [v if isinstance(v, TensorArray) else convert_to_tensor(v) for v in leaves]
    if any(isinstance(v, _GraphTensorArray) and v._buffer is None for v in leaves):
        leaves = _allocate(body, loop_vars, leaves)
    templates = [v if isinstance(v, _GraphTensorArray) else None for v in leaves]
    flat = [v if t is None else t._buffer for t, v in zip(templates, leaves, strict=True)]
    given = [None] * len(leaves) if shape_invariants is None else nest.flatten(shape_invariants)
    if len(given) != len(leaves):
        raise ValueError("shape_invariants must have the structure of loop_vars")
    invariants = [
        t._invariant() if t is not None else (x.shape if s is None else s)  # type: ignore[union-attr]
        for t, x, s in zip(templates, flat, given, strict=True)
    ]
    seq = isinstance(loop_vars, list | tuple)

    def rebuild(values: list[Any]) -> list[Any]:
        state = values if seq else values[0]
        parts = [x if t is None else t._new(x) for t, x in zip(templates, nest.flatten(state))]
        packed = nest.pack_sequence_as(loop_vars, parts)
        return list(packed) if seq else [packed]

    def body_over_buffers(*args: Any) -> Any:
        return nest.map_structure(_buffer_of, body(*rebuild(list(args))))

    outs = loop(
        lambda *args: cond(*rebuild(list(args))),
        body_over_buffers,
        nest.pack_sequence_as(loop_vars, flat),
        shape_invariants=nest.pack_sequence_as(loop_vars, invariants),
        maximum_iterations=maximum_iterations,
        **kwargs,
    )
    parts = [x if t is None else t._new(x) for t, x in zip(templates, nest.flatten(outs))]
    return nest.pack_sequence_as(loop_vars, parts)


def reserve_like(ta: TensorArray, value: Tensor) -> TensorArray:
    """``ta`` with its buffer made for elements shaped like ``value`` when it is a graph
    array not yet written (``scan`` knows its elements' shape, at run time, from its
    initializer, so its loop needs no fully defined static shape)."""
    if isinstance(ta, _GraphTensorArray) and ta._buffer is None:
        ta._merge(value.shape)
        return ta._new(ta._reserve(shape.shape(value)))
    return ta


def _buffer_of(value: Any) -> Any:
    if not isinstance(value, TensorArray):
        return value
    if not isinstance(value, _GraphTensorArray) or value._buffer is None:
        raise ValueError("A while_loop body must return the TensorArray it was given.")
    return value._buffer


def _eager_loop(
    cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, maximum_iterations: Any
) -> Any:
    """TF eager: the loop is Python; eager arrays are mutated by the body's writes."""
    n = None if maximum_iterations is None else int(maximum_iterations)
    seq = isinstance(loop_vars, list | tuple)
    state, i = loop_vars, 0
    while n is None or i < n:
        args = list(state) if seq else [state]
        if not bool(cond(*args)):
            break
        state = body(*args)
        if seq and not nest.is_nested(state):
            state = [state]
        if len(nest.flatten(state)) != len(nest.flatten(loop_vars)):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {loop_vars}\n\nSecond structure: {state}"
            )
        i += 1
    return nest.map_structure(
        lambda v: v if isinstance(v, TensorArray) else convert_to_tensor(v), state
    )


def learn_element_shapes(body: Callable[..., Any], loop_vars: Any) -> bool:
    """Whether every unwritten graph array among ``loop_vars`` has a fully defined
    element shape, after tracing ``body`` once to learn the shapes it writes."""
    leaves = [
        v if isinstance(v, TensorArray) else convert_to_tensor(v) for v in nest.flatten(loop_vars)
    ]
    unwritten = [v for v in leaves if isinstance(v, _GraphTensorArray) and v._buffer is None]
    if not all(v.element_shape.is_fully_defined() for v in unwritten):
        _probe(body, loop_vars, leaves)
    return all(v.element_shape.is_fully_defined() for v in unwritten)


def _allocate(body: Callable[..., Any], loop_vars: Any, leaves: list[Any]) -> list[Any]:
    """Give each unwritten array its buffer.  Its element shape, if not declared, is
    learnt by tracing ``body`` once on placeholders (the writes merge the shapes of what
    they write into the array's shape, as TF's ``infer_shape`` does)."""
    unwritten = [v for v in leaves if isinstance(v, _GraphTensorArray) and v._buffer is None]
    if not all(v.element_shape.is_fully_defined() for v in unwritten):
        _probe(body, loop_vars, leaves)
    out = []
    for v in leaves:
        if isinstance(v, _GraphTensorArray) and v._buffer is None:
            partial = v.element_shape.rank is not None and not v.element_shape.is_fully_defined()
            v = v._new(_reserve_partial(v) if partial else v._reserve())
        out.append(v)
    return out


def _reserve_partial(ta: _GraphTensorArray) -> Tensor:
    """A buffer for elements whose shape is known only in part (a batch fed at run time):
    its unknown dimensions are 0, so it holds no values, and the body's first write gives
    it the written element's shape (``TensorListSetItem`` on a buffer without values).
    The loop variable's shape may so change once, as a growing array's does."""
    none = math.minimum(ta._size, 0)  # 0, but not a constant: this size may change
    dims = [none if d is None else constant(d, dt.int32) for d in ta.element_shape.as_list()]
    return ta._reserve(joining.stack(dims))


def _probe_value(v: Any) -> Any:
    if not isinstance(v, _GraphTensorArray):
        return placeholder(v.dtype, v.shape)
    return v if v._buffer is None else v._new(placeholder(v.dtype, v._invariant()))


def _probe(body: Callable[..., Any], loop_vars: Any, leaves: list[Any]) -> None:
    graph = FuncGraph("tensor_array_probe")
    try:
        with context.stop_recording(), graph.as_default():
            packed = nest.pack_sequence_as(loop_vars, [_probe_value(v) for v in leaves])
            body(*(list(packed) if isinstance(loop_vars, list | tuple) else [packed]))
    except (ValueError, TypeError):
        import traceback

        traceback.print_exc()  # DEBUG
    finally:
        graph.tracing = False
