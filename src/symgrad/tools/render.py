"""Draw a forward graph and its gradient graph: Graphviz DOT, terminal text, SVG/PNG.

``to_dot(ys, xs, grads)`` draws the ops the ys depend on and, given the tensors that
``gradients()`` returned, the gradient ops, each linked by a dashed edge to the forward
op whose gradient rule built it (found from its ``gradients/<op>_grad/`` name scope).
Marks: ys (gold, double border), xs (green), xs the gradient does not reach (red,
dashed), stop ops (red octagons: StopGradient and ``stop_gradients=``), ops registered
without a gradient (grey), seeds (``grad_ys`` or the ones the gradient starts from), and
the gradient results (blue, double border).  Integer/bool edges are grey, control
dependencies dotted.  ``render(..., path)`` runs Graphviz's ``dot`` program.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from symgrad.autodiff.gradients import as_list
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.graph import Operation, Tensor
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variables import Variable
from symgrad.runtime.concrete_function import ConcreteFunction
from symgrad.runtime.function import Function
from symgrad.runtime.plan import topo_order
from symgrad.tools import flow
from symgrad.tools.explain import forward_op_of, short_location, why_none

_SEED_NAME = re.compile(r"(?:^|/)(?:grad_ys_\d+|ones_like(?:_\d+)?|OnesLike(?:_\d+)?)$")

# mark -> (DOT node attributes, legend text)
STYLES: dict[str, tuple[str, str]] = {
    "y": ('fillcolor="#ffe08a", peripheries=2', "y (differentiated)"),
    "x": ('fillcolor="#b9f0b4"', "x (source)"),
    "unconnected": (
        'fillcolor="#ffc4c4", color="#d00000", style="rounded,filled,dashed"',
        "x with no gradient (unconnected)",
    ),
    "stop": ('shape=octagon, fillcolor="#ff9c9c", color="#b00000"', "stop op"),
    "nograd": ('fillcolor="#d9d9d9", fontcolor="#555555"', "no gradient registered"),
    "seed": ('shape=invhouse, fillcolor="#ffe08a"', "seed (grad_ys / ones)"),
    "grad": ('fillcolor="#d7e3ff"', "gradient op"),
    "result": ('fillcolor="#9db8ff", peripheries=2', "gradient returned for an x"),
}
_ORDER = ("unconnected", "stop", "seed", "result", "y", "x", "nograd", "grad")


@dataclass
class View:
    """What to draw: forward and gradient ops in topological order, with their marks."""

    forward: list[Operation]
    backward: list[Operation]
    marks: dict[int, list[str]] = field(default_factory=dict)
    notes: dict[int, list[str]] = field(default_factory=dict)
    owner: dict[int, Operation] = field(default_factory=dict)
    missing_xs: list[str] = field(default_factory=list)

    def mark(self, op: Operation, mark: str, note: str | None = None) -> None:
        marks = self.marks.setdefault(id(op), [])
        if mark not in marks:
            marks.append(mark)
        if note and note not in self.notes.setdefault(id(op), []):
            self.notes[id(op)].append(note)

    def style(self, op: Operation) -> str:
        """The node attributes of the most important mark."""
        marks = self.marks.get(id(op), [])
        for m in _ORDER:
            if m in marks:
                return STYLES[m][0]
        return ""


def _traced(f: Any) -> Any:
    """The ConcreteFunction to draw for a ``tf.function`` (its latest trace) or a trace."""
    if isinstance(f, ConcreteFunction):
        return f
    traces = list(f._cache.values())
    if not traces:
        raise ValueError(
            f"{f!r} has not been traced yet: call it once, or pass "
            "f.get_concrete_function(*args) to draw the trace for those arguments"
        )
    return traces[-1]


def _function_view(f: Any, xs: Any) -> View:
    """A trace drawn whole: its outputs and stateful ops (assignments) are the ys; ops
    made by gradient rules (a tape inside) form the gradients cluster."""
    cf = _traced(f)
    roots = [t.op for t in cf.outputs] + list(cf.graph.stateful_ops)
    ops = topo_order(roots)
    known = {op.name: op for op in ops}
    owners = {id(op): forward_op_of(op, known) for op in ops}
    view = View([op for op in ops if owners[id(op)] is None], [op for op in ops if owners[id(op)]])
    for t in cf.outputs:
        view.mark(t.op, "y", f"output {t.name}")
    for op in cf.graph.stateful_ops:
        if op.type != "ReadVariableOp":
            view.mark(op, "y", "stateful")
    for op in view.forward:
        if _SEED_NAME.search(op.name):
            view.mark(op, "seed", "seed")
    for x in cf.inputs if xs is None else as_list(xs):
        for op in _x_ops(x, ops) if isinstance(x, Variable) else [x.op]:
            view.mark(op, "x", f"var {x.name}" if isinstance(x, Variable) else None)
    for op in view.backward:
        view.mark(op, "grad")
        view.owner[id(op)] = owners[id(op)]  # type: ignore[assignment]
    return view


def build_view(ys: Any, xs: Any = None, grads: Any = None, stop_gradients: Any = None) -> View:
    """Collect the ops to draw and mark them (shared by to_dot and to_text).  ``ys`` may be
    a ``tf.function`` (its latest trace is drawn) or a ConcreteFunction."""
    if isinstance(ys, Function | ConcreteFunction):
        return _function_view(ys, xs)
    return _tensors_view(ys, xs, grads, stop_gradients)


def _tensors_view(ys: Any, xs: Any, grads: Any, stop_gradients: Any) -> View:
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    xs_l = (
        []
        if xs is None
        else [x if isinstance(x, Variable) else convert_to_tensor(x) for x in as_list(xs)]
    )
    grads_l: list[Tensor | None] = [] if grads is None else list(as_list(grads))
    stops = (
        [convert_to_tensor(t) for t in as_list(stop_gradients)]
        if stop_gradients is not None
        else []
    )
    forward = topo_order([y.op for y in ys_l])
    fwd_ids = {id(op) for op in forward}
    backward = [
        op for op in topo_order([g.op for g in grads_l if g is not None]) if id(op) not in fwd_ids
    ]
    view = View(forward, backward)
    extra: list[Operation] = []
    for y in ys_l:
        view.mark(y.op, "y", f"y = {y.name}" if y.op.num_outputs > 1 else None)
    for op in forward:
        rule = gradient_registry.entry(op.gradient_override or op.type)
        if op.type in ("StopGradient", "PreventGradient"):
            view.mark(op, "stop")
        elif rule is not None and rule[0] is None and op.inputs:
            view.mark(op, "nograd")
    for t in stops:
        view.mark(t.op, "stop", "stop_gradients=")
    explained = why_none(ys_l, xs_l, stop_gradients) if xs_l else []
    for i, x in enumerate(xs_l):
        why = explained[i] if i < len(explained) else None
        unconnected = (why is not None and why.result == "None") or (
            i < len(grads_l) and grads_l[i] is None
        )
        note = (
            f"var {x.name}"
            if isinstance(x, Variable)
            else (f"x = {x.name}" if x.op.num_outputs > 1 else None)
        )
        if why is not None and why.result == "zeros":
            note = f"{note}, zero gradient" if note else "zero gradient"
        x_ops = _x_ops(x, forward)
        if not x_ops and not isinstance(x, Variable):
            x_ops = [x.op]
            extra.append(x.op)
        if not x_ops:
            view.missing_xs.append(f"{x.name} (variable not read by ys)")
        for op in x_ops:
            view.mark(op, "unconnected" if unconnected else "x", note)
        if i < len(grads_l) and grads_l[i] is not None:
            view.mark(grads_l[i].op, "result", f"d/d {x.name}")  # type: ignore[union-attr]
    view.forward += [op for op in extra if id(op) not in fwd_ids]
    known = {op.name: op for op in view.forward + view.backward}
    for op in backward:
        owner = forward_op_of(op, known)
        view.mark(op, "grad")
        if owner is not None:
            view.owner[id(op)] = owner
        elif _SEED_NAME.search(op.name):
            view.mark(op, "seed", "seed")
    return view


def _x_ops(x: Any, forward: Sequence[Operation]) -> list[Operation]:
    if isinstance(x, Variable):
        return [op for op in forward if op.type == "ReadVariableOp" and op.get_attr("var") is x]
    return [x.op] if any(op is x.op for op in forward) else []


# --------------------------------------------------------------------------------------
# DOT


def to_dot(
    ys: Any, xs: Any = None, grads: Any = None, *, stop_gradients: Any = None, legend: bool = True
) -> str:
    """Graphviz DOT text of the forward graph of ``ys`` and, given ``grads``, its gradients.

    >>> import symgrad as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     x = tf.placeholder(tf.float32, name="x")
    ...     y = tf.square(x, name="y")
    ...     [dx] = tf.gradients(y, [x])
    >>> dot = tf.render.to_dot(y, [x], [dx])
    >>> "style=dashed" in dot and "(grad of y)" in dot
    True
    """
    view = build_view(ys, xs, grads, stop_gradients)
    ids: dict[int, str] = {}
    for op in view.forward + view.backward:
        ids[id(op)] = f"n{len(ids)}"
    lines = [
        "digraph symgrad {",
        "  rankdir=TB;",
        "  compound=true;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, '
        'fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8];',
        "  subgraph cluster_forward {",
        '    label="forward"; color="#999999";',
    ]
    lines += [f"    {_node(view, op, ids)}" for op in view.forward]
    for op in view.forward:
        lines += _clusters(op, ids[id(op)], "    ")
    lines.append("  }")
    if view.backward:
        lines += [
            "  subgraph cluster_gradients {",
            '    label="gradients"; style=filled; fillcolor="#f3f6ff"; color="#8da2d9";',
        ]
        lines += [f"    {_node(view, op, ids)}" for op in view.backward]
        for op in view.backward:
            lines += _clusters(op, ids[id(op)], "    ")
        lines.append("  }")
    for op in view.forward + view.backward:
        lines += [f"  {e}" for e in _edges(op, ids)]
    for op in view.backward:
        owner = view.owner.get(id(op))
        if owner is not None and id(owner) in ids:
            lines.append(
                f"  {ids[id(op)]} -> {ids[id(owner)]} [style=dashed, "
                f'color="#5b7bd5", constraint=false, arrowhead=open, '
                f'tooltip="gradient of {_esc(owner.name)}"];'
            )
    for i, text in enumerate(view.missing_xs):
        lines.append(f'  missing{i} [label="{_esc(text)}", {STYLES["unconnected"][0]}];')
    if legend:
        lines += _legend()
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node(view: View, op: Operation, ids: dict[int, str]) -> str:
    label = [op.name, op.type]
    if op.num_outputs == 1:
        label.append(f"{op.output_dtypes[0].name} {_shape(op, 0)}")
    label += view.notes.get(id(op), [])
    owner = view.owner.get(id(op))
    if owner is not None:
        label.append(f"(grad of {owner.name})")
    style = view.style(op)
    attrs = f'label="{_esc(chr(10).join(label))}", tooltip="{_esc(op.location)}"'
    return f"{ids[id(op)]} [{attrs}{', ' + style if style else ''}];"


def _edges(op: Operation, ids: dict[int, str]) -> list[str]:
    out = []
    for t in op.inputs:
        if id(t.op) not in ids:
            continue
        attrs = f'label="{_esc(_edge_label(t))}"'
        if not t.dtype.is_differentiable:
            attrs += ', color="#aaaaaa", fontcolor="#888888"'
        out.append(f"{ids[id(t.op)]} -> {ids[id(op)]} [{attrs}];")
    for c in op.control_inputs:
        if id(c) in ids:
            out.append(f'{ids[id(c)]} -> {ids[id(op)]} [style=dotted, color="#888888"];')
    return out


def _clusters(op: Operation, nid: str, indent: str) -> list[str]:
    """The branches (If, Case) or the cond and body (While) of ``op`` as DOT clusters
    beside its node, each linked to it by a dashed edge; nested ones inside them."""
    lines: list[str] = []
    for k, (label, f) in enumerate(flow.subgraphs(op)):
        prefix = f"{nid}_{k}_"
        inner = f.graph.get_operations()
        ids = {id(o): f"{prefix}{i}" for i, o in enumerate(inner)}
        names = _feed_names(op, label, f)
        lines += [
            f"{indent}subgraph cluster_{prefix}body {{",
            f'{indent}  label="{_esc(f"{label} of {op.name}")}"; style=dashed; color="#7a7a7a";',
        ]
        for o in inner:
            text = [o.name, o.type] + ([names[id(o)]] if id(o) in names else [])
            style = _inner_style(o)
            lines.append(
                f'{indent}  {ids[id(o)]} [label="{_esc(chr(10).join(text))}", '
                f'tooltip="{_esc(o.location)}"{", " + style if style else ""}];'
            )
            lines += _clusters(o, ids[id(o)], indent + "  ")
        for o in inner:
            lines += [f"{indent}  {e}" for e in _edges(o, ids)]
        lines.append(f"{indent}}}")
        if inner:
            lines.append(
                f"{indent}{nid} -> {ids[id(inner[0])]} [lhead=cluster_{prefix}body, "
                f'style=dashed, color="#7a7a7a", arrowhead=odot, label="{_esc(label)}"];'
            )
    return lines


def _feed_names(op: Operation, label: str, f: Any) -> dict[int, str]:
    """What each placeholder of a branch or body stands for: the loop counter, loop
    variable i, or the outer tensor it captures."""
    names = {id(ph.op): f"capture of {outer.name}" for outer, ph in f.graph.captures.values()}
    if op.type in flow.WHILE_TYPES:
        for i, ph in enumerate(f.inputs):
            names[id(ph.op)] = "iteration counter" if i == 0 else f"loop variable {i - 1}"
        for i, t in enumerate(f.outputs):
            what = "continue?" if label == "cond" else f"next loop variable {i}"
            names[id(t.op)] = f"{names[id(t.op)]}; {what}" if id(t.op) in names else what
    else:
        for i, t in enumerate(f.outputs):
            names.setdefault(id(t.op), f"output {i}")
    return names


def _inner_style(op: Operation) -> str:
    if op.type in ("StopGradient", "PreventGradient"):
        return STYLES["stop"][0]
    if op.type == "Placeholder":
        return 'shape=ellipse, fillcolor="#eeeeee"'
    rule = gradient_registry.entry(op.gradient_override or op.type)
    return STYLES["nograd"][0] if rule is not None and rule[0] is None and op.inputs else ""


def _legend() -> list[str]:
    lines = ["  subgraph cluster_legend {", '    label="legend"; color="#cccccc";']
    for i, mark in enumerate(STYLES):
        attrs, text = STYLES[mark]
        lines.append(f'    legend_{mark} [label="{_esc(text)}", {attrs}];')
        if i:
            prev = list(STYLES)[i - 1]
            lines.append(f"    legend_{prev} -> legend_{mark} [style=invis];")
    lines += [
        '    legend_fwd [label="forward op"];',
        '    legend_grad -> legend_fwd [style=dashed, color="#5b7bd5", arrowhead=open, '
        'label="gradient of"];',
        '    legend_i [label="int/bool tensor"]; legend_c [label="control dependency"];',
        '    legend_fwd -> legend_i [color="#aaaaaa", label="int32"];',
        '    legend_i -> legend_c [style=dotted, color="#888888"];',
        "  }",
    ]
    return lines


def _edge_label(t: Tensor) -> str:
    return f"{t.dtype.name} {_shape(t.op, t.value_index)}"


def _shape(op: Operation, i: int) -> str:
    dims = op.output_shapes[i].dims
    if dims is None:
        return "<?>"
    return str(tuple("?" if d is None else d for d in dims)).replace("'", "")


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


# --------------------------------------------------------------------------------------
# Text


def to_text(ys: Any, xs: Any = None, grads: Any = None, *, stop_gradients: Any = None) -> str:
    """A terminal rendering: one line per op in topological order, inputs first.

    Each line reads ``name = Type(inputs) -> dtype shape  [marks]  @ file:line``; gradient
    ops end with ``(grad of <forward op>)``.
    """
    view = build_view(ys, xs, grads, stop_gradients)
    width = max((len(op.name) for op in view.forward + view.backward), default=0)
    lines = [f"forward ({len(view.forward)} ops):"]
    for op in view.forward:
        lines += [_line(view, op, width), *_text_clusters(op, "    ")]
    if view.backward:
        lines.append(f"gradients ({len(view.backward)} ops):")
        for op in view.backward:
            lines += [_line(view, op, width), *_text_clusters(op, "    ")]
    for text in view.missing_xs:
        lines.append(f"  [unconnected] {text}")
    return "\n".join(lines) + "\n"


def _text_clusters(op: Operation, indent: str) -> list[str]:
    """The branches or cond and body of ``op``, indented under its line."""
    lines: list[str] = []
    for label, f in flow.subgraphs(op):
        inner = f.graph.get_operations()
        names = _feed_names(op, label, f)
        lines.append(f"{indent}{label} of {op.name} ({len(inner)} ops):")
        for o in inner:
            ins = ", ".join(t.name for t in o.inputs)
            note = f"  [{names[id(o)]}]" if id(o) in names else ""
            stop = "  [stop]" if o.type in ("StopGradient", "PreventGradient") else ""
            lines.append(f"{indent}  {o.name} = {o.type}({ins}){note}{stop}")
            lines += _text_clusters(o, indent + "    ")
    return lines


def _line(view: View, op: Operation, width: int) -> str:
    ins = ", ".join(t.name for t in op.inputs)
    outs = ", ".join(f"{d.name} {_shape(op, i)}" for i, d in enumerate(op.output_dtypes))
    text = f"  {op.name.ljust(width)} = {op.type}({ins}) -> {outs or 'nothing'}"
    marks = view.marks.get(id(op), [])
    shown = [m for m in marks if m != "grad"] + view.notes.get(id(op), [])
    if shown:
        text += "  [" + ", ".join(dict.fromkeys(shown)) + "]"
    owner = view.owner.get(id(op))
    if owner is not None:
        text += f"  (grad of {owner.name})"
    return f"{text}  @ {short_location(op)}"


# --------------------------------------------------------------------------------------
# Files


def render(
    ys: Any,
    xs: Any = None,
    grads: Any = None,
    path: str = "graph.svg",
    format: str | None = None,
    *,
    stop_gradients: Any = None,
) -> str:
    """Write the drawing to ``path`` as SVG or PNG with Graphviz's ``dot``; returns path.

    ``format`` defaults to the file's suffix (svg when it has none).  Raises RuntimeError
    when the ``dot`` program is not installed.
    """
    fmt = (format or os.path.splitext(path)[1].lstrip(".") or "svg").lower()
    if fmt not in ("svg", "png", "pdf", "dot"):
        raise ValueError(f"format must be 'svg', 'png', 'pdf' or 'dot', got {fmt!r}")
    dot_text = to_dot(ys, xs, grads, stop_gradients=stop_gradients)
    if fmt == "dot":
        with open(path, "w") as f:
            f.write(dot_text)
        return path
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "Rendering to SVG/PNG needs Graphviz's `dot` program, which is not installed "
            "(install graphviz: `apt-get install graphviz`, `brew install graphviz` or "
            "`conda install graphviz`), or use symgrad.render.to_dot() and render the text "
            "elsewhere."
        )
    done = subprocess.run(
        [exe, f"-T{fmt}", "-o", path], input=dot_text.encode(), capture_output=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"dot failed ({done.returncode}): {done.stderr.decode().strip()}")
    return path
