"""TF1 programs that make variables inside ``tf.control_dependencies``, run unchanged on
TensorFlow and on symgrad.  TensorFlow makes a variable in an ``init_scope``, which clears
the control dependencies in force: its initializer runs nothing else.  The common case is
the batch-norm idiom, ``with tf.control_dependencies(update_ops): opt.minimize(loss)``,
which makes the optimizer's slots in there."""

from __future__ import annotations

from typing import Any

import numpy as np

X = np.array(
    [[1.0, -0.5, 2.0], [0.25, 1.5, -1.0], [-2.0, 0.5, 0.75], [1.25, -1.5, 0.5]], np.float32
)
W0 = np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], np.float32)


def batch_norm_idiom(tf: Any) -> Any:
    """A moving mean updated as an UPDATE_OPS op, the train op made under those updates
    (Adam: slots and beta powers), an EMA of the weights made under the train op."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        w = v1.get_variable("w", initializer=tf.constant(W0))
        h = tf.matmul(x, w)
        mean, _ = tf.nn.moments(h, [0])
        moving = v1.get_variable(
            "moving_mean", [2], initializer=v1.zeros_initializer(), trainable=False
        )
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, v1.assign(moving, 0.9 * moving + 0.1 * mean))
        loss = tf.reduce_mean(tf.square(h - mean))
        step = v1.train.get_or_create_global_step()
        with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
            train = v1.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        ema = v1.train.ExponentialMovingAverage(0.5)
        with tf.control_dependencies([train]):
            train_and_average = ema.apply([w])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())  # feeds nothing: runs no update
            before = tuple(sess.run([moving, step]))
            for _ in range(3):
                sess.run(train_and_average, {x: X})
            return before, tuple(sess.run([w, moving, step, ema.average(w)]))


def variable_made_under_a_dependency(tf: Any) -> Any:
    """Initializers run alone: a Python initial value and a callable one (get_variable)
    are made outside the dependency, so initialising does not bump the counter."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        counter = tf.Variable(0, name="counter")
        bump = counter.assign_add(1)
        with tf.control_dependencies([bump]):
            a = tf.Variable(5.0, name="a")
            b = v1.get_variable("b", [2], initializer=v1.ones_initializer())
        with v1.Session() as sess:
            sess.run(counter.initializer)
            sess.run([a.initializer, b.initializer])
            return tuple(sess.run([counter, a, b]))


def outer_op_named_inside(tf: Any) -> Any:
    """A ``cond`` branch, a ``while_loop`` body and a ``tf.function`` that name an op of
    the graph outside in ``control_dependencies``: TensorFlow makes it a control input of
    the If, While or call op (``control_captures``), so it runs once per run, before, also
    when the branch is not taken; named as an op, a variable, an assignment's read."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v, w, u, z = (tf.Variable(x) for x in (1.0, 10.0, 100.0, 0.0))
        bump, bump_w, bump_u, read_z = (
            v.assign_add(1.0),
            w.assign_add(5.0),
            u.assign_add(1.0),
            z.assign_add(7.0),
        )

        def after(op: Any, value: float) -> Any:
            def branch() -> Any:
                with tf.control_dependencies([op]):
                    return tf.constant(value)

            return branch

        not_taken = tf.cond(
            v1.placeholder_with_default(False, None), after(bump, 1.0), after(w, 2.0)
        )

        def body(i: Any) -> Any:
            with tf.control_dependencies([bump_w]):
                return i + 1

        loop = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])

        @tf.function
        def doubled(x: Any) -> Any:
            with tf.control_dependencies([bump_u]):
                return x * 2.0

        call = doubled(tf.constant(3.0))
        taken = tf.cond(tf.constant(True), after(read_z, 5.0), lambda: tf.constant(6.0))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            pairs = [(not_taken, v), (loop, w), (call, u), (taken, z), (taken, z)]
            return [(sess.run(fetch), sess.run(var)) for fetch, var in pairs]


def effects_run_once_with_a_gradient(tf: Any) -> Any:
    """A loop body and a branch that assign a variable for its effect, run with their
    gradients: the gradient recomputes only values (TF's reads the forward op's), so
    the counter counts the forward iterations and the taken branch once."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [])
        p = v1.placeholder(tf.bool, [])
        count = tf.Variable(0.0, trainable=False)

        def body(i: Any, a: Any) -> Any:
            with tf.control_dependencies([count.assign_add(1.0)]):
                return i + 1, a * x

        _, y = tf.while_loop(lambda i, a: i < 4, body, [0, 1.0])

        def taken() -> Any:
            with tf.control_dependencies([count.assign_add(100.0)]):
                return x * x

        z = tf.cond(p, taken, lambda: x)
        grads = tf.gradients([y, z], x)
        with v1.Session() as sess:
            sess.run(count.initializer)
            out = [(sess.run([y, z, grads], {x: 2.0, p: True}), sess.run(count))]
            out.append((sess.run([y, z, grads], {x: 3.0, p: False}), sess.run(count)))
            return out


PROGRAMS = [
    batch_norm_idiom,
    variable_made_under_a_dependency,
    outer_op_named_inside,
    effects_run_once_with_a_gradient,
]
