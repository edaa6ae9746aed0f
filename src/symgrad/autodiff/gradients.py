"""``gradients(ys, xs, grad_ys, ...)``: symbolic derivatives of the sum of ys w.r.t. xs."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Sequence
from typing import Any

from symgrad.autodiff.captures import backprop_through_captures, graph_of_ys
from symgrad.core.gc_pause import collector_paused
from symgrad.core.graph import Graph, Tensor, get_default_graph
from symgrad.ops.array.structure import ones_like, zeros, zeros_like
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.math.elementwise import add, add_n
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import Variable


class UnconnectedGradients(enum.Enum):
    """What an x with no path to any y gets: None (``NONE``) or zeros (``ZERO``)."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def unconnected_mode(value: Any) -> UnconnectedGradients:
    if type(value) is UnconnectedGradients:  # the default: no enum lookup
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: {value!r}; expected "
            "'none', 'zero', UnconnectedGradients.NONE or "
            "UnconnectedGradients.ZERO"
        ) from None


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _aggregator(method: Any) -> Any:
    if method in (None, AggregationMethod.ADD_N):
        return add_n
    if method in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):

        def tree(parts: list[Tensor]) -> Tensor:
            while len(parts) > 1:
                parts = [
                    add(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                    for i in range(0, len(parts), 2)
                ]
            return parts[0]

        return tree
    raise ValueError(
        f"Invalid `aggregation_method` specified {method}. Accepted values are [0, 1, 2]."
    )


def check_seed(i: int, y: Tensor, g: Any, what: str = "grad_ys") -> Tensor:
    """The starting gradient for ``y``: ones when None, else ``g`` checked against ``y``."""
    if g is None:
        if y.dtype.is_complex:
            raise TypeError(
                f"Gradients of complex tensors ({y.name}) must set grad_ys "
                f"(y.dtype = {y.dtype.name})"
            )
        return ones_like(y)
    if isinstance(g, IndexedSlices) and g.values.dtype is y.dtype:
        return g  # type: ignore[return-value]  # a sparse seed stays sparse, as TF's
    g = convert_to_tensor(g, dtype=None if isinstance(g, Tensor) else y.dtype)
    if g.dtype is not y.dtype:
        if y.dtype.is_complex and not g.dtype.is_complex:
            raise TypeError(
                f"Gradient type {g.dtype.name} generated for complex-valued tensor "
                f"{tf_str(y)} with type {y.dtype.name} must be real "
                f"({what}[{i}] must be complex too)"
            )
        if not y.dtype.is_complex and (g.dtype.is_complex or g.dtype.name == "bool"):
            raise TypeError(
                f"Gradient type {g.dtype.name} generated for real or integer-valued "
                f"tensor {tf_str(y)} with type {y.dtype.name} must be real or "
                f"integer ({what}[{i}])"
            )
        raise TypeError(
            f"{what}[{i}] has dtype {g.dtype.name} but ys[{i}] ({y.name}) has dtype "
            f"{y.dtype.name}; they must match."
        )
    if not y.shape.is_compatible_with(g.shape):
        raise ValueError(
            f"{what}[{i}] has shape {g.shape} but ys[{i}] ({y.name}) has shape "
            f"{y.shape}; they must match (no broadcasting)."
        )
    return g


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Tensor | None]:
    """For each x, the gradient of ``sum(sum(y * grad_y) for y in ys)`` w.r.t. x.

    Builds the gradient ops under the name scope ``name`` (in a graph, inside a traced
    function, or at top level where they run at once) and returns a list of len(xs):
    a Tensor, or None (zeros with ``unconnected_gradients='zero'``) where no y depends on x.
    """
    ys_l = [_tensor(y, f"ys[{i}]") for i, y in enumerate(as_list(ys))]
    xs_l = [
        x if isinstance(x, Variable) else _tensor(x, f"xs[{i}]") for i, x in enumerate(as_list(xs))
    ]
    mode = unconnected_mode(unconnected_gradients)
    aggregate = _aggregator(aggregation_method)
    if grad_ys is None:
        gys: list[Any] = [None] * len(ys_l)
    else:
        # As TF: a flat Python list for one y is a list of grad_ys (a count mismatch).
        gys = as_list(grad_ys)
    if len(gys) != len(ys_l):
        raise ValueError(f"Length mismatch. Passed {len(gys)} grad_ys for {len(ys_l)} ys")
    stop_l = (
        [convert_to_tensor(t) for t in as_list(stop_gradients)]
        if stop_gradients is not None
        else []
    )
    graph = graph_of_ys(ys_l, graph_of)
    xs_given = xs_l
    xs_l = [_as_tensor_of(graph, ys_l, x, f"xs[{i}]") for i, x in enumerate(xs_l)]
    stops = {
        id(_as_tensor_of(graph, ys_l, t, f"stop_gradients[{i}]").op) for i, t in enumerate(stop_l)
    }
    for i, g in enumerate(gys):
        if isinstance(g, Tensor):
            _as_tensor_of(graph, ys_l, g, f"grad_ys[{i}]")
    paused = contextlib.nullcontext() if graph.eager else collector_paused()
    with paused, in_graph(graph), graph.name_scope(name):
        seeds = [_named_seed(i, y, g) for i, (y, g) in enumerate(zip(ys_l, gys))]
        result = backprop_through_captures(graph, ys_l, seeds, xs_given, stops, aggregate)
        return [finish(x, g, mode) for x, g in zip(xs_l, result)]


