"""why_none and render agree with gradients() on which xs get a gradient, over every
program of the conformance stage (``conformance/calls.py``: ``fn(tf, *xs)`` programs,
control flow with variables read inside branches and bodies among them), built in a
graph and traced by ``function``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.tools.render import _x_ops, build_view

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "conformance"))
from calls import CALLS, arrays

_V: dict[str, Any] = {}


def _v() -> Any:
    """One Variable, made at top level on first use (a function may read, not make, it)."""
    if "v" not in _V:
        with tf.init_scope():
            _V["v"] = tf.Variable(np.array([0.5, 1.0, 1.5]), name="v")
    return _V["v"]


def _cond_in_loop(tf: Any, x: Any) -> Any:
    body = lambda i, y: (i + 1, tf.cond(i > 0, lambda: y * _v(), lambda: tf.sin(y)))  # noqa: E731
    return tf.while_loop(lambda i, y: i < 3, body, [0, x])[1]


def _loop_in_cond(tf: Any, x: Any) -> Any:
    loop = lambda: tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * _v()), [0, x])[1]  # noqa: E731
    return tf.cond(tf.reduce_sum(x) > 0.0, loop, lambda: x)


def _all_cut(tf: Any, x: Any) -> Any:
    p = tf.reduce_sum(x) > 0.0
    return tf.cond(
        p, lambda: tf.stop_gradient(x * _v()), lambda: tf.cast(tf.cast(x, tf.int32), x.dtype)
    )


def _cut_in_loop(tf: Any, x: Any) -> Any:
    body = lambda i, y: (i + 1, tf.stop_gradient(y * _v()) + x)  # noqa: E731
    return tf.while_loop(lambda i, y: i < 3, body, [0, x])[1]


def _map_scan_variable(tf: Any, x: Any) -> Any:
    m = tf.map_fn(lambda e: e * _v(), tf.stack([x, x * 2.0]))
    return tf.scan(lambda a, e: a * _v() + e, m)


def _switch_cut(tf: Any, x: Any) -> Any:
    i = tf.cast(tf.reduce_sum(x) > 0.0, tf.int32)
    return tf.switch_case(i, [lambda: tf.stop_gradient(x), lambda: tf.round(x) * _v()])


# Control-flow programs of this file's own, fn(tf, x) with x of shape (3,)
PROGRAMS = {
    "cond_in_loop": _cond_in_loop,
    "loop_in_cond": _loop_in_cond,
    "all_cut": _all_cut,
    "cut_in_loop": _cut_in_loop,
    "map_scan_variable": _map_scan_variable,
    "switch_cut": _switch_cut,
}


def _flat(ys: Any) -> list[Any]:
    if isinstance(ys, list | tuple):
        return [z for y in ys for z in _flat(y)]
    return [ys]


def _variables() -> list[Any]:
    """The variables the default graph reads (a body's reads are captured as an outer one)."""
    found: dict[int, Any] = {}
    for op in tf.get_default_graph().get_operations():
        if op.type == "ReadVariableOp":
            found.setdefault(id(op.get_attr("var")), op.get_attr("var"))
    return list(found.values())


def _verdicts(ys: Any, xs: list[Any]) -> tuple[list[bool], list[bool], list[bool]]:
    """Per x (and per variable read): does gradients() give a tensor, does why_none say
    so, does render?"""
    xs = xs + _variables()
    ys = [tf.convert_to_tensor(y) for y in _flat(ys)]
    ys = [y for y in ys if y.dtype.is_floating]
    grads = tf.gradients(ys, xs)
    why = tf.why_none(ys, xs)
    view = build_view(ys, xs)
    red = {id(op) for op in view.forward if "unconnected" in view.marks.get(id(op), [])}
    drawn = [
        not any(id(op) in red for op in _x_ops(x, view.forward) or [getattr(x, "op", None)])
        and not any(m.startswith(f"{x.name} ") for m in view.missing_xs)
        for x in xs
    ]
    return (
        [g is not None for g in grads],
        [e is None or e.result == "zeros" for e in why],
        drawn,
    )


def _inputs(name: str) -> list[np.ndarray]:
    dtypes = CALLS[name].dtypes
    return arrays(CALLS[name], "float64" if "float64" in dtypes else dtypes[0], seed=3)


# gradients() raises for these (as TF's does): nothing to agree with
RAISES = {
    "lstsq_exact": (ValueError, "Gradient not defined for fast=False"),
    "rfft3d_irfft3d": (LookupError, "TensorFlow registers no gradient for it either"),
    "adjust_hue_saturation": (LookupError, "Adjust(Hue|Saturation)"),
    "truncatemod": (LookupError, "TruncateMod"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_why_none_and_render_agree_with_gradients_in_a_graph(name):
    values = _inputs(name)
    with tf.Graph().as_default():
        xs = [
            tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=f"x{i}")
            for i, v in enumerate(values)
        ]
        if name in RAISES:
            with pytest.raises(RAISES[name][0], match=RAISES[name][1]):
                _verdicts(CALLS[name].fn(tf, *xs), xs)
            return
        got, why, drawn = _verdicts(CALLS[name].fn(tf, *xs), xs)
    assert why == got and drawn == got


@pytest.mark.parametrize("name", sorted(n for n, c in CALLS.items() if c.graph))
def test_why_none_and_render_agree_with_gradients_in_a_function(name):
    found: list[Any] = []

    @tf.function
    def f(*xs):
        found.append(_verdicts(CALLS[name].fn(tf, *xs), list(xs)))
        return xs[0]

    f(*_inputs(name))
    got, why, drawn = found[0]
    assert why == got and drawn == got


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("mode", ["graph", "function"])
def test_why_none_and_render_agree_with_gradients_on_control_flow(name, mode):
    found: list[Any] = []
    x = np.array([0.3, -0.2, 0.4])

    def build(x: Any) -> Any:
        found.append(_verdicts(PROGRAMS[name](tf, x), [x]))
        return x

    if mode == "graph":
        with tf.Graph().as_default():
            build(tf.placeholder(tf.float64, [3], name="x"))
    else:
        tf.function(build)(x)
    got, why, drawn = found[0]
    assert why == got and drawn == got


def _tape_verdicts(fn: Any, values: list[np.ndarray]) -> tuple[list[bool], list[bool]]:
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        ys = [tf.convert_to_tensor(y) for y in _flat(fn(tf, *xs))]
    ys = [y for y in ys if y.dtype.is_floating]
    sources = [x for x in xs if x.dtype.is_floating] + list(tape.watched_variables())
    grads = tape.gradient(ys, sources)
    why = tape.why_none(ys, sources)
    ints = [x for x in xs if not x.dtype.is_floating]  # None, and explained so
    assert all(e is not None and e.result == "None" for e in tape.why_none(ys, ints))
    return [g is not None for g in grads], [e is None or e.result == "zeros" for e in why]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_tape_why_none_agrees_with_the_tape_eagerly(name):
    if name in RAISES:
        return
    got, why = _tape_verdicts(CALLS[name].fn, _inputs(name))
    assert why == got


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tape_why_none_agrees_with_the_tape_on_control_flow(name):
    got, why = _tape_verdicts(PROGRAMS[name], [np.array([0.3, -0.2, 0.4])])
    assert why == got
