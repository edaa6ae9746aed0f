"""why_none for GradientTape: the reasons an eager gradient is None that a graph does
not have (never watched, computed outside the with block, stop_recording, a used tape),
with the user's names and lines; loops collapse their repeated cuts."""

from __future__ import annotations

import os
import sys

import numpy as np

import symgrad as tf

HERE = os.path.basename(__file__)


def lineno() -> int:
    return sys._getframe(1).f_lineno


def test_a_constant_never_watched_is_named_by_its_python_name():
    x = tf.constant(3.0)
    v = tf.Variable(2.0, name="v")
    start = lineno() + 1
    with tf.GradientTape() as tape:
        y = x * x * v
    gx, gv = tape.gradient(y, [x, v])
    ex, ev = tape.why_none(y, [x, v])  # after the gradient: the tape still knows
    assert gx is None and gv.numpy() == 9.0 and ev is None
    assert ex.reason == "not_watched" and ex.x_name == "x"
    assert str(ex) == (
        "The gradient w.r.t. x is None: the tape never watched x: it is a constant "
        "tf.Tensor, not a tf.Variable, and a tape watches only the trainable variables "
        "read while it records and the tensors passed to tape.watch(); call "
        f"tape.watch(x) inside the with block ({HERE} lines {start}-{start + 1}), or "
        "make it a tf.Variable"
    )
    assert str(tf.why_none(tape, y, [x, v])) == str(ex)


def test_a_loss_computed_after_the_with_block_names_its_line_and_the_block():
    x = tf.Variable(3.0, name="w")
    start = lineno() + 1
    with tf.GradientTape() as tape:
        y = x * 2.0
    loss = y * y
    end = lineno() - 1
    assert tape.gradient(loss, x) is None
    [e] = tape.why_none(loss, [x])
    assert (e.result, e.reason, e.op.type, e.x_name) == ("None", "outside", "Mul", x.name)
    assert x.name.startswith("w")  # the Variable's own name, not the local's
    assert e.cut.detail == (
        f"it ran at {HERE}:{end}, after the tape's with block ({HERE} lines "
        f"{start}-{start + 1}), so the tape did not record it: compute it inside the block"
    )
    # without the tape, on eager tensors: the tape entered last that saw them answers
    assert str(tf.why_none(loss, x)) == str(e)
    assert "Every x receives a gradient" not in str(tf.why_none(loss, x))


def test_a_variable_read_before_the_tape_is_cut_where_it_was_read():
    v = tf.Variable(3.0, name="v")
    r = v * 1.0
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = r * v
    assert tape.gradient(y, v).numpy() == 3.0  # only the read inside counts
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = r * 2.0
    [e] = tape.why_none(y, [v])
    assert e.reason == "outside" and "before the tape's with block" in e.cut.detail


def test_stop_recording_and_stop_gradient_are_both_named():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            z = tf.sin(x)
        line = lineno() - 1
        y = z * 2.0 + tf.stop_gradient(x, name="held")
    [e] = tape.why_none(y, [x])
    assert tape.gradient(y, x) is None
    kinds = {c.kind: c for c in e.cuts}
    assert set(kinds) == {"stop_recording", "stop_gradient"}
    assert kinds["stop_recording"].detail == (
        f"it ran at {HERE}:{line}, inside tape.stop_recording() (lines {line - 1}-{line}), "
        "so the tape did not record it"
    )
    assert kinds["stop_gradient"].op.name == "held"


def test_integer_sources_integer_casts_and_ops_without_gradient():
    x, k = tf.constant(2.5), tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch([x, k])
        y = tf.cast(tf.cast(x, tf.int32), tf.float32) + tf.floor(x) * tf.cast(k, tf.float32)
    ex, ek = tape.why_none(y, [x, k])
    assert ek.reason == "not_watched" and "k has dtype int32" in str(ek)
    assert {c.kind for c in ex.cuts} == {"dtype", "no_gradient"}
    assert tape.gradient(y, x) is None


def test_a_used_tape_stops_recording():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.gradient(y, x)
        used = lineno() - 1
        z = y * 3.0
    [e] = tape.why_none(z, [x])
    assert e.reason == "tape_used"
    assert f"after tape.gradient() at line {used}" in e.cut.detail


def test_an_eager_loop_collapses_its_cuts_into_one_line_with_iterations():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        body = lambda i, a: (i + 1, tf.stop_gradient(a * x))  # noqa: E731
        line = lineno() - 1
        _, r = tf.while_loop(lambda i, a: i < 5, body, [0, x])
    assert tape.gradient(r, x) is None
    [e] = tape.why_none(r, [x])
    assert len(e.cuts) == 5
    text = str(e)
    assert text.splitlines()[:2] == [
        "The gradient w.r.t. x is None: every path to ys is cut by tf.stop_gradient (5 cuts).",
        f"  cut by tf.stop_gradient: StopGradient at iterations 0-4, created at {HERE}:{line}",
    ]


def test_a_never_watched_computation_is_found_by_its_lines():
    c = tf.constant(2.0)
    with tf.GradientTape() as tape:
        y = c * c
    assert tape.gradient(y, c) is None
    [e] = tf.why_none(y, [c])  # no tape given: the one whose block made y answers
    assert e.reason == "not_watched" and e.x_name == "c"


def test_without_any_tape_eager_tensors_are_explained_as_gradients_sees_them():
    from symgrad.autodiff import tape as tape_module

    saved = list(tape_module._RECENT)
    tape_module._RECENT.clear()
    try:
        x = tf.constant(np.float32(1.0))
        y = x * 2.0
        assert tf.gradients(y, [x])[0].numpy() == 2.0  # symgrad's gradients runs eagerly
        assert list(tf.why_none(y, [x])) == [None]
    finally:
        tape_module._RECENT[:] = saved


def test_in_a_function_the_argument_name_is_used():
    found = []

    @tf.function
    def f(weight):
        with tf.GradientTape() as tape:
            y = weight * 2.0
        found.append(tape.why_none(y, [weight]))
        return y

    f(tf.constant(1.0))
    [[e]] = found
    assert e.reason == "not_watched" and e.x_name == "weight"
