"""``function`` (``tf.function``): trace a Python function into a graph once per signature.

Tracing runs the Python function on placeholders inside a ``FuncGraph`` (building mode,
outer tapes paused).  Tensors from outside the function become captures: placeholders fed
with the outer tensor at each call.  Variables are captured by reference (their reads run
when the graph runs), and every stateful op (reads, assignments) is chained after the
previous one by a control edge, so the graph keeps the program's order of side effects.

A call takes one of two routes:

* **run**: at top level, when every input has a value and no active tape cares about the
  call, one ``PartitionedCall`` op runs the cached plan of the graph (fast path);
* **replay**: otherwise (building another graph or tracing another function, a
  placeholder among the inputs, or a tape that watches an input or a variable the body
  reads) the body's ops are re-created in the caller's graph, in order.  Tapes then
  record them like any other ops and ``gradients()`` walks them, so differentiating
  through a call needs no special rule, and the body's side effects happen in order.

``PartitionedCall`` still has a gradient, for ``gradients()`` at top level through an
already-run call: it replays the body (re-reading variables; assignments are not
repeated) and differentiates the replay.  The variables the body reads are extra inputs
of the op, so their gradients flow to them.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from .. import nest
from ..autodiff.backprop import backprop, key
from ..gradient_registry import RegisterGradient
from ..graph import Graph, Operation, Tensor, _state, get_default_graph
from ..op_registry import OPS, Spec, apply_op, register_op
from ..ops.core import convert_to_tensor, placeholder
from ..shapes import as_shape
from .plan import Plan

_log = logging.getLogger("symgrad")
_RETRACE_WINDOW = 5


class TensorSpec:
    """The type of a tensor argument: ``TensorSpec(shape, dtype=float32, name=None)``."""

    def __init__(self, shape: Any, dtype: Any = dt.float32, name: str | None = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dt.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        return (other.dtype is self.dtype) and self.shape.is_compatible_with(other.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


class FuncGraph(Graph):
    """The graph a traced function builds; outer tensors become placeholder captures."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.building_function = True
        self.tracing = True
        self.captures: dict[tuple[int, int], tuple[Tensor, Tensor]] = {}
        self.stateful_ops: list[Operation] = []

    def _add_op(self, op: Operation) -> None:
        super()._add_op(op)
        if self.tracing and OPS[op.type].stateful:
            if self.stateful_ops:
                op.control_inputs = (*op.control_inputs, self.stateful_ops[-1])
            self.stateful_ops.append(op)

    def capture(self, t: Tensor) -> Tensor:
        """The placeholder standing for outer tensor ``t`` (fed with ``t`` at each call)."""
        hit = self.captures.get(key(t))
        if hit is None:
            with self.as_default():
                hit = self.captures[key(t)] = (t, placeholder(t.dtype, t.shape, "capture"))
        return hit[1]

    def __repr__(self) -> str:
        return f"<symgrad.FuncGraph '{self.name}' at {id(self):#x}>"


def _tapes_interested(inputs: Sequence[Tensor], variables: Sequence[Any]) -> bool:
    return any(t._interested(inputs, variables) for t in _state().tapes)


