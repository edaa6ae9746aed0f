"""tf.Assert and tf.case's run-time checks, with texts recorded from TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

v1 = tf.compat.v1


def test_assert_summarizes_its_data_as_tf():
    with tf.Graph().as_default():
        p = v1.placeholder(tf.bool, [])
        x = v1.placeholder(tf.float64, None)
        data = ["msg here", x, tf.constant([True, False]), tf.constant([[1, 2], [3, 4]])]
        a = tf.Assert(p, data)
        b = tf.Assert(p, [x], summarize=2)
        with tf.control_dependencies([a]):
            y = tf.identity(x)
        want = {  # fed x -> (text of a, text of b), from TF
            1.5: ("[msg here] [1.5] [1 0] [[1 2][3...]...]", "[1.5]"),
            (1.0, 2.5, 3.0, 4.0, 5.0): (
                "[msg here] [1 2.5 3...] [1 0] [[1 2][3...]...]",
                "[1 2.5...]",
            ),
            ((0.0, 1.0, 2.0), (3.0, 4.0, 5.0)): (
                "[msg here] [[0 1 2]...] [1 0] [[1 2][3...]...]",
                "[[0 1...]...]",
            ),
        }
        with v1.Session() as s:
            assert s.run(y, {p: True, x: 1.5}) == 1.5
            for value, texts in want.items():
                for op, text in zip([a, b], texts, strict=True):
                    with pytest.raises(tf.errors.InvalidArgumentError) as e:
                        s.run(op, {p: False, x: np.array(value)})
                    assert str(e.value) == f"assertion failed: {text}"
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1.5\]"):
                s.run(y, {p: False, x: 1.5})  # runs before what depends on it
        with pytest.raises(
            TypeError,
            match="Input 'condition' of 'Assert' Op has type float32 that does not match "
            "expected type of bool.",
        ):
            tf.Assert(tf.constant(1.0), [x])


def test_assert_eagerly_checks_at_once():
    assert tf.Assert(tf.constant(True), ["eager msg"]) is None
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.Assert(tf.constant(False), ["eager msg", tf.constant([1, 2])])
    assert str(e.value).endswith("to be true. Summarized data: b'eager msg'\n1, 2")


def test_case_checks_at_run_time_as_tf():
    """Without default the last pair stands in and fails unless its predicate holds;
    exclusive=True fails for more than one true predicate (the stand-in's not counted)."""
    with tf.Graph().as_default():
        k = v1.placeholder(tf.int32, [])
        y = v1.placeholder(tf.float64, [None])
        pairs = [(k > 5, lambda: y * 2.0), (k > 2, lambda: y * 3.0), (k > 1, lambda: y * 4.0)]
        r1 = tf.case(pairs, exclusive=True)
        (g1,) = tf.gradients(r1, y)
        r2 = tf.case(pairs[:2], default=lambda: y, exclusive=True)
        names = f"{pairs[0][0].name}, {pairs[1][0].name}"
        with v1.Session() as s:
            f = {y: [1.0, 2.0]}
            np.testing.assert_array_equal(s.run([r1, g1], {k: 2, **f}), [[4.0, 8.0], [4.0, 4.0]])
            np.testing.assert_array_equal(s.run([r1, g1], {k: 3, **f}), [[3.0, 6.0], [3.0, 3.0]])
            np.testing.assert_array_equal(s.run(r2, {k: 0, **f}), [1.0, 2.0])
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(r1, {k: 0, **f})
            assert str(e.value) == (
                "assertion failed: [Input error: None of conditions evaluated as True:] [0 0 0]"
            )
            for r in (r1, r2):
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    s.run(r, {k: 7, **f})
                assert str(e.value) == (
                    "assertion failed: [Input error: exclusive=True: more than 1 conditions "
                    f"({names}) evaluated as True:] [1 1]"
                )
    x = tf.constant(3.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.case([(x > 5.0, lambda: x), (x > 4.0, lambda: x * 2.0)])
    assert str(e.value).endswith(
        "Summarized data: b'Input error: None of conditions evaluated as True:'\nFalse, False"
    )
    assert float(tf.case([(x > 1.0, lambda: x), (x > 2.0, lambda: x * 2.0)], exclusive=True)) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"conditions \(\?, \?\)"):
        tf.case([(x > 1.0, lambda: x), (x > 2.0, lambda: x * 2.0)], default=lambda: x, exclusive=1)
