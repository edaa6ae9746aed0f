"""``model.summary()``: Keras 3's table as rich renders it: box characters, Keras's
column widths (``positions`` of ``line_length``, reduced to fit the borders as rich
reduces them), cells wrapped at spaces and a word too long cut with "…", headers aligned
to the bottom, "Connected to" for functional models that are not a plain chain, a
"Trainable" column, nested models expanded, a ``layer_range``, and the parameter totals.
Lines wider than the console are cut at its width, as rich cuts them."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from typing import Any


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
    return [line if len(line) <= width else line[: width - 1] + "…" for line in lines or [""]]


def _rule(widths: list[int], left: str, mid: str, right: str, fill: str) -> str:
    return left + mid.join(fill * w for w in widths) + right


def _row(widths: list[int], align: str, cells: list[str], bar: str = "│") -> list[str]:
    """A row's lines; ``align``: each column's justification (l, r, c); a header (bar
    "┃") is aligned to the bottom of its row, other rows to the top."""
    wrapped = [_wrap(c, w - 2) for c, w in zip(cells, widths)]
    height = max(len(w) for w in wrapped)
    if bar == "┃":
        wrapped = [[""] * (height - len(w)) + w for w in wrapped]
    out = []
    for i in range(height):
        parts = []
        for lines, w, a in zip(wrapped, widths, align):
            text = lines[i] if i < len(lines) else ""
            pad = w - 2 - len(text)
            left = pad if a == "r" else pad // 2 if a == "c" else 0
            parts.append(" " * (left + 1) + text + " " * (pad - left + 1))
        out.append(bar + bar.join(parts) + bar)
    return out


def _widths(positions: list[float], line_length: int) -> list[int]:
    """Keras's column widths, then rich's ``ratio_reduce`` of them to the table's width
    less its borders (each column gives up its share of the excess, rounded)."""
    widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    excess, left = sum(widths) + len(widths) + 1 - line_length, len(widths)
    for i, w in enumerate(widths):
        cut = min(w, round(excess / left)) if excess > 0 else 0
        widths[i], excess, left = w - cut, excess - cut, left - 1
    return widths


def _layer_range(layers: list[Any], layer_range: Any) -> slice:
    """Keras's ``get_layer_index_bound_by_layer_name``: the layers from the first whose
    name matches ``layer_range[0]`` (a regex) to the last matching ``layer_range[1]``."""
    if layer_range is None:
        return slice(0, len(layers))
    if len(layer_range) != 2:
        raise ValueError(
            "layer_range must be a list or tuple of length 2. Received: "
            f"layer_range = {layer_range} of length {len(layer_range)}"
        )
    if not all(isinstance(n, str) for n in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    low = [i for i, la in enumerate(layers) if re.match(layer_range[0], la.name)]
    high = [i for i, la in enumerate(layers) if re.match(layer_range[1], la.name)]
    if not low or not high:
        raise ValueError(
            f"Passed layer_names do not match the layer names in the model. Received: {layer_range}"
        )
    if min(low) > max(high):
        return slice(min(high), max(low) + 1)
    return slice(min(low), max(high) + 1)


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


def summary(
    model: Any,
    layers: list[Any],
    print_fn: Callable[..., Any] | None = None,
    line_length: Any = None,
    positions: Any = None,
    expand_nested: bool = False,
    show_trainable: bool = False,
    layer_range: Any = None,
) -> None:
    """Print the table (``print_fn``, if given, is called once with the whole text)."""
    nodes = getattr(model, "_nodes", None)
    chain = nodes is None or getattr(model, "_chain_like", True)
    header = ["Layer (type)", "Output Shape", "Param #"] + ([] if chain else ["Connected to"])
    align = "llr" if chain else "llrl"  # Param # to the right
    default = 88 if chain else 108
    positions = list(positions or ([0.45, 0.80, 1.0] if chain else [0.3, 0.56, 0.74, 1.0]))
    if show_trainable:
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        align += "c"
    console = shutil.get_terminal_size().columns
    widths = _widths(positions, line_length or min(default, console - 4))
    lines = [f'Model: "{model.name}"', _rule(widths, "┏", "┳", "┓", "━")]
    lines += _row(widths, align, header, "┃")
    lines.append(_rule(widths, "┡", "╇", "┩", "━"))
    rows = []
    for layer in layers[_layer_range(layers, layer_range)]:
        rows += _rows(layer, chain, nodes, show_trainable, expand_nested, 0)
    for i, cells in enumerate(rows):
        lines += _row(widths, align, cells)
        ends = ("└", "┴", "┘") if i == len(rows) - 1 else ("├", "┼", "┤")
        lines.append(_rule(widths, *ends, "─"))
    if not rows:
        lines.append(_rule(widths, "└", "┴", "┘", "─"))
    lines = [line[:console] for line in lines]
    lines += _totals(model)
    if print_fn is None:
        for line in lines:
            print(line)
    else:
        print_fn("".join(line + "\n" for line in lines))


def _rows(
    layer: Any, chain: bool, nodes: Any, trainable: bool, nested: bool, level: int
) -> list[list[str]]:
    """A layer's row (then its own layers', with ``expand_nested``)."""
    prefix = "   " * level + "└ " if level else ""
    built = getattr(layer, "built", True)
    cells = [
        f"{prefix}{layer.name} ({type(layer).__name__})",
        _shape_text(getattr(layer, "_output_shape_seen", None)),
        f"{layer.count_params():,}" if built else "0 (unbuilt)",
    ]
    if not chain:
        cells.append(_connections(layer, nodes or []))
    if trainable:
        cells.append(("Y" if layer.trainable else "N") if layer.weights else "-")
    rows = [cells]
    if nested and getattr(layer, "layers", None):
        for inner in layer.layers:
            rows += _rows(inner, chain, nodes, trainable, nested, level + 1)
    return rows


def _totals(model: Any) -> list[str]:
    weights, train = model.weights, model.trainable_weights
    n_all = sum(int(w.shape.num_elements()) for w in weights)
    n_tr = sum(int(w.shape.num_elements()) for w in train)
    b_all = sum(int(w.shape.num_elements()) * w.dtype.size for w in weights)
    b_tr = sum(int(w.shape.num_elements()) * w.dtype.size for w in train)
    opt = getattr(model, "optimizer", None) if getattr(model, "compiled", False) else None
    slots = opt.variables if opt is not None and opt.built else None  # Keras 3 counts them
    n_opt = sum(int(w.shape.num_elements()) for w in slots or ())
    b_opt = sum(int(w.shape.num_elements()) * w.dtype.size for w in slots or ())
    lines = [
        f" Total params: {n_all + n_opt:,} ({_bytes(b_all + b_opt)})",
        f" Trainable params: {n_tr:,} ({_bytes(b_tr)})",
        f" Non-trainable params: {n_all - n_tr:,} ({_bytes(b_all - b_tr)})",
    ]
    if slots is not None:
        lines.append(f" Optimizer params: {n_opt:,} ({_bytes(b_opt)})")
    return lines