class ConcreteFunction:
    """One trace: a graph, its input placeholders, its outputs; callable with tensors."""

    def __init__(self, graph: FuncGraph, inputs: list[Tensor], structured_outputs: Any,
                 outputs: list[Tensor]) -> None:
        self.graph = graph
        self.inputs = inputs
        self.structured_outputs = structured_outputs
        self.outputs = outputs
        self.captured = [outer for outer, _ in graph.captures.values()]
        self._feeds = inputs + [ph for _, ph in graph.captures.values()]
        fed = {id(ph.op) for ph in self._feeds}
        self._body = [op for op in graph.get_operations() if id(op) not in fed]
        seen: dict[int, Any] = {}
        for op in self._body:
            if op.type in ("ReadVariableOp", "AssignVariableOp"):
                seen.setdefault(id(op._attrs["var"]), op._attrs["var"])
        self.variables = list(seen.values())
        self._plan: Plan | None = None

    @property
    def name(self) -> str:
        return self.graph.name

    def __call__(self, *args: Any) -> Any:
        flat = nest.flatten(list(args))
        if len(flat) != len(self.inputs):
            raise TypeError(f"{self.name} takes {len(self.inputs)} tensor arguments, "
                            f"got {len(flat)}")
        return self._call_flat([convert_to_tensor(a, dtype=p.dtype)
                                for a, p in zip(flat, self.inputs, strict=True)])

    def _call_flat(self, args: list[Tensor]) -> Any:
        inputs = args + self.captured
        graph = get_default_graph()
        if graph.eager and all(t.has_value() for t in inputs) and \
                not _tapes_interested(inputs, self.variables):
            reads = [v.value() for v in self.variables]
            op = apply_op("PartitionedCall", inputs + reads,
                          {"f": self, "n_feeds": len(inputs)}, "PartitionedCall")
            outs = op.outputs
        else:
            mapping = self.replay(inputs)
            outs = [mapping[key(t)] for t in self.outputs]
        return _pack_outputs(self.structured_outputs, outs)

    def run_plan(self, arrays: Sequence[Any]) -> list[Any]:
        if self._plan is None:
            self._plan = Plan(self.outputs, self.graph.stateful_ops[-1:], self._feeds)
        return self._plan.run(arrays)

    def replay(self, inputs: Sequence[Tensor], for_gradient: bool = False
               ) -> dict[tuple[int, int], Tensor]:
        """Re-create the body's ops in the default graph with ``inputs`` for the feeds."""
        graph = get_default_graph()
        mapping = {key(ph): t for ph, t in zip(self._feeds, inputs, strict=True)}
        op_map: dict[int, Operation] = {}
        for op in self._body:
            if op.type == "ReadVariableOp" or (for_gradient and op.type == "AssignVariableOp"):
                with _control_deps(op, graph, op_map):
                    new = op._attrs["var"].value().op
            else:
                new = _copy_op(op, graph, mapping, op_map)
            op_map[id(op)] = new
            for i in range(op.num_outputs):
                mapping[(id(op), i)] = new._output(i)
        return mapping

    def __repr__(self) -> str:
        return f"<symgrad.ConcreteFunction {self.name} inputs={len(self.inputs)}>"


def _copy_op(op: Operation, graph: Graph, mapping: dict[tuple[int, int], Tensor],
             op_map: dict[int, Operation]) -> Operation:
    ins = [mapping[key(t)] for t in op.inputs]
    attrs = op._attrs
    if op.type == "CustomGradient":
        old = attrs["remap"]
        remap = dict(mapping) if old is None else {k: mapping.get(key(v), v)
                                                  for k, v in old.items()}
        attrs = {**attrs, "remap": remap}
    with _control_deps(op, graph, op_map):
        new = apply_op(op.type, ins, attrs, op.name)
    if op._gradient_op_type is not None:
        new._gradient_op_type = op._gradient_op_type
    return new


def _control_deps(op: Operation, graph: Graph, op_map: dict[int, Operation]) -> Any:
    """In a graph, the copy keeps the original's ordering edges (eager runs in order)."""
    deps = [op_map[id(c)] for c in op.control_inputs if id(c) in op_map]
    if deps and not graph.eager:
        return graph.control_dependencies(deps)
    return contextlib.nullcontext()


def _pack_outputs(structure: Any, outs: list[Tensor]) -> Any:
    it = iter(outs)
    return nest.map_structure(lambda leaf: next(it) if leaf is _TENSOR else leaf, structure)


class _TensorSlot:
    def __repr__(self) -> str:
        return "<tensor>"


_TENSOR = _TensorSlot()


# --------------------------------------------------------------------------------------
# PartitionedCall: the fast route, one op that runs a traced function's plan


def _call_infer(inputs: Sequence[Tensor], *, f: ConcreteFunction, n_feeds: int) -> list[Spec]:
    return [(t.shape, t.dtype) for t in f.outputs]


def _call_kernel(*arrays: Any, f: ConcreteFunction, n_feeds: int) -> tuple[Any, ...]:
    return tuple(f.run_plan(arrays[:n_feeds]))


