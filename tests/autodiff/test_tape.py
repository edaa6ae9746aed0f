"""GradientTape: recording rule, watch, structures, errors, nesting (TF_SEMANTICS §4)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import symgrad as tf

SEED_002_DY_DX = """symgrad.Tensor(
[[-0.17307831  1.1900724   2.245003  ]
 [-0.17307831  1.1900724   2.245003  ]
 [-0.17307831  1.1900724   2.245003  ]
 [-0.17307831  1.1900724   2.245003  ]
 [-0.17307831  1.1900724   2.245003  ]], shape=(5, 3), dtype=float32)"""

SEED_002_DY0_DX = """symgrad.Tensor(
[[0.43842274 1.5658046  1.4204658 ]
 [0.         0.         0.        ]
 [0.         0.         0.        ]
 [0.         0.         0.        ]
 [0.         0.         0.        ]], shape=(5, 3), dtype=float32)"""

MAT = [
    [0.8363, 0.4719, 0.9783],
    [0.3379, 0.6548, 0.3835],
    [0.7846, 0.9173, 0.2393],
    [0.5418, 0.3875, 0.4276],
    [0.0948, 0.2637, 0.8039],
]
ANOTHER = [
    [0.43842274, -0.53439844, -0.07710262],
    [1.5658046, -0.1012345, -0.2744976],
    [1.4204658, 1.2609464, -0.43640924],
]


def numeric_grad(f, x, eps=1e-6):
    """Central differences of scalar f at float64 array x."""
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_seed_002_gradient_of_sum_and_of_one_element():
    tf_t = tf.Variable(tf.convert_to_tensor(MAT))
    tf_b = tf.Variable(tf.convert_to_tensor(ANOTHER))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(tf_t)
        y_tf = tf.matmul(tf_t, tf_b)
        y_t0 = y_tf[0, 0]
    assert str(tape.gradient(y_tf, tf_t)) == SEED_002_DY_DX
    assert str(tape.gradient(y_t0, tf_t)) == SEED_002_DY0_DX


COMPOSITES = {
    "poly": lambda x, w: tf.reduce_sum(x * x * w + 3.0 * x),
    "tanh_matmul": lambda x, w: tf.reduce_sum(tf.tanh(tf.matmul(x, tf.transpose(w)))),
    "exp_div": lambda x, w: tf.reduce_mean(tf.exp(x * 0.1) / (1.0 + w * w)),
    "sigmoid_sq": lambda x, w: tf.reduce_sum(tf.square(tf.sigmoid(x) - w)),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_tape_matches_finite_differences_and_gradients(name):
    fn = COMPOSITES[name]
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    x, w = tf.constant(xv), tf.Variable(wv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, w)
    gx, gw = tape.gradient(y, [x, w])
    fx = numeric_grad(lambda a: fn(tf.constant(a), tf.constant(wv)).numpy(), xv)
    fw = numeric_grad(lambda a: fn(tf.constant(xv), tf.constant(a)).numpy(), wv)
    np.testing.assert_allclose(gx.numpy(), fx, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw.numpy(), fw, rtol=1e-6, atol=1e-8)
    # the same numbers from gradients() on the same (eager) ops
    ref = tf.gradients(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), ref[0].numpy())
    np.testing.assert_allclose(gw.numpy(), ref[1].numpy())


def test_only_ops_with_watched_inputs_are_recorded():
    x, c = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as tape:
        y = x * c  # nothing watched yet: a constant to the tape
        tape.watch(x)
        z = x * y
    assert tape.gradient(z, x).numpy() == 10.0


def test_unwatched_target_gives_none():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_watch_nested_and_result_structures():
    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, {"b": b, "c": (c,)}])
        y = a * b * c
        y2 = y * 2.0
    assert isinstance(tape.gradient(y, [a, b]), list)
    assert isinstance(tape.gradient(y, (a, b)), tuple)
    d = tape.gradient(y, {"x": a, "y": [b, c]})
    assert set(d) == {"x", "y"}
    assert [t.numpy() for t in d["y"]] == [3.0, 2.0]
    assert d["x"].numpy() == 6.0
    assert tape.gradient(y, a).numpy() == 6.0
    assert tape.gradient([y, y2], a).numpy() == 18.0
    assert tape.gradient(y * 2.0, a) is None  # computed after the tape stopped


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as tape:
        with pytest.raises(
            ValueError,
            match=r"^Passed in object 3.0 of type 'float', not "
            r"tf.Tensor or tf.Variable or ExtensionType.$",
        ):
            tape.watch(3.0)


def test_watching_an_integer_tensor_only_logs(caplog):
    with caplog.at_level(logging.WARNING, logger="symgrad"), tf.GradientTape() as tape:
        tape.watch(tf.constant(1))
    assert "must be floating" in caplog.text


def test_trainable_variables_are_watched_automatically():
    v = tf.Variable(2.0)
    frozen = tf.Variable(3.0, trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        y = v * v * frozen
    assert tape.gradient(y, v).numpy() == 12.0
    assert tape.gradient(y, frozen) is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false():
    v, w = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        tape.watch(w)
        y = v * w
    assert tape.gradient(y, v) is None
    assert tape.gradient(y, w).numpy() == 2.0
    assert tape.watched_variables() == (w,)


def test_watched_variables_in_creation_order():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        _ = b * 1.0
        _ = a * 1.0
    assert tape.watched_variables() == (a, b)


def test_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            c = x * x  # a constant to the tape
        y = c * x
    assert tape.gradient(y, x).numpy() == 9.0


def test_stop_recording_errors():
    tape = tf.GradientTape()
    with (
        pytest.raises(
            RuntimeError, match="^Trying to stop recording a tape which is not recording.$"
        ),
        tape.stop_recording(),
    ):
        pass
    with tape:
        pass
    with pytest.raises(ValueError, match="^Tape is not recording.$"), tape.stop_recording():
        pass


def test_reset():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
        tape.reset()
        tape.watch(x)
        y = x * 5.0
    assert tape.gradient(y, x).numpy() == 5.0


def test_non_persistent_tape_is_used_once():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    msg = (
        "^A non-persistent GradientTape can only be used to compute one set of gradients "
        r"\(or jacobians\)$"
    )
    with pytest.raises(RuntimeError, match=msg):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=msg):
        tf.GradientTape().gradient(y, x)


def test_persistent_tape_many_uses():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(y, x).numpy() == 4.0
    assert tape.gradient(z, x).numpy() == 32.0
    assert tape.gradient(z, y).numpy() == 8.0


def test_reentering_an_active_tape():
    tape = tf.GradientTape()
    with (
        tape,
        pytest.raises(
            ValueError,
            match="^Tape is still recording, This can happen if "
            "you try to re-enter an already-active tape.$",
        ),
        tape,
    ):
        pass


def test_target_none():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(
        TypeError,
        match="^Argument `target` should be a list or nested "
        "structure of Tensors, Variables or CompositeTensors to be "
        "differentiated, but received None.$",
    ):
        tape.gradient(None, x)


def test_integer_sources_warn_and_give_none():
    i = tf.constant([1, 2])
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * tf.cast(i, tf.float32)
    with pytest.warns(UserWarning, match="must be floating"):
        assert tape.gradient(y, i) is None
    with pytest.warns(UserWarning, match="must be floating"):
        z = tape.gradient(y, i, unconnected_gradients="zero")
    assert z.dtype == tf.int32 and z.numpy().tolist() == [0, 0]


def test_unconnected_gradients():
    x, u = tf.constant([1.0, 2.0]), tf.constant([[3.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    assert tape.gradient(y, u) is None
    assert tape.gradient(y, u, unconnected_gradients=tf.UnconnectedGradients.NONE) is None
    z = tape.gradient(y, u, unconnected_gradients="zero")
    assert z.shape == (1, 1) and z.numpy().tolist() == [[0.0]]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'foo'"):
        tape.gradient(y, u, unconnected_gradients="foo")


def test_output_gradients():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([1.0, 0.0, 2.0]))
    assert g.numpy().tolist() == [2.0, 0.0, 12.0]
    assert tape.gradient(y, x, output_gradients=[3.0]).numpy().tolist() == [6.0, 12.0, 18.0]
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=[None])
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tape.gradient(y, x, output_gradients=tf.constant([1.0, 2.0]))


def test_complex_target_defaults_to_ones():
    z = tf.constant(1.0 + 2.0j, tf.complex64)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = z * z
    assert tape.gradient(y, z).numpy() == np.conj(2 * (1.0 + 2.0j))


def test_gradient_of_variable_wrt_itself():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        pass
    assert tape.gradient(v, v).numpy().tolist() == [1.0, 1.0]


def test_nested_tapes_give_higher_derivatives():
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x**4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_persistent_tape_records_its_own_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        dy = tape.gradient(y, x)
    assert dy.numpy() == 27.0
    assert tape.gradient(dy, x).numpy() == 18.0


def test_non_persistent_gradient_inside_context_stops_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        assert tape.gradient(y, x).numpy() == 6.0
        assert tf.get_default_graph() is not None
        assert not tape._recording


def test_tape_ignores_gradient_override_map():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.get_default_graph().gradient_override_map({"Square": "Identity"}):
            y = tf.square(x)
    assert tape.gradient(y, x).numpy() == 6.0
    assert tf.gradients(y, x)[0].numpy() == 1.0  # gradients() honours the override


def test_tape_inside_graph_mode():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
        dx = tape.gradient(y, x)
        with tf.Session() as sess:
            assert sess.run(dx, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]


def test_an_eager_training_loop_keeps_the_name_tables_bounded():
    """The eager graph remembers names of live ops only: its tables do not grow per step."""
    graph = tf.get_default_graph()
    w = tf.Variable(np.ones([3], np.float32))
    x = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))

    def step() -> None:
        with tf.GradientTape() as tape, tf.name_scope("loss"):
            loss = tf.reduce_sum(tf.tanh(w * x) * tf.sigmoid(x))
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(0.1 * g)

    for _ in range(50):
        step()
    sizes = len(graph._names_in_use), len(graph._by_name)
    for _ in range(3000):
        step()
    assert len(graph._names_in_use) == sizes[0]
    assert len(graph._by_name) <= max(2 * sizes[1], 4096)
    # gradient ops are still named after the forward op they belong to (a source's
    # gradient made by an array rule is a Const in that op's ``_grad`` scope)
    from symgrad.tools.explain import forward_op_of

    with tf.GradientTape() as tape:
        y = tf.tanh(w * x)
    g = tape.gradient(y, w)
    assert g.op.name == f"{y.op.inputs[0].op.name}_grad/Const"
    assert forward_op_of(g.op) is y.op.inputs[0].op
