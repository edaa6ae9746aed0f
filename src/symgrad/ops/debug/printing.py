"""``tf.print`` (op type ``PrintV2``): print tensors when they are computed.

Eagerly it prints at once.  In a graph or a ``function`` it is a stateful op that prints
each time it runs (a ``function`` runs its stateful ops in program order, so a print
inside one prints on every call, as in TF).  The text is TF's: numbers as TF's
``StrCat`` writes them (the shortest of 6 or 9 significant digits that reads back as
the same float32, 15 or 17 for float64), booleans as 1/0, ``summarize`` elements at each
end of every dimension with ``...`` between, and Python structures printed around them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import nest
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.ops.core import convert_to_tensor


def _number(v: Any) -> str:
    if isinstance(v, np.bool_ | bool):
        return "1" if v else "0"
    if isinstance(v, np.floating):
        short, long_ = (6, 9) if v.dtype == np.float32 or v.dtype == np.float16 else (15, 17)
        text = f"{float(v):.{short}g}"
        return text if v.dtype.type(text) == v else f"{float(v):.{long_}g}"
    if isinstance(v, np.complexfloating):
        return f"({_number(v.real)},{_number(v.imag)})"
    return str(v)


def format_array(a: np.ndarray, summarize: int = 3) -> str:
    """``a`` as ``tf.print`` writes it: nested brackets, rows on their own lines."""
    a = np.asarray(a)
    if a.ndim == 0:
        return _number(a[()])
    return _block(a, summarize, 0)


def _block(a: np.ndarray, summarize: int, depth: int) -> str:
    n = a.shape[0]
    cut = 0 <= summarize < n and n > 2 * summarize
    index = [*range(summarize), -1, *range(n - summarize, n)] if cut else list(range(n))
    if a.ndim == 1:
        return "[" + " ".join("..." if i < 0 else _number(a[i]) for i in index) + "]"
    sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
    return (
        "[" + sep.join("..." if i < 0 else _block(a[i], summarize, depth + 1) for i in index) + "]"
    )


def _render(template: Any, values: Sequence[np.ndarray], summarize: int) -> str:
    """A Python structure with its tensor leaves (``None`` slots) replaced by their text."""
    it = iter(values)

    def leaf(x: Any) -> str:
        return format_array(next(it), summarize) if x is None else str(x)

    if isinstance(template, dict | list | tuple):
        return _structure(template, leaf)
    return leaf(template)


def _structure(s: Any, leaf: Any) -> str:
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(v, leaf)}" for k, v in s.items()) + "}"
    if isinstance(s, list | tuple):
        inner = ", ".join(_structure(v, leaf) for v in s)
        return f"[{inner}]" if isinstance(s, list) else f"({inner}{',' if len(s) == 1 else ''})"
    return leaf(s)


def _print_infer(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    return []


def _print_kernel(
    *arrays: Any, templates: Any, stream: Any, summarize: int, sep: str, end: str
) -> tuple[()]:
    values = list(arrays)
    texts = []
    for template, count in templates:
        texts.append(_render(template, values[:count], summarize))
        values = values[count:]
    stream.write(sep.join(texts) + end)
    if hasattr(stream, "flush"):
        stream.flush()
    return ()


PRINT = register_op(
    "PrintV2",
    _print_infer,
    _print_kernel,
    stateful=True,
    pure=False,
    batch="prints: a side effect with no output to batch",
    no_cases="no outputs to compare; tests/ops/test_print.py checks the printed text "
    "against TF's, eagerly, in a function and in a Session",
)
PRINT.no_gradient()


def _template(x: Any) -> tuple[Any, list[Tensor]]:
    """``x`` with each tensor (and Variable) replaced by None, and those tensors in order."""
    tensors: list[Tensor] = []

    def strip(v: Any) -> Any:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            tensors.append(convert_to_tensor(v))
            return None
        return v

    return nest.map_structure(strip, x), tensors


class _FileStream:
    """``output_stream="file://<path>"``: each print appends to the file, as TF's does."""

    def __init__(self, path: str) -> None:
        self.path = path

    def write(self, text: str) -> None:
        with open(self.path, "a") as f:
            f.write(text)


