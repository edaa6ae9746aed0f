"""The operators that converted code calls (``ag__.if_stmt`` and the rest).

Each decides at run time of the converted Python code, i.e. while a ``function`` traces,
as TF's AutoGraph does: a condition (or iterable) that is a tensor builds ``cond`` or
``while_loop``; anything else runs the plain Python statement right away, so conditions on
Python values stay trace-time decisions.  The converted statement hands over its body as
a function of no arguments that reads and writes the enclosing variables (``nonlocal``),
with ``get_state`` / ``set_state`` to read and set those the statement carries
(branch outputs, loop variables).  ``where`` names the source line for errors.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.control_flow.cond import cond
from symgrad.control_flow.tensor_array import TensorArray
from symgrad.control_flow.while_loop import while_loop
from symgrad.core import context, nest
from symgrad.core.graph import Tensor
from symgrad.core.shapes import as_shape
from symgrad.ops.array import gather, shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor, placeholder
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.state.variables import Variable
from symgrad.runtime.concrete_function import FuncGraph

Fn = Callable[[], Any]
State = tuple[Any, ...]
_LIMITS = (
    "\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
    "g3doc/reference/limitations.md#consistency-of-control-flow-types for more info."
)


class Undefined:
    """The value of a variable the converted code has not assigned yet."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"


class UndefinedReturnValue:
    """The return value before any ``return`` statement ran."""


def retval(value: Any) -> Any:
    return None if isinstance(value, UndefinedReturnValue) else value


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor | Variable)


def _fail(kind: type[Exception], message: str, where: str, hint: str = "") -> Exception:
    """The error to raise: TF's message, then the user's line and what to write instead."""
    return kind(f"{message}\n  {where}" + (f"\n  {hint}" if hint else ""))


# --------------------------------------------------------------------------------------
# Expressions: and / or / not, == / != and `a if c else b`


def not_(a: Any) -> Any:
    return math_ops.logical_not(a) if is_tensor(a) else not a


def and_(a_fn: Fn, b_fn: Fn) -> Any:
    a = a_fn()
    return math_ops.logical_and(a, b_fn()) if is_tensor(a) else a and b_fn()


def or_(a_fn: Fn, b_fn: Fn) -> Any:
    a = a_fn()
    return math_ops.logical_or(a, b_fn()) if is_tensor(a) else a or b_fn()


def eq(a: Any, b: Any) -> Any:
    """``a == b``: elementwise for tensors, symbolic ones too (TF 2's ``==``)."""
    if (is_tensor(a) or is_tensor(b)) and a is not None and b is not None:
        try:
            return math_ops.equal(a, b)
        except (TypeError, ValueError):
            return False
    return a == b


def ne(a: Any, b: Any) -> Any:
    r = eq(a, b)
    return math_ops.logical_not(r) if is_tensor(r) else not r


def not_any(*flags: Any) -> Any:
    """``not (f1 or f2 ...)``: the guard the converter puts after a break/continue/return."""
    if not any(map(is_tensor, flags)):
        return not any(flags)
    out = math_ops.logical_not(flags[0])
    for f in flags[1:]:
        out = math_ops.logical_and(out, math_ops.logical_not(f))
    return out


def if_exp(c: Any, true_fn: Fn, false_fn: Fn) -> Any:
    if is_tensor(c):
        return cond(c, true_fn, false_fn)
    return true_fn() if c else false_fn()


def range_(*args: Any) -> Any:
    """``range``: ``tf.range`` when a bound is a tensor (so ``for`` becomes a loop op)."""
    return array.range(*args) if any(map(is_tensor, args)) else builtins.range(*args)


# --------------------------------------------------------------------------------------
# if


def if_stmt(
    c: Any,
    body: Fn,
    orelse: Fn,
    get_state: Callable[[], State],
    set_state: Callable[[State], None],
    names: Sequence[str],
    nouts: int,
    where: str,
) -> None:
    """``if c: body() else: orelse()``; a tensor ``c`` builds a ``cond`` whose outputs are
    the first ``nouts`` of ``names`` (the variables used after the statement)."""
    if not is_tensor(c):
        body() if c else orelse()
        return
    init = get_state()
    seen: dict[str, State] = {}

    def branch(fn: Fn, label: str) -> Callable[[], State]:
        def run() -> State:
            set_state(init)
            fn()
            outs = get_state()[:nouts]
            _check_branch(outs, names, label, where)
            seen[label] = outs
            return outs

        return run

    try:
        outs = cond(c, branch(body, "main"), branch(orelse, "else"))
    except TypeError:
        if len(seen) == 2:
            _check_same_dtypes(seen["main"], seen["else"], names, where)
        raise
    set_state(tuple(outs) + init[nouts:])


