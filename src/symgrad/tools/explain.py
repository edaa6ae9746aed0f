"""Why is a gradient None?  ``why_none(ys, xs)`` names the op where the path is cut.

``gradients(ys, xs)`` returns None for an x when no gradient reaches it.  This module
answers *why*, by walking the graph the way the backprop engine does (edges of
differentiable dtype only, stop ops, rules registered as None, override maps), but
keeping the reason each edge is closed and the path that led there:

>>> import symgrad as tf
>>> g = tf.Graph()
>>> with g.as_default():
...     x = tf.placeholder(tf.float32, name="x")
...     y = tf.stop_gradient(x * 2.0, name="frozen") * 3.0
>>> [e] = tf.why_none(y, [x])
>>> e.reason, e.op.name, e.path
('stop_gradient', 'frozen', ('x', 'mul', 'frozen'))

Every walk is a loop over an explicit queue: graphs may be 100,000 ops deep.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from symgrad.autodiff.gradients import as_list
from symgrad.autodiff.tape import GradientTape
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.graph import Operation, Tensor, walk_ops
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variables import Variable
from symgrad.tools import flow

Key = tuple[int, int]
Edge = tuple[Operation, int]

# TF registers these with a rule that returns [None] (not NoGradient): a dead end too.
NONE_RULES = frozenset({"Floor", "Ceil", "Round", "Rint"})
# ... and rules that return None for some inputs only (TF has no derivative there).
NONE_INPUTS = {"Zeta": (0,), "Polygamma": (0,), "TruncateDiv": (0, 1)}
# Rules that return a real zero gradient: x gets zeros, not None.
ZERO_RULES = frozenset({"Sign"})

_GRAD_SCOPE = re.compile(r"_grad(?:_\d+)?/")

_WHAT = {
    "stop_gradient": "cut by tf.stop_gradient",
    "stop_gradients": "cut by the stop_gradients= argument",
    "dtype": "cut by a non-differentiable (integer or bool) tensor",
    "no_gradient": "cut by an op with no gradient",
    "override": "cut by a gradient_override_map entry",
    "zero_gradient": "through an op whose gradient is identically zero",
    "outside": "cut by an op the tape did not record (it ran outside the with block)",
    "stop_recording": "cut by an op run inside tape.stop_recording()",
    "not_recorded": "cut by an op the tape did not record",
    "tape_used": "cut by an op run after the tape was used",
    "not_watched": "not watched by a GradientTape",
}
# Reasons that concern x itself, told by ``Explanation.detail`` alone (tapes).
PLAIN = frozenset({"not_watched"})


@dataclass(frozen=True)
class Cut:
    """One place where gradient stops on the way from x to the ys.

    ``kind`` is one of ``stop_gradient``, ``stop_gradients``, ``dtype``, ``no_gradient``,
    ``override``, ``zero_gradient``, ``not_watched`` (eagerly: a variable with
    ``trainable=False``, e.g. in a frozen Keras layer, that no tape watches); ``op`` is
    the op to blame (the StopGradient, the Cast that made an int tensor, the ArgMax ...);
    ``path`` the op names from x's op to it.
    """

    kind: str
    op: Operation
    tensor: str
    path: tuple[str, ...]
    detail: str
    within: str = ""  # e.g. "the body of While 'while'": where op sits, if in a subgraph
    in_loop: bool = False  # within a loop body: the loop's gradient gives zeros, not None

    @property
    def location(self) -> str:
        return self.op.location

    def __str__(self) -> str:
        inside = f"\n    inside {self.within}" if self.within else ""
        return (
            f"{_WHAT[self.kind]}: {self.op.describe()}{inside}\n"
            f"    {self.detail}\n"
            f"    path: {' -> '.join(self.path)}"
        )


@dataclass
class Explanation:
    """Why the gradient w.r.t. one x is None (``result='None'``) or all zeros."""

    x: Any
    x_name: str
    result: str
    reason: str
    cuts: list[Cut] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)
    detail: str = ""

    @property
    def cut(self) -> Cut | None:
        return self.cuts[0] if self.cuts else None

    @property
    def op(self) -> Operation | None:
        return self.cuts[0].op if self.cuts else None

    @property
    def path(self) -> tuple[str, ...]:
        return self.cuts[0].path if self.cuts else ()

    @property
    def location(self) -> str | None:
        return self.cuts[0].location if self.cuts else None

    def __repr__(self) -> str:
        where = f" at {self.op.name!r} ({self.location})" if self.op is not None else ""
        return f"<Explanation {self.x_name}: {self.result}, {self.reason}{where}>"

    def __str__(self) -> str:
        head = f"The gradient w.r.t. {self.x_name} is {self.result}"
        if self.reason in PLAIN:
            return f"{head}: {self.detail}"
        if self.reason == "unconnected":
            lines = [f"{head}: no path leads from it to any of ys. {self.detail}".rstrip()]
            if self.depends_on:
                lines.append("  ys depend on: " + "; ".join(self.depends_on))
            return "\n".join(lines)
        n = len(self.cuts)
        if self.reason == "zero_gradient":
            lines = [
                f"{head}: the paths that carry gradient to ys pass through an op whose "
                "gradient is identically zero."
            ]
        else:
            lines = [
                f"{head}: every path to ys is {_WHAT[self.reason]}"
                + (f" ({n} cuts)" if n > 1 else "")
                + "."
            ]
        groups = grouped(self.cuts)
        lines += ["  " + (str(g[0]) if len(g) == 1 else _group_text(g)) for g in groups[:10]]
        if len(groups) > 10:
            lines.append(f"  ... and {len(groups) - 10} more cuts")
        return "\n".join(lines)


def grouped(cuts: Sequence[Cut]) -> list[list[Cut]]:
    """Cuts made by the same line (the iterations of an eager loop) in one group each,
    in creation order (an op's name counts up: StopGradient, StopGradient_1, ...)."""
    groups: dict[tuple[str, str, str, str], list[Cut]] = {}
    for c in cuts:
        groups.setdefault((c.kind, c.op.type, c.location, c.within), []).append(c)
    return [sorted(g, key=lambda c: _name_count(c.op.name)) for g in groups.values()]


def _name_count(name: str) -> int:
    m = re.search(r"_(\d+)$", name)
    return int(m.group(1)) if m else 0


def _group_text(g: list[Cut]) -> str:
    first = g[0]
    inside = f"\n    inside {first.within}" if first.within else ""
    return (
        f"{_WHAT[first.kind]}: {first.op.type} at iterations {_ranges(len(g))}, "
        f"created at {short_location(first.op)}{inside}\n"
        f"    {first.detail}\n"
        f"    path (iteration 0): {' -> '.join(first.path)}"
    )


def _ranges(n: int) -> str:
    return "0" if n == 1 else f"0-{n - 1}"


class Explanations(list[Explanation | None]):
    """One entry per x: an Explanation, or None where x gets a gradient."""

    def __str__(self) -> str:
        parts = [str(e) for e in self if e is not None]
        return "\n".join(parts) if parts else "Every x receives a gradient."


def why_none(ys: Any, xs: Any, stop_gradients: Any = None) -> Explanations:
    """For each x, why ``gradients(ys, xs, stop_gradients=...)`` gives it None (or zeros).

    Returns a list aligned with ``xs``: None for an x the gradient reaches, else an
    :class:`Explanation` whose ``reason`` is ``unconnected`` (no path at all; it lists the
    placeholders, variables and constants the ys do depend on) or the kind of the first
    :class:`Cut`.  ``print()`` it for a readable report.
    ``why_none(tape, target, sources)`` explains ``tape.gradient(target, sources)``
    instead (:mod:`.tape_explain`); on eager tensors the tape entered last that saw them
    is asked.
    """
    if isinstance(ys, GradientTape):
        from symgrad.tools.tape_explain import why_none_on_tape

        return why_none_on_tape(ys, xs, stop_gradients)
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    xs_l = [x if isinstance(x, Variable) else convert_to_tensor(x) for x in as_list(xs)]
    stops = (
        {id(convert_to_tensor(t).op) for t in as_list(stop_gradients)}
        if stop_gradients is not None
        else set()
    )
    ops, consumers = ancestors(ys_l)
    y_keys = {_key(y) for y in ys_l}
    out = Explanations()
    for x in xs_l:
        out.append(_explain_one(x, ys_l, y_keys, ops, consumers, stops))
    if ys_l and all(y.op.graph.eager for y in ys_l) and None in out:
        from symgrad.tools.tape_explain import why_none_eager

        # A path eager ops keep is a gradient only if a tape recorded it: ask the tape.
        asked = why_none_eager(ys_l, [x for x, e in zip(xs_l, out) if e is None])
        out = Explanations(asked.pop(0) if e is None else e for e in out)
    return out


def _unwatched(x: Variable, ys: list[Tensor], read: Operation) -> Explanation | None:
    """Eagerly the gradient is a tape's: it reaches a non-trainable variable only if
    ``tape.watch`` was called on it (TF's tapes watch trainable variables by themselves)."""
    if x.trainable or not all(y.graph.eager for y in ys):
        return None
    cut = Cut(
        "not_watched",
        read,
        x.name,
        (read.name,),
        "x is a tf.Variable with trainable=False (a frozen Keras layer's weight): a "
        "GradientTape gives it None unless tape.watch(x) is called, or trainable=True",
    )
    return Explanation(x, x.name, "None", "not_watched", [cut], detail=cut.detail)


# --------------------------------------------------------------------------------------
# Walks


def ancestors(ys: Sequence[Tensor]) -> tuple[dict[int, Operation], dict[Key, list[Edge]]]:
    """Every op the ys depend on through data inputs (any dtype), and each tensor's consumers."""
    ops: dict[int, Operation] = {}  # in the order the walk reaches them
    consumers: dict[Key, list[Edge]] = {}

    def producers(op: Operation) -> list[Operation]:
        ops[id(op)] = op
        for i, t in enumerate(op.inputs):
            consumers.setdefault(_key(t), []).append((op, i))
        return [t.op for t in op.inputs]

    walk_ops([y.op for y in ys], producers, topological=False)
    return ops, consumers


def _explain_one(
    x: Any,
    ys: list[Tensor],
    y_keys: set[Key],
    ops: dict[int, Operation],
    consumers: dict[Key, list[Edge]],
    stops: set[int],
) -> Explanation | None:
    name = x.name
    if isinstance(x, Variable):
        starts = [
            (id(op), 0)
            for op in ops.values()
            if op.type == "ReadVariableOp" and op.get_attr("var") is x
        ]
    else:
        starts = [_key(x)] if id(x.op) in ops else []
        if not x.dtype.is_differentiable:
            cut = Cut(
                "dtype",
                x.op,
                name,
                (x.op.name,),
                f"x itself has dtype {x.dtype.name}: integer and bool tensors are "
                "constants to autodiff (cast x to a float type)",
            )
            return Explanation(x, name, "None", "dtype", [cut])
    starts = [k for k in starts if k in consumers or k in y_keys]
    if not starts:
        return _unconnected(x, ys, ops)
    reached, cuts = _forward(starts, y_keys, ops, consumers, stops, through_zero=False)
    if reached:
        return _unwatched(x, ys, ops[starts[0][0]]) if isinstance(x, Variable) else None
    zero_cuts = [c for c in cuts if c.kind == "zero_gradient"]
    if zero_cuts and _forward(starts, y_keys, ops, consumers, stops, through_zero=True)[0]:
        others = [c for c in cuts if c.kind != "zero_gradient"]
        return Explanation(x, name, "zeros", "zero_gradient", zero_cuts + others)
    cuts = [c for c in cuts if c.kind != "zero_gradient"] or cuts
    if not cuts:  # only reachable through control inputs or nothing
        return _unconnected(x, ys, ops)
    # The gradient of a While gives zeros (not None) for an input its body cuts; that of
    # an If / Case gives None for an input every branch cuts (as TF's cond_v2).
    inner = [c for c in cuts if c.in_loop]
    if inner:
        outer = [c for c in cuts if not c.in_loop]
        return Explanation(x, name, "zeros", inner[0].kind, inner + outer)
    return Explanation(x, name, "None", cuts[0].kind, cuts)


def _unconnected(x: Any, ys: list[Tensor], ops: dict[int, Operation]) -> Explanation:
    return Explanation(
        x,
        x.name,
        "None",
        "unconnected",
        detail=_no_path_detail(x, ys, ops),
        depends_on=_sources(ops),
    )


def _forward(
    starts: list[Key],
    y_keys: set[Key],
    ops: dict[int, Operation],
    consumers: dict[Key, list[Edge]],
    stops: set[int],
    through_zero: bool,
    block: Any = None,
) -> tuple[set[Key], list[Cut]]:
    """Breadth-first from x's tensors toward the ys over edges gradient would cross.

    Returns the ys reached, and the cuts met (each with its path from x).  An If or
    While is crossed from an input to the outputs its branches or body carry it to
    (:mod:`.flow`), and the cuts met inside are kept with where they are."""
    parent: dict[int, int | None] = {k[0]: None for k in starts}
    queue = deque(starts)
    seen: set[Key] = set(starts)
    reached: set[Key] = set()
    cuts: dict[tuple[str, int], Cut] = {}

    def path(op_id: int) -> tuple[str, ...]:
        names: list[str] = []
        cur: int | None = op_id
        while cur is not None:
            names.append(ops[cur].name)
            cur = parent[cur]
        return tuple(reversed(names))

    def add(kind: str, op: Operation, tensor: str, via: int, detail: str) -> None:
        if (kind, id(op)) not in cuts:
            p = path(via) + ((op.name,) if id(op) != via else ())
            cuts[(kind, id(op))] = Cut(kind, op, tensor, p, detail)

    while queue:
        k = queue.popleft()
        if k in y_keys:
            reached.add(k)
        producer = ops[k[0]]
        dtype = producer.output_dtypes[k[1]]
        tname = f"{producer.name}:{k[1]}"
        if not dtype.is_differentiable:
            detail = f"it outputs {tname} of dtype {dtype.name}; integer and bool tensors carry "
            add("dtype", producer, tname, k[0], detail + "no gradient")
            continue
        for c, index in consumers.get(k, ()):
            kind, detail = (block or _edge_block)(c, index, stops, tname)
            if kind is not None and not (through_zero and kind == "zero_gradient"):
                parent.setdefault(id(c), k[0])
                add(kind, c, tname, id(c), detail)
                continue
            parent.setdefault(id(c), k[0])
            outputs: Sequence[int] = range(c.num_outputs)
            if c.type in flow.FUNCTIONAL:
                outputs, inner = flow.through(c, index, _reach)
                for cut in inner:
                    p = path(id(c)) + cut.path
                    cuts.setdefault((cut.kind, id(cut.op)), dataclasses.replace(cut, path=p))
            for j in outputs:
                nk = (id(c), j)
                if nk not in seen and (nk in consumers or nk in y_keys):
                    seen.add(nk)
                    queue.append(nk)
    return reached, list(cuts.values())


def _reach(outputs: Sequence[Tensor], feeds: Sequence[Tensor]) -> tuple[list[int], list[Cut]]:
    """Which of ``outputs`` (of a branch or body graph) gradient from ``feeds`` reaches,
    and the cuts met on the way; for :func:`flow.through`."""
    ops, consumers = ancestors(outputs)
    index = {_key(t): i for i, t in enumerate(outputs)}
    starts = [_key(t) for t in feeds if _key(t) in consumers or _key(t) in index]
    reached, cuts = _forward(starts, set(index), ops, consumers, set(), through_zero=False)
    return sorted(index[k] for k in reached), cuts


def _edge_block(c: Operation, index: int, stops: set[int], tname: str) -> tuple[str | None, str]:
    """Why gradient cannot cross into consumer ``c`` (None: it can)."""
    if id(c) in stops:
        return "stop_gradients", f"its output is listed in stop_gradients=, so {tname} is cut"
    override = c.gradient_override
    eff = override or c.type
    rule = gradient_registry.entry(eff)  # (fn, where) or None when unregistered
    if rule is not None and rule[0] is None:
        if override:
            return "override", (
                f"gradient_override_map maps {c.type} -> '{override}', "
                f"which is registered with no gradient ({rule[1]})"
            )
        if c.type == "StopGradient":
            return "stop_gradient", f"tf.stop_gradient treats {tname} as a constant"
        return "no_gradient", f"op type {c.type} is registered NoGradient ({rule[1]})"
    if eff in NONE_RULES:
        return "no_gradient", f"the gradient rule of {eff} returns None"
    if index in NONE_INPUTS.get(eff, ()):
        return "no_gradient", f"the gradient rule of {eff} returns None for input {index}"
    if eff in ZERO_RULES:
        return "zero_gradient", f"the gradient rule of {eff} returns zeros"
    return None, ""


def _sources(ops: dict[int, Operation]) -> list[str]:
    """The leaves the ys depend on, grouped: placeholders, variables, constants, others."""
    groups: dict[str, list[str]] = {
        "placeholders": [],
        "variables": [],
        "constants": [],
        "other sources": [],
    }
    for op in ops.values():
        if op.inputs:
            continue
        if op.type == "Placeholder":
            groups["placeholders"].append(op.name)
        elif op.type == "ReadVariableOp":
            var = op.get_attr("var")
            vname = getattr(var, "name", op.name)
            if vname not in groups["variables"]:
                groups["variables"].append(vname)
        elif op.type == "Const":
            groups["constants"].append(op.name)
        else:
            groups["other sources"].append(f"{op.name} ({op.type})")
    out = []
    for label, names in groups.items():
        if names:
            names = sorted(names)
            more = f" and {len(names) - 8} more" if len(names) > 8 else ""
            out.append(f"{label} {', '.join(names[:8])}{more}")
    return out


def _no_path_detail(x: Any, ys: list[Tensor], ops: dict[int, Operation]) -> str:
    if isinstance(x, Variable):
        return f"No op reads variable {x.name} on the way to the ys."
    if ys and x.graph is not ys[0].graph:
        return f"{x.name} belongs to another graph than the ys ({x.graph!r})."
    if id(x.op) in ops:
        return f"Its op {x.op.describe()} is used by the ys, but not its output {x.value_index}."
    return f"{x.name} was created at {x.op.location}."


# --------------------------------------------------------------------------------------
# Gradient ops: which forward op does a gradient op belong to?


def forward_op_of(op: Operation, known: Mapping[str, Operation] | None = None) -> Operation | None:
    """The forward op whose gradient rule created ``op``, from its ``<fwd>_grad/`` scope.

    ``gradients/layer/mul_grad/Mul`` belongs to ``layer/mul``; with nested scopes the
    innermost ``_grad`` wins (second-order ops belong to first-order gradient ops).
    """
    name = op.name
    for m in reversed(list(_GRAD_SCOPE.finditer(name))):
        parts = name[: m.start()].split("/")
        for i in range(len(parts)):
            cand = "/".join(parts[i:])
            found = known.get(cand) if known is not None else None
            if found is None:
                try:
                    found = op.graph.get_operation_by_name(cand)
                except KeyError:
                    continue
            if found is not op:
                return found
    return None


# --------------------------------------------------------------------------------------
# Small helpers


def _key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def short_location(op: Operation) -> str:
    """``file.py:12`` (basename) for compact renderings."""
    return f"{os.path.basename(op.traceback[0])}:{op.traceback[1]}"


from symgrad.tools.chain import trace_element  # noqa: E402, F401  (re-exported)
from symgrad.tools.jacobian_view import explain_gradient  # noqa: E402, F401  (re-exported)
