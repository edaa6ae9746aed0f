"""A ``While`` loop's condition and body plans compiled into one Python loop.

Running a loop by calling the condition's plan and then the body's plan once per
iteration costs two calls, two feed lists and their unpacking per iteration, which for
a body of a few small ops is most of the time.  This module writes the two plans'
straight-line code (the same steps, freeing the same slots) into the body of one loop
statement, where the loop variables are local names handed from the body's outputs to
the next iteration's inputs, and the captured tensors and constants are bound once::

    def loop(counter, limit, state, ccaps, bcaps, appends, C0, C1):
        v0, v1 = state
        a1 = appends[0]                  # the stacks the gradient reads (here v1's)
        cs3 = C0[3][()]                  # constants and captures: once
        while counter < limit:
            cs4 = v0 < cs3               # the condition's steps
            if not cs4:
                break
            a1(v1)
            bs6 = v0 + bs5               # the body's steps: integer scalar arithmetic
            bs7 = kb1(v1, bs3) ...       # as Python operators, the rest as kernels
            v0, v1 = bs6, bs9            # (a variable no later step reads is written
            counter += 1                 # by its step directly: ``v1 = kb3(bs8)``)
        return counter, [v0, v1]

A *counted* loop, whose condition compares a variable the body steps by a constant with
a bound the loop does not change (``i < n`` and ``i + 1``), knows its trip count when it
starts: it runs ``for counter in range(start, end)`` with no condition per iteration,
and where the body only steps the variable, computes it once at the end (``_counted``).

A plan never writes over its feeds.  The fused loop may: a step that is the last reader
of a loop variable gets the in-place kernel of its op (:mod:`.inplace`), which writes
over the array where a reference count shows nothing else holds it, which is from the
second iteration on (the first one's values are the caller's).  That makes a list's row
write cost one row rather than a copy of the list (``_carried_in_place``).  Only plans
that were generated (up to ``plan.GENERATE_LIMIT`` steps) are fused; each generated
loop keeps its source as its docstring.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import op_registry
from symgrad.core.op_registry import OPS
from symgrad.runtime.concrete_function import ConcreteFunction
from symgrad.runtime.inplace import inplace_kernel
from symgrad.runtime.plan import Plan

_SOURCE = "<symgrad while loop>"

# body -> {the stacked variables: (cond, its fused loop or None, (cond's plan, body's plan))}:
# made once per loop op and set of stacks (a plan without the gradient keeps none)
FUSED: weakref.WeakKeyDictionary[ConcreteFunction, dict[tuple[int, ...], Any]] = (
    weakref.WeakKeyDictionary()
)


def run(
    cond: ConcreteFunction,
    body: ConcreteFunction,
    counter: int,
    limit: int,
    state: list[Any],
    caps: tuple[list[Any], list[Any]],
    stacks: list[Any],
) -> tuple[int, list[Any]] | None:
    """Run a ``While`` kernel's loop as one generated function, for a stateless cond and
    body with no NaN check installed: its final counter and loop variables, or None
    where it does not apply or raised (the caller then runs it step by step).

    The plan running this loop has set NumPy's error state and the variables' undo
    journal already, so nothing per iteration needs to."""
    if cond.graph.stateful_ops or body.graph.stateful_ops or op_registry.output_check:
        return None
    kept = tuple(i for i, s in enumerate(stacks) if type(s) is list)  # the others discard
    fused = FUSED.setdefault(body, {})
    entry = fused.get(kept)
    if entry is None or entry[0] is not cond:
        plans = (_outputs_plan(cond), _outputs_plan(body))
        entry = fused[kept] = (cond, fuse(*plans, len(state), kept), plans)
    loop, (cond_plan, body_plan) = entry[1], entry[2]
    if loop is None:
        return None
    appends = [stacks[i].append for i in kept]
    try:
        done: tuple[int, list[Any]] = loop(
            counter, limit, state, *caps, appends, cond_plan.consts, body_plan.consts
        )
    except Exception:
        return None
    return done


def _outputs_plan(f: ConcreteFunction) -> Plan:
    if f._outputs_plan is None:  # as run_outputs builds it
        f._outputs_plan = Plan(f.outputs, f.graph.stateful_ops[-1:], f._feeds)
    return f._outputs_plan


def fuse(
    cond: Plan, body: Plan, n_vars: int, kept: tuple[int, ...] = ()
) -> Callable[..., Any] | None:
    """The fused loop of two plans fed ``[counter, *vars, *captures]``, appending each
    iteration's values of the loop variables ``kept`` to their stacks (and, for each
    ``k >= n_vars`` in ``kept``, the body's output ``k``: a growing buffer's records);
    None when either plan is too large to have generated code."""
    if cond._generated is None or body._generated is None:
        return None
    namespace: dict[str, Any] = {"int32": np.int32}
    lines = ["def loop(counter, limit, state, ccaps, bcaps, appends, C0, C1):"]
    lines.append("    " + "".join(f"v{i}, " for i in range(n_vars)) + "= state")
    lines += [f"    a{i} = appends[{k}]" for k, i in enumerate(kept)]
    cond_names = _bind(cond, "c", "C0", "ccaps", n_vars, lines)
    body_names = _bind(body, "b", "C1", "bcaps", n_vars, lines)
    counted = _counted(cond, body, n_vars, kept)
    steps, handed = body.steps, list(range(n_vars))  # the body's steps, the swapped vars
    if counted is None:
        lines.append("    while counter < limit:")
        iteration = ["        n = int32(counter)"] if _reads(cond, 0) or _reads(body, 0) else []
        iteration += _steps(cond.steps, "kc", cond_names, namespace)
        iteration += [f"        if not {cond_names(cond.fetch_slots[0])}:", "            break"]
    else:
        var, bound, trips, delta, increment = counted
        vtype = namespace["vtype"] = np.dtype(cond.steps[0][4].inputs[0].dtype.np).type
        lines += [
            f"    first = int(v{var})",
            f"    trips = {trips.format(first='first', bound=f'int({cond_names(bound)})')}",
            f"    if not {_int_range(vtype, f'first + trips * {delta}')}:",
            "        return None  # the variable would wrap around: step by step",
            "    start = counter",
            "    end = counter + max(0, min(trips, limit - counter))",
            "    for counter in range(start, end):",
        ]
        iteration = ["        n = int32(counter)"] if _reads(body, 0) else []
        if increment >= 0:  # the increment is all the body does with the variable
            steps = [s for i, s in enumerate(steps) if i != increment]
            handed.remove(var)
    # Loop variables and the records that are feeds, before the body writes any variable.
    records = [(i, body_names(body.fetch_slots[i])) for i in kept if i >= n_vars]
    early = [(i, n) for i, n in records if body.fetch_slots[i] in range(1, 1 + n_vars)]
    iteration += [f"        a{i}(v{i})" for i in kept if i < n_vars]
    iteration += [f"        a{i}({n})" for i, n in early]
    steps = _carried_in_place(steps, body.fetch_slots, n_vars)
    direct = _written_directly(steps, body.fetch_slots, handed)
    handed = [i for i in handed if i not in direct.values()]
    renamed = {slot: f"v{i}" for slot, i in direct.items()}
    iteration += _steps(steps, "kb", lambda s: renamed.get(s) or body_names(s), namespace)
    iteration += [f"        a{i}({n})" for i, n in records if (i, n) not in early]
    if handed:
        outs = "".join(f"{body_names(body.fetch_slots[i])}, " for i in handed)
        iteration.append(f"        {''.join(f'v{i}, ' for i in handed)}= {outs}")
    if counted is None:
        lines += [*iteration, "        counter += 1"]
    else:
        lines += [*(iteration or ["        pass"]), "    counter = end"]
        if increment >= 0:
            lines.append(f"    v{var} = vtype(first + (end - start) * {delta})")
    lines.append("    return counter, [" + ", ".join(f"v{i}" for i in range(n_vars)) + "]")
    source = "\n".join(lines)
    exec(compile(source, _SOURCE, "exec"), namespace)
    loop: Callable[..., Any] = namespace["loop"]
    loop.__doc__ = source  # what was generated, to read: help(loop)
    return loop


def _carried_in_place(steps: list[Any], fetches: list[int], n_vars: int) -> list[Any]:
    """The body's steps; each that is the last reader of a loop variable (no later step
    reads it, no output passes it on) with a kernel that may write over its array where
    nothing else holds it (:mod:`.inplace`): a list's row write then costs one row, not a
    copy of the list.  A row write that other steps read the list after (the gradient of
    a write reads a row of the same list) moves behind them where none of them needs its
    result.  A plan never writes over its feeds; the loop owns its variables from the
    second iteration on (the first one's are the caller's, held elsewhere).  The name of a
    variable given such a kernel is deleted after that step, as a plan deletes a dead slot."""
    steps = list(steps)
    for slot in range(1, 1 + n_vars):
        readers = [k for k, step in enumerate(steps) if slot in step[1]]
        if not readers or slot in fetches:
            continue
        last = readers[-1]
        for k in readers[:-1]:
            if _updates(steps[k], slot) and not _read_between(steps, k, last):
                steps.insert(last, steps.pop(k))  # now just after the last reader
                break
        fn, ins, outs, free, op = steps[last]
        kernel = inplace_kernel(op, fn, ins.index(slot)) if ins.count(slot) == 1 else None
        if kernel is not None:
            # the variable's name goes after this step (its next value is assigned later),
            # so an array written in place here is held by the step's result alone
            steps[last] = (kernel, ins, outs, (*free, slot), op)
    return _refreed(steps)


def _updates(step: Any, slot: int) -> bool:
    """Whether the step writes into input 0, ``slot`` (a list's row write)."""
    opdef = OPS[step[4].type]
    return step[1][:1] == (slot,) and opdef.inplace is not None and not opdef.elementwise


def _read_between(steps: list[Any], k: int, last: int) -> bool:
    """Whether a step after ``k``, up to ``last``, reads what step ``k`` makes (any step
    that depends on it does so through such a reader)."""
    made = set(steps[k][2])
    return any(made.intersection(step[1]) for step in steps[k + 1 : last + 1])


def _refreed(steps: list[Any]) -> list[Any]:
    """The steps with each freed slot deleted after its last reader in this order."""
    freed = {s for step in steps for s in step[3]}
    last: dict[int, int] = {}
    for k, (_, ins, outs, _, _) in enumerate(steps):
        last.update((s, k) for s in ins if s in freed)
        for s in outs:
            last.setdefault(s, k)
    frees: list[list[int]] = [[] for _ in steps]
    for s in freed:
        frees[last[s]].append(s)
    return [(*step[:3], tuple(sorted(f)), step[4]) for step, f in zip(steps, frees, strict=True)]


def _written_directly(steps: list[Any], fetches: list[int], variables: list[int]) -> dict[int, int]:
    """The body outputs a step can write straight into their variable's name, saving the
    swap at the end of each iteration: ``{output slot: variable}`` for each variable whose
    old value no later step reads and no other variable takes."""
    direct: dict[int, int] = {}
    for i in variables:
        out, feed = fetches[i], 1 + i
        made = [k for k, step in enumerate(steps) if out in step[2]]
        alone = len(made) == 1 and fetches.count(out) == 1 and feed not in fetches
        if alone and not any(feed in step[1] for step in steps[made[0] + 1 :]):
            direct[out] = i
    return direct


# A counted loop: the condition compares one integer variable with a bound the loop does
# not change, and the body steps that variable by a constant.  Its trip count is then
# known when the loop starts, as a compiler's loop analysis finds it, and the fused loop
# runs ``for counter in range(...)`` with no condition per iteration.  The trips for each
# comparison of ``v`` with the bound (``v`` on the left), by the sign of the step ``d``:
_TRIPS = {
    ("Less", 1): "max(0, ({bound} - {first} + {d} - 1) // {d})",
    ("LessEqual", 1): "max(0, ({bound} - {first} + {d}) // {d})",
    ("Greater", -1): "max(0, ({first} - {bound} + {d} - 1) // {d})",
    ("GreaterEqual", -1): "max(0, ({first} - {bound} + {d}) // {d})",
}
_FLIPPED = {"Less": "Greater", "LessEqual": "GreaterEqual", "Greater": "Less"}
_FLIPPED.update({"GreaterEqual": "LessEqual"})


def _counted(
    cond: Plan, body: Plan, n_vars: int, kept: tuple[int, ...]
) -> tuple[int, int, str, int, int] | None:
    """For a counted loop: (the variable, the bound's slot in the condition, its trip
    count as a format string, the step, the increment's step index in the body or -1
    where the body reads the variable otherwise); else None."""
    if len(cond.steps) != 1 or not n_vars:
        return None
    _, ins, outs, _, op = cond.steps[0]
    if outs[0] != cond.fetch_slots[0] or _operator(op, len(ins)) is None:
        return None
    invariant = set(cond.consts) | set(cond.feed_slots[1 + n_vars :])
    compare = op.type
    a, b = ins
    if b in range(1, 1 + n_vars) and a in invariant:
        a, b, compare = b, a, _FLIPPED.get(compare, "")
    if a not in range(1, 1 + n_vars) or b not in invariant:
        return None
    var = a - 1
    out = body.fetch_slots[var]
    index = next((k for k, step in enumerate(body.steps) if step[2][0] == out), -1)
    if index < 0:
        return None
    _, bins, _, _, bop = body.steps[index]
    sign = {"Add": 1, "AddV2": 1, "Sub": -1}.get(bop.type, 0)
    if _operator(bop, len(bins)) is None or sign == 0 or bins.count(a) != 1:
        return None
    other = bins[1] if bins[0] == a else bins[0]
    if (sign < 0 and bins[0] != a) or other not in body.consts:
        return None
    delta = sign * int(body.consts[other])
    d = abs(delta)
    trips = _TRIPS.get((compare, 1 if delta > 0 else -1))
    if trips is None or d == 0:
        return None
    trips = trips.replace("{d}", str(d))
    others_read = body.fetch_slots.count(a) + body.fetch_slots.count(out) > 1 or any(
        a in s[1] or out in s[1] for i, s in enumerate(body.steps) if i != index
    )
    return var, b, trips, delta, -1 if others_read or var in kept else index


def _int_range(vtype: Any, value: str) -> str:
    info = np.iinfo(vtype)
    return f"{info.min} <= {value} <= {info.max}"


def _reads(plan: Plan, slot: int) -> bool:
    return slot in plan.fetch_slots or any(slot in step[1] for step in plan.steps)


def _bind(
    plan: Plan, prefix: str, consts: str, caps: str, n_vars: int, lines: list[str]
) -> Callable[[int], str]:
    """Name each slot of ``plan``: feed 0 the counter, feeds 1..n_vars the loop
    variables, later feeds the captures (bound once, as are the constants)."""
    names = {0: "n"}
    names.update({1 + i: f"v{i}" for i in range(n_vars)})
    for j, slot in enumerate(plan.feed_slots[1 + n_vars :]):
        names[slot] = f"{prefix}s{slot}"
        lines.append(f"    {prefix}s{slot} = {caps}[{j}]")
    for slot in sorted(plan.consts):
        value = plan.consts[slot]
        # An integer scalar constant (a loop's bound, its step) as a NumPy scalar: with the
        # counter, also one, ``i < n`` and ``i + 1`` take Python's fast scalar path.
        scalar = isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu"
        lines.append(f"    {prefix}s{slot} = {consts}[{slot}]{'[()]' if scalar else ''}")
    return lambda s: names.get(s, f"{prefix}s{s}")


# Integer scalar arithmetic, such as a loop counter's ``i + 1`` and ``i < n``, written
# as Python operators: on NumPy scalars they cost ~50 ns where a ufunc call costs ~900 ns,
# and give the same dtype (int32 + int32 is int32; a comparison is a NumPy bool).
_INT_SCALAR_OPS = {
    "AddV2": "+",
    "Add": "+",
    "Sub": "-",
    "Mul": "*",
    "Less": "<",
    "LessEqual": "<=",
    "Greater": ">",
    "GreaterEqual": ">=",
}


def _operator(op: Any, n_ins: int) -> str | None:
    """The Python operator for ``op`` when it is integer arithmetic on two scalars."""
    symbol = _INT_SCALAR_OPS.get(getattr(op, "type", ""))
    if symbol is None or n_ins != 2 or len(op.inputs) != 2:
        return None
    ints = all(t.shape.rank == 0 and t.dtype in (dt.int32, dt.int64) for t in op.inputs)
    return symbol if ints else None


def _steps(
    steps: list[Any], prefix: str, name: Callable[[int], str], namespace: dict[str, Any]
) -> list[str]:
    lines = []
    for i, (fn, ins, outs, free, op) in enumerate(steps):
        namespace[f"{prefix}{i}"] = fn
        symbol = _operator(op, len(ins)) if len(outs) == 1 else None
        if symbol is not None:
            call = f"{name(ins[0])} {symbol} {name(ins[1])}"
        else:
            call = f"{prefix}{i}(" + ", ".join(name(s) for s in ins) + ")"
        if len(outs) == 1:
            target = f"{name(outs[0])} = "
        else:
            target = "".join(f"{name(s)}, " for s in outs) + "= " if outs else ""
        lines.append(f"        {target}{call}")
        made = {name(s) for s in outs}  # a variable this step writes keeps its new value
        dead = [name(s) for s in free if name(s) not in made]
        if dead:
            lines.append("        del " + ", ".join(dead))
    return lines