def _check_branch(outs: State, names: Sequence[str], label: str, where: str) -> None:
    for name, v in zip(names, outs, strict=False):
        if isinstance(v, UndefinedReturnValue):
            raise _fail(
                ValueError,
                f"the {label} branch must also have a return statement.",
                where,
                "Return a value on every path of a tensor-dependent if (or assign it to a "
                "variable defined before the if, and return that).",
            )
        if isinstance(v, Undefined):
            raise _fail(
                ValueError,
                f"'{name}' must also be initialized in the {label} branch",
                where,
                f"Give '{name}' a value before the if statement (e.g. {name} = "
                "tf.zeros_like(...)) or in both branches.",
            )
        if v is None:
            raise _fail(ValueError, f"'{name}' is None at the end of the {label} branch.", where)


def _dtype(v: Any) -> Any:
    return v.dtype if is_tensor(v) else convert_to_tensor(v).dtype


def _check_same_dtypes(a: State, b: State, names: Sequence[str], where: str) -> None:
    for name, x, y in zip(names, a, b, strict=False):
        if isinstance(x, TensorArray) or isinstance(y, TensorArray):
            continue  # cond's own error says how two arrays, or an array and not, differ
        if not nest.is_nested(x) and not nest.is_nested(y) and _dtype(x) != _dtype(y):
            raise _fail(
                TypeError,
                f"'{name}' has dtype {_dtype(x).name} in the main branch, but dtype "
                f"{_dtype(y).name} in the else branch",
                where,
            )


# --------------------------------------------------------------------------------------
# while and for


def while_stmt(
    test: Fn,
    body: Fn,
    get_state: Callable[[], State],
    set_state: Callable[[State], None],
    names: Sequence[str],
    where: str,
    opts: dict[str, Any] | None = None,
) -> None:
    """``while test(): body()``; a tensor condition builds a ``while_loop`` over ``names``
    (``opts``: what the body's ``set_loop_options`` said)."""
    c = test()
    if is_tensor(c):
        step = lambda i: (body(), i)[1]  # noqa: E731
        _tf_loop(lambda _: test(), step, None, get_state, set_state, names, where, opts)
        return
    while c:
        body()
        c = test()
        if is_tensor(c):
            raise _fail(
                NotImplementedError,
                "The condition of while loop started as non-Tensor, then changed to Tensor. "
                "This may happen either because variables changed type, or when a break or "
                "return statement inside the loop depends on a Tensor condition. In both "
                "cases, changing to a TF loop should remove the error." + _LIMITS,
                where,
                "Make the loop condition a tensor from the start (e.g. "
                "`while tf.constant(True):` or a tensor test).",
            )


def for_stmt(
    iterated: Any,
    extra_test: Fn | None,
    body: Callable[[Any], None],
    get_state: Callable[[], State],
    set_state: Callable[[State], None],
    names: Sequence[str],
    where: str,
    opts: dict[str, Any] | None = None,
) -> None:
    """``for x in iterated: body(x)`` while ``extra_test()`` holds (break / return flags).

    Over ``tf.range(...)`` the loop counts with the range's own bounds; over any other
    tensor it visits the rows, ``iterated[i]``; over a Python iterable it is Python's."""
    if isinstance(iterated, Variable):
        iterated = iterated.read_value()
    dataset_loop = getattr(iterated, "_autograph_for", None)  # tf.data: symgrad.data.loop
    if dataset_loop is not None:
        dataset_loop(extra_test, body, get_state, set_state, names, where, opts)
        return
    if not isinstance(iterated, Tensor):
        _py_for(iterated, extra_test, body, where)
        return
    if iterated.op.type == "Range":
        start, limit, delta = iterated.op.inputs

        def more(i: Tensor) -> Tensor:
            up = math_ops.logical_and(delta > 0, i < limit)
            return math_ops.logical_or(up, math_ops.logical_and(delta < 0, i > limit))

        def item(i: Tensor) -> Tensor:
            return i
    else:
        if iterated.shape.rank == 0:
            raise _fail(TypeError, "Cannot iterate over a scalar tensor.", where)
        n = iterated.shape.as_list()[0] if iterated.shape.rank else None
        start, delta = convert_to_tensor(0), convert_to_tensor(1)
        size = shape.shape(iterated)[0] if n is None else convert_to_tensor(n)

        def more(i: Tensor) -> Tensor:
            return i < size

        def item(i: Tensor) -> Tensor:
            return gather.gather(iterated, i)

    def test(i: Tensor) -> Any:
        c = more(i)
        return c if extra_test is None else math_ops.logical_and(c, extra_test())

    def step(i: Tensor) -> Tensor:
        body(item(i))
        return i + delta

    _tf_loop(test, step, start, get_state, set_state, names, where, opts)


