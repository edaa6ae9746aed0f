"""tf.compat.v1.metrics (accuracy, mean, auc): local variables, (value, update_op) pairs,
local_variables_initializer, graph-only; TensorFlow 2.21's results for the same program."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

v1 = tf.compat.v1
FEEDS = [
    ([1, 0, 1, 1], [1, 1, 1, 0], [0.9, 0.6, 0.7, 0.2], [1.0, 2.0, 0.5, 1.0]),
    ([0, 0, 1], [0, 1, 1], [0.1, 0.55, 0.8], [0.0, 1.0, 3.0]),
]
# TF 2.21: the update ops' results after each batch, then the values, then after a reset.
TF_UPDATES = [
    [0.5, 0.3333333432674408, 0.5888888835906982, 0.6666660904884338, 0.9166663885116577,
     0.40000003576278687],
    [0.5714285969734192, 0.529411792755127, 0.6588234901428223, 0.8333331346511841,
     0.9166664481163025, 0.18181826174259186],
]  # fmt: skip


def test_streaming_metrics_give_tensorflows_numbers() -> None:
    with tf.Graph().as_default():
        y = v1.placeholder(tf.int64, [None])
        p = v1.placeholder(tf.int64, [None])
        s = v1.placeholder(tf.float32, [None])
        w = v1.placeholder(tf.float32, [None])
        acc, acc_up = v1.metrics.accuracy(y, p)
        wacc, wacc_up = v1.metrics.accuracy(y, p, weights=w, name="wacc")
        m, m_up = v1.metrics.mean(s, w)
        a, a_up = v1.metrics.auc(y, s)
        a2, a2_up = v1.metrics.auc(y, s, num_thresholds=7, curve="PR", summation_method="majoring")
        a3, a3_up = v1.metrics.auc(
            y, s, weights=w, thresholds=[0.3, 0.5, 0.8], summation_method="minoring"
        )
        names = sorted(x.name for x in v1.local_variables())
        assert len(v1.global_variables()) == 0 and len(names) == 18
        assert names[:3] == ["accuracy/count:0", "accuracy/total:0", "auc/false_negatives:0"]
        with v1.Session() as sess:
            sess.run(v1.local_variables_initializer())
            ups = [acc_up, wacc_up, m_up, a_up, a2_up, a3_up]
            for (ys, ps, ss, ws), want in zip(FEEDS, TF_UPDATES, strict=True):
                got = sess.run(ups, {y: ys, p: ps, s: ss, w: ws})
                np.testing.assert_allclose(got, want, rtol=1e-6)
            np.testing.assert_allclose(sess.run([acc, wacc, m, a, a2, a3]), want, rtol=1e-6)
            sess.run(v1.local_variables_initializer())
            assert [float(v) for v in sess.run([acc, m, a])] == [0.0, 0.0, 0.0]


def test_metrics_are_graph_only_as_in_tensorflow() -> None:
    # (tests/conftest.py gives every test an eager top level)
    with pytest.raises(RuntimeError, match="tf.metrics.mean is not supported when eager"):
        v1.metrics.mean(tf.constant([1.0]))


_TOP_LEVEL_TF1 = """
import symgrad as tf
v1 = tf.compat.v1
v1.disable_eager_execution()
y = v1.placeholder(tf.int64, [None])
p = v1.placeholder(tf.int64, [None])
acc, up = v1.metrics.accuracy(y, p)
with v1.Session() as s:
    s.run(v1.local_variables_initializer())
    print(s.run(up, {y: [1, 0], p: [1, 1]}), s.run(up, {y: [1, 1], p: [1, 1]}), s.run(acc))
"""


def test_metrics_at_the_top_level_of_a_tf1_program() -> None:
    """After disable_eager_execution the top level is TF1's graph: metrics are allowed
    (TF 2.21 prints 0.5 0.75 0.75).  A fresh interpreter: the switch is process-wide."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _TOP_LEVEL_TF1], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["0.5", "0.75", "0.75"]
