"""Step order: each variable update runs as soon as its gradient is ready.

A plan's steps come in the order a depth-first walk from the fetches finds them.  For a
training step that fetches ``group(*[v.assign_sub(lr * g) ...])``, that order computes
the update of the first variable first, and so holds every other gradient (and the
activations their weight gradients need) until the walk reaches its update at the end:
the peak holds all the gradients at once.

``updates_early`` moves each update, with the pure steps that exist only to feed it
(the weight gradient's MatMul, the ``lr * g``), to just after the last step it has to
follow: its gradient, and the last use of the weight's value (the backward MatMul that
carries the gradient on to the layer below).  The gradient is then applied and freed
while the backward pass goes on; the peak holds one gradient at a time, as an optimizer
fused into the backward pass would.  (The variable's old array is kept until the run
succeeds, to be put back if it fails: see ``atomic`` in :mod:`..ops.variables`.)

No value changes.  Pure steps may run at any point after their inputs.  An update is
only moved when every other effect in the plan is a read or an update of a variable,
and it stays after every earlier read and update of the same variable and after the last
use of those reads' values, and before the next ones, so each read sees exactly the value
it saw before.  Updates of different variables commute.  An update ordered by any other
control dependency (``control_dependencies``, a ``group``) is left where it is.
"""

from __future__ import annotations

from symgrad.core.graph import Operation
from symgrad.core.op_registry import OPS
from symgrad.runtime.rewrite import Step


def reads_first(order: list[Operation]) -> list[Operation]:
    """``order`` (topological) with every op that no write depends on first.

    TF1's rule, by construction: in a graph run, a read of a variable that no control
    edge (or data path) orders after a write runs before every write (TF's executor runs
    a read as soon as the variable's handle is ready, before the updates that wait for
    gradients; ``gate_gradients``).  A write is any stateful op but a plain read.  Inside
    ``function`` stateful ops are chained in program order by control edges, so this
    changes nothing there.  Both parts keep their topological order, so the result is
    one too.
    """
    after: set[int] = set()  # ids of writes and of every op that depends on one
    for op in order:
        rec = OPS[op.type]
        if (
            (rec.stateful and rec.variable != "read")
            or any(id(t.op) in after for t in op.inputs)
            or any(id(c) in after for c in op.control_inputs)
        ):
            after.add(id(op))
    if not after:
        return order
    return [op for op in order if id(op) not in after] + [op for op in order if id(op) in after]


def unused_reads_dropped(steps: list[Step], keep: set[int]) -> list[Step]:
    """``steps`` without the variable reads whose value no step uses and no one fetched.

    Such a read changes nothing, and the steps are already in order, so every ordering
    it stood in (``control_dependencies([v.assign(...)])`` orders after the read that
    follows the assignment, as TF's) holds without it.  ``group(*assignments)`` builds
    them, one per update, as TF's does."""
    used = set(keep)
    for s in steps:
        used.update(s.ins)
    return [
        s
        for s in steps
        if OPS[s.op.type].variable != "read" or any(slot in used for slot in s.outs)
    ]


def updates_early(steps: list[Step], keep: set[int]) -> list[Step]:
    """``steps`` reordered so that each variable update runs as early as it may."""
    if any(OPS[s.op.type].stateful and not OPS[s.op.type].variable for s in steps):
        return steps
    producer = {slot: i for i, s in enumerate(steps) for slot in s.outs}
    readers: dict[int, list[int]] = {}
    for i, s in enumerate(steps):
        for slot in s.ins:
            readers.setdefault(slot, []).append(i)
    events: dict[int, list[int]] = {}  # id(variable) -> indices of its reads and updates
    followers: dict[int, list[int]] = {}  # id(op) -> steps with a control edge from it
    for i, s in enumerate(steps):
        if OPS[s.op.type].variable:
            events.setdefault(id(s.op.get_attr("var")), []).append(i)
        for c in s.op.control_inputs:
            followers.setdefault(id(c), []).append(i)
    anchor = list(range(len(steps)))  # a moved step runs right after steps[anchor[i]]
    moved = [False] * len(steps)
    for i, s in enumerate(steps):
        if OPS[s.op.type].variable == "write":
            _move_update(
                i,
                steps,
                events[id(s.op.get_attr("var"))],
                producer,
                readers,
                followers.get(id(s.op), []),
                keep,
                anchor,
                moved,
            )
    order = sorted(range(len(steps)), key=lambda i: (anchor[i], moved[i], i))
    return [steps[i] for i in order]


def _move_update(
    i: int,
    steps: list[Step],
    events: list[int],
    producer: dict[int, int],
    readers: dict[int, list[int]],
    followers: list[int],
    keep: set[int],
    anchor: list[int],
    moved: list[bool],
) -> None:
    """Anchor update ``i`` (and the pure steps only it needs) where it may go first.

    That is after the same variable's earlier reads and updates and every use of those
    reads' values, which may also be later than where the walk put it; never past the
    variable's next read or update, nor past a step that needs the update done.
    """
    if any(not OPS[c.type].variable for c in steps[i].op.control_inputs):
        return
    after = -1
    for j in events:
        if j < i:
            after = max(after, j, *[r for slot in steps[j].outs for r in readers.get(slot, ())])
    if after > i:  # an earlier read's value is used after the update: go after that use
        needs_it = (
            [j for j in events if j > i]
            + followers
            + [r for slot in steps[i].outs for r in readers.get(slot, ())]
        )
        if any(j <= after for j in needs_it):
            return
    for k in [*sorted(_feeding_only(i, steps, producer, readers, keep)), i]:
        at = max(
            [after if k == i else -1]
            + [anchor[producer[slot]] for slot in steps[k].ins if slot in producer]
        )
        if at != k:
            anchor[k], moved[k] = at, True


def _feeding_only(
    i: int,
    steps: list[Step],
    producer: dict[int, int],
    readers: dict[int, list[int]],
    keep: set[int],
) -> set[int]:
    """The pure steps whose every output is read only by step ``i`` or by one another."""
    cone: set[int] = set()
    frontier = [producer[slot] for slot in steps[i].ins if slot in producer]
    while frontier:
        k = frontier.pop()
        s = steps[k]
        if k in cone or not s.pure or any(slot in keep for slot in s.outs):
            continue
        if all(r == i or r in cone for slot in s.outs for r in readers.get(slot, ())):
            cone.add(k)
            frontier += [producer[slot] for slot in s.ins if slot in producer]
    return cone
