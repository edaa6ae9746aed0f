"""tf.summary's behaviour around the files: return values, TF's error texts, the default
step and writer state, record_if, write_raw_pb, TF1's ops in a Session, the closed and
no-op writers, and the TensorBoard callback's checks (the files themselves:
test_summary_files.py)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.summary.records import read_events

v1 = tf.compat.v1


def _values(logdir: Any) -> list[tuple[int, str, Any]]:
    (path,) = [p for p in logdir.rglob("events.*")]
    out = []
    for e in read_events(path):
        for v in e.summary.value if e.HasField("summary") else []:
            out.append((e.step, v.tag, v.simple_value if v.HasField("simple_value") else None))
    return out


def test_return_values_and_errors_are_tfs(tmp_path: Any) -> None:
    assert not tf.summary.scalar("x", 1.0, step=0).numpy()  # no default writer: False
    assert not tf.summary.should_record_summaries().numpy()
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf.summary.scalar("x", 1.0, step=0).numpy()
        assert tf.summary.should_record_summaries().numpy()
        with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(2,\)\.$"):
            tf.summary.scalar("x", [1.0, 2.0], step=1)
        with pytest.raises(ValueError, match="^No step set. Please specify one either through"):
            tf.summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match=r"^Argument `step` must be a scalar. Received step"):
            tf.summary.scalar("x", 1.0, step=[1, 2])
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 4.  Received rank 3"):
            tf.summary.image("i", np.zeros((2, 2, 3)), step=1)
        with pytest.raises(TypeError, match="^tensor must be of type tf.string; got tf.int32$"):
            tf.summary.text("t", 3, step=1)
        with tf.summary.record_if(False):
            assert not tf.summary.scalar("off", 1.0).numpy()  # no step needed: not recording
            assert not tf.summary.should_record_summaries().numpy()
        with pytest.raises(ValueError, match="^Invalid argument to flush"):
            tf.summary.flush(3)
    writer.close()
    with pytest.raises(RuntimeError, match="is already closed"):
        writer.as_default()
    with pytest.raises(ValueError, match="^Argument `logdir` cannot be None$"):
        tf.summary.create_file_writer(None)


def test_a_loops_name_scope_gives_one_tag(tmp_path: Any) -> None:
    """A training loop's ``tf.name_scope("train")`` is the same scope each step eagerly, so
    its summaries share one tag, as on TF 2.21 (TensorBoard's tags there: ['train/loss'])."""
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            with tf.name_scope("train"):
                tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
    writer.close()
    (path,) = [p for p in tmp_path.rglob("events.*")]
    tags = [
        (e.step, v.tag) for e in read_events(path) if e.HasField("summary") for v in e.summary.value
    ]
    assert tags == [(0, "train/loss"), (1, "train/loss"), (2, "train/loss")]


def test_a_branch_or_loop_in_a_function_tags_with_its_scope(tmp_path: Any) -> None:
    """In a function, a summary in an autograph ``if``/``for``/``while`` or a ``tf.cond``
    is tagged in the control flow op's scope, as TF2's branch and body graphs continue
    it (TF 2.21's tags: below)."""
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f(step):
        with writer.as_default(step=step):
            with tf.name_scope("train"):
                if step % 2 == 0:
                    tf.summary.scalar("loss", 1.0)
                tf.summary.scalar("always", 2.0)
            tf.cond(step > 0, lambda: tf.summary.scalar("c", 3.0), lambda: tf.constant(False))
            for i in tf.range(step):
                tf.summary.scalar("each", 1.0, step=i)
            j = tf.constant(0, tf.int64)
            while j < step:
                with tf.name_scope("inner"):
                    tf.summary.scalar("w", 1.0, step=j)
                j += 1
        return step

    for i in range(2):
        f(tf.constant(i, tf.int64))
    writer.close()
    tags = sorted({tag for _, tag, _ in _values(tmp_path)})
    assert tags == ["cond/c", "train/always", "train/cond/loss", "while/each", "while_1/inner/w"]


def test_default_step_set_as_default_and_noop_writer(tmp_path: Any) -> None:
    noop = tf.summary.create_noop_writer()
    with noop.as_default():
        assert not tf.summary.scalar("x", 1.0, step=1).numpy()
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(3, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    writer.set_as_default()
    assert tf.summary.experimental.get_step() is step
    tf.summary.scalar("a", 1.0)
    step.assign(4)
    tf.summary.scalar("b", 1.0)
    with writer.as_default(step=10):
        tf.summary.scalar("c", 1.0)
    raw = [
        v1.Summary(value=[v1.Summary.Value(tag=t, simple_value=2.0)]).SerializeToString()
        for t in ("r", "s")
    ]
    tf.summary.experimental.write_raw_pb(raw, step=5)  # one event, as TF's
    writer.close()
    assert _values(tmp_path) == [
        (3, "a", None), (4, "b", None), (10, "c", None), (5, "r", 2.0), (5, "s", 2.0),
    ]  # fmt: skip


def test_record_if_a_tensor_in_a_function(tmp_path: Any) -> None:
    """The condition is a tensor of the function, read at each call; False returned then."""
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def log(x: Any, step: Any) -> Any:
        with writer.as_default(), tf.summary.record_if(x > 0):
            return tf.summary.scalar("x", x, step=step)

    assert [
        bool(log(tf.constant(v), tf.constant(i, tf.int64))) for i, v in enumerate([1.0, -1.0, 2.0])
    ] == [True, False, True]
    writer.close()
    assert [(s, t) for s, t, _ in _values(tmp_path)] == [(0, "x"), (2, "x")]


def test_tf1_ops_in_a_session(tmp_path: Any) -> None:
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None])
        s = v1.summary.scalar("loss", x)
        h = v1.summary.histogram("h", x)
        a = v1.summary.scalar("a", 1.0)
        assert s.dtype.name == "string" and s.shape.rank == 0
        assert v1.get_collection(v1.GraphKeys.SUMMARIES) == [s, h, a]
        assert v1.summary.merge_all(key="nothing") is None
        with v1.Session() as sess:
            assert sess.run(a) == b"\n\x08\n\x01a\x15\x00\x00\x80?"  # TF's bytes
            with pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"^tags and values are not the same shape: \[\] != \[2\] \(tag 'loss'\)$",
            ):
                sess.run(s, {x: [1.0, 2.0]})
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="^Nan in summary histogram for: h$"
            ):
                sess.run(h, {x: [1.0, np.nan]})
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="^Infinity in Histogram for: h$"
            ):
                sess.run(h, {x: [np.inf, np.nan]})
            with pytest.raises(
                tf.errors.InvalidArgumentError, match="^Duplicate tag a found in summary inputs $"
            ):
                sess.run(v1.summary.merge([a, a]))
        with pytest.raises(ValueError, match="^Expected tensor Placeholder:0 to have dtype string"):
            v1.summary.text("t", x)
        cached = v1.summary.FileWriterCache.get(str(tmp_path))
        assert v1.summary.FileWriterCache.get(str(tmp_path)) is cached
        assert cached.get_logdir() == str(tmp_path)
        v1.summary.FileWriterCache.clear()
    with pytest.raises(RuntimeError, match="^v1.summary.FileWriter is not compatible with eager"):
        v1.summary.FileWriter(str(tmp_path))
    with pytest.raises(RuntimeError, match="^Merging tf.summary.* ops is not compatible"):
        v1.summary.merge_all()


