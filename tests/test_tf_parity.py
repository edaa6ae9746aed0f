"""Differences from TensorFlow found by probing and differential testing (issue 18, 6 and 7).

Every expected value and error text here was recorded by running the same program on
TensorFlow 2.21 (``tf.compat.v1`` graph mode where the test builds a Graph).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError, ResourceExhaustedError

# --------------------------------------------------------------------------------------
# Shapes: placeholder(shape=[-5, 3]) and other sizes that are not sizes


def test_placeholder_negative_dimension_is_rejected():
    with tf.Graph().as_default():
        with pytest.raises(
            ValueError,
            match=r"^Error converting shape to a TensorShape: "
            r"Dimension -5 must be >= 0",
        ):
            tf.compat.v1.placeholder(tf.float32, [-5, 3])
        with pytest.raises(
            TypeError,
            match=r"^Error converting shape to a TensorShape: "
            r"Dimension value must be integer or None",
        ):
            tf.compat.v1.placeholder(tf.float32, [2.5])
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])  # still fine afterwards
        with tf.Session() as sess:
            assert sess.run(tf.reduce_sum(x), {x: np.ones((2, 3))}) == 6.0


def test_tensor_shape_dimensions_as_tf():
    assert tf.TensorShape(3).as_list() == [3]  # a single size is rank 1, as TF
    assert tf.TensorShape([np.int64(2), None]).as_list() == [2, None]
    with pytest.raises(ValueError, match=r"^Dimension -3 must be >= 0$"):
        tf.TensorShape([-3])
    with pytest.raises(TypeError, match=r"got value ''a'' with type '<class 'str'>'"):
        tf.TensorShape([2, "a"])
    with pytest.raises(ValueError, match=r"Dimension -3 must be >= 0"):
        tf.TensorSpec([-3])


# --------------------------------------------------------------------------------------
# gradients(): tensors of another graph


def _other_graph_tensor() -> tf.Tensor:
    with tf.Graph().as_default():
        return tf.constant(1.0)


@pytest.mark.parametrize("arg", ["xs", "stop_gradients", "grad_ys", "ys"])
def test_gradients_reject_tensors_of_another_graph(arg):
    other = _other_graph_tensor()
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0], name="x")
        y = tf.multiply(x, x, name="y")
        kwargs = {"xs": [x], "ys": [y]}
        if arg == "grad_ys":
            kwargs["grad_ys"] = [other]
        elif arg == "ys":
            kwargs["ys"] = [y, other]
        else:
            kwargs[arg] = [other]
        with pytest.raises(
            ValueError,
            match=r"must be from the same graph as "
            r"Tensor\(\"y:0\", shape=\(2,\), dtype=float32\)",
        ):
            tf.gradients(**kwargs)
        (g,) = tf.gradients(y, x)  # the graph is still usable
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(g), [2.0, 4.0])


def test_gradients_in_a_function_differentiate_a_captured_outer_tensor():
    x = tf.constant([1.0, 2.0])

    @tf.function
    def f():
        return tf.gradients(x * x, x)

    (g,) = f()
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])  # TF: [2., 4.]


# --------------------------------------------------------------------------------------
# gradients(): grad_ys of the wrong kind of dtype


@pytest.mark.parametrize(
    "y_dtype, gy, text",
    [
        (
            tf.float32,
            [True, False],
            "Gradient type bool generated for real or integer-valued tensor "
            'Tensor("y:0", shape=(2,), dtype=float32) with type float32 must '
            "be real or integer",
        ),
        (
            tf.int32,
            [True, False],
            "Gradient type bool generated for real or integer-valued tensor "
            'Tensor("y:0", shape=(2,), dtype=int32) with type int32 must be '
            "real or integer",
        ),
        (
            tf.float32,
            np.array([1j, 2j], np.complex64),
            'Gradient type complex64 generated for real or integer-valued tensor Tensor("y:0", '
            "shape=(2,), dtype=float32) with type float32 must be real or integer",
        ),
        (
            tf.complex64,
            [1.0, 2.0],
            "Gradient type float32 generated for complex-valued tensor "
            'Tensor("y:0", shape=(2,), dtype=complex64) with type complex64 '
            "must be real",
        ),
    ],
)
def test_grad_ys_of_a_foreign_kind_gives_tfs_text(y_dtype, gy, text):
    with tf.Graph().as_default():
        x = tf.constant([1, 2], y_dtype, name="x")
        y = tf.multiply(x, x, name="y")
        with pytest.raises(TypeError, match="^" + re.escape(text)):
            tf.gradients(y, x, grad_ys=tf.constant(gy))


def test_override_to_an_unregistered_type_names_the_op_type():
    with tf.Graph().as_default() as g:
        x = tf.constant(2.0)
        with g.gradient_override_map({"Square": "NoSuchGradXYZ"}):
            y = tf.square(x, name="sq")
        # TF: "No gradient defined for operation'sq' (op type: Square)."
        with pytest.raises(LookupError, match=r"operation ?'sq' \(op type: Square\)"):
            tf.gradients(y, x)


# --------------------------------------------------------------------------------------
# Gradients through unknown shapes (TF computes all of these)


def _graph_grad(shape, build, feed):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape)
        (g,) = tf.gradients(build(x), x)
        with tf.Session() as sess:
            return g.shape, sess.run(g, {x: feed})


def test_reduce_prod_gradient_on_unknown_rank():
    shape, g = _graph_grad(None, tf.reduce_prod, [[2.0, 3.0], [4.0, 0.5]])
    assert shape.rank is None
    np.testing.assert_allclose(g, [[6.0, 4.0], [3.0, 24.0]])  # TF
    shape, g = _graph_grad(
        None, lambda x: tf.reduce_prod(x, axis=1), [[2.0, 3.0, 5.0], [4.0, 0.5, 1.0]]
    )
    np.testing.assert_allclose(g, [[15.0, 10.0, 6.0], [0.5, 4.0, 2.0]])  # TF


def test_reduce_prod_gradient_with_axes_known_only_when_run():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3])
        a = tf.compat.v1.placeholder(tf.int32, [])
        (g,) = tf.gradients(tf.reduce_prod(x, axis=a), x)
        with tf.Session() as sess:
            got = sess.run(g, {x: [[2.0, 3.0, 5.0], [4.0, 0.5, 1.0]], a: 0})
    np.testing.assert_allclose(got, [[4.0, 0.5, 1.0], [2.0, 3.0, 5.0]])


def test_broadcasting_binary_op_gradient_with_unknown_dims():
    shape, g = _graph_grad(
        [None], lambda x: tf.unsorted_segment_sum(x + 1.0, [0, 0], 1), [1.0, 2.0]
    )
    assert shape.as_list() == [2]  # TF: TensorShape([2])
    np.testing.assert_array_equal(g, [1.0, 1.0])


def test_squeeze_without_axis_of_unknown_sizes_has_unknown_rank():
    with tf.Graph().as_default():
        y = tf.squeeze(tf.compat.v1.placeholder(tf.float32, [None, None, 2]))
        assert y.shape.rank is None  # TF: TensorShape(None)
        assert tf.squeeze(tf.compat.v1.placeholder(tf.float32, [1, None, 2])).shape.rank is None
        assert tf.squeeze(tf.compat.v1.placeholder(tf.float32, [2, 1, 3])).shape == [2, 3]
        t = tf.tile(y, [2, 2])
        assert t.shape.as_list() == [None, None]
        with tf.Session() as sess:
            x = y.op.inputs[0]
            got = sess.run(t, {x: [[[1.0, 2.0]], [[3.0, 4.0]]]})
    np.testing.assert_array_equal(got, [[1, 2, 1, 2], [3, 4, 3, 4], [1, 2, 1, 2], [3, 4, 3, 4]])


def test_softmax_cross_entropy_of_rank3_unknown_dims_keeps_rank():
    with tf.Graph().as_default():
        logits = tf.compat.v1.placeholder(tf.float32, [None, None, None])
        labels = tf.compat.v1.placeholder(tf.float32, [None, None, None])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        assert loss.shape.as_list() == [None, None]  # TF: (None, None)
        (g,) = tf.gradients(loss, logits)
        assert g.shape.as_list() == [None, None, None]
        lg = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
        with tf.Session() as sess:
            lv, gv = sess.run([loss, g], {logits: lg, labels: np.full((2, 3, 4), 0.25)})
    np.testing.assert_allclose(lv, np.full((2, 3), 1.3925355672836304), rtol=1e-6)
    np.testing.assert_allclose(
        gv[0, 0],
        [-0.03616178035736084, -0.013672217726707458, 0.011182576417922974, 0.03865140676498413],
        rtol=1e-5,
    )


# --------------------------------------------------------------------------------------
# The tape: tensors it never recorded get None, as in TF


def _unrecorded_tape():
    x, c = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * c
        z = tf.sin(tf.stop_gradient(x))
        w = z * 2.0
    return t, x, c, y, z, w


def test_tape_gradient_of_watched_source_still_works():
    t, x, _c, y, _z, _w = _unrecorded_tape()
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [3.0, 4.0])  # TF


def test_tape_unwatched_constant_gets_none():
    t, x, c, y, _z, _w = _unrecorded_tape()
    gx, gc = t.gradient(y, [x, c])
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    assert gc is None  # TF: None
    np.testing.assert_array_equal(
        t.gradient(y, c, unconnected_gradients="zero").numpy(), [0.0, 0.0]
    )  # TF: zeros


def test_tape_output_of_unrecorded_op_gets_none():
    t, _x, _c, _y, z, w = _unrecorded_tape()
    assert t.gradient(w, z) is None  # TF: None
    np.testing.assert_array_equal(
        t.gradient(w, z, unconnected_gradients="zero").numpy(), [0.0, 0.0]
    )


def test_tape_output_of_int_cast_gets_none():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        f = tf.cast(tf.cast(x, tf.int32), tf.float32)
        w = f * 2.0
    assert t.gradient(w, x) is None  # TF: None
    assert t.gradient(w, f) is None  # TF: None


def test_tape_sources_as_tf_decides_them():
    """Which sources get a gradient, each recorded on TF 2.21 with the same program."""
    x, c = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * c
        s = tf.stop_gradient(x)
        k = c * 2.0  # an op on constants only: not recorded
        q = tf.identity(x) * 3.0
        zl = tf.zeros_like(x)  # recorded although it has no gradient (TF)
        zw = zl * 2.0
    ones = [1.0, 1.0]
    np.testing.assert_array_equal(t.gradient(y, y).numpy(), ones)  # TF: ones
    np.testing.assert_array_equal(t.gradient(x, x).numpy(), ones)
    np.testing.assert_array_equal(t.gradient(c, c).numpy(), ones)  # a target is its own source
    np.testing.assert_array_equal(t.gradient(k, k).numpy(), ones)
    assert t.gradient([y, c], c) is None  # TF: None (a recorded op consumes c)
    assert t.gradient(s * 2.0, s) is None  # TF: None
    assert t.gradient(k * x, k) is None  # TF: None
    gy, gx = t.gradient(y, [y, x])
    np.testing.assert_array_equal(gy.numpy(), ones)
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(t.gradient(q, x).numpy(), [3.0, 3.0])  # TF
    np.testing.assert_array_equal(t.gradient(zw, zl).numpy(), [2.0, 2.0])  # TF
    assert t.gradient(zw, x) is None  # TF: None


def test_tape_unwatched_and_untrainable_variables_get_none():
    v1, v2 = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 2.0], trainable=False)
    with tf.GradientTape(persistent=True) as t:
        a = v1 * v2
        r = v2.read_value()
        b = r * v1
    g1, g2 = t.gradient(a, [v1, v2])
    np.testing.assert_array_equal(g1.numpy(), [1.0, 2.0])  # TF
    assert g2 is None and t.gradient(b, r) is None  # TF: None, None


# --------------------------------------------------------------------------------------
# Eager shape errors: InvalidArgumentError (which is also a ValueError)


def test_invalid_argument_error_is_a_value_error():
    assert issubclass(InvalidArgumentError, ValueError)
    assert issubclass(ResourceExhaustedError, MemoryError)


def test_eager_shape_error_is_invalid_argument_error():
    with pytest.raises(InvalidArgumentError, match=r"AddV2 op .*Incompatible shapes"):
        tf.add(tf.ones([2]), tf.ones([3]))


# --------------------------------------------------------------------------------------
# Huge shapes: an error naming the op (or the call), never a bare MemoryError


def test_huge_tile_names_the_op():
    with pytest.raises(InvalidArgumentError, match=r"Tile op 'huge'.*MemoryError"):
        tf.tile(tf.ones([1000]), [10**9], name="huge")
    np.testing.assert_array_equal(tf.tile(tf.ones([2]), [2]).numpy(), [1, 1, 1, 1])


def test_gradient_of_huge_tile_builds_no_huge_constant_in_a_graph():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1000])
        y = tf.tile(x, [10**9], name="huge")
        (g,) = tf.gradients(y, x)  # builds a Fill, allocates nothing
        assert g.shape.as_list() == [1000]
        z = tf.compat.v1.zeros_like(y)
        assert z.op.type == "Fill"
        with (
            tf.Session() as sess,
            pytest.raises(InvalidArgumentError, match=r"op '.*' .*MemoryError"),
        ):
            sess.run(g, {x: np.ones(1000)})


def test_huge_constant_raises_resource_exhausted():
    with pytest.raises(
        ResourceExhaustedError,
        match=r"OOM when allocating tensor with "
        r"shape\[1000000, 1000000\] and type float32",
    ):
        tf.constant(0.0, shape=[10**6, 10**6])


# --------------------------------------------------------------------------------------
# The gradient checker's empty-output check


def test_compute_gradient_empty_gradient_has_wrong_shape():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return tf.fill(tf.stack([tf.size(dy) + 5, 1]), 0.0)

        return tf.reshape(x, [-1])[:0] * 2.0, grad

    with tf.Graph().as_default(), tf.Session():
        with pytest.raises(
            ValueError,
            match=r"^Empty gradient has wrong shape: expected "
            r"\(1, 3\), got \(5, 1\)$",
        ):
            tf.test.compute_gradient(f, [[[1.0, 2.0, 3.0]]])


def test_custom_gradient_output_fetched_from_a_session_is_an_array():
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 2.0

    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1])
        with tf.Session() as sess:
            got = sess.run(f(x), {x: [3.0]})
    assert isinstance(got, np.ndarray) and got.shape == (1,)
    np.testing.assert_array_equal(got, [6.0])


# --------------------------------------------------------------------------------------
# function: signatures and concrete functions


@pytest.mark.parametrize(
    "signature, text",
    [
        (
            [3],
            r"input_signature must be a possibly nested sequence of TensorSpec objects, got "
            r"invalid args \[3\] with types \[<class 'int'>\]",
        ),
        ([None], r"input_signature must be a possibly nested sequence of TensorSpec objects"),
        ("abc", r"input_signature must be either a tuple or a list, got <class 'str'>"),
    ],
    ids=["int", "none", "str"],
)
def test_function_input_signature_misuse(signature, text):
    with pytest.raises(TypeError, match=text):
        tf.function(lambda x: x, input_signature=signature)


def test_function_input_signature_not_a_list():
    with pytest.raises(TypeError, match=r"input_signature must be either a tuple or a list"):
        tf.function(lambda x: x, input_signature=tf.TensorSpec([2]))


def test_function_of_a_non_callable():
    with pytest.raises(TypeError, match=r"^3 is not a callable object"):
        tf.function(3)


def test_get_concrete_function_without_arguments_uses_the_signature():
    f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([2])])
    np.testing.assert_array_equal(f.get_concrete_function()(tf.ones([2])).numpy(), [2.0, 2.0])
    assert f.get_concrete_function(tf.TensorSpec([2])) is f.get_concrete_function()  # TF: OK
    with pytest.raises(
        TypeError,
        match=re.escape(
            "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(None,), "
            "dtype=tf.float32, name=None) to TensorSpec(shape=(2,), dtype=tf.float32, "
            "name=None)`. Received args: (TensorSpec(shape=(None,), dtype=tf.float32, "
            "name=None),) and kwargs: {} for signature: (x: TensorSpec(shape=(2,), "
            "dtype=tf.float32, name=None))."
        ),
    ):  # TF's text: a spec less specific than the signature's
        f.get_concrete_function(tf.TensorSpec([None]))
    g = tf.function(lambda a: a[0] + a[1], input_signature=[[tf.TensorSpec([2])] * 2])
    np.testing.assert_array_equal(g.get_concrete_function()([tf.ones([2])] * 2), [2.0, 2.0])


@pytest.mark.parametrize(
    "fn, signature, text",
    [
        (lambda x, y: x, [tf.TensorSpec([2])], "input_signature missing type constraint for y"),
        (
            lambda x: x,
            [tf.TensorSpec([2])] * 3,
            "input_signature contains 2 extra type constraints.",
        ),
        (
            lambda x, *, k: x,
            [tf.TensorSpec([2])],
            "Since input_signature is defined, keyword-only parameter `k` must have a "
            "default value",
        ),
    ],
    ids=["missing", "extra", "keyword_only"],
)
def test_function_input_signature_against_the_parameters(fn, signature, text):
    with pytest.raises(TypeError, match="^" + re.escape(text) + "$"):  # TF's texts
        tf.function(fn, input_signature=signature)


def test_function_input_signature_fits_defaults_varargs_and_methods():
    spec = tf.TensorSpec([2])
    f = tf.function(lambda x, y=3.0: x * y, input_signature=[spec])
    np.testing.assert_array_equal(f(tf.ones([2])).numpy(), [3.0, 3.0])  # TF
    g = tf.function(lambda *a: a[0] + a[1], input_signature=[spec, spec])
    np.testing.assert_array_equal(g(tf.ones([2]), tf.ones([2])).numpy(), [2.0, 2.0])  # TF

    class M:
        @tf.function(input_signature=[spec])
        def f(self, x):
            return x * 2.0

    np.testing.assert_array_equal(M().f(tf.ones([2])).numpy(), [2.0, 2.0])  # TF


def test_get_concrete_function_with_a_tensor_spec():
    f = tf.function(lambda x: x * 2.0)
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    np.testing.assert_array_equal(cf(tf.ones([3])).numpy(), [2.0, 2.0, 2.0])  # TF
    g = tf.function(lambda: tf.constant(1.0))
    assert g.get_concrete_function()().numpy() == 1.0  # TF


def test_function_returning_a_python_object():
    with pytest.raises(
        TypeError,
        match=r"^To be compatible with tf.function, Python functions must return zero or more "
        r"Tensors or ExtensionTypes or None values; in compilation of <function .*>, found "
        r"return value of type object, which is not a Tensor or ExtensionType.$",
    ):
        tf.function(lambda x: object())(tf.ones([2]))
    got = tf.function(lambda x: [x, 3, None])(tf.ones([2]))  # numbers become tensors (TF)
    assert got[1].dtype == tf.int32 and got[1].numpy() == 3 and got[2] is None


def test_variable_shape_argument_incompatible_with_initial_value():
    # In a graph of its own: while it is accepted, the broken variable must not outlive the test.
    with (
        tf.Graph().as_default(),
        pytest.raises(
            ValueError,
            match=r"the initial value's shape \(\(2,\)\) is not compatible with the "
            r"explicitly supplied `shape` argument \(\[3\]\)",
        ),
    ):
        tf.Variable([1.0, 2.0], shape=[3])


def test_eager_compute_gradient_empty_gradient_has_wrong_shape():
    """TF's gradient_checker_v2 testEmptyFails: the checker differentiates with a tape,
    which (as TF's) does not check the shape a rule returns; the checker then does."""

    @tf.custom_gradient
    def id_bad_grad(x):
        return tf.identity(x), lambda dy: tf.transpose(dy)

    x = tf.constant(np.zeros((0, 3)), dtype=tf.float32)
    with pytest.raises(
        ValueError, match=r"^Empty gradient has wrong shape: expected \(0, 3\), got \(3, 0\)$"
    ):
        tf.test.compute_gradient(id_bad_grad, [x])
