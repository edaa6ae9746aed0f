"""``for x in dataset`` inside a ``function``: a graph loop over a fresh iterator on each
call, as TF's AutoGraph runs it.  The literals are TF 2.21's output for the same programs."""

from __future__ import annotations

import numpy as np

import symgrad as tf


def test_each_call_iterates_again_and_reshuffles() -> None:
    tf.random.set_seed(5)
    ds = tf.data.Dataset.range(6).shuffle(6, seed=1).map(lambda x: tf.cast(x, tf.float32))
    traces: list[int] = []

    @tf.function
    def total(d):
        traces.append(1)
        s = tf.constant(0.0)
        order = tf.constant(0.0)
        for x in d:
            s += x
            order = order * 10 + x
        return s, order

    got = [[float(v) for v in total(ds)] for _ in range(3)]
    # TF: [15.0, 31542.0], [15.0, 210453.0], [15.0, 304512.0]; traced once
    assert got == [[15.0, 31542.0], [15.0, 210453.0], [15.0, 304512.0]]
    assert len(traces) == 1 and total.experimental_get_tracing_count() == 1


def test_training_loop_over_batches_updates_variables() -> None:
    w = tf.Variable([1.0, -1.0])
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    y = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    batches = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)

    @tf.function
    def train(d):
        n = tf.constant(0)
        for xb, yb in d:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.reduce_sum(xb * w, axis=1) - yb) ** 2)
            w.assign_sub(0.01 * tape.gradient(loss, w))
            n += 1
        return n

    assert int(train(batches)) == 2
    np.testing.assert_allclose(w.numpy(), [1.2186000347137451, -0.7093999981880188], rtol=1e-6)
    assert int(train(batches)) == 2
    np.testing.assert_allclose(w.numpy(), [1.1569386720657349, -0.7641101479530334], rtol=1e-6)
    assert train.experimental_get_tracing_count() == 1


def test_break_and_a_smaller_last_batch() -> None:
    @tf.function
    def first_big(d):
        found = tf.constant(-1, tf.int64)
        for x in d:
            if x > 2:
                found = x
                break
        return found

    @tf.function
    def count(d):
        c = tf.constant(0)
        for b in d:
            c += tf.shape(b)[0]
        return c

    assert int(first_big(tf.data.Dataset.range(10))) == 3  # TF: 3
    assert int(count(tf.data.Dataset.range(7).batch(3))) == 7  # TF: 7 (batches 3, 3, 1)


def test_body_side_effects_run_once_at_tracing() -> None:
    body_runs: list[int] = []
    ds = tf.data.Dataset.range(3)

    @tf.function
    def f(d):
        s = tf.constant(0, tf.int64)
        for x in d:
            body_runs.append(1)
            s += x
        return s

    assert [int(f(ds)), int(f(ds))] == [3, 3]  # TF: 3 3, the body's Python ran once
    assert len(body_runs) == 1

    @tf.function
    def g():
        s = tf.constant(0, tf.int64)
        for x in tf.data.Dataset.range(4).map(lambda v: v * 2):
            s += x
        return s

    assert [int(g()), int(g())] == [12, 12]


def test_eager_loop_is_pythons() -> None:
    total = 0
    for x in tf.data.Dataset.range(4):
        total += int(x)
    assert total == 6
