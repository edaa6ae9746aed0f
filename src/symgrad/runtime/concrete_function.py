"""Traces and calls: ``FuncGraph``, ``ConcreteFunction`` and the ``PartitionedCall`` op.

A call of a trace takes one of two routes:

* **call op**: one ``PartitionedCall`` op runs the trace's cached plan: at once at top
  level when the inputs have values, else when a Session (or an outer plan) runs it;
* **replay** (inlining): while tracing another function, or when an active tape watches
  an input or a variable the body reads, the body's ops are re-created in the caller's
  graph in order (their control edges kept), so tapes record them like any other ops.

Differentiating a call op: besides the function's outputs, ``PartitionedCall`` outputs
the value of every stateful op of the body (each variable read and assignment) as that
call produced it.  Its gradient re-creates the body's pure ops on the call's inputs and
those recorded values, and differentiates that.  Nothing is read again and nothing is
assigned twice, so the gradient sees exactly the forward pass's values; pure ops are
recomputed rather than stored (TF keeps them as extra outputs of its forward function).
A variable's gradient is the sum over the body's reads of it, returned for the read of
that variable the call op takes as an extra input (which routes it to the variable).

An eager call that no tape watches is the exception (``_call_now``): it records the
variables' versions, not their values, so that it does not pin every variable's array
(which would turn each in-place update into a copy).  Its gradient reads the variables
again, and refuses, naming the variable, if one has been assigned since.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.autodiff.backprop import backprop, key
from symgrad.core import context, nest
from symgrad.core.errors import InaccessibleTensorError, InvalidArgumentError
from symgrad.core.gradient_registry import RegisterGradient, runs_user_code
from symgrad.core.graph import Graph, Operation, Tensor, get_default_graph, walk_ops
from symgrad.core.op_registry import OPS, Spec, add_computed_op, apply_op, register_op
from symgrad.ops.core import convert_to_tensor, placeholder
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import atomic
from symgrad.runtime.plan import Plan


class FuncGraph(Graph):
    """The graph a traced function builds; outer tensors become placeholder captures.

    ``variable_error`` is None while this trace may create variables, else the message
    of the ValueError that creating one raises.
    """

    def __init__(
        self,
        name: str,
        variable_error: str | None = None,
        qualname: str | None = None,
        control_flow: bool = False,
        scope: str = "",
    ) -> None:
        super().__init__()
        self.name = name
        self.is_control_flow_graph = control_flow  # a cond branch or a loop's cond/body
        self.jit_compile = False  # a function(jit_compile=True)'s trace (XLA runs it)
        self.qualname = qualname or name
        self.building_function = True
        self.tracing = True
        self.outer_graph = get_default_graph()
        if scope:  # a branch's or loop body's names start in its op's scope (``inherited``)
            self.set_name_scope(scope)
        # A function body reads the outer graph's collections as they are now (TF's
        # FuncGraph copies them); a branch or loop body shares them, as TF's cond and
        # while_loop do, so what it adds (a layer's UPDATE_OPS) is there after it.
        outer = self.outer_graph.collections
        self.collections = outer if control_flow else {k: list(v) for k, v in outer.items()}
        self.variable_error = variable_error
        self.created_variables = False
        self.captures: dict[tuple[int, int], tuple[Tensor, Tensor]] = {}
        self.stateful_ops: list[Operation] = []
        self.arg_values: list[tuple[Tensor, Any]] = []  # (input placeholder, array)
        # Ops of outer graphs named in ``control_dependencies`` inside: the op that runs
        # this graph (If, While, the call) takes them as its control inputs, as TF's
        # ``function_captures.control`` (``outer_control``).
        self.control_captures: list[Any] = []

    def control_dependencies(self, control_inputs: Sequence[Any] | None) -> Any:
        """``Graph.control_dependencies``, with an outer graph's op or tensor captured
        (``control_captures``) instead of made a control input of the ops inside, which
        could not run it: it runs before the op that runs this graph, as in TF."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:  # (an assignment's result is its op's: made here or not)
            if getattr(getattr(c, "op", c), "graph", self) is self:
                inner.append(c)
            elif all(c is not k for k in self.control_captures):
                self.control_captures.append(c)
        return super().control_dependencies(inner)

    def add_op(self, op: Operation) -> None:
        super().add_op(op)
        if self.tracing and OPS[op.type].stateful:
            if self.stateful_ops:
                op.control_inputs = (*op.control_inputs, self.stateful_ops[-1])
            self.stateful_ops.append(op)

    def capture(self, t: Tensor) -> Tensor:
        """The placeholder standing for outer tensor ``t`` (fed with ``t`` at each call)."""
        hit = self.captures.get(key(t))
        if hit is None:
            self._check_in_scope(t)
            with self.as_default():
                hit = self.captures[key(t)] = (t, placeholder(t.dtype, t.shape, "capture"))
            for r in context.current.recorders:  # a tape watching t watches its stand-in
                if t.dtype.is_differentiable and r.would_record([t], []) and hasattr(r, "watch"):
                    r.watch(hit[1])
        return hit[1]

    def _check_in_scope(self, t: Tensor) -> None:
        """TF's InaccessibleTensorError for a tensor made inside a graph nested in this
        one (a converted loop's body, a branch) that has finished: only the loop's or
        branch's outputs leave it, so e.g. a Python list appended in the body cannot."""
        inner = t.graph
        while isinstance(inner, FuncGraph):
            if inner is self:
                raise InaccessibleTensorError(
                    f"{t!r} is out of scope and cannot be used here. Use return values, "
                    "explicit Python locals or TensorFlow collections to access it.\n"
                    "Please see https://www.tensorflow.org/guide/function"
                    "#all_outputs_of_a_tffunction_must_be_return_values for more "
                    f"information.\n\nThe tensor {t!r} cannot be accessed from {self!r}, "
                    f"because it was defined in {t.graph!r}, which is out of scope."
                )
            inner = inner.outer_graph

    def lift_variable(self, name: str) -> Graph:
        """Check TF's singleton rule for a Variable created now; the graph it lives in.

        That is the graph outside every function being traced.  Each enclosing trace's
        rule applies, as TF's variable creator scopes nest.
        """
        graph: Graph = self
        while isinstance(graph, FuncGraph):
            if graph.variable_error is not None:
                raise ValueError(
                    f"{graph.variable_error} (function '{graph.qualname}' created "
                    f"tf.Variable '{name}' while tracing.)"
                )
            graph.created_variables = True
            graph = graph.outer_graph
        return graph

    def evaluate(self, t: Tensor) -> Any:
        """The value of ``t`` now, from this trace's argument values and captures."""
        feeds = [(ph, v) for ph, v in self.arg_values]
        feeds += [
            (ph, outer.eager_value) for outer, ph in self.captures.values() if outer.has_value()
        ]
        try:
            plan = Plan([t], [], [ph for ph, _ in feeds])
        except InvalidArgumentError as e:
            raise ValueError(
                f"The initial value of a tf.Variable created inside function '{self.qualname}' "
                f"cannot be computed while tracing: it needs a value known only when the "
                f"function runs ({e}). Create the variable outside the function."
            ) from None
        return plan.run([v for _, v in feeds])[0]

    def __repr__(self) -> str:
        return f"<symgrad.FuncGraph '{self.name}' at {id(self):#x}>"


