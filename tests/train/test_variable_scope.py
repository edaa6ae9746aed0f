"""TF1 variable management: TensorFlow 2.21's names, errors and initial values for the
programs of tf_variable_scope.py (numbers bit for bit)."""

import numpy as np
import pytest
import tf_variable_scope
from compare import assert_matches

import symgrad as tf

LITERALS = {
    "naming": (
        "layer/w:0",
        "layer/b:0",
        "layer/x:0",
        "layer/c:0",
        True,
        True,
        "layer_1/c:0",
        "ValueError: Variable layer/nope does not exist, or was not created with "
        "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
        "ValueError: Trying to share variable layer/w, but specified shape (3, 3) and found "
        "shape (2, 3).",
        "ValueError: Trying to share variable layer/w, but specified dtype float64 and found "
        "dtype float32.",
        "ValueError: Variable layer/w already exists, disallowed. Did you mean to set "
        "reuse=True or reuse=tf.AUTO_REUSE in VarScope?",
        True,
        "layer_3/d:0",
        "layer",
        "layer_2/",
        True,
        "outer/inner/v:0",
        "outer/inner",
        "outer/blk/v:0",
        "outer/blk_1/v:0",
        "outer/blk/v:0",
        True,
        "ValueError: Variable noshape did not get an initializer, so its `shape` argument must "
        "be specified.",
        (
            "layer/w:0",
            "layer/b:0",
            "layer/x:0",
            "auto/a:0",
            "outer/inner/v:0",
            "outer/blk/v:0",
            "outer/blk_1/v:0",
        ),
        ("outer/inner/v:0", "outer/blk/v:0", "outer/blk_1/v:0"),
        (3, 4),
    ),
    "initial_values": (
        [3.0, 3.0],
        [1.0, 1.0],
        [[-0.6948085, 0.4162463, 0.3795166], [-0.10467249, 0.6073456, 0.9991684]],
        [0.31155515, 0.99370843],
        [[0.7446209, 1.0149789], [-0.2517197, -0.6442511], [0.2534424, 0.5788572]],
        [-0.87252676, -0.920335],
        [[1.412512, -0.13314924], [-0.7456165, 1.1011924]],
        [-2.9233975, -1.1803744],
        [0.6797428, 0.92654467],
        [[1.0, 2.0], [3.0, 4.0]],
        [0, 0],
        [1.5, 2.5],
    ),
    "eager_initial_values": (
        [[-0.8026038, 0.14865863, -0.008036852], [-1.0584953, 0.009950519, 0.54494286]],
        [0.83315724, 0.35259873],
        [-0.45067555, -0.6528815],
    ),
    "state_ops": (
        [[2.0, 4.0]],
        [[6.0, 8.0], [10.0, 12.0]],
        "(None, 2)",
        [1.5, 2.5],
        [2.0, 3.0],
        [1.0, 3.0],
        [7.0, 8.0],
        [7.0, 8.0],
    ),
}


@pytest.mark.parametrize("program", tf_variable_scope.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    tf.reset_default_graph()  # a fresh variable store at top level, as a new program has
    try:
        assert_matches(program(tf), LITERALS[program.__name__])
    finally:
        tf.reset_default_graph()


# -------------------------------------------------------------------------------------
# symgrad's choices where TF2's eager mode differs, and the pieces TF1 code leans on


@pytest.fixture
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_top_level_shares_as_a_tf1_graph(fresh_graph):
    v1 = tf.compat.v1
    with v1.variable_scope("tower"):
        w = v1.get_variable("w", [2], initializer=v1.ones_initializer())
    with v1.variable_scope("tower", reuse=True):
        assert v1.get_variable("w") is w
    with pytest.raises(ValueError, match="already exists"), v1.variable_scope("tower"):
        v1.get_variable("w", [2])
    assert v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES) == [w]
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])  # made at top level: ready at once


def test_get_variable_in_a_function_lives_outside(fresh_graph):
    v1 = tf.compat.v1

    @tf.function
    def f(x):
        with v1.variable_scope("f", reuse=v1.AUTO_REUSE):
            w = v1.get_variable("w", [], initializer=v1.constant_initializer(2.0))
        return w * x

    assert f(tf.constant(3.0)).numpy() == 6.0
    assert f(tf.constant(4.0)).numpy() == 8.0
    assert [v.name for v in v1.get_collection(v1.GraphKeys.GLOBAL_VARIABLES)] == ["f/w:0"]


def test_initializer_arguments():
    v1 = tf.compat.v1
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        v1.constant_initializer(object())
    with pytest.raises(ValueError, match="Argument `dtype` is expected to be floating point"):
        v1.random_normal_initializer(dtype=tf.int32)
    with pytest.raises(ValueError, match="`mode` should be one of"):
        v1.variance_scaling_initializer(mode="fan_max")
    with tf.Graph().as_default(), pytest.raises(ValueError, match="do not specify shape"):
        v1.get_variable("c", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="`ref` must be a tf.Variable"):
        v1.assign(tf.constant(1.0), 2.0)


def test_regularizer_losses_are_collected():
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        with v1.variable_scope("r", regularizer=lambda w: tf.reduce_sum(w * w)):
            w = v1.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        (loss,) = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        with v1.Session() as sess:
            sess.run(w.initializer)
            assert sess.run(loss) == 5.0


def test_placeholder_with_default_gradient_and_shape_check():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.compat.v1.placeholder_with_default(x, [2]) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])
    with pytest.raises(ValueError, match="not compatible with the declared shape"):
        tf.compat.v1.placeholder_with_default(x, [3])


def test_sharing_checks_the_scope_dtype_when_none_is_given(fresh_graph):
    """TF 2.21: a variable made from a float64 initializer, shared again without dtype=,
    is checked against the scope's float32 (the first call itself gives float64)."""

    def make():
        with tf.compat.v1.variable_scope("q", reuse=tf.compat.v1.AUTO_REUSE):
            return tf.compat.v1.get_variable("w", initializer=np.array([1.0, 2.0]))

    assert make().dtype == tf.float64
    with pytest.raises(
        ValueError,
        match="^Trying to share variable q/w, but specified dtype float32 and found dtype "
        "float64.$",
    ):
        make()
    with tf.compat.v1.variable_scope("q", reuse=True):
        assert tf.compat.v1.get_variable("w", dtype=tf.float64).dtype == tf.float64