def _py_for(iterated: Any, extra_test: Fn | None, body: Callable[[Any], None], where: str) -> None:
    for x in iterated:
        if extra_test is not None:
            go = extra_test()
            if is_tensor(go):
                raise _fail(
                    NotImplementedError,
                    "break and return statements which depend on a TF condition are not "
                    "supported in Python for loops. Did you intend to make it a TF loop?" + _LIMITS,
                    where,
                    "Iterate over a tensor (e.g. `for i in tf.range(n):`) to make it a TF loop.",
                )
            if not go:
                break
        body(x)


_UNSPECIFIED = object()  # TF's marker for an option not given


def set_loop_options(
    parallel_iterations: Any = _UNSPECIFIED,
    swap_memory: Any = _UNSPECIFIED,
    maximum_iterations: Any = _UNSPECIFIED,
    shape_invariants: Any = _UNSPECIFIED,
) -> None:
    """``tf.autograph.experimental.set_loop_options``: read by the converter from the first
    statements of a loop body (``shape_invariants=[(var, shape)]``,
    ``maximum_iterations=n``); called as is, it does nothing (as in TF)."""


def _tf_loop(
    test: Callable[[Any], Any],
    step: Callable[[Any], Any],
    counter: Any,
    get_state: Callable[[], State],
    set_state: Callable[[State], None],
    names: Sequence[str],
    where: str,
    opts: dict[str, Any] | None,
) -> None:
    """One ``while_loop`` over ``counter`` (a constant 0 when None) and the statement's
    variables: ``test(counter)`` is its condition, ``step(counter)`` runs the body once
    and returns the next counter."""
    opts = opts or {}
    init = get_state()
    shapes, note = None, ""
    if any(isinstance(v, Undefined) for v in init):
        init, shapes, note = _stand_ins(step, counter, init, get_state, set_state)
    _check_init(init, names, where, note)
    given = {n: as_shape(s) for n, s in opts.get("shape_invariants", ())}
    if given:
        known = shapes or tuple(nest.map_structure(lambda t: convert_to_tensor(t).shape, init))
        shapes = tuple(given.get(n, s) for n, s in zip(names, known, strict=True))
    entry = [_leaf_specs(v) for v in init]
    entry = [[(d, given[n]) for d, _ in e] if n in given else e for n, e in zip(names, entry)]

    def cond_fn(i: Any, *vals: Any) -> Any:
        set_state(vals)
        return test(i)

    def body_fn(i: Any, *vals: Any) -> tuple[Any, ...]:
        set_state(vals)
        nxt = step(i)
        outs = get_state()
        _check_iteration(entry, outs, names, where)
        return (nxt, *outs)

    start = 0 if counter is None else counter
    invariants = None if shapes is None else (convert_to_tensor(start).shape, *shapes)
    final = while_loop(
        cond_fn,
        body_fn,
        (start, *init),
        shape_invariants=invariants,
        maximum_iterations=opts.get("maximum_iterations"),
    )
    set_state(tuple(final[1:]))


