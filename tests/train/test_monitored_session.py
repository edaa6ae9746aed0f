"""tf.compat.v1.train's training loop (MonitoredSession, MonitoredTrainingSession, the
hooks), compared with TF 2.21 running the same programs under disable_eager_execution.

The literals are what TF printed for these programs (losses as ``repr(float(loss))``, the
files in the checkpoint directory, the events written, the log lines).  TF also writes
``graph.pbtxt``, ``model.ckpt-N.meta`` and graph/meta-graph events: symgrad has no GraphDef
(docs/semantics.md), so those are the only names and events left out of the comparison.
"""

from __future__ import annotations

import logging
import os
import re

import numpy as np
import pytest
from compare import assert_matches

import symgrad as tf
from symgrad.summary.records import read_events

v1 = tf.compat.v1

TF_LOSSES = [
    4.425625324249268,
    1.288932204246521,
    0.3959062993526459,
    0.14121466875076294,
    0.06814206391572952,
    0.04675305634737015,
    0.0400809571146965,
    0.03760858625173569,
    0.03634345531463623,
    0.03543398156762123,
]


class _Order(v1.train.SessionRunHook):
    def __init__(self, log):
        self.log = log

    def begin(self):
        self.log.append("begin")

    def after_create_session(self, session, coord):
        self.log.append("after_create_session")

    def before_run(self, run_context):
        self.log.append("before_run")
        return v1.train.SessionRunArgs({"step": v1.train.get_global_step()})

    def after_run(self, run_context, run_values):
        self.log.append(f"after_run {run_values.results['step']}")

    def end(self, session):
        self.log.append("end")


