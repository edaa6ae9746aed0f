"""One definition per op type (shape rule + NumPy kernel) and the generic op constructor.

``apply_op`` is the single entry point every public op function ends in.  It creates the
Operation in the default graph, infers static output dtypes and shapes with the op's
shape rule (which is also where bad input is rejected, at the user's call), and in
eager mode runs the kernel at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case
from symgrad.core.context import current
from symgrad.core.eager import (  # noqa: F401
    ERRSTATE,
    ERRSTATE_IGNORE,
    EagerTensor,
    _errstate_var,
    run_now,
)
from symgrad.core.errors import InvalidArgumentError, OpError
from symgrad.core.fast_path import set_checked
from symgrad.core.gradient_registry import GradFn, RegisterGradient, no_gradient
from symgrad.core.graph import SOURCE_TYPES, Graph, Operation, Tensor, get_default_graph, user_frame
from symgrad.core.shapes import TensorShape

Spec = tuple[TensorShape, dt.DType]
InferFn = Callable[..., Spec | list[Spec]]
KernelFn = Callable[..., Any]


@dataclass(eq=False)
class OpDef:
    """Everything about one op type, declared in one place (``register_op``).

    How it computes:

    * ``infer(inputs, **attrs)`` returns the (shape, dtype) of each output, raising
      ValueError/TypeError for bad input (at the user's call);
    * ``kernel(*arrays, **attrs)`` computes the outputs on NumPy arrays;
    * ``bind(**attrs)``, where given, returns the kernel specialised to those attrs (plans
      call it once, so per-run work such as reading attrs is done at compile time);
    * ``specialize(op, consts)``, where given, may return a kernel for this one op in a
      plan, specialised to its static input shapes and constant inputs (``consts[i]``);
    * ``inplace(*arrays, out=)``, where given, computes the output into ``out`` (a plan
      passes the buffer of an input that dies at this step; for an op that is not
      elementwise, ``out`` is input 0, which it updates: a list's row write);
    * ``narrow(op, read)``, where given, may return the attrs with which the op computes
      only the outputs a plan reads (``read[i]``), or None (a loop that stacks no value
      for a gradient its plan does not hold);
    * ``forwards(op, consts)``, where given, is the index of the input this op returns
      unchanged, given its constant inputs (None where not constant), or None: a plan then
      drops the step (``x * 1``, a Cast to the same dtype, a Reshape to the same shape);
    * ``lowerings`` maps a backend's name to its lowering of this op type (NumPy's is
      ``kernel``; room for others, such as XLA, in the same record).

    Traits the runtime and tools read, instead of lists of op type names:

    * ``stateful``: reads or writes state (variables); never folded, merged or cached;
    * ``variable``: "read" or "write" for the ops that read or write the Variable in
      their ``var`` attr (plans schedule updates and count memory by it);
    * ``symbolic``: has no value until fed (placeholders); never run at creation;
    * ``pure``: deterministic and free of effects, so a plan may fold and merge it
      (False also for calls of traced functions, whose bodies may have effects);
    * ``elementwise``: output entries follow input entries after broadcasting;
    * ``pass_through``: output 0 is input 0 unchanged (Identity, StopGradient);
    * ``view``: output 0 may share input 0's buffer (a reshape, a variable read);
    * ``shape_only``: the output follows from input 0's shape alone (Shape, ZerosLike);
    * ``fill``: with ``shape_only``, the output has input 0's size (ZerosLike), so folding
      it is bounded by that size;
    * ``source``: its outputs are differentiation sources while the op lives (a variable
      read), so the eager graph keeps the history downstream of it (``Graph.sweep``).

    Differentiation and checking, filled beside the declaration:

    * the gradient rule lives in ``gradient_registry`` (users override it by type name);
      ``@OPDEF.gradient`` and ``OPDEF.no_gradient()`` register it there;
    * ``batch`` is the batching rule for vectorised jacobians (``@OPDEF.batching``), or a
      string saying why the op has none;
    * ``cases`` are its op-table rows (``OPDEF.add_cases(...)``), or ``no_cases`` says
      why a row cannot exercise it and which test does; ``no_rule_check`` says why
      ``check-gradients`` cannot call the rule on plain arrays of its inputs (the op-table
      cases then check it through a wrapper).
    """

    type: str
    infer: InferFn
    kernel: KernelFn
    stateful: bool = False
    symbolic: bool = False
    bind: Callable[..., KernelFn] | None = None
    specialize: Callable[[Operation, list[Any]], KernelFn | None] | None = None
    inplace: Callable[..., Any] | None = None
    narrow: Callable[[Operation, tuple[bool, ...]], dict[str, Any] | None] | None = None
    forwards: Callable[[Operation, list[Any]], int | None] | None = None
    pure: bool = True
    variable: str = ""
    elementwise: bool = False
    pass_through: bool = False
    view: bool = False
    shape_only: bool = False
    fill: bool = False
    source: bool = False
    batch: Callable[..., list[Tensor]] | str | None = None
    cases: list[Case] = field(default_factory=list)
    no_cases: str = ""
    no_rule_check: str = ""
    lowerings: dict[str, Any] = field(default_factory=dict)
    fast: bool = False  # eager calls take core/eager.py's path: set by register_op, and
    # cleared by the fast path for an op type whose shape rule gives several outputs

    def gradient(self, fn: GradFn) -> GradFn:
        """Decorator: register ``fn(op, *grads)`` as this op type's gradient rule."""
        return RegisterGradient(self.type)(fn)

    def no_gradient(self) -> None:
        """Declare the op not differentiable: no gradient flows through it, no error."""
        no_gradient(self.type)

    def batching(self, rule: Callable[..., list[Tensor]]) -> Callable[..., list[Tensor]]:
        """Decorator: ``rule(call) -> batched outputs`` (see ``symgrad.core.batching``)."""
        self.batch = rule
        return rule

    def add_cases(self, *cases: Case) -> None:
        self.cases.extend(cases)

    @property
    def batch_rule(self) -> Callable[..., list[Tensor]] | None:
        return self.batch if callable(self.batch) else None


OPS: dict[str, OpDef] = {}
BUILTIN_OPS: frozenset[str] = frozenset()  # filled when the symgrad package has loaded


class OutputCheck(Protocol):
    """A check of every op's outputs as its kernel computes them (``set_output_check``)."""

    def __call__(
        self, op: Operation, outputs: Sequence[Any], inputs: Sequence[Any], mode: str
    ) -> None:
        """Raise to stop at ``op``; ``mode`` is ``"eagerly-executing"`` or ``"graph"``."""


# The installed check, or None (the usual case: then it costs one test per op, or per
# plan run).  Eager ops (``apply_op``) and plans (``symgrad.runtime.plan``) read it.
output_check: OutputCheck | None = None


def set_output_check(check: OutputCheck | None) -> None:
    """Install ``check`` on every kernel run from now on, in every thread (None: remove
    it).  ``symgrad.enable_check_numerics`` installs its NaN/Inf check this way."""
    global output_check
    output_check = check
    set_checked(check is not None)  # the elementwise wrappers' light path


def register_op(
    op_type: str, infer: InferFn, kernel: KernelFn, *, replace: bool = False, **record: Any
) -> OpDef:
    """Declare an op type; ``record`` sets any other field of ``OpDef`` (traits, ``bind``,
    ``batch``, ``cases``...).  A second declaration of the same type is an error."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError(f"op_type must be a non-empty string, got {op_type!r}")
    if op_type in OPS and not replace:
        raise KeyError(f"An op of type '{op_type}' is already registered.")
    cases = record.pop("cases", ())
    opdef = OpDef(op_type, infer, kernel, cases=list(cases), **record)
    # Eager calls of a pure op may take the fast path (symgrad.core.eager).
    opdef.fast = opdef.pure and not (opdef.stateful or opdef.symbolic)
    OPS[op_type] = opdef
    if opdef.source:
        SOURCE_TYPES.add(op_type)
    else:
        SOURCE_TYPES.discard(op_type)
    return opdef


class ShapeError(ValueError):
    """Raised by shape rules; apply_op prefixes the op type and name."""


def apply_op(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Operation:
    """Create an op of ``op_type`` in the default graph; run it now if in eager mode.

    The steps: inputs of another graph are captured (or refused); the shape rule gives
    the outputs' dtypes and static shapes; at the top level, when every input has a
    value, the kernel runs; the op is added to its graph, the output check (if any) sees
    its values, and each recorder of this thread (``GradientTape``) is handed the op.
    """
    opdef = OPS[op_type]
    graph = get_default_graph()
    if attrs is None:
        attrs = {}
    if opdef.fast and graph.eager:
        op = _now(graph, opdef, inputs, attrs, name, False)
        if op is not None:
            return op  # type: ignore[no-any-return]
    return _general(graph, opdef, inputs, attrs, name)


def apply_op1(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Tensor:
    """``apply_op(...).output(0)`` for a one-output op; at the top level with no tape
    recording, a light eager tensor whose ``Operation`` is built when first read."""
    opdef = OPS[op_type]
    graph = get_default_graph()
    if attrs is None:
        attrs = {}
    if opdef.fast and graph.eager and output_check is None and ERRSTATE is not None:
        # ``_now``, inlined: core/eager.py's user_frame skips this frame as the package's
        name = name or _DEFAULT_NAMES.get(op_type, op_type)
        t = run_now(graph, opdef, inputs, attrs, name, ERRSTATE, ERRSTATE_IGNORE, True)
        if t is not None:
            return t if type(t) is EagerTensor else t.output(0)  # type: ignore[no-any-return]
    return _general(graph, opdef, inputs, attrs, name).output(0)


def _general(graph: Graph, opdef: OpDef, inputs: Any, attrs: Any, name: str | None) -> Operation:
    """``apply_op``'s general path: every mode, every kind of op."""
    op_type = opdef.type
    inputs = _own_graph(graph, inputs, op_type)
    op_name = graph.unique_name(name or _DEFAULT_NAMES.get(op_type, op_type))
    try:
        specs = opdef.infer(inputs, **attrs)
    except (ValueError, TypeError) as e:
        raise _rule_error(graph, op_type, op_name, e) from None
    if isinstance(specs, tuple):
        dtypes, shapes = [specs[1]], [specs[0]]
    else:
        dtypes, shapes = [s[1] for s in specs], [s[0] for s in specs]
    values: list[Any] | None = None
    args: list[Any] | None = None
    if graph.eager and not opdef.symbolic:
        args = []
        for t in inputs:
            v = t.eager_value
            if v is None:
                args = None  # fed by a placeholder: the op stays symbolic
                break
            args.append(v)
        else:
            try:
                values = run_kernel(opdef.kernel, args, attrs, dtypes)
            except KernelError as e:
                op = Operation(graph, op_type, op_name, inputs, attrs, dtypes, shapes)
                raise _failed(op, e.__cause__) from e.__cause__
            for i, v in enumerate(values):
                if shapes[i].dims != v.shape:  # the rule left a size open (or no rule ran)
                    shapes[i] = TensorShape.of_array(v.shape)
    op = Operation(graph, op_type, op_name, inputs, attrs, dtypes, shapes, values)
    if values is not None and output_check is not None:
        output_check(op, values, args, "eagerly-executing")  # type: ignore[arg-type]
    graph.add_op(op)
    recorders = current.recorders
    if recorders:
        for recorder in recorders:
            recorder.record(op)
    return op


def _own_graph(graph: Graph, inputs: Sequence[Tensor], op_type: str) -> Sequence[Tensor]:
    """``inputs``, each of ``graph``: another graph's tensors captured (or refused)."""
    for t in inputs:
        if t.graph is not graph:
            return [t if t.graph is graph else _cross_graph(graph, t, op_type) for t in inputs]
    return inputs


def _now(graph: Graph, opdef: OpDef, inputs: Any, attrs: Any, name: Any, light: bool) -> Any:
    """The eager fast path's op or light tensor (``symgrad.core.eager``), or None: take
    the general path."""
    if output_check is not None or ERRSTATE is None:
        return None
    name = name or _DEFAULT_NAMES.get(opdef.type, opdef.type)
    return run_now(graph, opdef, inputs, attrs, name, ERRSTATE, ERRSTATE_IGNORE, light)


def add_computed_op(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    specs: Sequence[Spec],
    values: list[Any] | None,
    name: str,
) -> Operation:
    """An op of the default graph whose outputs were computed elsewhere (or, with
    ``values=None``, are never computed there): created as ``apply_op`` creates ops."""
    graph = get_default_graph()
    shapes = (
        [s for s, _ in specs] if values is None else [TensorShape.of_array(v.shape) for v in values]
    )
    op = Operation(
        graph,
        op_type,
        graph.unique_name(name),
        inputs,
        attrs,
        [d for _, d in specs],
        shapes,
        values,
    )
    graph.add_op(op)
    for recorder in current.recorders:
        recorder.record(op)
    return op


class InvalidDtypeError(InvalidArgumentError, TypeError):
    """An eager op given an input of a dtype it does not take: TF's eager runtime raises
    InvalidArgumentError where its graph builder raises TypeError; this is both.  (Not in
    ``tf.errors``: TF has no such name.)"""


def _rule_error(graph: Graph, op_type: str, op_name: str, e: Exception) -> Exception:
    """A shape rule's error, naming the op; eager, a ValueError is InvalidArgumentError
    and a TypeError InvalidDtypeError (TF's eager runtime raises InvalidArgumentError for
    both; each is still what it was)."""
    msg, kind = f"{op_type} op '{op_name}'{_where(graph)}: {e}", type(e)
    if graph.eager and isinstance(e, (ValueError, TypeError)) and not isinstance(e, OpError):
        kind = InvalidArgumentError if isinstance(e, ValueError) else InvalidDtypeError
    return kind(msg)


def _failed(op: Operation, cause: BaseException | None) -> InvalidArgumentError:
    """A kernel failure, reported against the user's op."""
    return InvalidArgumentError(
        f"{op.type} op {op.describe()} failed: {type(cause).__name__}: {cause}", op
    )


class KernelError(Exception):
    """A kernel raised (the ``__cause__``); the caller names the op it ran for."""


def run_kernel(
    kernel: KernelFn, args: Sequence[Any], attrs: dict[str, Any], dtypes: Sequence[dt.DType]
) -> list[Any]:
    """Run ``kernel(*args, **attrs)`` with floating-point warnings off (inf and nan are
    values, as in TF); its outputs as arrays of ``dtypes``.  A failure other than an
    ``OpError`` is raised as ``KernelError`` from it."""
    token = ERRSTATE.set(ERRSTATE_IGNORE) if ERRSTATE is not None else None
    try:
        if token is None:
            with np.errstate(all="ignore"):
                out = kernel(*args, **attrs)
        else:
            out = kernel(*args, **attrs)
    except OpError:
        raise
    except Exception as e:  # reported against the user's op by the caller
        raise KernelError() from e
    finally:
        if token is not None:
            ERRSTATE.reset(token)  # type: ignore[union-attr]
    if type(out) is np.ndarray and len(dtypes) == 1:  # the common case, without zip
        return [_as_array(out, dtypes[0])]
    outs = list(out) if isinstance(out, tuple) else [out]
    return [_as_array(v, d) for v, d in zip(outs, dtypes)]


def _as_array(value: Any, dtype: dt.DType) -> np.ndarray:
    if type(value) is np.ndarray and value.dtype == dtype.np:
        return value
    return np.asarray(value, dtype=dtype.np)


def _cross_graph(graph: Graph, t: Tensor, op_type: str) -> Tensor:
    """The input of ``graph`` standing for ``t``: a remapped tensor, else a capture."""
    remap = current.remap
    if remap:
        mapped = remap.get((id(t.op), t.value_index))
        if mapped is not None:
            return mapped if mapped.op.graph is graph else _cross_graph(graph, mapped, op_type)
    if graph.eager and t.graph.eager and t.has_value():
        # A value of a top-level graph that reset_default_graph() replaced: TF's eager
        # tensors belong to no graph, so it is a constant here (its history stays behind).
        return apply_op("Const", [], {"value": t.numpy(), "dtype": t.dtype}).output(0)
    try:
        return graph.capture(t)
    except ValueError as e:
        raise type(e)(f"{op_type}: {e}") from None  # InaccessibleTensorError stays one


def _where(graph: Graph) -> str:
    f, line = user_frame()
    return f" (at {f}:{line})"


# Default op names as TF records them for the public API (tf.add -> "add", ...).
_DEFAULT_NAMES: dict[str, str] = {}


def default_name(op_type: str, name: str) -> None:
    _DEFAULT_NAMES[op_type] = name


def constant_value(t: Tensor, depth: int = 3) -> np.ndarray | None:
    """The value of ``t`` if known without running a graph: an eager value, a Const, or
    (as TF's ``tensor_util``) a slice, pack, concat, cast or identity of known integers up
    to ``depth`` ops away, such as ``[tf.shape(x)[0], 4]`` for an ``x`` of known shape."""
    value = t.eager_value
    if value is not None:
        return value  # type: ignore[no-any-return]
    if t.op.type == "Const":
        return t.op.get_attr("value")  # type: ignore[no-any-return]
    if depth and t.op.type in _FOLDABLE and t.dtype.is_integer and t.op.inputs:
        ins = [constant_value(x, depth - 1) for x in t.op.inputs]
        if all(v is not None for v in ins):
            return np.asarray(OPS[t.op.type].kernel(*ins, **t.op.attrs))
    return None


_FOLDABLE = frozenset({"StridedSlice", "Pack", "ConcatV2", "Identity", "Cast"})