def _recorders_interested(inputs: Sequence[Tensor], variables: Sequence[Any]) -> bool:
    return any(r.would_record(inputs, variables) for r in context.current.recorders)


class ConcreteFunction:
    """One trace: a graph, its input placeholders, its outputs; callable with tensors."""

    def __init__(
        self, graph: FuncGraph, inputs: list[Tensor], structured_outputs: Any, outputs: list[Tensor]
    ) -> None:
        self.graph = graph
        self.inputs = inputs
        self._structure = structured_outputs  # TENSOR where an output goes
        self.outputs = outputs
        self.captured = [outer for outer, _ in graph.captures.values()]
        self._feeds = inputs + [ph for _, ph in graph.captures.values()]
        fed = {id(ph.op) for ph in self._feeds}
        self._body = [op for op in graph.get_operations() if id(op) not in fed]
        # What a call op records: every output of every stateful op, in program order.
        self._stateful = [op for op in self._body if OPS[op.type].stateful]
        self._recorded = [op.output(i) for op in self._stateful for i in range(op.num_outputs)]
        seen: dict[int, Any] = {}
        for op in self._stateful:
            var = op.attrs.get("var")
            if var is not None:
                seen.setdefault(id(var), var)
        self.variables = list(seen.values())
        self._plan: Plan | None = None
        self._outputs_plan: Plan | None = None
        self._specs = [(t.shape, t.dtype) for t in outputs + self._recorded]
        self._out_specs = self._specs[: len(outputs)]
        # Packs the output tensors into the structure the Python function returned.
        self._pack = packer(structured_outputs)
        self._routes: tuple[Graph, list[Tensor]] | None = None  # see _call_now
        # With jit_compile, the XLA-compiled run of the outputs (``runtime.xla``), which
        # an eager call uses instead of the plan; False: tried, not compilable.
        self.compiled: Any = None
        # TF's: the arguments of the trace, ``(args, kwargs)``, a TensorSpec for each
        # tensor (``function`` sets it; None for a graph traced otherwise).
        self.structured_input_signature: Any = None

    @property
    def name(self) -> str:
        return self.graph.name

    @property
    def structured_outputs(self) -> Any:
        """TF's: the outputs, graph tensors, in the structure the function returned."""
        return self._pack(self.outputs)

    @property
    def output_shapes(self) -> Any:
        """TF's: each output's static shape, in the structure the function returned."""
        return nest.map_structure(lambda t: t.shape, self.structured_outputs)

    @property
    def output_dtypes(self) -> Any:
        """TF's: each output's dtype, in the structure the function returned."""
        return nest.map_structure(lambda t: t.dtype, self.structured_outputs)

    def __call__(self, *args: Any) -> Any:
        flat = nest.flatten(list(args))
        if len(flat) != len(self.inputs):
            raise TypeError(
                f"{self.name} takes {len(self.inputs)} tensor arguments, got {len(flat)}"
            )
        return self.call_flat(
            [convert_to_tensor(a, dtype=p.dtype) for a, p in zip(flat, self.inputs, strict=True)]
        )

    def call_flat(self, args: list[Tensor]) -> Any:
        """Call with one tensor per input placeholder, as they are (no conversion)."""
        inputs = args + self.captured if self.captured else args
        graph = get_default_graph()
        valued = all(t.op.output_values is not None for t in inputs)
        if graph.building_function or (
            (valued or not graph.eager)
            and context.current.recorders
            and _recorders_interested(inputs, self.variables)
        ):
            with outer_control([self]):
                mapping = atomic(self.replay, inputs)  # eager: the call's writes or none
            outs = [mapping[key(t)] for t in self.outputs]
        elif graph.eager and valued:
            outs = self._call_now(graph, inputs)
        else:
            reads = [v.value() for v in self.variables]  # route gradients to the variables
            with outer_control([self]):
                op = apply_op(
                    "PartitionedCall",
                    inputs + reads,
                    {"f": self, "n_feeds": len(inputs)},
                    "PartitionedCall",
                )
            outs = op.outputs[: len(self.outputs)]
        return self._pack(outs)

    def _call_now(self, graph: Graph, inputs: list[Tensor]) -> list[Tensor]:
        """An eager call that no tape watches: the plan runs at once, and one call op
        holds the outputs (so ``gradients`` can still differentiate the call later).

        Unlike a call op in a graph, it records no variable values (which would pin
        every variable's array, so updates could no longer be made in place); it
        records the variables' versions instead, and its gradient reads them again
        if no assignment has happened since.  Its variable inputs are reads that never
        run (made once per graph): they only route ``gradients(y, variable)`` to the
        variables.  So an eager call makes one op, not one per variable read.
        """
        before = [v._version for v in self.variables]
        values = self.run_outputs([t.eager_value for t in inputs])
        return self._hold_call(graph, inputs, values, before)

    def _hold_call(
        self, graph: Graph, inputs: list[Tensor], values: list[Any], before: list[int] | None
    ) -> list[Tensor]:
        """The call op of an eager call that computed ``values`` (see ``_call_now``);
        ``before``: the variables' versions before it (None: known to have changed)."""
        op = add_computed_op(
            "PartitionedCall",
            inputs + self.route_reads(graph),
            self.call_attrs(len(inputs), before),
            self._out_specs,
            values,
            "PartitionedCall",
        )
        return [op.output(i) for i in range(len(values))]

    def call_attrs(self, n_feeds: int, before: list[int] | None) -> dict[str, Any]:
        """An eager call op's attributes: no recorded values; ``versions``, the variables'
        versions before the call if none has changed since (else None: see
        ``_check_unchanged``)."""
        current = before is not None and before == [v._version for v in self.variables]
        return {
            "f": self,
            "n_feeds": n_feeds,
            "recorded": False,
            "versions": tuple(before) if current and before is not None else None,
        }

    def route_reads(self, graph: Graph) -> list[Tensor]:
        """Reads of the variables that never run, as the inputs of eager call ops (made
        once per graph)."""
        if self._routes is None or self._routes[0] is not graph:
            self._routes = (graph, self._route_reads(graph))
        return self._routes[1]

    def _route_reads(self, graph: Graph) -> list[Tensor]:
        """Reads of the variables that never run, as the inputs of eager call ops."""
        with graph.as_default():
            return [
                add_computed_op(
                    "ReadVariableOp", [], {"var": v}, [(v.shape, v.dtype)], None, "ReadVariableOp"
                ).output(0)
                for v in self.variables
            ]

    def run_outputs(self, arrays: Sequence[Any]) -> list[Any]:
        """The outputs alone of one run on ``arrays`` (its effects all happen)."""
        if self.compiled:
            return self.compiled(arrays)  # type: ignore[no-any-return]
        if self._outputs_plan is None:
            self._outputs_plan = Plan(self.outputs, self.graph.stateful_ops[-1:], self._feeds)
        return self._outputs_plan.run(arrays)

    def run_plan(self, arrays: Sequence[Any]) -> list[Any]:
        """The outputs, then the recorded stateful values, of one run on ``arrays``."""
        if self._plan is None:
            self._plan = Plan(
                self.outputs + self._recorded, self.graph.stateful_ops[-1:], self._feeds
            )
        return self._plan.run(arrays)

    def replay(
        self,
        inputs: Sequence[Tensor],
        recorded: Sequence[Tensor] | None = None,
        given: dict[tuple[int, int], Tensor] | None = None,
        effects: bool = True,
    ) -> dict[tuple[int, int], Tensor]:
        """Re-create the body's ops in the default graph with ``inputs`` for the feeds.

        With ``recorded`` (a call op's recorded values), the stateful ops are not re-run:
        their outputs are those values.  ``given`` maps outputs of other body ops (by key)
        to tensors standing for them: those ops are not re-created either.  Without
        ``effects`` (a gradient's recomputation) only the ops the outputs' values come
        from are: an assignment, print or assertion the body ran for its effect runs
        once, in the forward op, as in TF.
        """
        graph = get_default_graph()
        mapping = {key(ph): t for ph, t in zip(self._feeds, inputs, strict=True)}
        if recorded is not None:
            mapping.update(zip(map(key, self._recorded), recorded, strict=True))
        if given:
            mapping.update(given)
        wanted = None if effects else self._valued(mapping)
        op_map: dict[int, Operation] = {}
        for op in self._body:
            if (id(op), 0) in mapping or (wanted is not None and id(op) not in wanted):
                continue
            if op.type == "ReadVariableOp":
                with _control_deps(op, graph, op_map):
                    new = op.get_attr("var").value().op  # so tapes see the variable read
            else:
                new = _copy_op(op, graph, mapping, op_map)
            op_map[id(op)] = new
            for i in range(op.num_outputs):
                mapping[(id(op), i)] = new.output(i)
        return mapping

    def _valued(self, known: dict[tuple[int, int], Tensor]) -> set[int]:
        """The ids of the body's ops the outputs' values come from (by inputs, not
        control edges), short of the tensors ``known`` already stands for."""

        def producers(op: Operation) -> list[Operation]:
            return [t.op for t in op.inputs if key(t) not in known]

        roots = [t.op for t in self.outputs if key(t) not in known]
        return {id(op) for op in walk_ops(roots, producers, topological=False)}

    def __repr__(self) -> str:
        return f"<symgrad.ConcreteFunction {self.name} inputs={len(self.inputs)}>"