register_op("PartitionedCall", _call_infer, _call_kernel, stateful=True)


@RegisterGradient("PartitionedCall")
def _partitioned_call_grad(op: Any, *grads: Tensor) -> list[Tensor | None]:
    """Replay the body on the call's inputs and differentiate the replay."""
    f: ConcreteFunction = op.get_attr("f")
    feeds = list(op.inputs[:op.get_attr("n_feeds")])
    mapping = f.replay(feeds, for_gradient=True)
    pairs = [(mapping[key(t)], g) for t, g in zip(f.outputs, grads, strict=True)
             if t.dtype.is_differentiable]
    return backprop([o for o, _ in pairs], [g for _, g in pairs], feeds + f.variables,
                    stop_ops={id(t.op) for t in feeds})


# --------------------------------------------------------------------------------------
# Function: the decorator's object, a cache of traces keyed by the call's signature


def _leaf_key(x: Any) -> tuple[Any, ...]:
    if isinstance(x, Tensor | TensorSpec):
        return ("T", x.dtype.name, x.shape.dims)
    if getattr(x, "_is_variable", False):
        return ("V", id(x))
    if isinstance(x, np.ndarray):
        return ("A", x.dtype.str, x.shape)
    try:
        hash(x)
    except TypeError:
        return ("O", id(x))
    return ("P", type(x).__name__, x)


def _is_tensor_arg(x: Any) -> bool:
    return isinstance(x, Tensor | TensorSpec | np.ndarray)


