"""Deliberate differences from TensorFlow (docs/semantics.md): one test pins each that no
other test pins.  Each says what TensorFlow 2.21 gives for the same program (run on it)
and asserts what symgrad gives instead.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.op_registry import OPS


def test_tensors_hash_by_identity_and_compare_elementwise():
    a = tf.constant([1.0, 2.0])
    assert (a == tf.constant([1.0, 3.0])).numpy().tolist() == [True, False]  # as TF
    assert {a: 1}[a] == 1  # TF: TypeError("Tensor is unhashable. ...")
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        assert (x == x) is True and (x == tf.identity(x)) is False  # symbolic: identity
        with tf.Session() as sess:
            assert sess.run(x * 2.0, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]


def test_a_variable_value_is_shared_by_sessions_and_its_initializer_resets_it():
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable(1.0)
        inc = tf.compat.v1.assign_add(v, 1.0)
        init = tf.compat.v1.global_variables_initializer()
        s1, s2 = tf.Session(), tf.Session()
        s1.run(init)
        s1.run(inc)
        assert s2.run(v) == 2.0  # TF: s2 has its own, uninitialised, variable
        s2.run(init)
        assert s1.run(v) == 1.0  # TF: s1 keeps 2.0


def test_every_feed_is_honoured():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        y = x * 3.0
        z = y + 1.0
        with tf.Session() as sess:
            assert sess.run(z, {y: 10.0}) == 11.0  # TF: 11.0 (a feed Grappler keeps)
            assert sess.run(z, {x: 0.0}) == 1.0  # a constant fed too


def test_eager_tensors_and_ops_have_names():
    x = tf.constant(1.0)
    name = tf.sin(x).name  # TF: AttributeError (no names in eager mode)
    assert name.startswith("Sin") and name.endswith(":0")


def test_softsign_has_a_second_derivative():
    x = tf.constant([0.5, -1.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.nn.softsign(x)
        g = inner.gradient(y, x)
    # TF: LookupError "gradient registry has no entry for: SoftsignGrad".
    # d²/dx² x / (1 + |x|) = -2 sign(x) / (1 + |x|)^3
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [-2 / 1.5**3, 2 / 8], rtol=1e-6)


def test_fused_batch_norm_accepts_float64():
    x = np.arange(24, dtype=np.float64).reshape(2, 2, 2, 3)
    y, mean, _ = tf.compat.v1.nn.fused_batch_norm(
        tf.constant(x), tf.constant(np.ones(3)), tf.constant(np.zeros(3))
    )  # TF: InvalidArgumentError (FusedBatchNormV3 takes half, bfloat16, float)
    assert y.dtype == tf.float64
    np.testing.assert_allclose(mean.numpy(), x.reshape(-1, 3).mean(0))


def test_set_diag_of_the_wrong_shape_fails_when_built():
    with tf.Graph().as_default():
        a = tf.compat.v1.placeholder(tf.float32, [2, 3, 3])
        d = tf.compat.v1.placeholder(tf.float32, [2, 2])
        # TF builds the op and fails when it runs.
        with pytest.raises(ValueError, match=r"MatrixSetDiagV3 op .*diagonal must have shape"):
            tf.linalg.set_diag(a, d)


def test_a_function_returning_a_string_returns_the_python_string():
    f = tf.function(lambda x: {"value": x, "label": "abc"})
    got = f(tf.ones([2]))  # TF: the label is a string tensor (symgrad has no string dtype)
    assert got["label"] == "abc"
    np.testing.assert_array_equal(got["value"].numpy(), [1.0, 1.0])


@pytest.mark.parametrize(
    "fn, x, tf_value",
    [
        (tf.tanh, 0.37719064950942993, 0.36026525497436523),
        (tf.sin, 4.099390029907227, -0.817926287651062),
        (tf.exp, 0.37719064950942993, 1.4581823348999023),
    ],
    ids=["tanh", "sin", "exp"],
)
def test_float32_transcendentals_are_numpys_a_few_ulps_from_tfs(fn, x, tf_value):
    got = fn(tf.constant(x, tf.float32)).numpy()
    want = np.float32(tf_value)  # TF 2.21 (Eigen's float32 approximation)
    assert got == getattr(np, fn.__name__)(np.float32(x))  # NumPy's float32 function
    # A few ulps from TF's; how many (0 included) depends on the CPU NumPy's SIMD code picks.
    assert_ulp(got, want, ulps=6)


def test_half_precision_rounds_intermediates_apart_from_tf():
    """float16 softmax and mean: TF 2.21's Eigen kernels and NumPy round the intermediate
    halves at other steps, so results are a few half ulps apart (each within a few ulps
    of the exact value).  A value too large for float16 is inf silently, as in TF."""
    got = tf.nn.softmax(tf.constant([1.0, 2.0, 3.0], tf.float16)).numpy()
    exact = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    tf_softmax = np.array([0.09002685546875, 0.24462890625, 0.6650390625], np.float16)
    assert_ulp(got, tf_softmax, ulps=2)
    assert_ulp(got, exact.astype(np.float16), ulps=2)
    mean = tf.reduce_mean(tf.constant([0.1] * 1000, tf.float16)).numpy()
    assert_ulp(mean, np.float16(0.0997314453125), ulps=4)  # TF's: 4 half ulps below 0.1
    assert_ulp(mean, np.float16(0.1), ulps=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(tf.constant(1e5, tf.float16).numpy())


@pytest.fixture
def sandbox():
    """Op types and rules registered inside a test are removed after it."""
    ops, rules = dict(OPS), dict(gradient_registry._registry)
    yield
    OPS.clear()
    OPS.update(ops)
    gradient_registry._registry.clear()
    gradient_registry._registry.update(rules)


def test_a_failed_run_puts_back_what_it_replaced_even_after_another_threads_update(sandbox):
    # Atomic runs are per run: when a run fails, the values its writes replaced come back,
    # so another thread's update of the same variable made in between is undone with it.
    written, go_on = threading.Event(), threading.Event()

    def block_then_fail(x):
        written.set()
        go_on.wait(10)
        raise RuntimeError("stop")

    op = tf.custom_op("SemanticsBlockThenFail", block_then_fail)
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable(0.0)
        inc = tf.compat.v1.assign_add(v, 1.0)
        with tf.control_dependencies([inc]):
            bad = op(v.read_value())
        inc10 = tf.compat.v1.assign_add(v, 10.0)
        init = tf.compat.v1.global_variables_initializer()
    sess = tf.Session(graph=v.graph)
    sess.run(init)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            sess.run(bad)
        except Exception as e:
            errors.append(e)

    t = threading.Thread(target=first)
    t.start()
    written.wait(10)
    sess.run(inc10)  # another thread's update, between the failing run's write and its end
    go_on.set()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], InvalidArgumentError)
    assert sess.run(v) == 0.0  # TF: 11.0 (no undo: both updates stay)


def test_custom_gradient_outputs_come_from_one_custom_gradient_op():
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 5.0

    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        y = f(x)
        assert y.op.type == "CustomGradient"  # TF: IdentityN, with a gradient override
        (g,) = tf.gradients(y, x)
        with tf.Session() as sess:
            assert sess.run(g, {x: [1.0, 2.0]}).tolist() == [5.0, 5.0]


def test_tensor_equality_follows_tf2s_rule():
    # TF 2.21: `==` is elementwise eagerly and in a traced function (a tf.data filter's
    # lambda, a `function`), identity for tensors of an explicit graph.
    evens = tf.data.Dataset.range(10).filter(lambda x: x % 2 == 0)
    assert [int(v) for v in evens.as_numpy_iterator()] == [0, 2, 4, 6, 8]

    @tf.function
    def compare(x):
        return x == 2.0, x != 2.0

    eq, ne = compare(tf.constant([1.0, 2.0]))
    assert eq.numpy().tolist() == [False, True] and ne.numpy().tolist() == [True, False]
    with tf.Graph().as_default():
        p = tf.constant([1.0, 2.0])
        assert (p == p) is True and (p == tf.constant([1.0, 2.0])) is False


def test_an_eager_dtype_error_is_tfs_invalid_argument_error_and_a_graphs_a_type_error():
    """TF 2.21: eagerly, ``tf.constant(1.0) + tf.constant(1)`` and ``tf.nn.softmax`` of an
    int32 tensor raise InvalidArgumentError; in a graph or while tracing, TypeError.
    symgrad's eager error is both (so either ``except`` catches it), naming the op."""
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2 op .* dtype int32") as e:
        tf.constant(1.0) + tf.constant(1)
    assert isinstance(e.value, TypeError)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Softmax op .* int32"):
        tf.nn.softmax(tf.constant([1, 2]))

    @tf.function
    def traced():
        return tf.constant(1.0) + tf.constant(1)

    with pytest.raises(TypeError) as e:
        traced()
    assert not isinstance(e.value, tf.errors.InvalidArgumentError)
    with tf.Graph().as_default(), pytest.raises(TypeError) as e:
        tf.constant(1.0) + tf.constant(1)
    assert not isinstance(e.value, tf.errors.InvalidArgumentError)


def test_variables_compare_and_hash_by_identity():
    """TF 2.21 eagerly compares variables elementwise and refuses to hash them; symgrad
    keeps identity (docs/semantics.md), so ``v in [w]`` never finds an equal-valued other."""
    v, w = tf.Variable(1.0), tf.Variable(1.0)
    assert (v == w) is False and (v == v) is True and v not in [w] and {v: 1}[v] == 1
