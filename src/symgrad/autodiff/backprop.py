"""The one reverse-mode engine, shared by ``gradients()`` and ``GradientTape``.

    1. ``_walk_back``: the ops the targets depend on, over edges of differentiable dtype
       (and, for a tape, only through ops it recorded); where the sources are.
    2. ``_reached``: of those, the ops some source reaches going forward (the "between" ops).
    3. ``_pending``: for each between op, how many between-op consumer edges must report.
    4. ``backprop``: seed the targets, then process ready ops in reverse topological
       order: aggregate each output's gradients, call the op's rule, check what it
       returned, pass gradients to the inputs, release producers whose counts reach zero.

Every step is a loop over an explicit queue, so a 100,000-op chain needs no recursion.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from symgrad.core.context import current
from symgrad.core.eager import EagerTensor
from symgrad.core.gradient_registry import USER_CODE_RULES, gradient_registry
from symgrad.core.graph import PACKAGE_DIR, Operation, Tensor, user_frame, walk_ops
from symgrad.ops.array.structure import zeros_like
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.elementwise import add_n
from symgrad.ops.sparse.indexed_slices import (
    IndexedSlices,
    aggregator,
    check_slices,
    dense,
    rule_input,
)

Key = tuple[int, int]
Edge = tuple[Operation, int]

_TENSORS = frozenset({Tensor, EagerTensor})  # a light eager tensor is a Tensor too


def key(t: Tensor) -> Key:
    return id(t.op), t.value_index


@dataclass
class Walk:
    """What ``_walk_back`` learns: consumer edges of each tensor, and the source tensors."""

    consumers: dict[Key, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    edges: set[tuple[int, int]] = field(default_factory=set)
    source_of: dict[Key, list[int]] = field(default_factory=lambda: defaultdict(list))
    ops: dict[int, Operation] = field(default_factory=dict)


def _walk_back(
    targets: Sequence[Tensor], sources: Sequence[Any], stop_ops: set[int], recorded: set[int] | None
) -> Walk:
    walk = Walk()
    var_index: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(sources):
        if isinstance(s, Tensor):
            walk.source_of[key(s)].append(i)
        else:  # a Variable: its reads are its tensors
            var_index[id(s)].append(i)
    consumers, edges, source_of, ops = walk.consumers, walk.edges, walk.source_of, walk.ops

    def producers(op: Operation) -> list[Operation]:
        """The edges into ``op`` gradient can cross: noted, and their producers walked."""
        op_id = id(op)
        ops[op_id] = op
        if var_index and op.type == "ReadVariableOp" and id(op.get_attr("var")) in var_index:
            source_of[(op_id, 0)].extend(var_index[id(op.get_attr("var"))])
        if op_id in stop_ops:
            return []
        found = []
        for i, t in enumerate(op.inputs):
            producer, index = t.op, t.value_index
            if not producer.output_dtypes[index].is_differentiable:
                continue
            k = (id(producer), index)
            if recorded is not None and k[0] not in recorded and k not in source_of:
                continue
            consumers[k].append((op, i))
            edges.add((op_id, i))
            if recorded is None or k[0] in recorded:  # a tape source's unrecorded op: a leaf
                found.append(producer)
        return found

    walk_ops([t.op for t in targets], producers, topological=False)
    return walk


def _reached(walk: Walk) -> set[int]:
    """Ops that some source reaches going forward (all of them are ancestors of a target)."""
    reached: set[int] = set()
    consumers = walk.consumers
    queue = deque(op for k in walk.source_of for op, _ in consumers.get(k, ()))
    while queue:
        op = queue.popleft()
        op_id = id(op)
        if op_id in reached:
            continue
        reached.add(op_id)
        for i in range(len(op.output_dtypes)):
            for consumer, _ in consumers.get((op_id, i), ()):
                if id(consumer) not in reached:
                    queue.append(consumer)
    return reached


def _pending(walk: Walk, between: set[int]) -> dict[int, int]:
    counts = dict.fromkeys(between, 0)
    for (op_id, _), edges in walk.consumers.items():
        if op_id in counts:
            n = counts[op_id]
            for c, _ in edges:
                if id(c) in between:
                    n += 1
            counts[op_id] = n
    return counts


def backprop(
    targets: Sequence[Tensor],
    seeds: Sequence[Tensor],
    sources: Sequence[Any],
    *,
    stop_ops: set[int] = frozenset(),  # type: ignore[assignment]
    recorded: set[int] | None = None,
    use_override: bool = True,
    aggregate: Any = None,
    sparse: bool = False,
) -> list[Tensor | None]:
    """Gradients of sum(target · seed) w.r.t. each source (None where unconnected);
    with ``sparse``, a gather's gradient may be an IndexedSlices, as TF returns it."""
    aggregate = aggregator(aggregate or add_n)
    walk = _walk_back(targets, sources, set(stop_ops), recorded)
    between = _reached(walk)
    pending = _pending(walk, between)
    grads: dict[Key, list[Tensor]] = defaultdict(list)
    for t, g in zip(targets, seeds):
        grads[key(t)].append(g)
    results: dict[Key, Tensor | None] = {}
    edges, source_of = walk.edges, walk.source_of

    def total(k: Key) -> Tensor | None:
        got = grads.pop(k, None)
        g = None if not got else got[0] if len(got) == 1 else aggregate(got)
        if k in source_of:
            results[k] = g
        return g

    ready = deque(walk.ops[i] for i, n in pending.items() if n == 0)
    where = current.frame or user_frame()
    while ready:
        op = ready.popleft()
        op_id = id(op)
        n_out = len(op.output_dtypes)
        out_grads = [total((op_id, 0))] if n_out == 1 else [total((op_id, i)) for i in range(n_out)]
        inputs = op.inputs
        skip: tuple[int, ...] = ()
        for i, t in enumerate(inputs):
            if (op_id, i) not in edges or (
                id(t.op) not in between and (id(t.op), t.value_index) not in source_of
            ):
                skip += (i,)
        in_grads: list[Tensor | None]
        for out_grad in out_grads:
            if out_grad is not None:
                in_grads = apply_rule(op, out_grads, use_override, skip, where)
                break
        else:
            in_grads = [None] * len(inputs)
        for i, (t, dx) in enumerate(zip(inputs, in_grads)):
            if (op_id, i) not in edges:
                continue
            producer = t.op
            p = id(producer)
            if dx is not None:
                grads[(p, t.value_index)].append(dx)
            if p in pending:
                pending[p] -= 1
                if pending[p] == 0:
                    ready.append(producer)
    out: list[Any] = []  # Tensors, IndexedSlices (with ``sparse``) or None
    for i in range(len(sources)):
        ks = [k for k, idx in walk.source_of.items() if i in idx]
        parts = [results[k] if k in results else total(k) for k in ks]
        parts = [p for p in parts if p is not None]
        got = None if not parts else parts[0] if len(parts) == 1 else aggregate(parts)
        out.append(got if sparse else dense(got))
    return out