def test_file_writer_reopen_and_closed_warning(tmp_path: Any) -> None:
    with tf.Graph().as_default():
        writer = v1.summary.FileWriter(str(tmp_path))
        writer.close()
        with pytest.warns(UserWarning, match="Attempting to use a closed FileWriter"):
            writer.add_summary(v1.Summary(value=[v1.Summary.Value(tag="x", simple_value=1.0)]), 1)
        writer.reopen()
        writer.add_summary(v1.Summary(value=[v1.Summary.Value(tag="y", simple_value=1.0)]), 2)
        writer.close()
    assert len(os.listdir(tmp_path)) in (1, 2)  # in the same second TF's name is the same


def test_tensorboard_callback_checks_and_embeddings(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="^profile_batch must be a non-negative integer"):
        tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch=-1)
    tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch="2,4")
    model = tf.keras.Sequential(
        [tf.keras.Input((2,), dtype="int32"), tf.keras.layers.Embedding(5, 3)]
    )
    callback = tf.keras.callbacks.TensorBoard(
        str(tmp_path), write_graph=False, embeddings_freq=1, embeddings_metadata="meta.tsv"
    )
    callback.set_model(model)
    name = "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE"
    assert (tmp_path / "projector_config.pbtxt").read_text() == (
        f'embeddings {{\n  tensor_name: "{name}"\n  metadata_path: "meta.tsv"\n}}\n'
    )
    callback = tf.keras.callbacks.TensorBoard(
        str(tmp_path), embeddings_freq=1, embeddings_metadata={"nope": "x"}
    )
    with pytest.raises(ValueError, match="^Unrecognized `Embedding` layer names"):
        callback.set_model(model)
    tf.keras.backend.clear_session()
