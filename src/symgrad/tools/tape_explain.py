"""Why does ``tape.gradient(y, x)`` give None?  ``why_none(tape, y, x)``.

An eager gradient is None for reasons a graph does not have: the tape never watched x
(a constant, not a Variable), the path ran outside the tape's ``with`` block or inside
``tape.stop_recording()``, or the tape was already used.  The walk is the graph
walk of :mod:`.explain` over the eager ops' inputs (an eager tensor keeps the op that
made it), where crossing into an op also needs the tape to have recorded it; an op it
did not record is told apart by where it ran: the lines of the ``with`` block and of
each ``stop_recording`` come from the source (``ast``), when asked, so a tape pays
nothing for them.  Names are the caller's Python names where a local holds x.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import sys
from collections.abc import Container
from typing import Any

from symgrad.autodiff.gradients import as_list
from symgrad.autodiff.tape import _RECENT, GradientTape
from symgrad.core import hooks
from symgrad.core.graph import PACKAGE_DIR, Operation, Tensor
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variables import Variable
from symgrad.tools.explain import (
    Cut,
    Explanation,
    Explanations,
    _edge_block,
    _forward,
    _key,
    _unconnected,
    ancestors,
)


def _recorded(tape: GradientTape) -> Container[int]:
    """The ids of the ops the tape recorded (those it had, if a gradient released them)."""
    return tape._spent[0] if tape._spent is not None and tape._used else tape._recorded


def _knows(tape: GradientTape, t: Tensor) -> bool:
    watched = tape._spent[1] if tape._spent is not None and tape._used else tape._watched
    return id(t.op) in _recorded(tape) or _key(t) in watched


def why_none_on_tape(tape: GradientTape, target: Any, sources: Any) -> Explanations:
    """For each source, why ``tape.gradient(target, sources)`` gives it None: an
    :class:`Explanation` (reasons ``not_watched``, ``outside``, ``tape_used``,
    ``stop_recording``, ``not_recorded``, and the graph's: ``stop_gradient``, ``dtype``,
    ``no_gradient``, ``unconnected``), or None where the source gets a gradient."""
    ys = [convert_to_tensor(y) for y in as_list(target)]
    xs = [x if isinstance(x, Variable) else convert_to_tensor(x) for x in as_list(sources)]
    names = _local_names()
    ops, consumers = ancestors(ys)
    y_keys = {_key(y) for y in ys}
    out = Explanations()
    for x in xs:
        name = names.get(id(x), x.name)
        out.append(_explain(tape, x, name, ys, y_keys, ops, consumers))
    return out


def why_none_eager(ys: list[Tensor], xs: list[Any]) -> Explanations:
    """``why_none(y, x)`` on eager tensors where the ops kept a path: asks the tape
    entered last that recorded one of the ys, watched one of the xs, or whose with block
    holds the line that made a y.  With none (symgrad's ``gradients`` also runs on eager
    tensors), the path stands: None for each x."""
    for ref in reversed(_RECENT):
        tape = ref()
        if tape is not None and _related(tape, ys, xs):
            return why_none_on_tape(tape, ys, xs)
    return Explanations(None for _ in xs)


def _related(tape: GradientTape, ys: list[Tensor], xs: list[Any]) -> bool:
    if tape._block is None:
        return False
    file, line = tape._block
    # A used tape keeps bare ids, which a later op may reuse: its file must match too.
    same = not tape._used or any(y.op.traceback[0] == file for y in ys)
    if same and (
        any(id(y.op) in _recorded(tape) for y in ys) or any(_watched(tape, x) for x in xs)
    ):
        return True
    first, last = _with_span(file, line)
    return any(y.op.traceback[0] == file and first <= y.op.traceback[1] <= last for y in ys)


def _explain(
    tape: GradientTape,
    x: Any,
    name: str,
    ys: list[Tensor],
    y_keys: set[Any],
    ops: dict[int, Operation],
    consumers: dict[Any, Any],
) -> Explanation | None:
    if not x.dtype.is_differentiable:
        detail = (
            f"{name} has dtype {x.dtype.name}: an integer or bool source gets None "
            "(cast it to a float type before the tape reads it)"
        )
        return Explanation(x, name, "None", "not_watched", detail=detail)
    if not _watched(tape, x):
        return Explanation(x, name, "None", "not_watched", detail=_not_watched(tape, x, name))
    if isinstance(x, Variable):
        starts = [(id(op), 0) for op in ops.values() if _reads(op, x)]
    else:
        starts = [_key(x)] if id(x.op) in ops else []
    starts = [k for k in starts if k in consumers or k in y_keys]
    if not starts:
        return _unconnected(x, ys, ops)
    recorded = _recorded(tape)
    unrecorded = [ops[k[0]] for k in starts if k[0] not in recorded and _is_read(ops[k[0]])]
    starts = [k for k in starts if ops[k[0]] not in unrecorded]

    def block(c: Operation, index: int, stops: set[int], tname: str) -> tuple[str | None, str]:
        if id(c) in recorded:
            return _edge_block(c, index, stops, tname)
        if c.type == "StopGradient":
            return "stop_gradient", f"tf.stop_gradient treats {tname} as a constant"
        return _where_ran(tape, c)

    reached, cuts = _forward(starts, y_keys, ops, consumers, set(), False, block)
    if reached:
        return None
    zero = [c for c in cuts if c.kind == "zero_gradient"]
    if zero and _forward(starts, y_keys, ops, consumers, set(), True, block)[0]:
        return Explanation(x, name, "zeros", "zero_gradient", cuts)
    cuts = [c for c in cuts if c.kind != "zero_gradient"]
    for op in unrecorded:
        kind, detail = _where_ran(tape, op)
        cuts.insert(0, Cut(kind, op, op.outputs[0].name, (op.name,), detail))
    if not cuts:
        return _unconnected(x, ys, ops)
    return Explanation(x, name, "None", cuts[0].kind, cuts)


def _reads(op: Operation, var: Variable) -> bool:
    return _is_read(op) and op.get_attr("var") is var


def _is_read(op: Operation) -> bool:
    return op.type == "ReadVariableOp"


def _watched(tape: GradientTape, x: Any) -> bool:
    if isinstance(x, Variable):
        return id(x) in tape._variables
    return isinstance(x, Tensor) and _knows(tape, x)


def _not_watched(tape: GradientTape, x: Any, name: str) -> str:
    lines = _block_text(tape)
    if isinstance(x, Variable):
        if not x.trainable:
            why = "it is not trainable, and a tape watches the trainable variables it sees read"
        elif not tape._watch_accessed_variables:
            why = "the tape was made with watch_accessed_variables=False"
        else:
            why = f"it was not read while the tape recorded ({lines})"
        return f"the tape never watched variable {x.name}: {why}; call tape.watch({name})"
    what = "a constant tf.Tensor, not a tf.Variable" if x.op.type == "Const" else "a tf.Tensor"
    return (
        f"the tape never watched {name}: it is {what}, and a tape watches only the "
        f"trainable variables read while it records and the tensors passed to "
        f"tape.watch(); call tape.watch({name}) inside the with block ({lines}), or "
        "make it a tf.Variable"
    )


def _where_ran(tape: GradientTape, op: Operation) -> tuple[str, str]:
    """Why the tape did not record ``op``: where it ran against the block's lines."""
    file, line = op.traceback[0], op.traceback[1]
    here = f"{os.path.basename(file)}:{line}"
    for pfile, pline in tape._pauses:
        first, last = _with_span(pfile, pline)
        if pfile == file and first <= line <= last:
            return "stop_recording", (
                f"it ran at {here}, inside tape.stop_recording() (lines {first}-{last}), "
                "so the tape did not record it"
            )
    if tape._block is None:
        return "not_recorded", f"it ran at {here}, where the tape was not recording"
    bfile, bline = tape._block
    first, last = _with_span(bfile, bline)
    if bfile == file and first <= line <= last:
        used = tape._used_at
        if used is not None and used[0] == file and used[1] < line:
            return "tape_used", (
                f"it ran at {here}, after tape.gradient() at line {used[1]}: a "
                "non-persistent tape stops recording when it is used (make it "
                "tf.GradientTape(persistent=True) to use it again)"
            )
        return "not_recorded", f"it ran at {here}, while the tape was not recording"
    when = "after" if bfile == file and line > last else "before" if bfile == file else "outside"
    return "outside", (
        f"it ran at {here}, {when} the tape's with block ({_block_text(tape)}), so the "
        "tape did not record it: compute it inside the block"
    )


def _block_text(tape: GradientTape) -> str:
    if tape._block is None:
        return "the tape was never entered"
    file, line = tape._block
    first, last = _with_span(file, line)
    return f"{os.path.basename(file)} lines {first}-{last}"


@functools.lru_cache(maxsize=256)
def _with_span(file: str, line: int) -> tuple[int, int]:
    """The lines of the ``with`` statement that starts at ``line`` of ``file``."""
    try:
        tree = ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return line, line
    spans = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.With | ast.AsyncWith) and n.lineno <= line <= (n.end_lineno or 0)
    ]
    starting = [s for s in spans if s[0] == line]
    return min(starting or spans or [(line, line)], key=lambda s: s[1] - s[0])


def _local_names() -> dict[int, str]:
    """id -> name of the caller's locals outside symgrad that hold a tensor (a Variable
    has its own name)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
    names: dict[int, str] = {}
    for k, v in frame.f_locals.items():
        if isinstance(v, Tensor) and not k.startswith("_"):
            names.setdefault(id(v), k)
    return names


hooks.provide("why_none", why_none_on_tape)
