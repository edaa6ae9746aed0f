"""``model.summary()``: Keras 3's table as it prints without a terminal (80 columns): box
characters, column widths, cells wrapped at spaces, "Connected to" for functional models
that are not a plain chain, and the parameter totals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_CHAIN_WIDTHS = (33, 24, 15)
_GRAPH_WIDTHS = (21, 19, 12, 19)
_RIGHT = 2  # the Param # column is right-aligned


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n / 1024 < 1 or unit == "TB":
            return f"{n:.2f} {unit}"
        n = n / 1024
    return ""


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _rule(widths: tuple[int, ...], left: str, mid: str, right: str, fill: str) -> str:
    return left + mid.join(fill * w for w in widths) + right


def _row(widths: tuple[int, ...], cells: list[str], bar: str = "│") -> list[str]:
    wrapped = [_wrap(c, w - 2) for c, w in zip(cells, widths)]
    out = []
    for i in range(max(len(w) for w in wrapped)):
        parts = []
        for col, (lines, w) in enumerate(zip(wrapped, widths)):
            text = lines[i] if i < len(lines) else ""
            parts.append(" " + (text.rjust(w - 2) if col == _RIGHT else text.ljust(w - 2)) + " ")
        out.append(bar + bar.join(parts) + bar)
    return out


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text(s) for s in shape) + "]"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _connections(layer: Any, nodes: list[Any]) -> str:
    parts = []
    for node in layer._inbound_nodes:
        if not any(node is n for n in nodes):
            continue
        for kt in node.input_tensors:
            source = kt.node.layer
            index = next(i for i, n in enumerate(source._inbound_nodes) if n is kt.node)
            outs = kt.node.outputs
            flat = outs if isinstance(outs, (list, tuple)) else [outs]
            position = next(i for i, o in enumerate(flat) if o is kt)
            parts.append(f"{source.name}[{index}][{position}]")
    return ", ".join(parts) or "-"


def summary(model: Any, layers: list[Any], print_fn: Callable[..., Any] | None = None) -> None:
    out = print_fn or print
    nodes = getattr(model, "_nodes", None)
    chain = nodes is None or getattr(model, "_chain_like", True)
    widths = _CHAIN_WIDTHS if chain else _GRAPH_WIDTHS
    header = ["Layer (type)", "Output Shape", "Param #"] + ([] if chain else ["Connected to"])
    lines = [f'Model: "{model.name}"', _rule(widths, "┏", "┳", "┓", "━")]
    lines += _row(widths, header, "┃")
    lines.append(_rule(widths, "┡", "╇", "┩", "━"))
    for i, layer in enumerate(layers):
        cells = [
            f"{layer.name} ({type(layer).__name__})",
            _shape_text(getattr(layer, "_output_shape_seen", None)),
            f"{layer.count_params():,}",
        ]
        if not chain:
            cells.append(_connections(layer, nodes or []))
        lines += _row(widths, cells)
        last = i == len(layers) - 1
        ends = ("└", "┴", "┘") if last else ("├", "┼", "┤")
        lines.append(_rule(widths, *ends, "─"))
    if not layers:
        lines.append(_rule(widths, "└", "┴", "┘", "─"))
    weights, train = model.weights, model.trainable_weights
    n_all = sum(int(w.shape.num_elements()) for w in weights)
    n_tr = sum(int(w.shape.num_elements()) for w in train)
    b_all = sum(int(w.shape.num_elements()) * w.dtype.size for w in weights)
    b_tr = sum(int(w.shape.num_elements()) * w.dtype.size for w in train)
    opt = getattr(model, "optimizer", None) if getattr(model, "compiled", False) else None
    slots = opt.variables if opt is not None and opt.built else None  # Keras 3 counts them
    n_opt = sum(int(w.shape.num_elements()) for w in slots or ())
    b_opt = sum(int(w.shape.num_elements()) * w.dtype.size for w in slots or ())
    lines.append(f" Total params: {n_all + n_opt:,} ({_bytes(b_all + b_opt)})")
    lines.append(f" Trainable params: {n_tr:,} ({_bytes(b_tr)})")
    lines.append(f" Non-trainable params: {n_all - n_tr:,} ({_bytes(b_all - b_tr)})")
    if slots is not None:
        lines.append(f" Optimizer params: {n_opt:,} ({_bytes(b_opt)})")
    for line in lines:
        out(line)