def _tensor(value: Any, what: str) -> Tensor:
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"gradients(): argument {what} must be a Tensor or Variable, got {value!r}: {e}"
        ) from None


def _named_seed(i: int, y: Tensor, g: Any) -> Tensor:
    seed = check_seed(i, y, g)
    if g is None or isinstance(seed, IndexedSlices):
        return seed
    return identity(seed, name=f"grad_ys_{i}")


def finish(x: Any, g: Tensor | None, mode: UnconnectedGradients) -> Tensor | None:
    """x's result: the gradient with x's static shape, or None/zeros when unconnected."""
    if g is None:
        if mode is UnconnectedGradients.NONE:
            return None
        if isinstance(x, Variable):
            return zeros(x.shape.as_list(), x.dtype)
        return zeros_like(x)
    if (
        isinstance(x, Tensor)
        and isinstance(g, Tensor)
        and x.shape.dims is not None
        and g.shape.dims != x.shape.dims
        and g.shape.is_compatible_with(x.shape)  # a tape leaves a wrong one to the reader
    ):
        g.set_shape(x.shape)
    return g


def tf_str(t: Tensor) -> str:
    """A graph tensor as TF prints it in errors: ``Tensor("y:0", shape=(2,), dtype=float32)``."""
    return f'Tensor("{t.name}", shape={t.shape}, dtype={t.dtype.name})'


def _same_graph_error(t: Tensor, first: Tensor, what: str) -> ValueError:
    return ValueError(
        f"{tf_str(t)} must be from the same graph as {tf_str(first)} (graphs are "
        f"{t.graph!r} and {first.graph!r}); {what} belongs to another graph: "
        "build every tensor you differentiate inside the same "
        "`with graph.as_default():` block."
    )


def graph_of(ys: Sequence[Tensor]) -> Graph:
    """The one graph of ``ys`` (the default graph when there are none)."""
    for i, y in enumerate(ys):
        if y.graph is not ys[0].graph:
            raise _same_graph_error(y, ys[0], f"ys[{i}]")
    return ys[0].graph if ys else get_default_graph()


def _as_tensor_of(graph: Graph, ys: Sequence[Tensor], t: Any, what: str) -> Any:
    """``t`` as a tensor of ``graph``: itself, or, for a tensor of a graph enclosing a traced
    function, the capture that stands for it there (as TF converts it).  A tensor of an
    unrelated graph is an error, as in TF."""
    if not isinstance(t, Tensor) or t.graph is graph:
        return t
    outer = getattr(graph, "outer_graph", None)
    while outer is not None:
        if t.graph is outer:
            hit = getattr(graph, "captures", {}).get((id(t.op), t.value_index))
            return hit[1] if hit is not None else t
        outer = getattr(outer, "outer_graph", None)
    raise _same_graph_error(t, ys[0] if ys else t, what)


def in_graph(graph: Graph) -> Any:
    """A context in which ``graph`` is the default graph (nothing to do if it is already)."""
    return contextlib.nullcontext() if get_default_graph() is graph else graph.as_default()


def gradients_v2(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Tensor | None]:
    """``tf.gradients``: TF2's signature (no ``colocate_gradients_with_ops``); TF1's is
    ``tf.compat.v1.gradients`` (:func:`gradients`)."""
    return gradients(
        ys,
        xs,
        grad_ys=grad_ys,
        name=name,
        gate_gradients=gate_gradients,
        aggregation_method=aggregation_method,
        stop_gradients=stop_gradients,
        unconnected_gradients=unconnected_gradients,
    )