def _build():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.5, -1.0]], np.float32)
    y = np.array([[1.0], [2.0], [3.0], [0.0]], np.float32)
    gs = v1.train.get_or_create_global_step()
    w = v1.get_variable("w", initializer=np.array([[0.1], [-0.2]], np.float32))
    b = v1.get_variable("b", initializer=np.array([0.3], np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    v1.summary.scalar("loss", loss)
    train = v1.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    return loss, train


def _train(directory, last_step):
    log, losses = [], []
    with tf.Graph().as_default():
        loss, train = _build()
        hooks = [_Order(log), v1.train.StopAtStepHook(last_step=last_step)]
        with v1.train.MonitoredTrainingSession(
            checkpoint_dir=str(directory),
            hooks=hooks,
            save_checkpoint_steps=3,
            save_summaries_steps=2,
            log_step_count_steps=None,
        ) as sess:
            while not sess.should_stop():
                value, _ = sess.run([loss, train])
                losses.append(float(value))
    return log, losses


def _ckpt_files(directory):
    return sorted(f for f in os.listdir(directory) if f.startswith("model.ckpt"))


def _files(steps):
    return sorted(
        f"model.ckpt-{s}{suffix}" for s in steps for suffix in (".data-00000-of-00001", ".index")
    )


def _events(directory):
    (path,) = [os.path.join(directory, f) for f in os.listdir(directory) if "tfevents" in f]
    out = []
    for e in read_events(path):
        if e.HasField("summary"):
            vals = [
                (v.tag, float(np.frombuffer(v.tensor.tensor_content, np.float32)[0]))
                if v.HasField("tensor")
                else (v.tag, v.simple_value)
                for v in e.summary.value
            ]
            out.append((e.step, "summary", vals))
        elif e.HasField("session_log"):
            path_name = os.path.basename(e.session_log.checkpoint_path)
            out.append((e.step, "session_log", e.session_log.status, path_name))
        else:
            out.append((e.step, "file_version"))
    return out


def test_hook_order_losses_checkpoints_and_restart(tmp_path):
    v1.summary.FileWriterCache.clear()
    log, losses = _train(tmp_path, 7)
    # TF: begin, after_create_session, then before_run/after_run around each run, end.
    assert log == ["begin", "after_create_session"] + [
        x for s in range(7) for x in ("before_run", f"after_run {s}")
    ] + ["end"]
    assert_matches(np.float32(losses), np.float32(TF_LOSSES[:7]))
    # Saved when the session was made (0), every 3 steps, and at the end (7).
    assert _ckpt_files(tmp_path) == _files([0, 3, 6, 7])

    # A new MonitoredTrainingSession restores the latest checkpoint and trains on.
    log, losses = _train(tmp_path, 10)
    # The hook's fetch of the global step is read before the train op runs (7, 8); after
    # the third run TF's StopAtStepHook reads 10 (the run's global step is read unordered
    # with the increment, which TF's executor happens to run first).
    assert log[:2] == ["begin", "after_create_session"]
    assert log[-1] == "end" and len(log) == 2 + 2 * 3 + 1
    assert_matches(np.float32(losses), np.float32(TF_LOSSES[7:]))
    assert _ckpt_files(tmp_path) == _files([0, 3, 6, 7, 10])
    assert v1.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-10")
    state = (tmp_path / "checkpoint").read_text()
    assert [os.path.basename(p) for p in re.findall(r'"(.*?)"', state)] == [
        "model.ckpt-10",
        "model.ckpt-0",
        "model.ckpt-3",
        "model.ckpt-6",
        "model.ckpt-7",
        "model.ckpt-10",
    ]
    v1.summary.FileWriterCache.clear()

    # TF's event file, graph and meta-graph events aside (SessionLog status 1 START,
    # 3 CHECKPOINT); the summaries every 2 steps from the first run's global step.
    events = _events(tmp_path)
    expected = [
        (0, "file_version"),
        (0, "session_log", 3, "model.ckpt"),
        (1, "session_log", 1, ""),
        (1, "summary", [("loss", 4.425625324249268)]),
        (3, "summary", [("loss", 0.3959062993526459)]),
        (3, "session_log", 3, "model.ckpt"),
        (5, "summary", [("loss", 0.06814206391572952)]),
        (6, "session_log", 3, "model.ckpt"),
        (7, "summary", [("loss", 0.0400809571146965)]),
        (7, "session_log", 3, "model.ckpt"),
        (7, "session_log", 3, "model.ckpt"),
        (8, "session_log", 1, ""),
        (8, "summary", [("loss", 0.03760858625173569)]),
        (10, "summary", [("loss", 0.03543398156762123)]),
        (10, "session_log", 3, "model.ckpt"),
    ]
    assert [e[:2] for e in events] == [e[:2] for e in expected]
    for got, want in zip(events, expected):
        if want[1] == "summary":
            assert got[2][0][0] == want[2][0][0]
            assert_matches(np.float32(got[2][0][1]), np.float32(want[2][0][1]))
        else:
            assert got == want


def test_checkpoint_reader_over_the_loops_checkpoint(tmp_path):
    v1.summary.FileWriterCache.clear()
    _train(tmp_path, 4)
    v1.summary.FileWriterCache.clear()
    r = v1.train.NewCheckpointReader(v1.train.latest_checkpoint(str(tmp_path)))
    assert sorted(r.get_variable_to_shape_map().items()) == [
        ("b", [1]),
        ("global_step", []),
        ("w", [2, 1]),
    ]
    assert sorted((k, v.name) for k, v in r.get_variable_to_dtype_map().items()) == [
        ("b", "float32"),
        ("global_step", "int64"),
        ("w", "float32"),
    ]
    step = r.get_tensor("global_step")
    assert type(step) is np.int64 and step == 4
    assert r.has_tensor("w") and not r.has_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match="^Key zz not found in checkpoint$"):
        r.get_tensor("zz")
    with pytest.raises(
        tf.errors.NotFoundError,
        match="Unsuccessful TensorSliceReader constructor: Failed to find any matching files",
    ):
        v1.train.NewCheckpointReader(str(tmp_path / "nothing"))


@pytest.fixture
def tf_log():
    """The lines TF's logging writes at INFO, as ``LEVEL:tensorflow:message``."""
    logger = logging.getLogger("tensorflow")
    lines: list[str] = []

    class Handler(logging.Handler):
        def emit(self, record):
            lines.append(f"{record.levelname}:tensorflow:{record.getMessage()}")

    handler = Handler()
    old = v1.logging.get_verbosity()
    v1.logging.set_verbosity(v1.logging.INFO)
    logger.addHandler(handler)
    yield lines
    logger.removeHandler(handler)
    v1.logging.set_verbosity(old)


def test_logging_feed_final_ops_and_step_fn(tf_log):
    out = []
    with tf.Graph().as_default():
        gs = v1.train.get_or_create_global_step()
        p = v1.placeholder(tf.float32, [2], name="p")
        w = v1.get_variable("w", initializer=np.array([1.5, -2.0], np.float32))
        loss = tf.reduce_sum(tf.square(w * p), name="loss")
        step = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        feeds = iter([[1.0, 2.0], [0.5, 0.25], [3.0, 1.0]])
        final = v1.train.FinalOpsHook(w * 2.0)
        hooks = [
            v1.train.LoggingTensorHook({"loss": loss, "w": w}, every_n_iter=2),
            v1.train.LoggingTensorHook(["w:0"], at_end=True),
            v1.train.FeedFnHook(lambda: {p: next(feeds)}),
            v1.train.StopAtStepHook(num_steps=3),
            final,
        ]
        with v1.train.SingularMonitoredSession(hooks=hooks) as sess:
            while not sess.should_stop():

                def step_fn(step_context):
                    return step_context.run_with_hooks([loss, step])[0]

                out.append(float(sess.run_step_fn(step_fn)))
            assert sess.raw_session() is not None
    assert_matches(np.float32(out), np.float32([18.25, 0.3700000047683716, 11.85242748260498]))
    assert_matches(final.final_ops_values, np.float32([-1.824000358581543, -0.6319999694824219]))
    lines = [re.sub(r" \(\d+\.\d{3} sec\)$", " (T sec)", line) for line in tf_log]
    assert lines == [
        "INFO:tensorflow:Graph was finalized.",
        "INFO:tensorflow:Running local_init_op.",
        "INFO:tensorflow:Done running local_init_op.",
        "INFO:tensorflow:loss = 18.25, w = [ 1.5 -2. ]",
        "INFO:tensorflow:loss = 11.8524275, w = [ 1.1400001  -0.39499998] (T sec)",
        "INFO:tensorflow:w:0 = [-0.9120002  -0.31599998]",
    ]


def test_out_of_range_ends_the_loop_and_end_hooks_run(tf_log):
    with tf.Graph().as_default():
        gs = v1.train.get_or_create_global_step()
        ds = tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2)
        nxt = v1.data.make_one_shot_iterator(ds).get_next()
        total = v1.get_variable("total", initializer=0.0)
        upd = v1.assign_add(total, tf.reduce_sum(nxt))
        inc = v1.assign_add(gs, 1)
        fh = v1.train.FinalOpsHook(total)
        n = 0
        with v1.train.MonitoredSession(hooks=[fh]) as sess:
            while not sess.should_stop():
                sess.run([upd, inc])
                n += 1
    assert (n, float(fh.final_ops_values)) == (3, 10.0)  # TF: 3 batches, then OutOfRange


