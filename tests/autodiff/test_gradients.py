"""gradients(): TensorFlow's semantics, point by point (TF_SEMANTICS.md §1-§3)."""

import numpy as np
import pytest

import symgrad as tf


def test_gradient_of_the_sum_of_every_y():
    x = tf.constant([1.0, 2.0])
    y1, y2 = x * x, 3.0 * x
    (g,) = tf.gradients([y1, y2], x)
    np.testing.assert_allclose(g.numpy(), 2 * np.array([1.0, 2.0]) + 3)


def test_result_is_a_list_in_xs_order_with_duplicates():
    x = tf.constant(2.0)
    y = tf.constant(3.0)
    gs = tf.gradients(x * y, [y, x, x])
    assert [g.numpy() for g in gs] == [2.0, 3.0, 3.0]
    assert isinstance(tf.gradients(x * y, x), list)


def test_y_that_is_an_x_gets_ones_or_its_grad_y():
    x = tf.constant([1.0, 2.0])
    assert tf.gradients(x, x)[0].numpy().tolist() == [1.0, 1.0]
    assert tf.gradients(x, x, grad_ys=[[3.0, 4.0]])[0].numpy().tolist() == [3.0, 4.0]


def test_grad_ys_weights_each_y():
    x = tf.constant([1.0, 2.0, 3.0])
    y = x * x
    (g,) = tf.gradients(y, x, grad_ys=tf.constant([1.0, 0.0, 2.0]))
    assert g.numpy().tolist() == [2.0, 0.0, 12.0]