def _copy_op(
    op: Operation,
    graph: Graph,
    mapping: dict[tuple[int, int], Tensor],
    op_map: dict[int, Operation],
) -> Operation:
    ins = [mapping[key(t)] for t in op.inputs]
    attrs = op.attrs
    if op.type == "CustomGradient":
        old = attrs["remap"]
        remap = (
            dict(mapping) if old is None else {k: mapping.get(key(v), v) for k, v in old.items()}
        )
        attrs = {**attrs, "remap": remap}
    override = op.gradient_override  # the copy keeps the original's gradient override
    with (
        _control_deps(op, graph, op_map),
        graph.gradient_override_map({op.type: override})
        if override is not None
        else contextlib.nullcontext(),
    ):
        return apply_op(op.type, ins, attrs, op.name)


def inherited(scope: str) -> str:
    """The name scope a ``cond`` branch or ``while_loop`` body made in the op's name
    ``scope`` (``outer/cond/``) starts in: that scope where the graph outside every
    function being traced is eager (TF2's control flow graphs continue it, so names and
    summary tags inside carry it), else the root (a TF1 graph's)."""
    graph = get_default_graph()
    while isinstance(graph, FuncGraph):
        graph = graph.outer_graph
    return scope.rstrip("/") if graph.eager else ""


