"""Variables read inside a branch or loop body, and how their gradients leave it.

A ``ReadVariableOp`` has no inputs (the variable is an attribute), so a branch or loop
body that reads a variable would capture no tensor through which a gradient could leave
the functional op.  TF captures the variable's resource handle; here the branch or body
captures one read of the variable made in the enclosing graph (``capture_reads``).  The
body never uses that capture (it reads the variable itself, each time, so it sees its own
assignments); the capture is there so that a tape watching the variable records the
functional op, and so that the op's gradient for it reaches the variable, as it does for
any read.  Where the gradient re-creates the body (``replay``), the body's own reads stand
for that capture (``read_values``), so the gradients of all of them (over all iterations)
sum there.  That is the value every read saw, unless the body assigns a variable it
reads, which a gradient refuses (``check_no_assign``).
"""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.core.graph import Operation, Tensor
from symgrad.ops.state.variables import Variable
from symgrad.runtime.concrete_function import ConcreteFunction

Mapping = dict[tuple[int, int], Tensor]


def _reads(f: ConcreteFunction) -> list[Operation]:
    """``f``'s reads of differentiable variables (a nested functional op's outer reads
    are among them, so nesting needs nothing more)."""
    return [
        op
        for op in f.graph.get_operations()
        if op.type == "ReadVariableOp" and op.get_attr("var").dtype.is_differentiable
    ]


def capture_reads(fns: Sequence[ConcreteFunction]) -> list[ConcreteFunction]:
    """``fns`` with one outer read of each variable they read captured (shared by all)."""
    outer: dict[int, Tensor] = {}
    result = []
    for f in fns:
        variables = {id(op.get_attr("var")): op.get_attr("var") for op in _reads(f)}
        if not variables:
            result.append(f)
            continue
        for k, var in variables.items():
            if k not in outer:
                outer[k] = var.value()
            f.graph.capture(outer[k])
        result.append(ConcreteFunction(f.graph, f.inputs, f._structure, f.outputs))
    return result


def read_values(f: ConcreteFunction, feeds: Sequence[Tensor]) -> Mapping:
    """For ``replay(feeds, given=...)``: each of ``f``'s reads stands for the value of the
    capture of its variable's outer read, instead of reading again.  So a gradient built
    on the replay reads no variable (its op stays stateless), and its gradient for those
    reads lands on that capture, whose outer read routes it to the variable."""
    slot: dict[int, Tensor] = {}
    n = len(f.inputs)
    for j, t in enumerate(f.captured):
        if t.op.type == "ReadVariableOp":
            slot.setdefault(id(t.op.get_attr("var")), feeds[n + j])
    return {(id(op), 0): slot[id(op.get_attr("var"))] for op in _reads(f)}


def check_no_assign(fns: Sequence[ConcreteFunction], what: str) -> None:
    """Refuse to differentiate a body that assigns a variable it reads: its gradient
    would read the variable's value after the assignment, not the one each use saw."""
    for f in fns:
        read = {id(op.get_attr("var")) for op in _reads(f)}
        for op in f.graph.get_operations():
            var = op.attrs.get("var")
            if op.type != "ReadVariableOp" and isinstance(var, Variable) and id(var) in read:
                raise NotImplementedError(
                    f"Cannot differentiate {what}: it assigns variable '{var.name}' "
                    f"({op.type}) and reads it, and its gradient would see the value after "
                    "the assignment. Read the variable before the loop or branch and pass "
                    "the value in."
                )
