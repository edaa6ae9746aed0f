"""``model.summary()``: Keras 3's table (its box characters, column widths and totals)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_WIDTHS = (33, 24, 15)


def _bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.2f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return ""


def _line(left: str, mid: str, right: str, fill: str) -> str:
    return left + mid.join(fill * w for w in _WIDTHS) + right


def _row(cells: list[str], bar: str = "│") -> str:
    parts = []
    for i, (cell, w) in enumerate(zip(cells, _WIDTHS)):
        inner = w - 2
        parts.append(" " + (cell.rjust(inner) if i == 2 else cell.ljust(inner)) + " ")
    return bar + bar.join(parts) + bar


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text(s) for s in shape) + "]"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def summary(model: Any, layers: list[Any], print_fn: Callable[..., Any] | None = None) -> None:
    out = print_fn or print
    lines = [
        f'Model: "{model.name}"',
        _line("┏", "┳", "┓", "━"),
        _row(["Layer (type)", "Output Shape", "Param #"], "┃"),
        _line("┡", "╇", "┩", "━"),
    ]
    for i, layer in enumerate(layers):
        shape = getattr(layer, "_output_shape_seen", None)
        lines.append(
            _row(
                [
                    f"{layer.name} ({type(layer).__name__})",
                    _shape_text(shape),
                    f"{layer.count_params():,}",
                ]
            )
        )
        lines.append(
            _line("├", "┼", "┤", "─") if i < len(layers) - 1 else _line("└", "┴", "┘", "─")
        )
    if not layers:
        lines.append(_line("└", "┴", "┘", "─"))
    weights = model.weights
    train = [w for w in model.trainable_weights]
    n_all = sum(int(w.shape.num_elements()) for w in weights)
    n_tr = sum(int(w.shape.num_elements()) for w in train)
    b_all = sum(int(w.shape.num_elements()) * w.dtype.size for w in weights)
    b_tr = sum(int(w.shape.num_elements()) * w.dtype.size for w in train)
    lines.append(f" Total params: {n_all:,} ({_bytes(b_all)})")
    lines.append(f" Trainable params: {n_tr:,} ({_bytes(b_tr)})")
    lines.append(f" Non-trainable params: {n_all - n_tr:,} ({_bytes(b_all - b_tr)})")
    for line in lines:
        out(line)