def apply_rule(
    op: Operation,
    out_grads: list[Tensor | None],
    use_override: bool,
    skip: tuple[int, ...] = (),
    where: tuple[str, int] | None = None,
) -> list[Tensor | None]:
    """Look up and call op's gradient rule; check what it returned against op's inputs.

    ``skip`` lists the inputs no source is reached through; the rule sees it as
    ``op.skip_input_indices`` (as in TF) and may leave their gradients unbuilt.  ``where``
    is the user's line that asked for the gradient (found here when not given).
    """
    if not op.inputs:
        return []
    op_type = (op.gradient_override if use_override else None) or op.type
    entry = gradient_registry.entry(op_type)
    if entry is None:
        via = f" (its gradient_override_map names '{op_type}')" if op_type != op.type else ""
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type}){via}, created "
            f"at {op.location}. In general every operation must have an associated "
            f"`@RegisterGradient` for correct autodiff; if this op is not differentiable, "
            f'declare it with `NoGradient("{op_type}")` (or wrap its output in '
            "`stop_gradient`)."
        )
    fn = entry[0]
    if fn is None:
        return [None] * len(op.inputs)
    builtin = _BUILTIN.get(fn)
    if builtin is None:
        builtin = _is_builtin(fn)
    if len(out_grads) != 1 or type(out_grads[0]) not in _TENSORS:  # else: nothing to adapt
        out_grads, fn = rule_input(op_type, fn, out_grads, builtin)
        builtin = _is_builtin(fn)
        if any(g is None for g in out_grads):  # an output nobody differentiated: zeros
            out_grads = [
                g if g is not None or not t.dtype.is_differentiable else zeros_like(t)
                for g, t in zip(out_grads, op.outputs)
            ]
    graph, ctx = op.graph, current
    frame = ctx.frame
    # A built-in rule's ops are made at the line that asked for the gradient: it is found
    # once per pass (``where``), not once per op.  A user's rule keeps its own lines.
    ctx.frame = (where or user_frame()) if builtin else None
    op.skip_input_indices = skip
    # The name scope f"{op.name}_grad", as name_scope would enter it but without checking
    # the name: an eager op's name is unique already (its gradient ops are named unique
    # among live ops within the scope); in a graph it is made unique.
    scope = f"{op.name}_grad"
    scopes = graph._scopes  # set_name_scope's work, inlined: this runs for every rule
    outer = scopes.name
    if graph.eager:
        scopes.name = f"{outer}/{scope}" if outer else scope
    else:
        scopes.name = graph.unique_name(scope)
    try:
        result = fn(op, *out_grads)
    finally:
        scopes.name = outer
        ctx.frame = frame
        op.skip_input_indices = None
    checked = _check_rule_result(op, op_type, result, static=use_override)
    if skip:
        return [None if i in skip else g for i, g in enumerate(checked)]
    return checked