def test_nan_tensor_hook(tf_log):
    with tf.Graph().as_default():
        v1.train.get_or_create_global_step()
        x = v1.get_variable("x", initializer=1.0)
        loss = tf.math.log(x - 2.0)
        with pytest.raises(
            v1.train.NanLossDuringTrainingError, match="^NaN loss during training.$"
        ):
            with v1.train.MonitoredSession(hooks=[v1.train.NanTensorHook(loss)]) as sess:
                sess.run(loss)
        assert "ERROR:tensorflow:Model diverged with loss = NaN." in tf_log
        with v1.train.MonitoredSession(
            hooks=[v1.train.NanTensorHook(loss, fail_on_nan_loss=False)]
        ) as sess:
            sess.run(loss)
            assert sess.should_stop()
        assert tf_log[-1] == "WARNING:tensorflow:Model diverged with loss = NaN."


def test_default_scaffold_and_ready_check():
    with tf.Graph().as_default():
        v1.get_variable("v", initializer=1.0)
        local = v1.get_variable("l", initializer=2.0, collections=[v1.GraphKeys.LOCAL_VARIABLES])
        scaffold = v1.train.Scaffold()
        with v1.train.MonitoredSession(
            session_creator=v1.train.ChiefSessionCreator(scaffold=scaffold)
        ) as sess:
            assert sess.run(local) == 2.0
        assert scaffold.init_op is not None and scaffold.local_init_op is not None
        assert scaffold.saver is v1.get_collection(v1.GraphKeys.SAVERS)[0]
        assert scaffold.summary_op is None
        assert scaffold.ready_op.check() == []
    with tf.Graph().as_default():
        v1.get_variable("u", initializer=1.0)
        noop = tf.no_op()
        with pytest.raises(
            RuntimeError,
            match="^Init operations did not make model ready for local_init.  Init op: .*"
            "error: Variables not initialized: u$",
        ):
            v1.train.MonitoredSession(
                session_creator=v1.train.ChiefSessionCreator(
                    scaffold=v1.train.Scaffold(init_op=noop)
                )
            )


BAD = [
    (
        lambda: v1.train.StopAtStepHook(),
        ValueError,
        "One of num_steps or last_step must be specified.",
    ),
    (
        lambda: v1.train.StopAtStepHook(num_steps=1, last_step=2),
        ValueError,
        "Only one of num_steps or last_step can be specified.",
    ),
    (
        lambda: v1.train.LoggingTensorHook(["a"]),
        ValueError,
        "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.",
    ),
    (
        lambda: v1.train.LoggingTensorHook(["a"], every_n_iter=0),
        ValueError,
        "invalid every_n_iter=0.",
    ),
    (
        lambda: v1.train.CheckpointSaverHook("d", save_steps=1, save_secs=1),
        ValueError,
        "Can not provide both every_secs and every_steps.",
    ),
    (
        lambda: v1.train.CheckpointSaverHook("d"),
        ValueError,
        "Either every_secs or every_steps should be provided.",
    ),
    (
        lambda: v1.train.CheckpointSaverHook("d", save_steps=1, saver=1, scaffold=1),
        ValueError,
        "You cannot provide both saver and scaffold.",
    ),
    (
        lambda: v1.train.SummarySaverHook(save_steps=1),
        ValueError,
        "Exactly one of scaffold or summary_op must be provided.",
    ),
    (
        lambda: v1.train.StepCounterHook(every_n_steps=None),
        ValueError,
        "exactly one of every_n_steps and every_n_secs should be provided.",
    ),
    (
        lambda: v1.train.Scaffold(copy_from_scaffold=3),
        TypeError,
        "copy_from_scaffold is not a Scaffold instance.",
    ),
]