def test_grad_ys_errors_name_the_y():
    x = tf.constant([1.0, 2.0, 3.0])
    y = x * 2.0
    with pytest.raises(ValueError, match="Length mismatch. Passed 3 grad_ys for 1 ys"):
        tf.gradients(y, x, grad_ys=[1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match=r"grad_ys\[0\] has dtype float64 but ys\[0\]"):
        tf.gradients(y, x, grad_ys=[tf.constant([1.0, 1.0, 1.0], tf.float64)])
    with pytest.raises(ValueError, match=r"grad_ys\[0\] has shape \(2,\) but ys\[0\].*\(3,\)"):
        tf.gradients(y, x, grad_ys=[[1.0, 1.0]])
    z = tf.complex(x, x)
    with pytest.raises(TypeError, match="Gradients of complex tensors .* must set grad_ys"):
        tf.gradients(z, x)


def test_stop_gradients_partial_vs_total_derivatives():  # seed 004's example
    with tf.Graph().as_default():
        a = tf.constant(0.0)
        b = 2 * a
        partial = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
        total = tf.gradients(a + b, [a, b])
        with tf.Session() as sess:
            assert sess.run(partial) == [1.0, 1.0]
            assert sess.run(total) == [3.0, 1.0]
        a2 = tf.stop_gradient(tf.constant(0.0))
        b2 = tf.stop_gradient(2 * a2)
        with tf.Session() as sess:
            assert sess.run(tf.gradients(a2 + b2, [a2, b2])) == [1.0, 1.0]


def test_stop_gradient_intermediate_blocks_only_its_paths():
    x = tf.constant(3.0)
    h = x * x
    y = h + 5.0 * x
    assert tf.gradients(y, x, stop_gradients=[h])[0].numpy() == 5.0
    assert tf.gradients(y, x)[0].numpy() == 11.0


def test_unconnected_gradients_none_zero_and_errors():
    a = tf.ones([1, 2])
    b = tf.ones([3, 1])
    i = tf.constant([1, 2])
    assert tf.gradients([b], [a]) == [None]
    assert tf.gradients([b], [a], unconnected_gradients="none") == [None]
    (z,) = tf.gradients([b], [a], unconnected_gradients="zero")
    assert z.numpy().tolist() == [[0.0, 0.0]]
    (zi,) = tf.gradients(b, i, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zi.dtype == tf.int32 and zi.numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'foo'"):
        tf.gradients(b, a, unconnected_gradients="foo")


def test_integer_tensors_are_constant():
    x = tf.constant(2.0)
    y = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32) + x
    assert tf.gradients(y, x)[0].numpy() == 1.0


def test_several_paths_are_summed():
    x = tf.constant(2.0)
    y = x * x * x + tf.sin(x) + x
    assert np.isclose(tf.gradients(y, x)[0].numpy(), 3 * 4 + np.cos(2.0) + 1, rtol=1e-6)


def test_variables_as_xs():
    w = tf.Variable([1.0, 2.0])
    loss = tf.reduce_sum(w * w) + tf.reduce_sum(w)  # two reads of w
    assert tf.gradients(loss, w)[0].numpy().tolist() == [3.0, 5.0]
    assert tf.gradients(loss, tf.Variable(1.0), unconnected_gradients="zero")[0].numpy() == 0.0


def test_higher_order_derivatives():
    x = tf.constant(0.7, tf.float64)
    y = tf.sin(x) * x * x
    (d1,) = tf.gradients(y, x)
    (d2,) = tf.gradients(d1, x)
    (d3,) = tf.gradients(d2, x)
    v = 0.7
    assert np.isclose(d1.numpy(), np.cos(v) * v * v + 2 * v * np.sin(v))
    assert np.isclose(d2.numpy(), -np.sin(v) * v * v + 4 * v * np.cos(v) + 2 * np.sin(v))
    assert np.isclose(d3.numpy(), -np.cos(v) * v * v - 6 * v * np.sin(v) + 6 * np.cos(v))
    (lin,) = tf.gradients(3.0 * x, x)
    assert tf.gradients(lin, x) == [None]


def test_missing_gradient_raises_lookup_error_naming_the_op():
    tf.register_op(
        "SymgradTestNoRule", lambda inputs: (inputs[0].shape, inputs[0].dtype), lambda x: x * 2
    ) if "SymgradTestNoRule" not in _ops() else None
    from symgrad.core.op_registry import apply_op

    x = tf.constant(1.0)
    y = apply_op("SymgradTestNoRule", [x], name="mystery").output(0)
    with pytest.raises(
        LookupError,
        match=r"No gradient defined for operation 'mystery' "
        r"\(op type: SymgradTestNoRule\), created at .*"
        r"test_gradients.py",
    ):
        tf.gradients(y * 2.0, x)
    assert tf.gradients(y * 2.0, tf.constant(1.0)) == [None]  # not on a path: no error


def _ops():
    from symgrad.core.op_registry import OPS

    return OPS


def test_registry_contract():
    matmul_grad = tf.gradient_registry.lookup("MatMul")
    assert callable(matmul_grad) and tf.gradient_registry.lookup("StopGradient") is None
    with pytest.raises(LookupError, match="gradient registry has no entry for: Placeholder"):
        tf.gradient_registry.lookup("Placeholder")
    with pytest.raises(KeyError, match="Registering two gradient with name 'MatMul'"):
        tf.RegisterGradient("MatMul")(lambda op, g: (g, g))
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.RegisterGradient(3)
    with pytest.raises(KeyError, match="Registering two gradient with name 'StopGradient'"):
        tf.NoGradient("StopGradient")


def test_gradient_override_map_and_user_rules():
    @tf.RegisterGradient("SymgradTestClip")
    def _clip(op, grad):
        return tf.maximum(tf.minimum(grad, 0.5), -0.5)

    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0])
        with g.gradient_override_map({"Identity": "SymgradTestClip"}):
            y = tf.identity(x)
        z = tf.identity(x)
        assert y.op.type == "Identity"
        gy, gz = tf.gradients(y * 3.0, x)[0], tf.gradients(z * 3.0, x)[0]
        with tf.Session() as s:
            assert s.run(gy).tolist() == [0.5, 0.5] and s.run(gz).tolist() == [3.0, 3.0]
        with pytest.raises(TypeError, match="op_type_map must be a dictionary"):
            with g.gradient_override_map({"Identity": 3}):
                pass


def test_user_rule_errors_name_the_op():
    @tf.RegisterGradient("SymgradTestTwoGrads")
    def _two(op, grad):
        return grad, grad

    @tf.RegisterGradient("SymgradTestBadShape")
    def _bad_shape(op, grad):
        return tf.ones([5])

    g = tf.get_default_graph()
    x = tf.constant([1.0, 2.0, 3.0])
    with g.gradient_override_map({"Identity": "SymgradTestTwoGrads"}):
        y = tf.identity(x)
    with pytest.raises(
        ValueError,
        match=r"Num gradients 2 generated for op '.*' \(type "
        r"Identity.*do not match num inputs 1",
    ):
        tf.gradients(y, x)
    with g.gradient_override_map({"Identity": "SymgradTestBadShape"}):
        y = tf.identity(x)
    with pytest.raises(
        ValueError,
        match=r"Incompatible shapes between op input and calculated "
        r"input gradient.*Input index: 0. Original input shape: "
        r"\(3,\). Calculated input gradient shape: \(5,\)",
    ):
        tf.gradients(y, x)