class Function:
    """A Python function traced into graphs on demand (see the module docstring)."""

    def __init__(self, python_function: Callable[..., Any],
                 input_signature: Sequence[Any] | None = None, name: str | None = None) -> None:
        self.python_function = python_function
        self.input_signature = None if input_signature is None else list(input_signature)
        self._name = str(name or getattr(python_function, "__name__", "function"))
        self._cache: dict[Any, ConcreteFunction] = {}
        self._history: deque[bool] = deque(maxlen=_RETRACE_WINDOW)
        self._bound: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            method = self.python_function.__get__(instance, owner)
            bound = self._bound[instance] = Function(method, self.input_signature, self._name)
        return bound

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        cf, flat = self._concrete(args, kwargs, record=True)
        return cf._call_flat(flat)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs), tracing if needed."""
        return self._concrete(args, kwargs, record=False)[0]

    def experimental_get_tracing_count(self) -> int:
        return len(self._cache)

    # -- tracing
    def _concrete(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                  record: bool) -> tuple[ConcreteFunction, list[Tensor]]:
        if self.input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        structure = (list(args), dict(sorted(kwargs.items())))
        leaves = nest.flatten(structure)
        leaves = [convert_to_tensor(x) if isinstance(x, np.ndarray | np.generic) else x
                  for x in leaves]
        cache_key: Any = "input_signature" if self.input_signature is not None else (
            repr(nest.map_structure(lambda _: 0, structure)), tuple(map(_leaf_key, leaves)))
        cf = self._cache.get(cache_key)
        traced = cf is None
        if cf is None:
            cf = self._cache[cache_key] = self._trace(structure, leaves)
        if record:
            self._note_call(traced)
        return cf, [x for x in leaves if isinstance(x, Tensor)]

    def _bind_signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                        ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        specs = self.input_signature or []
        try:
            bound = inspect.signature(self.python_function).bind(*args, **kwargs)
            values = list(bound.args) + list(bound.kwargs.values())
        except TypeError:
            values = list(args) + list(kwargs.values())
        flat_specs = nest.flatten(specs)
        flat_values = _flatten_up_to(specs, values)
        if len(values) != len(specs) or flat_values is None:
            raise TypeError(f"Binding inputs to tf.function failed: {self._name} was called "
                            f"with {len(values)} arguments but its input_signature has "
                            f"{len(specs)}: {specs}")
        tensors = []
        for v, spec in zip(flat_values, flat_specs, strict=True):
            try:
                t = convert_to_tensor(v, dtype=None if isinstance(v, Tensor) else spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Binding inputs to tf.function failed: {e}") from None
            if not spec.is_compatible_with(t):
                raise TypeError(f"Binding inputs to tf.function failed: the value of dtype "
                                f"{t.dtype.name} and shape {t.shape} is not compatible with "
                                f"{spec}.")
            tensors.append(t)
        return tuple(nest.pack_sequence_as(specs, tensors)), {}

    def _trace(self, structure: Any, leaves: list[Any]) -> ConcreteFunction:
        graph = FuncGraph(self._name)
        specs = nest.flatten(self.input_signature) if self.input_signature is not None else None
        st = _state()
        saved, st.tapes = st.tapes, []
        try:
            with graph.as_default():
                inputs: list[Tensor] = []
                spec_iter = iter(specs or [])
                args: list[Any] = []
                for x in leaves:
                    if _is_tensor_arg(x):
                        s = next(spec_iter, None) or x
                        ph = placeholder(s.dtype, s.shape, getattr(s, "name", None) or "args")
                        inputs.append(ph)
                        args.append(ph)
                    else:
                        args.append(x)
                pargs, pkwargs = nest.pack_sequence_as(structure, args)
                result = self.python_function(*pargs, **pkwargs)
                outputs: list[Tensor] = []
                template = nest.map_structure(lambda y: _output(y, graph, outputs), result)
        finally:
            st.tapes = saved
            graph.tracing = False
        return ConcreteFunction(graph, inputs, template, outputs)

    def _note_call(self, traced: bool) -> None:
        self._history.append(traced)
        if traced and len(self._history) == _RETRACE_WINDOW and all(self._history):
            _log.warning(
                "%d out of the last %d calls to %r triggered tf.function retracing. Tracing "
                "is expensive and the excessive number of tracings could be due to (1) "
                "creating @tf.function repeatedly in a loop, (2) passing tensors with "
                "different shapes, (3) passing Python objects instead of tensors.",
                _RETRACE_WINDOW, _RETRACE_WINDOW, self.python_function)

    def __repr__(self) -> str:
        return f"<symgrad.Function {self._name}>"


def _flatten_up_to(shallow: Any, values: Any) -> list[Any] | None:
    """The items of ``values`` at the leaves of ``shallow`` (None if they do not match)."""
    out: list[Any] = []
    stack = [(shallow, values)]
    while stack:
        s, v = stack.pop()
        if not nest.is_nested(s):
            out.append(v)
            continue
        if isinstance(s, dict):
            if not isinstance(v, dict) or set(v) != set(s):
                return None
            stack.extend((s[k], v[k]) for k in reversed(sorted(s)))
        elif not isinstance(v, list | tuple) or len(v) != len(s):
            return None
        else:
            stack.extend(reversed(list(zip(s, v, strict=True))))
    return out


def _output(y: Any, graph: FuncGraph, outputs: list[Tensor]) -> Any:
    """A returned leaf: tensors (and Variables, read) become outputs; None stays None."""
    if y is None or isinstance(y, Operation):
        return None
    if isinstance(y, Tensor) or getattr(y, "_is_variable", False) or \
            isinstance(y, int | float | complex | np.ndarray | np.generic):
        t = convert_to_tensor(y)
        if t.graph is not graph:
            t = graph.capture(t)
        outputs.append(t)
        return _TENSOR
    return y


def function(func: Callable[..., Any] | None = None, input_signature: Sequence[Any] | None = None,
             autograph: bool = True, jit_compile: Any = None, reduce_retracing: bool = False,
             experimental_implements: Any = None, experimental_autograph_options: Any = None,
             experimental_relax_shapes: Any = None, experimental_compile: Any = None,
             experimental_follow_type_hints: Any = None, name: str | None = None) -> Any:
    """Compile ``func`` into a graph traced once per input signature (``tf.function``).

    >>> import symgrad as tf
    >>> @tf.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> print(f(tf.constant(3.0)))
    symgrad.Tensor(10.0, shape=(), dtype=float32)
    """
    if func is None:
        return lambda f: Function(f, input_signature, name)
    return Function(func, input_signature, name)
