"""Random op programs for differential testing against TensorFlow.

``generate(seed)`` draws a straight-line program over two float inputs: a few steps, each
an op applied to earlier values (elementwise math, broadcasting binary ops, reductions
over random axes, reshapes, transposes, slices, matmuls, softmax, gathers, selects,
repeats, linspaces, meshgrids).
Shapes are tracked while drawing, so every program is valid.  ``execute(tf, program, xs)``
runs it on either library.  Functions are smooth where the inputs can reach (a kink such
as ``abs`` or ``maximum`` sees inputs away from it only by chance, and gradients at a
kink are compared exactly: both libraries pick the same side).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Shape = tuple[int, ...]

UNARY: dict[str, Callable[[Any, Any], Any]] = {
    "sin": lambda tf, x: tf.sin(x),
    "tanh": lambda tf, x: tf.tanh(x),
    "sigmoid": lambda tf, x: tf.sigmoid(x),
    "exp_scaled": lambda tf, x: tf.exp(x * 0.3),
    "square": lambda tf, x: tf.square(x),
    "softplus": lambda tf, x: tf.nn.softplus(x),
    "log_softplus": lambda tf, x: tf.math.log(tf.nn.softplus(x) + 0.5),
    "sqrt_1p_square": lambda tf, x: tf.sqrt(1.0 + tf.square(x)),
    "abs": lambda tf, x: tf.abs(x),
    "relu": lambda tf, x: tf.nn.relu(x),
    "neg": lambda tf, x: -x,
    "stop_gradient": lambda tf, x: tf.stop_gradient(x) + x * 0.5,
    "cumsum": lambda tf, x: tf.cumsum(x, axis=-1),
    "softmax": lambda tf, x: tf.nn.softmax(x),
    "erf": lambda tf, x: tf.math.erf(x),
    "atan": lambda tf, x: tf.math.atan(x),
}

BINARY: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add": lambda tf, x, y: x + y,
    "sub": lambda tf, x, y: x - y,
    "mul": lambda tf, x, y: x * y,
    "div": lambda tf, x, y: x / (1.0 + tf.square(y)),
    "maximum": lambda tf, x, y: tf.maximum(x, y),
    "squared_difference": lambda tf, x, y: tf.math.squared_difference(x, y),
    "where": lambda tf, x, y: tf.where(x > y, x * 2.0, y),
    "pow": lambda tf, x, y: tf.pow(1.0 + tf.square(x), y * 0.5),
}


@dataclass(frozen=True)
class Step:
    op: str  # a key of UNARY / BINARY, or a structural op name
    args: tuple[int, ...]  # indices of earlier values
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Program:
    shapes: tuple[Shape, ...]  # input shapes
    steps: tuple[Step, ...]


def _broadcastable(a: Shape, b: Shape) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(a[::-1], b[::-1], strict=False))


def _out_shape(a: Shape, b: Shape) -> Shape:
    return tuple(np.broadcast_shapes(a, b))


def _options(shape: Shape) -> list[str]:
    rank = len(shape)
    options = ["reshape_flat", "expand_dims", "concat_self", "tile"]
    if rank >= 1:
        options += ["reduce_sum", "reduce_mean", "reduce_max", "reduce_prod", "slice_stride"]
        options += ["gather", "segment_sum", "softmax_xent", "repeat", "linspace"]
    if rank == 1:
        options += ["meshgrid"]
    if rank >= 2:
        options += ["transpose", "reverse"]
    if 1 in shape:
        options += ["squeeze"]
    return options


def _draw(rng: np.random.Generator, op: str, shape: Shape) -> tuple[tuple[Any, ...], Shape]:
    """Params for ``op`` on ``shape`` and its output shape."""
    rank = len(shape)
    if op.startswith("reduce_"):
        axis, keep = int(rng.integers(rank)), bool(rng.integers(2))
        return (axis, keep), shape[:axis] + ((1,) if keep else ()) + shape[axis + 1 :]
    if op in ("transpose", "tile", "gather", "segment_sum", "repeat"):
        return _draw_indices(rng, op, shape)
    axis = int(rng.integers(max(rank, 1)))
    shapes: dict[str, tuple[tuple[Any, ...], Shape]] = {
        "squeeze": ((), tuple(d for d in shape if d != 1)),
        "softmax_xent": ((), shape[:-1]),
        "reshape_flat": ((), (int(np.prod(shape)),)),
        "expand_dims": ((axis,), shape[:axis] + (1,) + shape[axis:]),
        "slice_stride": ((), ((shape[0] + 1) // 2,) + shape[1:] if rank else ()),
        "reverse": ((axis,), shape),
        "linspace": ((axis,), shape[:axis] + (3,) + shape[axis:]),
        "meshgrid": ((), (shape[0], shape[0]) if rank else ()),
    }
    if op == "concat_self":
        if not rank:
            return (0,), (1,)
        return (axis,), shape[:axis] + (2 * shape[axis],) + shape[axis + 1 :]
    return shapes[op]


def _draw_indices(rng: np.random.Generator, op: str, shape: Shape) -> tuple[tuple[Any, ...], Shape]:
    if op == "transpose":
        perm = tuple(int(p) for p in rng.permutation(len(shape)))
        return (perm,), tuple(shape[p] for p in perm)
    if op == "tile":
        reps = tuple(int(r) for r in rng.integers(1, 3, len(shape)))
        return (reps,), tuple(d * r for d, r in zip(shape, reps, strict=True))
    if op == "gather":
        return (tuple(int(i) for i in rng.integers(0, shape[0], 3)),), (3,) + shape[1:]
    if op == "repeat":  # one count (0-2) for each element along an axis
        axis = int(rng.integers(len(shape)))
        counts = tuple(int(c) for c in rng.integers(0, 3, shape[axis]))
        return (axis, counts), shape[:axis] + (sum(counts),) + shape[axis + 1 :]
    return (tuple(int(i) for i in rng.integers(0, 2, shape[0])),), (2,) + shape[1:]


def _structural(rng: np.random.Generator, shape: Shape) -> tuple[str, tuple[Any, ...], Shape]:
    """A random shape-changing op valid on ``shape``; its params and output shape."""
    options = _options(shape)
    op = options[int(rng.integers(len(options)))]
    if op == "concat_self" and not shape:
        op = "expand_dims"
    params, out = _draw(rng, op, shape)
    return op, params, out


def generate(seed: int, n_steps: int = 6) -> Program:
    rng = np.random.default_rng(seed)
    shapes: list[Shape] = [(3, 4), (4,) if rng.integers(2) else (3, 1)]
    inputs = tuple(shapes)
    steps: list[Step] = []
    for _ in range(n_steps):
        kind = rng.choice(["unary", "binary", "structural", "matmul"], p=[0.35, 0.3, 0.25, 0.1])
        i = int(rng.integers(len(shapes)))
        a = shapes[i]
        if kind == "binary":
            partners = [j for j, b in enumerate(shapes) if _broadcastable(a, b)]
            j = partners[int(rng.integers(len(partners)))]
            op = list(BINARY)[int(rng.integers(len(BINARY)))]
            steps.append(Step(op, (i, j)))
            shapes.append(_out_shape(a, shapes[j]))
        elif kind == "matmul" and len(a) == 2:
            partners = [j for j, b in enumerate(shapes) if len(b) == 2 and b[0] == a[1]]
            if not partners:
                steps.append(Step("matmul_t", (i, i)))
                shapes.append((a[0], a[0]))
                continue
            j = partners[int(rng.integers(len(partners)))]
            steps.append(Step("matmul", (i, j)))
            shapes.append((a[0], shapes[j][1]))
        elif kind == "structural":
            op, params, out = _structural(rng, a)
            steps.append(Step(op, (i,), params))
            shapes.append(out)
        else:
            op = list(UNARY)[int(rng.integers(len(UNARY)))]
            if op in ("cumsum", "softmax") and not a:
                op = "sin"
            steps.append(Step(op, (i,)))
            shapes.append(a)
    return Program(inputs, tuple(steps))


def _apply(tf: Any, step: Step, vals: list[Any]) -> Any:
    args = [vals[i] for i in step.args]
    if step.op in UNARY:
        return UNARY[step.op](tf, *args)
    if step.op in BINARY:
        return BINARY[step.op](tf, *args)
    x, p = args[0], step.params
    table: dict[str, Callable[[], Any]] = {
        "reduce_sum": lambda: tf.reduce_sum(x, p[0], keepdims=p[1]),
        "reduce_mean": lambda: tf.reduce_mean(x, p[0], keepdims=p[1]),
        "reduce_max": lambda: tf.reduce_max(x, p[0], keepdims=p[1]),
        "reduce_prod": lambda: tf.reduce_prod(x, p[0], keepdims=p[1]),
        "squeeze": lambda: tf.squeeze(x),
        "segment_sum": lambda: tf.math.unsorted_segment_sum(x + 1.0, list(p[0]), 2),
        "softmax_xent": lambda: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(x * 0.5), x),
        "reshape_flat": lambda: tf.reshape(x, [-1]),
        "expand_dims": lambda: tf.expand_dims(x, p[0]),
        "concat_self": lambda: tf.concat([x, x * 0.5], p[0]),
        "tile": lambda: tf.tile(x, list(p[0])),
        "slice_stride": lambda: x[::2],
        "gather": lambda: tf.gather(x, list(p[0])),
        "transpose": lambda: tf.transpose(x, list(p[0])),
        "reverse": lambda: tf.reverse(x, [p[0]]),
        "repeat": lambda: tf.repeat(x, list(p[1]), axis=p[0]),
        "linspace": lambda: tf.linspace(x, tf.sin(x) + 2.0, 3, axis=p[0]),
        "meshgrid": lambda: tf.meshgrid(x, tf.tanh(x))[0] * tf.meshgrid(x, x * 0.5)[1],
        "matmul": lambda: tf.matmul(x, args[1]),
        "matmul_t": lambda: tf.matmul(x, x, transpose_b=True),
    }
    return table[step.op]()


def execute(tf: Any, program: Program, xs: list[Any]) -> list[Any]:
    """The program's last two values (so both a late and an earlier result are checked)."""
    vals = list(xs)
    for step in program.steps:
        vals.append(_apply(tf, step, vals))
    return vals[-2:]


def inputs(program: Program, seed: int, dtype: str = "float64") -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 1000)
    return [rng.standard_normal(s).astype(dtype) for s in program.shapes]
