"""Running a random stateful program (``stateful.generate``) on ``tf``: TensorFlow or symgrad.

Each runner builds the program, takes three steps and returns, as NumPy arrays, what each
step fetched or returned, then every variable's value at the end.  ``config`` is a
TensorFlow ``ConfigProto`` for the TF1 runs (several inter-op threads, so that a program
whose result TF leaves to the scheduler shows it); symgrad's Session takes none.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np
from stateful import STEPS, VIEWS, Program, loss_of


def _variables(tf: Any, p: Program) -> list[Any]:
    return [
        tf.Variable(np.asarray(a, dtype=d), name=f"v{i}")
        for i, (a, d) in enumerate(zip(p.inits, p.dtypes, strict=True))
    ]


def _session(tf: Any, graph: Any, config: Any) -> Any:
    if config is None:
        return tf.compat.v1.Session(graph=graph)
    return tf.compat.v1.Session(graph=graph, config=config)


def _arrays(xs: list[Any]) -> list[np.ndarray]:
    return [np.array(x) for x in xs]


# --------------------------------------------------------------------------------------
# Gradient updates


def _tf1_assign(tf: Any, p: Program, config: Any) -> list[np.ndarray]:
    """``gradients`` and one grouped ``assign*`` per variable, with the loss, in one run."""
    v1 = tf.compat.v1
    with tf.Graph().as_default() as g:
        vs = _variables(tf, p)
        loss = loss_of(tf, p, vs)
        updates = []
        for v, grad, how in zip(vs, v1.gradients(loss, vs), p.params, strict=True):
            step = grad * np.asarray(0.1, v.dtype.as_numpy_dtype)
            if how == "assign":
                updates.append(v.assign(v - step))
            elif how == "assign_add":
                updates.append(v.assign_add(-step))
            else:
                updates.append(v.assign_sub(step))
        update = tf.group(*updates)
        with _session(tf, g, config) as s:
            s.run(v1.global_variables_initializer())
            out = [s.run([update, loss])[1] for _ in range(STEPS)]
            return _arrays(out + s.run(vs))


def _v1_opt(tf: Any, p: Program, config: Any) -> list[np.ndarray]:
    """A ``compat.v1.train`` optimizer's ``minimize`` (with a global step or not)."""
    v1 = tf.compat.v1
    name, lr, extra, with_step = p.params
    with tf.Graph().as_default() as g:
        vs = _variables(tf, p)
        loss = loss_of(tf, p, vs)
        step = v1.train.get_or_create_global_step() if with_step else None
        opt = getattr(v1.train, name + "Optimizer")(lr, **dict(extra))
        train = opt.minimize(loss, global_step=step)
        with _session(tf, g, config) as s:
            s.run(v1.global_variables_initializer())
            out = [s.run([train, loss])[1] for _ in range(STEPS)]
            return _arrays(out + s.run(vs + ([step] if with_step else [])))


def _keras(tf: Any, p: Program, in_function: bool) -> list[np.ndarray]:
    """A Keras optimizer's ``apply_gradients`` after a tape, eagerly or in ``function``."""
    name, lr, extra = p.params
    vs = _variables(tf, p)
    opt = getattr(tf.keras.optimizers, name)(learning_rate=lr, **dict(extra))

    def step() -> Any:
        with tf.GradientTape() as tape:
            loss = loss_of(tf, p, vs)
        opt.apply_gradients(zip(tape.gradient(loss, vs), vs, strict=True))
        return loss

    run = tf.function(step) if in_function else step
    out = [run() for _ in range(STEPS)]
    return _arrays(out + [v.numpy() for v in vs])


# --------------------------------------------------------------------------------------
# Statements that read and write the variables in turn


def _view(tf: Any, vs: list[Any], ref: tuple[int, str], dtype: Any) -> Any:
    i, kind = ref
    return tf.cast(VIEWS[kind](tf, vs[i]), dtype)


def _cond(tf: Any, vs: list[Any], st: tuple[Any, ...]) -> Any:
    _, i, c1, c2, ref = st
    v = vs[i]
    d = v.dtype.as_numpy_dtype

    # Each branch uses its assignment's result: in a TF1 graph TF runs a branch's ops only
    # as far as its outputs need them (no automatic control dependencies there).
    def yes() -> Any:
        return tf.reduce_sum(v.assign_add(c1.astype(d)))

    def no() -> Any:
        x = v.assign_sub(c2.astype(d))
        return tf.reduce_sum(x) * np.asarray(2.0, d)

    return tf.cond(_view(tf, vs, ref, v.dtype) > 0, yes, no)


