"""``cond``, ``case`` and ``switch_case``: branches as graphs of their own (TF 2's cond_v2).

At the top level, with a predicate that has a value, the taken branch's Python function
simply runs (as TF eager does), so a tape sees only its ops.  Otherwise (building a
graph, tracing a ``function``, or a predicate fed later) each branch is traced into a
``FuncGraph``, and one functional op records the choice: ``StatelessIf`` when no branch
has a stateful op, else ``If`` (``StatelessCase`` / ``Case`` for ``switch_case``).  The
op's inputs are the selector, then every outer tensor a branch captures; its kernel runs
the chosen branch's plan, so the predicate decides at run time.  A TensorArray a branch
returns travels as its buffer and is rebuilt around the op's output (``tensor_array_cond``).

The gradient of such an op is the same kind of op over the branches' gradient graphs:
each re-creates its branch on the op's inputs and differentiates it, returning zeros for
the inputs it does not use.  So a tensor used only in the branch not taken gets zeros
(TF's ``gradients`` and tapes inside ``function`` do the same; an eager tape gets None,
as it never saw that branch); an input that every branch cuts (``stop_gradient``, an
integer cast) gets None, as TF's; higher orders differentiate the gradient op again.
A variable a branch reads is captured as one outer read (``function_reads``), through
which its gradient leaves the op; the batching rule is in ``control_flow_batch``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import backprop, key
from symgrad.control_flow import tensor_array
from symgrad.control_flow.branch_grads import MatchSlices, join, joined, seed
from symgrad.control_flow.control_flow_batch import branches_rule
from symgrad.control_flow.function_reads import capture_reads, check_no_assign, read_values
from symgrad.control_flow.numerics_where import in_branch, mirror
from symgrad.control_flow.tensor_array_cond import BranchArrays
from symgrad.core import context, hooks
from symgrad.core.cases import Case, fixed, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops import core
from symgrad.ops.array import structure as array
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.state.variables import Variable
from symgrad.runtime.concrete_function import (
    ConcreteFunction,
    inherited,
    outer_control,
    packer,
)
from symgrad.runtime.function import function, trace_graph

Fn = Callable[[], Any]


# --------------------------------------------------------------------------------------
# The functional ops: If / StatelessIf (bool predicate), Case / StatelessCase (index)


def _branches_infer(
    inputs: Sequence[Tensor], *, branches: Sequence[ConcreteFunction], maps: Any
) -> list[Spec]:
    specs = []
    for ts in zip(*(f.outputs for f in branches), strict=True):
        shape = ts[0].shape
        for t in ts[1:]:
            shape = join(shape, t.shape)
        specs.append((shape, ts[0].dtype))
    return specs


def _run(
    i: int,
    args: Sequence[Any],
    branches: Sequence[ConcreteFunction],
    maps: Sequence[Sequence[int]],
    is_if: bool = False,
) -> Any:
    try:
        outs = branches[i].run_outputs([args[j] for j in maps[i]])
    except InvalidArgumentError as e:  # enable_check_numerics: say which branch
        labels = ["true_fn", "false_fn"] if len(maps) == 2 and is_if else None
        names = labels or [f"branches[{k}]" for k in range(len(maps))]
        raise in_branch(e, branches, i, names) from None
    return outs[0] if len(outs) == 1 else tuple(outs)  # plans take one output bare


def _if_kernel(pred: Any, *args: Any, branches: Any, maps: Any) -> Any:
    return _run(0 if bool(pred) else 1, args, branches, maps, is_if=True)


def _case_kernel(index: Any, *args: Any, branches: Any, maps: Any) -> Any:
    i = int(index)
    return _run(i if 0 <= i < len(branches) else len(branches) - 1, args, branches, maps)


STATELESS_IF = register_op("StatelessIf", _branches_infer, _if_kernel)
IF = register_op(
    "If",
    _branches_infer,
    _if_kernel,
    stateful=True,
    pure=False,
)
STATELESS_CASE = register_op("StatelessCase", _branches_infer, _case_kernel)
CASE = register_op(
    "Case",
    _branches_infer,
    _case_kernel,
    stateful=True,
    pure=False,
)
_KINDS = {
    "If": ("StatelessIf", "If"),
    "StatelessIf": ("StatelessIf", "If"),
    "Case": ("StatelessCase", "Case"),
    "StatelessCase": ("StatelessCase", "Case"),
}


def _pack(template: Any, outs: Sequence[Tensor]) -> Any:
    """The branches' output structure with the op's outputs in it (IndexedSlices too)."""
    return packer(template)(list(outs))


def _functional(
    kind: str,
    selector: Tensor,
    fns: Sequence[Fn],
    names: Sequence[str],
    api: str,
    name: str | None,
    settle: Callable[[Callable[[int], Any], list[Any]], list[Any]] | None = None,
) -> Any:
    """Trace each branch and record one op of ``kind`` choosing among them (a returned
    TensorArray travels as its buffer: ``tensor_array_cond``; ``settle`` may trace
    branches again once all have been, as the gradient's IndexedSlices need).  The op is
    named by the name scope ``name`` makes, which its outputs' Identities and (in TF2)
    its branches' ops are in, as TF's cond_v2; without ``name`` (a gradient's op, in the
    gradient's scope) it has its type's name."""
    graph = get_default_graph()
    with graph.name_scope(name) if name else contextlib.nullcontext("") as scope:
        arrays = BranchArrays(fns)

        inside = inherited(scope)

        def traced(i: int) -> ConcreteFunction:
            return trace_graph(arrays.wrap(i), f"{name or api}_{names[i]}", inside)

        branches = arrays.finish(traced, [traced(i) for i in range(len(fns))])
        if settle is not None:
            branches = settle(traced, branches)
        for i in range(1, len(branches)):
            _check_same(names[0], branches[0], names[i], branches[i], api, arrays, i)
        branches = capture_reads(branches)
        inputs: list[Tensor] = []
        index: dict[Any, int] = {}
        maps = []
        for f in branches:
            for t in f.captured:
                if key(t) not in index:
                    index[key(t)] = len(inputs)
                    inputs.append(t)
            maps.append(tuple(index[key(t)] for t in f.captured))
        stateless, stateful = _KINDS[kind]
        op_type = stateful if any(f.graph.stateful_ops for f in branches) else stateless
        with outer_control(branches):  # an outer op a branch depends on runs first, as in TF
            op = apply_op(
                op_type,
                [selector, *inputs],
                {"branches": tuple(branches), "maps": tuple(maps)},
                scope or None,
            )
        # TF's cond_v2 hands out Identities of the op's outputs, in its scope (a plan
        # forwards them)
        outs = [core.identity(t) for t in op.outputs]
        return arrays.rebuild(_pack(branches[0]._structure, outs))


def _check_same(
    na: str,
    a: ConcreteFunction,
    nb: str,
    b: ConcreteFunction,
    api: str,
    arrays: BranchArrays,
    j: int,
) -> None:
    """TF's error when two branches' outputs differ in structure or dtype."""
    sa = arrays.shown(0, _pack(a._structure, a.outputs))
    sb = arrays.shown(j, _pack(b._structure, b.outputs))
    detail = None
    if _shape_of(sa) != _shape_of(sb):
        detail = (
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: type={type(sa).__name__} str={sa}\n\n"
            f"Second structure: type={type(sb).__name__} str={sb}"
        )
    else:
        detail = arrays.mismatch(0, j)
    if detail is None:
        for x, y in zip(a.outputs, b.outputs, strict=True):
            if x.dtype != y.dtype:
                detail = f"{x} and {y} have different types"
                break
    if detail is not None:
        raise TypeError(
            f"{na} and {nb} arguments to {api} must have the same number, type, and overall "
            f"structure of return values.\n\n{na} output: {sa}\n{nb} output: {sb}\n\n"
            f"Error details:\n{detail}"
        )


def _shape_of(structure: Any) -> Any:
    """The nesting of ``structure``: container types and dict keys, leaves dropped."""
    if isinstance(structure, dict):
        return (dict, tuple((k, _shape_of(v)) for k, v in sorted(structure.items())))
    if isinstance(structure, list | tuple):
        return (type(structure), tuple(_shape_of(v) for v in structure))
    return None


# --------------------------------------------------------------------------------------
# Public wrappers


def cond(
    pred: Any, true_fn: Fn | None = None, false_fn: Fn | None = None, name: str | None = None
) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()`` (``tf.cond``).

    >>> import symgrad as tf
    >>> x = tf.constant(2.0)
    >>> print(tf.cond(x > 1.0, lambda: x * 3.0, lambda: x))
    symgrad.Tensor(6.0, shape=(), dtype=float32)
    """
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    pred = core.convert_to_tensor(pred)
    if get_default_graph().eager and pred.has_value():
        return true_fn() if bool(pred.eager_value) else false_fn()
    if pred.dtype.name != "bool" or pred.shape.rank not in (0, None):
        raise ValueError(f"pred must be a scalar bool tensor, got {pred}")
    return _functional(
        "If", pred, [true_fn, false_fn], ["true_fn", "false_fn"], "tf.cond", name or "cond"
    )


def cond_v1(
    pred: Any,
    true_fn: Fn | None = None,
    false_fn: Fn | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Fn | None = None,
    fn2: Fn | None = None,
) -> Any:
    """``tf.compat.v1.cond``: TF2's, plus the deprecated ``fn1``/``fn2`` names and
    ``strict``: unless set, an eager branch's one-element list or tuple comes back as its
    element (a graph's keeps its structure, as TF's control flow v2 does)."""
    fns = []
    for given, old, arg, alias in (
        (true_fn, fn1, "true_fn", "fn1"),
        (false_fn, fn2, "false_fn", "fn2"),
    ):
        if old is not None and given is not None:
            raise TypeError(f"cond(): '{arg}' and '{alias}' may not be set simultaneously.")
        if old is None and given is None:
            raise TypeError(f"cond(): '{arg}' argument required")
        fns.append(given if old is None else old)
    out = cond(pred, fns[0], fns[1], name=name)
    eager = get_default_graph().eager and core.convert_to_tensor(pred).has_value()
    if eager and not strict and isinstance(out, list | tuple) and len(out) == 1:
        return out[0]
    return out


def switch_case(
    branch_index: Any, branch_fns: Any, default: Fn | None = None, name: str = "switch_case"
) -> Any:
    """``branch_fns[branch_index]()``; ``default`` (else the last branch) out of range."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    fns = _indexed_fns(branch_fns)
    if default is not None:
        fns.append(default)
    if get_default_graph().eager and branch_index.has_value():
        i = int(branch_index.eager_value)
        return fns[i if 0 <= i < len(fns) else -1]()
    names = [f"branches[{i}]" for i in range(len(fns))]
    with get_default_graph().name_scope(name):  # TF's names: switch_case/indexed_case
        return _functional("Case", branch_index, fns, names, "tf.switch_case", "indexed_case")


def _indexed_fns(branch_fns: Any) -> list[Fn]:
    if not isinstance(branch_fns, list | tuple | dict):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if not all(callable(p) for p in pairs):
        for pair in pairs:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
            if not isinstance(pair[0], int):
                raise TypeError(f"key must be a Python `int`, got {type(pair[0])}")
            if not callable(pair[1]):
                raise TypeError(f"fn for key {pair[0]} must be callable.")
        keys = sorted(k for k, _ in pairs)
        if keys != list(range(len(pairs))):
            raise ValueError(
                f"branch indices (keys) must form contiguous range of [0 to "
                f"{len(pairs)}) but found {{{','.join(map(str, keys))}}}"
            )
        return [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    return pairs  # type: ignore[return-value]  # a list of callables


# --------------------------------------------------------------------------------------
# The gradient: the same functional op over the branches' gradient graphs


def _local(t: Tensor) -> Tensor:
    graph = get_default_graph()
    return t if t.op.graph is graph else graph.capture(t)


def _branch_grad(
    f: ConcreteFunction,
    feed_index: Sequence[int],
    ins: Sequence[Tensor],
    seeds: Sequence[Tensor | None],
    shapes: Sequence[TensorShape],
    diff: Sequence[int],
    connected: set[int],
) -> list[Tensor]:
    """One branch's gradient w.r.t. every differentiable input of the op (zeros where
    the branch does not use it), re-creating the branch on the op's inputs; the inputs
    it does carry gradient to are added to ``connected``."""
    local = [_local(t) for t in ins]
    feeds = [local[j] for j in feed_index]
    mapping = f.replay(feeds, given=read_values(f, feeds), effects=False)
    pairs = [
        (mapping[key(t)], seed(_local(g), t.shape, s))
        for t, g, s in zip(f.outputs, seeds, shapes, strict=True)
        if g is not None
    ]
    found = backprop(
        [t for t, _ in pairs],
        [g for _, g in pairs],
        feeds,
        stop_ops={id(t.op) for t in feeds},
        sparse=True,
    )
    grads: dict[int, Tensor] = {
        j: g for j, g in zip(feed_index, found, strict=True) if g is not None
    }
    connected.update(grads)
    return [grads[i] if i in grads else array.zeros_like(local[i]) for i in diff]


def _functional_grad(op: Any, *grads: Tensor | None) -> list[Tensor | None]:
    """d input = the chosen branch's gradient graph, run by the same kind of op."""
    selector, ins = op.inputs[0], list(op.inputs[1:])
    branches, maps = op.get_attr("branches"), op.get_attr("maps")
    check_no_assign(branches, f"{op.type} op '{op.name}'")
    diff = [i for i, t in enumerate(ins) if t.dtype.is_differentiable]
    if not diff:
        return [None] * len(op.inputs)
    seeds = [
        None if not o.dtype.is_differentiable else array.zeros_like(o) if g is None else g
        for o, g in zip(op.outputs, grads, strict=True)
    ]
    connected: set[int] = set()
    match = MatchSlices(
        [
            functools.partial(_branch_grad, f, m, ins, seeds, joined(branches), diff, connected)
            for f, m in zip(branches, maps, strict=True)
        ]
    )
    fns = [match.wrap(i) for i in range(len(branches))]
    names = [f"branches[{i}]" for i in range(len(fns))]
    found = _functional(op.type, selector, fns, names, "gradients", None, match.settle)
    mirror(found, op)
    out: list[Tensor | None] = [None] * len(ins)
    for i, g in zip(diff, found, strict=True):
        # An input that every branch cuts gets None, as in TF (not the op's zeros).
        out[i] = g if i in connected else None
    return [None, *out]


for _opdef in (STATELESS_IF, IF, STATELESS_CASE, CASE):
    _opdef.gradient(_functional_grad)
    _opdef.batching(branches_rule(_functional))


# --------------------------------------------------------------------------------------
# Op-table rows: the wrappers build the op in a graph; at top level, where a valued
# predicate would just run one branch, they are traced by ``function`` to build it


def row_builder(build: Callable[..., Any]) -> Callable[..., Any]:
    """A row's ``fn``: ``build`` itself in a graph, traced by ``function`` at top level
    (where a valued predicate or loop variables would run in Python, recording no op)."""
    traced = function(build)
    return lambda *args: traced(*args) if get_default_graph().eager else build(*args)


def row_variable() -> Variable:
    """The Variable (0.75) that rows of the stateful ops read: made on first use, at
    top level, so that a row's trace may read it."""
    if not _ROW_VARIABLE:
        with context.init_scope():
            _ROW_VARIABLE.append(Variable(np.float64(0.75), trainable=False, name="row_variable"))
    return _ROW_VARIABLE[0]


_ROW_VARIABLE: list[Variable] = []


def _scaled(x: Tensor) -> Tensor:
    return x * array.cast(row_variable(), x.dtype)


_cond_row = row_builder(lambda p, x, y: cond(p, lambda: math_ops.sin(x) * y, lambda: (x * y) * y))


def _array_row(p: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """A cond whose branches write a TensorArray (carried out as its buffer)."""
    ta = tensor_array.TensorArray(x.dtype, size=2).write(0, x)
    return cond(p, lambda: ta.write(1, math_ops.sin(x) * y), lambda: ta.write(0, x * y)).stack()


_switch_row = row_builder(
    lambda i, x, y: switch_case(i, [lambda: math_ops.sin(x) * y, lambda: x * y, lambda: x + y * y])
)


STATELESS_IF.add_cases(
    Case(
        [fixed(True), randn(3, 4), randn(4)],
        lambda p, x, y: np.sin(x) * y,
        _cond_row,
        diff=(1, 2),
        name="true",
    ),
    Case(
        [fixed(False), randn(3, 4), randn(4)],
        lambda p, x, y: x * y * y,
        _cond_row,
        diff=(1, 2),
        name="false",
    ),
    *(
        Case(
            [fixed(p), randn(3, 4), randn(4)],
            ref,
            row_builder(_array_row),
            diff=(1, 2),
            name=f"tensor_array_{p}",
        )
        for p, ref in (
            (True, lambda p, x, y: np.stack([x, np.sin(x) * y])),
            (False, lambda p, x, y: np.stack([x * y, np.zeros_like(x)])),
        )
    ),
)
STATELESS_CASE.add_cases(
    *(
        Case(
            [ints(i), randn(3, 4), randn(4)],
            ref,
            _switch_row,
            diff=(1, 2),
            name=f"branch{i}",
        )
        for i, ref in (
            (0, lambda i, x, y: np.sin(x) * y),
            (1, lambda i, x, y: x * y),
            (5, lambda i, x, y: x + y * y),
        )
    )
)
IF.add_cases(
    *(
        Case(
            [fixed(p), randn(3, 4), randn(4)],
            ref,
            row_builder(
                lambda p, x, y: cond(p, lambda: _scaled(math_ops.sin(x)) * y, lambda: x * y * y)
            ),
            diff=(1, 2),
            name=f"reads_variable_{p}",
        )
        for p, ref in (
            (True, lambda p, x, y: np.sin(x) * 0.75 * y),
            (False, lambda p, x, y: x * y * y),
        )
    )
)
CASE.add_cases(
    *(
        Case(
            [ints(i), randn(3, 4), randn(4)],
            ref,
            row_builder(
                lambda i, x, y: switch_case(
                    i, [lambda: x * y, lambda: _scaled(math_ops.sin(x) * y)]
                )
            ),
            diff=(1, 2),
            name=f"reads_variable_{i}",
        )
        for i, ref in ((0, lambda i, x, y: x * y), (1, lambda i, x, y: np.sin(x) * y * 0.75))
    )
)


hooks.provide("cond", cond)