def test_gradient_names_and_static_shapes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.reduce_sum(tf.sin(x))
        (g,) = tf.gradients(y, x, name="mygrads")
        (h,) = tf.gradients(x, x, grad_ys=[tf.ones_like(x)], name="mygrads")
    assert g.name.startswith("mygrads/") and g.shape.as_list() == [None, 2]
    assert h.name.startswith("mygrads_1/grad_ys_0")
    assert "Sin_grad" in g.name or any("Sin_grad" in i.name for i in g.op.inputs)


def test_aggregation_methods_agree_and_bad_one_errors():
    x = tf.constant(1.5)
    y = x * x + x * 3.0 + tf.exp(x)
    vals = [tf.gradients(y, x, aggregation_method=m)[0].numpy() for m in (None, 0, 1, 2)]
    assert len(set(vals)) == 1
    with pytest.raises(ValueError, match=r"Invalid `aggregation_method` specified 7"):
        tf.gradients(y, x, aggregation_method=7)
    assert tf.gradients(y, x, gate_gradients=True)[0].numpy() == vals[0]
    v1 = tf.compat.v1  # TF1's signature keeps colocate_gradients_with_ops
    assert (
        v1.gradients(y, x, gate_gradients=True, colocate_gradients_with_ops=True)[0].numpy()
        == vals[0]
    )


def test_seed_003_claim_chain_through_grad_ys():
    w = tf.Variable([0.5, -1.0])
    branch = [tf.Variable(1.5), tf.Variable(-0.5)]
    hidden = w * branch[0] + branch[1]
    loss = tf.reduce_sum(tf.square(tf.tanh(hidden)))
    direct = tf.gradients(loss, branch)
    (dloss_dy,) = tf.gradients(loss, hidden)
    chained = tf.gradients(hidden, branch, grad_ys=dloss_dy)
    for a, b in zip(direct, chained):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_complex_convention():
    z = tf.constant(1.0 + 2.0j, tf.complex128)
    (g,) = tf.gradients(tf.real(z * tf.conj(z)), z)  # |z|^2 -> 2z
    assert g.numpy() == 2.0 + 4.0j
    (h,) = tf.gradients(z * z, z, grad_ys=tf.constant(1.0 + 0j, tf.complex128))
    assert h.numpy() == np.conj(2 * (1.0 + 2.0j))


def test_edge_values_match_tensorflow():
    def grad(f, *xs):
        ts = [tf.constant(v) for v in xs]
        return [None if g is None else float(g.numpy()) for g in tf.gradients(f(*ts), ts)]

    assert grad(tf.sqrt, 0.0) == [np.inf]
    assert grad(lambda x: tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x)), 0.0) == [0.0]
    assert grad(tf.pow, 0.0, 2.0) == [0.0, 0.0]
    assert grad(tf.pow, -2.0, 2.0) == [-4.0, 0.0]
    assert grad(tf.maximum, 1.0, 1.0) == [1.0, 0.0]
    assert grad(tf.minimum, 1.0, 1.0) == [1.0, 0.0]
    assert grad(tf.abs, 0.0) == [0.0]


def test_rules_build_no_gradient_for_inputs_no_source_is_reached_through():
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.ones((3, 2), np.float32))
        y = tf.reduce_sum(tf.matmul(x, w) * 1.01)
        before = len(graph.get_operations())
        (_gw,) = tf.gradients(y, [w])
        new = [op.type for op in graph.get_operations()[before:]]
    # d/dw only: one MatMul (not the one for x); no product or Sum for the 1.01.
    assert new.count("MatMul") == 1 and new.count("Mul") == 2 and "Sum" not in new


def test_user_rules_see_skip_input_indices_as_in_tf():
    seen = []

    @tf.RegisterGradient("SkipSpy")
    def _spy(op, grad):
        seen.append(op.skip_input_indices)
        return grad, grad

    with tf.Graph().as_default() as graph:
        x, c = tf.placeholder(tf.float32, []), tf.constant(3.0)
        with graph.gradient_override_map({"AddV2": "SkipSpy"}):
            y = x + c
        (g,) = tf.gradients(y, [x])
        assert seen == [(1,)]
        with tf.Session() as sess:
            assert sess.run(g, {x: 2.0}) == 1.0