def _is_builtin(fn: Any) -> bool:
    """Is ``fn`` a rule of the package that runs no user code?"""
    builtin = _BUILTIN.get(fn)
    if builtin is None:
        code = getattr(fn, "__code__", None)
        builtin = _BUILTIN[fn] = (
            code is not None
            and fn not in USER_CODE_RULES
            and code.co_filename.startswith(PACKAGE_DIR)
        )
    return builtin


_BUILTIN: dict[Any, bool] = {}


def _check_rule_result(op: Operation, op_type: str, result: Any, static: bool) -> list[Any]:
    if isinstance(result, Tensor) or result is None or not isinstance(result, list | tuple):
        result = [result]
    result = list(result)
    if len(result) != len(op.inputs):
        raise ValueError(
            f"Num gradients {len(result)} generated for op {op.describe()} do not match num "
            f"inputs {len(op.inputs)}: the gradient function registered for '{op_type}' "
            "must return one gradient (or None) per input."
        )
    checked: list[Any] = []
    for i, (t, g) in enumerate(zip(op.inputs, result)):
        if g is None or isinstance(g, IndexedSlices):
            checked.append(g if g is None else check_slices(op, op_type, i, g))
            continue
        if type(g) in _TENSORS and g.dtype is t.dtype and g.shape.dims == t.shape.dims:
            checked.append(g)  # the common case, nothing to check further
            continue
        if not isinstance(g, Tensor):
            try:
                g = convert_to_tensor(g, dtype=t.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"The gradient function for '{op_type}' returned {g!r} for input {i} of op "
                    f"{op.describe()}, which is not a tensor: {e}"
                ) from None
        if g.dtype is not t.dtype and t.dtype.is_differentiable:
            raise TypeError(
                f"The gradient function for '{op_type}' returned a {g.dtype.name} gradient for "
                f"input {i} ({t.dtype.name}) of op {op.describe()}."
            )
        if not t.shape.is_compatible_with(g.shape):
            if not static:  # a tape, like TF's, leaves a wrong shape to whoever reads it
                checked.append(g)
                continue
            raise ValueError(
                "Incompatible shapes between op input and calculated input gradient. "
                f"Forward operation: {op.name} (type {op.type}, created at {op.location}). "
                f"Input index: {i}. Original input shape: {t.shape}. Calculated input "
                f"gradient shape: {g.shape}"
            )
        if t.shape.dims is not None and g.shape.dims != t.shape.dims:
            g.set_shape(t.shape)
        checked.append(g)
    return checked