def outer_control(functions: Sequence[ConcreteFunction]) -> Any:
    """The ``control_dependencies`` for the op that runs ``functions``' graphs in the
    default graph: their ``control_captures`` (none in an eager graph, where they ran)."""
    caps: list[Any] = []
    for f in functions:
        caps.extend(c for c in f.graph.control_captures if all(c is not k for k in caps))
    graph = get_default_graph()
    return (
        graph.control_dependencies(caps) if caps and not graph.eager else contextlib.nullcontext()
    )


def _control_deps(op: Operation, graph: Graph, op_map: dict[int, Operation]) -> Any:
    """In a graph, the copy keeps the original's ordering edges (eager runs in order)."""
    deps = [op_map[id(c)] for c in op.control_inputs if id(c) in op_map]
    if deps and not graph.eager:
        return graph.control_dependencies(deps)
    return contextlib.nullcontext()


def packer(structure: Any) -> Callable[[list[Tensor]], Any]:
    """Puts a call's output tensors where the traced function returned tensors.

    The common returns (one tensor; a flat list or tuple of tensors) skip ``nest``."""
    if structure is TENSOR:
        return operator.itemgetter(0)
    if type(structure) in (list, tuple) and all(s is TENSOR for s in structure):
        return list if type(structure) is list else tuple

    def pack(outs: list[Tensor]) -> Any:
        it = iter(outs)

        def fill(leaf: Any) -> Any:
            if isinstance(leaf, IndexedSlices):  # a returned IndexedSlices: its three tensors
                return IndexedSlices(*[fill(t) for t in leaf.parts()])
            return next(it) if leaf is TENSOR else leaf

        return nest.map_structure(fill, structure)

    return pack


