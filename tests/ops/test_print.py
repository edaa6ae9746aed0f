"""tf.print: the text TF 2.21 prints for the same calls (recorded literals), eagerly, in
a function (once per call) and in a Session (each time the op runs)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import symgrad as tf


def _printed(*inputs, **kwargs):
    out = io.StringIO()
    tf.print(*inputs, output_stream=out, **kwargs)
    return out.getvalue()


@pytest.mark.parametrize(
    ("inputs", "kwargs", "want"),
    [
        ((tf.constant([1.0, 2.5, 1 / 3]),), {}, "[1 2.5 0.333333343]\n"),
        (("loss:", tf.constant(0.123456789), "step", 3), {}, "loss: 0.123456791 step 3\n"),
        (
            (tf.reshape(tf.range(24), [2, 3, 4]),),
            {},
            "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n"
            "  [20 21 22 23]]]\n",
        ),
        ((tf.range(10),), {}, "[0 1 2 ... 7 8 9]\n"),
        ((tf.range(10),), {"summarize": -1}, "[0 1 2 3 4 5 6 7 8 9]\n"),
        (
            (tf.constant([True, False]), tf.constant(1e-8), tf.constant(123456789.0)),
            {},
            "[1 0] 1e-08 123456792\n",
        ),
        (
            (tf.constant([[1.5, -2.0], [3.25, 4e10]]),),
            {"sep": "|", "end": "!\n"},
            "[[1.5 -2]\n [3.25 4e+10]]!\n",
        ),
        (({"a": tf.constant(1)}, [tf.constant(2.0), 3]), {}, "{'a': 1} [2, 3]\n"),
        ((tf.constant(np.float64(1) / 3),), {}, "0.33333333333333331\n"),
    ],
)
def test_eager_print_writes_tensorflows_text(inputs, kwargs, want):
    assert _printed(*inputs, **kwargs) == want


def test_print_in_a_function_prints_on_every_call():
    out = io.StringIO()

    @tf.function
    def f(x):
        tf.print("in f", x, output_stream=out)
        return x * 2.0

    f(tf.constant(2.0))
    f(tf.constant(3.0))
    assert out.getvalue() == "in f 2\nin f 3\n"  # TF 2.21: the same two lines


def test_print_in_a_graph_is_an_op_that_prints_when_run():
    out = io.StringIO()
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.int32, [2])
        p = tf.print("x", x, output_stream=out)
        assert p.type == "PrintV2" and out.getvalue() == ""
        with tf.compat.v1.Session() as s:
            s.run(p, {x: [1, 2]})
            s.run(p, {x: [3, 4]})
    assert out.getvalue() == "x [1 2]\nx [3 4]\n"


def test_print_to_an_unsupported_stream_is_tensorflows_error():
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream=42)


def test_print_to_a_file_appends(tmp_path):
    path = tmp_path / "log.txt"
    tf.print("a", tf.constant([1, 2]), output_stream=f"file://{path}")
    tf.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a [1 2]\nb\n"


# tf.compat.v1.Print: TF 2.21's stderr lines for the same calls (TF writes them with
# std::cerr, no log prefix): message, then "[SummarizeValue(summarize)]" per data tensor.


@pytest.mark.parametrize(
    ("value", "summarize", "want"),
    [
        (np.arange(6.0).reshape(2, 3), 3, "[[0 1 2]...]"),
        (np.arange(6.0).reshape(2, 3), -1, "[[0 1 2][3 4 5]]"),
        (np.arange(24).reshape(2, 3, 4), 3, "[[[0 1 2...]]...]"),
        (np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), 3, "[[1 2][3...]...]"),
        (np.array([1.5, np.nan, np.inf]), 3, "[1.5 nan inf]"),
        (np.array(2.5), 3, "[2.5]"),
        (np.array([True, False]), 3, "[1 0]"),
        (np.zeros((0,)), 3, "[]"),
        (np.array([0.1], np.float32), 3, "[0.1]"),
        (np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32), 2, "[1 2...]"),
    ],
)
def test_v1_print_summarizes_as_tf(capsys, value, summarize, want):
    x = tf.constant(value)
    y = tf.compat.v1.Print(x, [x], summarize=summarize)
    assert capsys.readouterr().err == want + "\n"
    np.testing.assert_array_equal(y.numpy(), value)


def test_v1_print_eager_message_first_n_and_gradient(capsys):
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    y = tf.compat.v1.Print(x, [x, tf.constant(7)], message="hi: ")
    assert capsys.readouterr().err == "hi: [1 2 3...][7]\n"
    np.testing.assert_array_equal(y.numpy(), [1, 2, 3, 4, 5])
    for _ in range(3):  # TF caches the eager kernel: first_n counts across calls
        tf.compat.v1.Print(x, [x], message="e ", first_n=1)
    assert capsys.readouterr().err == "e [1 2 3...]\n"
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.compat.v1.Print(x * 3, [x], "m")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3, 3, 3, 3, 3])
    assert capsys.readouterr().err == "m[1 2 3...]\n"


def test_v1_print_in_function_counts_runs(capsys):
    @tf.function
    def f(x):
        return tf.compat.v1.Print(x, [x * 2], message="f ", first_n=2)

    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    for _ in range(3):
        out = f(x)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 4, 5])
    assert capsys.readouterr().err == "f [2 4 6...]\nf [2 4 6...]\n"


def test_v1_print_in_session(capsys):
    with tf.Graph().as_default():
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        p = tf.compat.v1.Print(a, [a, "str"], message="g: ", first_n=2)
        (grad,) = tf.gradients(p * p, [a])
        assert p.op.type == "Print" and p.name == "Print:0"
        assert capsys.readouterr().err == ""
        with tf.compat.v1.Session() as sess:
            for _ in range(3):
                value = sess.run(p)
            np.testing.assert_array_equal(sess.run(grad), [[2, 4], [6, 8]])
    np.testing.assert_array_equal(value, [[1, 2], [3, 4]])
    assert capsys.readouterr().err == "g: [[1 2][3...]...][str]\n" * 2