def _stand_ins(
    step: Callable[[Any], Any],
    counter: Any,
    init: State,
    get_state: Callable[[], State],
    set_state: Callable[[State], None],
) -> tuple[State, tuple[Any, ...] | None, str]:
    """TF AutoGraph's stand-ins for loop variables first assigned in the body: one pass
    of the body, traced into a throwaway graph, gives their dtypes and shapes; they enter
    the loop as zeros of that type (unknown dimensions as 0, left unknown in the loop's
    shape invariants).  Returns the initial values, the invariants and a note (invariants
    None when a stand-in cannot be made: the caller's check then names the variable)."""
    graph = FuncGraph("autograph_stage")
    try:
        with context.stop_recording(), graph.as_default():
            step(placeholder(convert_to_tensor(0 if counter is None else counter).dtype, []))
            first = get_state()
    except (NameError, TypeError, ValueError, KeyError) as e:
        why = str(e).splitlines()[0] if str(e) else ""
        tried = "Note: AutoGraph tried to define it automatically, but ran into a"
        note = f"{tried} {type(e).__name__}: {why}"
        return init, None, note
    finally:
        graph.tracing = False
        set_state(init)
    values, shapes = [], []
    for v, f in zip(init, first, strict=True):
        if not isinstance(v, Undefined):
            values.append(v)
            shapes.append(nest.map_structure(lambda t: convert_to_tensor(t).shape, v))
            continue
        leaves = nest.flatten(f)
        if not leaves or not all(
            isinstance(t, Tensor) and t.shape.rank is not None for t in leaves
        ):
            return init, None, ""
        values.append(
            nest.map_structure(
                lambda t: array.zeros([d or 0 for d in t.shape.as_list()], t.dtype), f
            )
        )
        shapes.append(nest.map_structure(lambda t: t.shape, f))
    return tuple(values), tuple(shapes), ""


def _check_init(init: State, names: Sequence[str], where: str, note: str = "") -> None:
    for name, v in zip(names, init, strict=True):
        if isinstance(v, UndefinedReturnValue):
            raise _fail(
                NotImplementedError,
                "a return statement cannot be placed inside this TensorFlow loop; this may "
                "happen if a return statement depends on a static Python condition such as "
                "a hyperparameter",
                where,
                "Assign the value to a variable defined before the loop, `break`, and "
                "return it after the loop.",
            )
        if isinstance(v, Undefined):
            raise _fail(
                ValueError,
                f"'{name}' must be defined before the loop" + (f"\n{note}" if note else ""),
                where,
                f"Give '{name}' a value before the loop (e.g. {name} = tf.zeros_like(...)).",
            )
        if v is None:
            raise _fail(ValueError, f"'{name}' is not allowed to be None before the loop", where)


def _tensors(v: Any) -> list[Tensor]:
    """A loop variable's tensors; a TensorArray is left to ``while_loop``, which carries
    it as its buffer and checks it itself."""
    return [convert_to_tensor(x) for x in nest.flatten(v) if not isinstance(x, TensorArray)]


def _leaf_specs(v: Any) -> list[Any]:
    return [(t.dtype, t.shape) for t in _tensors(v)]


def _check_iteration(entry: list[Any], outs: State, names: Sequence[str], where: str) -> None:
    """TF AutoGraph's checks of a loop variable after one iteration: same dtype, a shape
    at least as specific as on entry."""
    for name, specs, v in zip(names, entry, outs, strict=True):
        if isinstance(v, Undefined) or v is None:
            raise _fail(ValueError, f"'{name}' is None at the end of the iteration.", where)
        for (dtype, shp), t in zip(specs, _tensors(v), strict=False):
            if t.dtype != dtype:
                raise _fail(
                    TypeError,
                    f"'{name}' has dtype {dtype.name} before the loop, but dtype "
                    f"{t.dtype.name} after one iteration",
                    where,
                    f"Keep '{name}' of one dtype (e.g. tf.cast it in the loop, or start "
                    "it with the dtype the loop produces).",
                )
            if t.shape.rank is None:  # less known than on entry (e.g. x[i], i a tensor)
                t.set_shape(shp)
            elif shp.rank is not None and (
                t.shape.rank != shp.rank
                or any(a is not None and a != b for a, b in zip(shp.as_list(), t.shape.as_list()))
            ):
                raise _fail(
                    ValueError,
                    f"'{name}' has shape {shp} before the loop, but shape {t.shape} after one "
                    "iteration. Use tf.autograph.experimental.set_loop_options to set shape "
                    "invariants.",
                    where,
                    f"Keep the shape of '{name}' the same in every iteration, or begin the "
                    "loop body with tf.autograph.experimental.set_loop_options("
                    f"shape_invariants=[({name}, tf.TensorShape([None, ...]))]).",
                )
