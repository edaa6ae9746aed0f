"""Summary programs written against TF's API, run with TensorFlow (to record what its
files hold: ``record_tf.py``) and with symgrad (``test_files.py`` compares), each given
the library and a fresh log directory."""

from __future__ import annotations

from typing import Any

import numpy as np


def tf2_eager(tf: Any, logdir: str) -> None:
    """Each TF2 summary kind eagerly, the default step, record_if and name scopes."""
    writer = tf.summary.create_file_writer(logdir)
    rng = np.random.default_rng(0)
    with writer.as_default():
        tf.summary.scalar("loss", 0.25, step=1, description="the loss")
        tf.summary.scalar("int", 7, step=np.int64(2))
        tf.summary.histogram("normal", rng.normal(size=(40, 5)).astype(np.float32), step=1)
        tf.summary.histogram("few", [3, 1, 2], step=2, buckets=4)
        tf.summary.histogram("same", [5.0, 5.0], step=3)
        tf.summary.histogram("empty", np.zeros([0], np.float32), step=4)
        tf.summary.text("note", "hello *world*", step=1)
        tf.summary.text("notes", ["a", "b"], step=2)
        images = rng.uniform(-0.2, 1.2, size=(2, 3, 4, 3)).astype(np.float32)
        tf.summary.image("float", images, step=1, max_outputs=1)
        tf.summary.image("bytes", (images * 100).astype(np.uint8)[..., :1], step=2)
        tf.summary.experimental.set_step(9)
        tf.summary.scalar("default_step", 1.5)
        tf.summary.experimental.set_step(None)
        with tf.summary.record_if(False):
            tf.summary.scalar("never", 1.0, step=1)
        with tf.summary.record_if(lambda: True):
            tf.summary.scalar("callable", 2.0, step=1)
        with tf.name_scope("outer"):
            tf.summary.scalar("inner", 3.0, step=1)
        tf.summary.write("raw", tf.constant([1, 2], tf.int32), step=5)
    tf.summary.scalar("no_writer", 1.0, step=1)
    writer.close()


def tf2_function(tf: Any, logdir: str) -> None:
    """Summaries in a ``tf.function``: written at every call, the step a Variable read at
    each, a record_if condition computed in the function."""
    writer = tf.summary.create_file_writer(logdir)
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train(x: Any) -> Any:
        with writer.as_default(step=step):
            y = x * 2.0
            tf.summary.scalar("y", tf.reduce_sum(y))
            tf.summary.histogram("x", x, buckets=3)
            with tf.summary.record_if(step % 2 == 0):
                tf.summary.scalar("even", tf.reduce_mean(x))
        step.assign_add(1)
        return y

    for i in range(3):
        train(tf.constant([1.0, 2.0, float(i)]))
    writer.flush()
    writer.close()


def tf1_graph(tf: Any, logdir: str) -> None:
    """TF1: summary ops merged, run by a Session and added to a FileWriter."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None])
        v1.summary.scalar("mean", tf.reduce_mean(x))
        v1.summary.scalar("mean", tf.reduce_max(x))  # a second 'mean': tagged mean_1
        with tf.name_scope("stats"):
            v1.summary.histogram("values", x)
        v1.summary.scalar("loss", tf.reduce_min(x), family="train")
        image = tf.reshape(x[:6], [1, 2, 3, 1]) - 1.0
        v1.summary.image("picture", image, max_outputs=2)
        merged = v1.summary.merge_all()
        extra = v1.summary.scalar("extra", x[0], collections=[])
        with v1.Session() as sess:
            writer = v1.summary.FileWriter(logdir, sess.graph)
            for step in range(2):
                feed = {x: np.arange(6, dtype=np.float32) * (step + 1) - 2.5}
                writer.add_summary(sess.run(merged, feed), step)
                writer.add_summary(sess.run(v1.summary.merge([extra]), feed), step)
            manual = v1.Summary(value=[v1.Summary.Value(tag="manual", simple_value=0.5)])
            writer.add_summary(manual, 7)
            writer.close()


def keras_fit(tf: Any, logdir: str) -> None:
    """Keras 3's TensorBoard callback in fit with validation, batch logging every 2
    batches, weight histograms and images."""
    keras = tf.keras
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(2, activation="relu"), keras.layers.Dense(1)]
    )
    model.set_weights([
        np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), np.array([0.1, -0.1], np.float32),
        np.array([[0.5], [-0.3]], np.float32), np.array([0.2], np.float32),
    ])  # fmt: skip
    model.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    x = np.linspace(-1, 1, 30, dtype=np.float32).reshape(10, 3)
    y = x.sum(axis=1, keepdims=True)
    callback = keras.callbacks.TensorBoard(
        logdir, histogram_freq=1, write_images=True, update_freq=2
    )
    model.fit(
        x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(x[:4], y[:4]),
        callbacks=[callback],
    )  # fmt: skip
    keras.backend.clear_session()


PROGRAMS = [tf2_eager, tf2_function, tf1_graph, keras_fit]
