"""keras.ops.scan / fori_loop / vectorized_map / convert_to_numpy against Keras-on-TF 2.21's
outputs, gradients and errors (values exact: the steps are exact in float32)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf

o = tf.keras.ops
XS = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def step(c: Any, x: Any) -> Any:
    c = c * 0.5 + x
    return c, c * c


def test_fori_loop() -> None:
    body = lambda i, v: v * 2.0 + tf.cast(i, "float32")  # noqa: E731
    assert o.fori_loop(0, 4, body, tf.constant([1.0, -1.0])).numpy().tolist() == [27.0, -5.0]


@pytest.mark.parametrize(
    "reverse,carry,ys",
    [(False, [6.75, 8.5], [[1.0, 4.0], [12.25, 25.0], [45.5625, 72.25]]),
     (True, [3.75, 5.5], [[14.0625, 30.25], [30.25, 49.0], [25.0, 36.0]])],
)  # fmt: skip
def test_scan(reverse: bool, carry: Any, ys: Any) -> None:
    c, y = o.scan(step, tf.zeros(2), XS, reverse=reverse)
    assert c.numpy().tolist() == carry and y.numpy().tolist() == ys


def test_scan_structures_length_and_no_ys() -> None:
    c, y = o.scan(
        lambda c, x: ((c[0] + 1.0, c[1] * 2.0), (c[0], c[1])),
        (tf.constant(0.0), tf.constant(1.0)),
        length=3,
    )
    assert [t.numpy().tolist() for t in c] == [3.0, 8.0]
    assert [t.numpy().tolist() for t in y] == [[0.0, 1.0, 2.0], [1.0, 2.0, 4.0]]
    c, y = o.scan(lambda c, x: (c + x["a"], None), tf.constant(0.0), {"a": tf.constant([1.0, 2.0])})
    assert c.numpy() == 3.0 and y.numpy().tolist() == [0.0, 0.0]  # TF: unwritten rows are 0


def test_scan_errors() -> None:
    with pytest.raises(TypeError, match=r"^`f` should be a callable\. Received: f=1$"):
        o.scan(1, 0.0, XS)
    with pytest.raises(ValueError, match=r"^Got no `xs` to scan over and `length` not provided"):
        o.scan(step, 0.0)
    with pytest.raises(ValueError, match=r"^`unroll` must be an positive integer or boolean\. "):
        o.scan(step, 0.0, XS, unroll=0)


def test_gradients_match_tf() -> None:
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        c, y = o.scan(step, x, XS)
        loss = tf.reduce_sum(c) + tf.reduce_sum(y)
    assert tape.gradient(loss, x).numpy().tolist() == [5.21875, 8.0625]
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(o.fori_loop(0, 3, lambda i, v: v * v, x))
    assert tape.gradient(loss, x).numpy().tolist() == [8.0, 1024.0]


def test_vectorized_map_and_convert_to_numpy() -> None:
    assert o.vectorized_map(lambda r: tf.reduce_sum(r * r), XS).numpy().tolist() == [5, 25, 61]
    a = o.convert_to_numpy(XS)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.tolist() == XS.numpy().tolist()


def test_scan_needs_a_static_length() -> None:
    """docs/semantics.md: symgrad's scan steps in Python, so an unknown length raises
    (TF's runs a while_loop over TensorArrays)."""

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def run(xs: Any) -> Any:
        return o.scan(step, tf.zeros(2), xs)[0]

    with pytest.raises(ValueError, match=r"^symgrad's keras.ops.scan needs a static length"):
        run(XS)
    assert tf.function(lambda xs: o.scan(step, tf.zeros(2), xs)[0])(XS).numpy().tolist() == [
        6.75,
        8.5,
    ]
