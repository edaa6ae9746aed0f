"""tf.train.ExponentialMovingAverage (TF1 graph ops and eager), TensorFlow 2.21's numbers:
shadow names, num_updates' decay, average/average_name/variables_to_restore."""

from __future__ import annotations

import numpy as np

import symgrad as tf

v1 = tf.compat.v1


def test_graph_ema_after_sgd_steps_with_num_updates() -> None:
    with tf.Graph().as_default():
        w = v1.Variable([1.0, -2.0], name="w")
        b = v1.Variable(0.5, name="b")
        step = v1.Variable(0, trainable=False, name="step")
        ema = v1.train.ExponentialMovingAverage(0.9, num_updates=step)
        loss = tf.reduce_sum(w * w) + b * b
        opt = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        with tf.control_dependencies([opt]):
            train = ema.apply([w, b])
        aw = ema.average(w)
        assert aw.name == "w/ExponentialMovingAverage:0" and ema.average(step) is None
        assert ema.average_name(b) == "b/ExponentialMovingAverage"
        assert sorted(ema.variables_to_restore()) == [
            "b/ExponentialMovingAverage",
            "step",
            "w/ExponentialMovingAverage",
        ]
        assert len(v1.global_variables()) == 5
        assert [v.name for v in v1.moving_average_variables()] == ["w:0", "b:0"]
        want = [  # TF 2.21
            ([0.8363637, -1.6727273], 0.41818184),
            ([0.6890909, -1.3781818], 0.34454545),
            ([0.56648946, -1.1329789], 0.28324473),
        ]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for w_avg, b_avg in want:
                sess.run(train)
                got_w, got_b = sess.run([aw, ema.average(b)])
                np.testing.assert_allclose(got_w, w_avg, rtol=1e-6)
                np.testing.assert_allclose(got_b, b_avg, rtol=1e-6)


def test_eager_apply_moves_the_shadows_each_call() -> None:
    w = tf.Variable([1.0, -2.0])
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply([w])
    w.assign([5.0, 1.0])
    assert ema.average(w).numpy().tolist() == [1.0, -2.0]  # starts at the variable's value
    got = []
    for _ in range(2):
        w.assign_add([1.0, 1.0])
        ema.apply([w])
        got.append(ema.average(w).numpy().tolist())
    assert got == [[3.5, 0.0], [5.25, 1.5]]  # TF 2.21