def _while(tf: Any, vs: list[Any], st: tuple[Any, ...]) -> Any:
    kind, i, c1, c2, ref = st
    v = vs[i]
    d = v.dtype.as_numpy_dtype
    gated = kind == "while_cd"

    def gate(acc: Any) -> Any:
        return tf.control_dependencies([acc]) if gated else contextlib.nullcontext()

    def cond(k: Any, acc: Any) -> Any:
        with gate(acc):
            return k < 2

    def body(k: Any, acc: Any) -> Any:
        with gate(acc):
            x = v.assign_add((c1 * 0.5).astype(d))
            total = acc + tf.reduce_sum(x) + tf.reduce_sum(c2.astype(d))
        return k + 1, total

    # A start value computed from the read (not the read or a slice of it): TF1's While
    # may take a slice of a variable's buffer by reference and see the body's writes.
    start = (tf.constant(0), _view(tf, vs, ref, v.dtype) * np.asarray(1.5, d))
    return tf.compat.v1.while_loop(cond, body, start)[1]


def _statement(tf: Any, vs: list[Any], st: tuple[Any, ...], outs: list[Any], ordered: bool) -> Any:
    """Build or run one statement; append what it returns to ``outs``; return a tensor
    that a later statement may be ordered after."""
    kind = st[0]
    if kind == "read":
        ref = st[1]
        r = vs[ref[0]].read_value() if ref[1] == "max" else _view(tf, vs, ref, vs[ref[0]].dtype)
        outs.append(r)
        return r
    if kind in ("assign", "assign_used"):
        _, i, how, c, ref = st
        v = vs[i]
        x = getattr(v, how)(c.astype(v.dtype.as_numpy_dtype) * _view(tf, vs, ref, v.dtype))
        if kind == "assign_used":
            # In a TF1 graph (``ordered``) a later statement ordered after ``x`` runs after
            # the assignment, not after x's read: order after a read of it instead.
            x = x.read_value() if ordered else x
            outs.append(x)
        return x
    if kind == "scatter":
        _, j, how, rows, vals = st
        v = vs[j]
        delta = tf.IndexedSlices(
            tf.constant(vals.astype(v.dtype.as_numpy_dtype)), tf.constant(rows)
        )
        x = getattr(v, how)(delta)
        with tf.control_dependencies([x]):
            r = tf.reduce_sum(v[rows[0]])
        outs.append(r)
        return r
    if kind == "slice_assign":
        _, j, key, c, ref = st
        v = vs[j]
        x = v[key].assign(c.astype(v.dtype.as_numpy_dtype) * _view(tf, vs, ref, v.dtype))
        with tf.control_dependencies([x]):
            r = tf.reduce_sum(v.read_value() * v.read_value())
        outs.append(r)
        return r
    r = _cond(tf, vs, st) if kind == "cond" else _while(tf, vs, st)
    outs.append(r)
    return r


def _statements(tf: Any, p: Program, vs: list[Any], ordered: bool) -> tuple[list[Any], Any]:
    outs: list[Any] = []
    last = None
    for st in p.params:
        deps = [last] if ordered and last is not None else []
        with tf.control_dependencies(deps) if deps else contextlib.nullcontext():
            last = _statement(tf, vs, st, outs, ordered)
    return outs, last


def _stmts(tf: Any, p: Program, in_function: bool) -> list[np.ndarray]:
    vs = _variables(tf, p)

    def step() -> list[Any]:
        return _statements(tf, p, vs, False)[0]

    run = tf.function(step) if in_function else step
    out: list[Any] = []
    for _ in range(STEPS):
        out += _arrays(run())
    return out + [v.numpy() for v in vs]


def _stmts_tf1(tf: Any, p: Program, config: Any) -> list[np.ndarray]:
    """The statements in a TF1 graph, each after the one before (control_dependencies)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default() as g:
        vs = _variables(tf, p)
        outs, last = _statements(tf, p, vs, True)
        with _session(tf, g, config) as s:
            s.run(v1.global_variables_initializer())
            out: list[Any] = []
            for _ in range(STEPS):
                out += s.run(outs + [last])[:-1]
            return _arrays(out + s.run(vs))


RUNNERS: dict[str, Callable[[Any, Program, Any], list[np.ndarray]]] = {
    "tf1_assign": _tf1_assign,
    "v1_opt": _v1_opt,
    "keras_eager": lambda tf, p, c: _keras(tf, p, False),
    "keras_function": lambda tf, p, c: _keras(tf, p, True),
    "stmts_eager": lambda tf, p, c: _stmts(tf, p, False),
    "stmts_function": lambda tf, p, c: _stmts(tf, p, True),
    "stmts_tf1": _stmts_tf1,
}
TF1_MODES = ("tf1_assign", "v1_opt", "stmts_tf1")


def execute(tf: Any, p: Program, config: Any = None) -> list[np.ndarray]:
    return RUNNERS[p.mode](tf, p, config)