def print_v2(
    *inputs: Any,
    output_stream: Any = sys.stderr,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> Operation | None:
    """Print ``inputs`` (tensors, Python values and structures of them) when computed:
    eagerly at once (returns None), in a graph as a ``PrintV2`` op (returned)."""
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        output_stream = _FileStream(output_stream[len("file://") :])
    if not hasattr(output_stream, "write"):
        raise ValueError(
            f"Unsupported output stream, logging level, or file.{output_stream}. Supported "
            "streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
            "tf.logging.error. File needs to be in the form of 'file://<filepath>'."
        )
    templates, tensors = [], []
    for x in inputs:
        template, ts = _template(x)
        templates.append((template, len(ts)))
        tensors += ts
    attrs = {
        "templates": tuple(templates),
        "stream": output_stream,
        "summarize": int(summarize) if summarize is not None else 3,
        "sep": sep,
        "end": end,
    }
    if get_default_graph().eager and all(t.op.output_values is not None for t in tensors):
        _print_kernel(*[t.eager_value for t in tensors], **attrs)  # type: ignore[arg-type]
        return None
    return apply_op("PrintV2", tensors, attrs, name)


# TF1's ``tf.compat.v1.Print`` (op type ``Print``): an identity that writes ``message``
# and each data tensor's ``Tensor::SummarizeValue`` to stderr when it runs.


def _escape(b: bytes) -> str:
    """TF's ``CEscape``: C escapes for quotes, backslash and control bytes, octal else."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(c, chr(c) if 32 <= c < 127 else f"\\{c:03o}") for c in bytes(b))


def _v1_element(v: Any) -> str:
    if isinstance(v, bytes | np.bytes_):
        return _escape(bytes(v))
    if isinstance(v, str):
        return _escape(v.encode())
    return _number(v)


def summarize_value(a: np.ndarray, limit: int) -> str:
    """TF's ``Tensor::SummarizeValue(limit)`` (TF1's form): the first ``limit`` entries in
    row-major order, each row bracketed while entries remain, ``...`` where it stops."""
    a = np.asarray(a)
    n = a.size
    limit = n if limit < 0 else min(limit, n)
    flat = a.reshape(-1)
    if a.ndim == 0:
        return " ".join(_v1_element(flat[i]) for i in range(limit)) + ("..." if n > limit else "")
    out: list[str] = []
    index = [0]
    _one_dim(0, a.shape, limit, flat, index, out)
    return "".join(out) + ("..." if n > limit else "")


def _one_dim(dim: int, shape: Any, limit: int, flat: Any, index: list[int], out: list[str]) -> None:
    """TF's ``PrintOneDim``, step for step (its brackets and ``...`` placement)."""
    if index[0] >= limit:
        return
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if index[0] >= limit:
                out.append("..." if dim != 0 else "")
                return
            out.append((" " if i > 0 else "") + _v1_element(flat[index[0]]))
            index[0] += 1
        return
    for _ in range(shape[dim]):
        opened = index[0] < limit
        if opened:
            out.append("[")
        _one_dim(dim + 1, shape, limit, flat, index, out)
        if index[0] < limit or opened:
            out.append("]")


def _print_v1_infer(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    return [(inputs[0].shape, inputs[0].dtype)]


def _print_v1_kernel(
    x: Any,
    *data: Any,
    message: str,
    first_n: int,
    summarize: int,
    counter: list[int],
    strings: tuple[str | None, ...],
) -> Any:
    # TF's kernel counts its runs (one kernel per op in a graph or function; eagerly one
    # per attrs, cached across calls) and prints only the first ``first_n`` (-1: all).
    if first_n < 0 or counter[0] < first_n:
        counter[0] += 1
        values = iter(data)
        pieces = [
            _escape(s.encode()) if s is not None else summarize_value(next(values), summarize)
            for s in strings
        ]
        text = message + "".join(f"[{p}]" for p in pieces)
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    return x


PRINT_V1 = register_op(
    "Print",
    _print_v1_infer,
    _print_v1_kernel,
    stateful=True,
    pure=False,
    batch="prints: a side effect batching would repeat or drop",
    no_cases="prints as it runs; tests/ops/test_print.py checks TF's text, its first_n "
    "count and its gradient, eagerly, in a function and in a Session",
)


@PRINT_V1.gradient
def _print_v1_grad(op: Operation, grad: Any) -> list[Any]:
    """TF's ``_PrintGrad``: the gradient goes to ``input_`` only."""
    return [grad] + [None] * (len(op.inputs) - 1)


_EAGER_COUNTERS: dict[Any, list[int]] = {}


def print_v1(
    input_: Any,
    data: Any,
    message: str | None = None,
    first_n: int | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> Tensor:
    """``tf.compat.v1.Print``: ``input_`` unchanged; running it prints ``message`` and
    ``[values]`` of each tensor of ``data`` (``summarize`` entries each, 3 by default) to
    stderr, the first ``first_n`` times only when given."""
    x = convert_to_tensor(input_)
    # symgrad has no string dtype: a Python string of ``data`` (a string tensor in TF)
    # is kept as text in the op's attrs and printed in its place.
    strings = tuple(d if isinstance(d, str) else None for d in data)
    tensors = [convert_to_tensor(d) for d in data if not isinstance(d, str)]
    attrs: dict[str, Any] = {
        "message": "" if message is None else str(message),
        "first_n": -1 if first_n is None else int(first_n),
        "summarize": 3 if summarize is None else int(summarize),
        "strings": strings,
    }
    key = (*attrs.values(), x.dtype.name, *(t.dtype.name for t in tensors))
    eager = get_default_graph().eager and all(t.op.output_values is not None for t in [x, *tensors])
    attrs["counter"] = _EAGER_COUNTERS.setdefault(key, [0]) if eager else [0]
    return apply_op("Print", [x, *tensors], attrs, name).outputs[0]