@pytest.mark.parametrize("make,error,message", BAD)
def test_bad_arguments_raise_tfs_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_session_errors():
    with tf.Graph().as_default():
        with pytest.raises(
            RuntimeError, match="^Global step should be created to use StopAtStepHook.$"
        ):
            v1.train.MonitoredSession(hooks=[v1.train.StopAtStepHook(num_steps=1)])
        v1.train.get_or_create_global_step()
        with v1.train.MonitoredSession() as sess:
            with pytest.raises(ValueError) as info:
                sess.run_step_fn(lambda a, b: 1)
            assert str(info.value) == (
                "`step_fn` may either have one `step_context` argument, or `self` and "
                "`step_context` arguments if it's an instance method. Got ('a', 'b') instead."
            )
        with pytest.raises(RuntimeError, match="^Session is already closed.$"):
            sess.close()


def test_no_remote_workers():
    with tf.Graph().as_default():
        v1.train.get_or_create_global_step()
        with pytest.raises(NotImplementedError, match="is_chief=False"):
            v1.train.MonitoredTrainingSession(is_chief=False)


def test_a_users_ready_op_tensor_is_run():
    with tf.Graph().as_default():
        v = v1.get_variable("v", initializer=1.0)
        # A ready_op that reports a value: never ready (TF's text). An empty or int32 value
        # is ready, as TF's session_manager._ready decides.
        scaffold = v1.train.Scaffold(ready_op=tf.constant([7.0]))
        readies = (tf.zeros([0]), tf.constant([7]))  # (made first: a session finalizes the graph)
        with pytest.raises(
            RuntimeError,
            match="^Init operations did not make model ready.  .*Variables not initialized: 7.0$",
        ):
            v1.train.SingularMonitoredSession(scaffold=scaffold)
        for ready in readies:
            with v1.train.SingularMonitoredSession(scaffold=v1.train.Scaffold(ready_op=ready)) as s:
                assert s.run(v) == 1.0


def test_summary_iterator_and_session_log(tmp_path):
    v1.summary.FileWriterCache.clear()
    with tf.Graph().as_default():
        w = v1.summary.FileWriter(str(tmp_path))
        w.add_session_log(v1.SessionLog(status=v1.SessionLog.START), 3)
        w.close()
    (path,) = [str(p) for p in tmp_path.iterdir()]
    events = list(v1.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    assert (events[1].step, events[1].session_log.status) == (3, 1)


def test_default_saving_and_step_counter(tmp_path):
    """TF 2.21 for this program: checkpoints only at 0 and the end (every 600 s by
    default), summaries every 3 steps from step 1, global_step/sec at 3, 5 and 7."""
    v1.summary.FileWriterCache.clear()
    with tf.Graph().as_default():
        gs = v1.train.get_or_create_global_step()
        w = v1.get_variable("w", initializer=2.0)
        loss = tf.square(w)
        v1.summary.scalar("loss", loss)
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        with v1.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path),
            log_step_count_steps=2,
            save_summaries_steps=3,
            hooks=[v1.train.StopAtStepHook(num_steps=7)],
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
    v1.summary.FileWriterCache.clear()
    assert _ckpt_files(tmp_path) == _files([0, 7])
    got = [
        (e[0], e[1], [t for t, _ in e[2]] if e[1] == "summary" else e[2:])
        for e in _events(tmp_path)
    ]
    assert got == [
        (0, "file_version", ()),
        (0, "session_log", (3, "model.ckpt")),
        (1, "session_log", (1, "")),
        (1, "summary", ["loss"]),
        (3, "summary", ["global_step/sec"]),
        (4, "summary", ["loss"]),
        (5, "summary", ["global_step/sec"]),
        (7, "summary", ["global_step/sec"]),
        (7, "summary", ["loss"]),
        (7, "session_log", (3, "model.ckpt")),
    ]
    losses = {
        e[0]: e[2][0][1] for e in _events(tmp_path) if e[1] == "summary" and e[2][0][0] == "loss"
    }
    assert_matches(
        np.float32([losses[1], losses[4], losses[7]]),
        np.float32([4.0, 1.04858, 0.27488]),
        ulps=0,
        atol=5e-6,
    )