class _TensorSlot:
    def __repr__(self) -> str:
        return "<tensor>"


TENSOR = _TensorSlot()  # in a trace's output structure: "an output tensor goes here"


# --------------------------------------------------------------------------------------
# PartitionedCall: one op that runs a traced function's plan and records its effects


def _call_infer(inputs: Sequence[Tensor], *, f: ConcreteFunction, n_feeds: int) -> list[Spec]:
    return [(t.shape, t.dtype) for t in f.outputs + f._recorded]


def _call_kernel(
    *arrays: Any, f: ConcreteFunction, n_feeds: int, recorded: bool = True, versions: Any = None
) -> Any:
    outs = (f.run_plan if recorded else f.run_outputs)(arrays[:n_feeds])
    return outs[0] if len(outs) == 1 else tuple(outs)  # plans take one output bare


register_op(
    "PartitionedCall",
    _call_infer,
    _call_kernel,
    stateful=True,
    pure=False,
    batch="runs a traced function's plan: batching it would mean vectorising the "
    "traced body (jacobians fall back to the loop)",
    no_cases="carries a traced tf.function, which a row cannot supply; its gradient "
    "is that of the traced ops: tests/runtime/test_concrete_function.py and "
    "tests/runtime/test_function.py",
)


@RegisterGradient("PartitionedCall")
@runs_user_code
def _partitioned_call_grad(op: Any, *grads: Tensor) -> list[Tensor | None]:
    """Differentiate the body re-created on the call's inputs and recorded values.

    Gradients reaching a recorded read (from a higher-order pass) flow to its variable.
    """
    f: ConcreteFunction = op.get_attr("f")
    n_feeds, n_out = op.get_attr("n_feeds"), len(f.outputs)
    feeds = list(op.inputs[:n_feeds])
    if op.attrs.get("recorded", True):
        recorded = op.outputs[n_out:]
        mapping = f.replay(feeds, recorded)
    else:  # an eager call: its variables must hold the values it read
        _check_unchanged(op, f)
        mapping = f.replay(feeds)
        recorded = [mapping[key(t)] for t in f._recorded]
    targets = [mapping[key(t)] for t in f.outputs] + recorded
    pairs = [
        (t, g)
        for t, g in zip(targets, grads, strict=False)  # eager: outputs only
        if g is not None and t.dtype.is_differentiable
    ]
    reads = [
        (r, t.op.get_attr("var"))
        for r, t in zip(recorded, f._recorded, strict=True)
        if t.op.type == "ReadVariableOp"
    ]
    found = backprop(
        [t for t, _ in pairs],
        [g for _, g in pairs],
        feeds + [r for r, _ in reads],
        stop_ops={id(t.op) for t in feeds} | {id(op)},
    )
    first = {key(t): i for i, t in reversed(list(enumerate(feeds)))}  # fed twice: once
    feed_grads = [
        g if first[key(t)] == i else None
        for i, (t, g) in enumerate(zip(feeds, found, strict=False))
    ]
    var_grads = [
        _sum(
            [
                g
                for (_, v), g in zip(reads, found[n_feeds:], strict=True)
                if v is var and g is not None
            ]
        )
        for var in f.variables
    ]
    return feed_grads + var_grads


def _check_unchanged(op: Operation, f: ConcreteFunction) -> None:
    versions = op.get_attr("versions")
    changed = [
        v for i, v in enumerate(f.variables) if versions is None or v._version != versions[i]
    ]
    if changed:
        raise InvalidArgumentError(
            f"Cannot differentiate the call of function '{f.name}' ({op.describe()}): it "
            "ran eagerly with no GradientTape watching, and since it read variable "
            f"'{changed[0].name}' that variable has been assigned (by the call itself or "
            "later), so the values its gradient needs are gone. Make the call inside a "
            "GradientTape, or in a graph that a Session runs.",
            op,
        )


def _sum(parts: list[Tensor]) -> Tensor | None:
    from symgrad.ops.math.elementwise import add_n

    return None if not parts else parts[0] if len(parts) == 1 else add_n(parts)
