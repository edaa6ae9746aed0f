"""Which outputs of a functional op (``If``, ``Case``, ``While``) an input's gradient reaches.

An ``If`` or ``While`` carries its branches or body as graphs of their own, so a walk of
the outer graph cannot see that a ``stop_gradient`` or an integer cast *inside* a body
cuts the path.  :func:`through` maps one input of such an op to the inner placeholder it
feeds, asks ``reach`` (the explain walk, run on the inner graph) which inner outputs
gradient from there reaches, and maps those back to the op's outputs.  A loop variable
reached in one iteration is fed to the next, until nothing new is reached.  Cuts found
inside come back with ``within`` naming the branch or body (nested ones name each level).

The tools (``why_none``, ``render``) and the loop ops share the layouts read here:
``If`` inputs are ``[pred, *captures]`` with ``maps[b]`` giving, for branch ``b``, the
op input of each of its captures; ``While`` inputs are ``[counter, maximum, *vars,
*cond_captures, *body_captures]``, its body takes ``[counter, *vars, *body_captures]``
and returns the new vars, and its outputs are ``[counter, maximum, *vars, *stacks]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.core.graph import Operation, Tensor

IF_TYPES = frozenset({"If", "StatelessIf", "Case", "StatelessCase"})
WHILE_TYPES = frozenset({"While", "StatelessWhile"})
FUNCTIONAL = IF_TYPES | WHILE_TYPES

Reach = Callable[[Sequence[Tensor], Sequence[Tensor]], tuple[list[int], list[Any]]]


def subgraphs(op: Operation) -> list[tuple[str, Any]]:
    """``(label, ConcreteFunction)`` for each branch, or the loop's cond and body."""
    if op.type in IF_TYPES:
        names = branch_names(op)
        return list(zip(names, op.get_attr("branches"), strict=True))
    if op.type in WHILE_TYPES:
        return [("cond", op.get_attr("cond")), ("body", op.get_attr("body"))]
    return []


def branch_names(op: Operation) -> list[str]:
    n = len(op.get_attr("branches"))
    if op.type in ("If", "StatelessIf"):
        return ["true_fn", "false_fn"]
    return [f"branches[{i}]" for i in range(n)]


def feeds(f: Any) -> list[Tensor]:
    """A trace's placeholders in the order its plan is fed: inputs, then captures."""
    return list(f.inputs) + [ph for _, ph in f.graph.captures.values()]


def through(op: Operation, index: int, reach: Reach) -> tuple[list[int], list[Any]]:
    """The outputs of ``op`` that gradient entering at input ``index`` reaches, and the
    cuts met inside its branches or body."""
    if op.type in IF_TYPES:
        return _through_if(op, index, reach)
    return _through_while(op, index, reach)


def _through_if(op: Operation, index: int, reach: Reach) -> tuple[list[int], list[Any]]:
    outs: set[int] = set()
    cuts: list[Any] = []
    for name, f, m in zip(branch_names(op), op.get_attr("branches"), op.get_attr("maps")):
        places = [p for p, j in enumerate(m) if j == index - 1]
        if not places:
            continue  # this branch does not read the input
        fed = feeds(f)
        start = [t for p in places for t in _capture_starts(f, fed, p)]
        found, inner = reach(f.outputs, start)
        outs.update(found)
        cuts += [_inside(c, f"the {name} branch of {op.type} '{op.name}'", False) for c in inner]
    return sorted(outs), cuts


def _through_while(op: Operation, index: int, reach: Reach) -> tuple[list[int], list[Any]]:
    n_vars, n_cond = op.get_attr("n_vars"), op.get_attr("n_cond")
    body = op.get_attr("body")
    fed = feeds(body)
    label = f"the body of {op.type} '{op.name}'"
    if 2 <= index < 2 + n_vars:
        start = [fed[1 + index - 2]]
    elif index >= 2 + n_vars + n_cond:
        start = _capture_starts(body, fed, index - 2 - n_vars - n_cond)
    else:
        return [], []  # the counter, the maximum, or read by the condition only
    reached: set[int] = set()
    cuts: list[Any] = []
    while start:
        found, inner = reach(body.outputs, start)
        cuts += [_inside(c, label, True) for c in inner]
        new = [j for j in found if j not in reached]
        reached.update(new)
        start = [fed[1 + j] for j in new]  # next iteration: fed as loop variable j
    stacks = [2 + n_vars + j for j in reached] if op.get_attr("accumulate") else []
    return sorted(2 + j for j in reached) + stacks, cuts


def _capture_starts(f: Any, fed: list[Tensor], p: int) -> list[Tensor]:
    """Where gradient entering capture ``p`` of ``f`` starts inside it.  A body reads a
    variable itself; its capture of one outer read only routes the gradient of those
    reads out (``ops.function_reads``), so that capture stands for every read of the
    variable in ``f`` (a nested op's outer reads among them)."""
    outer = f.captured[p]
    start = [fed[len(f.inputs) + p]]
    if outer.op.type != "ReadVariableOp":
        return start
    var = outer.op.get_attr("var")
    first = next(t for t in f.captured if _reads(t, var))
    if first is not outer:
        return start  # the gradient of the reads leaves by the first capture of var
    return start + [
        op.outputs[0]
        for op in f.graph.get_operations()
        if op.type == "ReadVariableOp" and op.get_attr("var") is var
    ]


def _reads(t: Tensor, var: Any) -> bool:
    return t.op.type == "ReadVariableOp" and t.op.get_attr("var") is var


def _inside(cut: Any, label: str, loop: bool) -> Any:
    within = f"{cut.within}, in {label}" if cut.within else label
    return dataclasses.replace(cut, within=within, in_loop=cut.in_loop or loop)
