"""tf.debugging with TF 2.21's texts, error types and signatures (each literal below is
TensorFlow's output for the same program), eagerly, in a graph and in a function; and
DType's max/min/limits/is_compatible_with/real_dtype/size."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import symgrad as tf
from symgrad.compat import v1
from symgrad.core.errors import InvalidArgumentError


def _raises(kind: type, text: str, f) -> None:
    with pytest.raises(kind) as info:
        f()
    assert str(info.value) == text


X, Y = [1.0, 2.0], [1.0, 3.0]


def test_binary_asserts_eagerly():
    x, y = tf.constant(X), tf.constant(Y)
    assert tf.debugging.assert_equal(x, x) is None
    _raises(
        InvalidArgumentError,
        "boom\nCondition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
        "Corresponding x values:\n[2.]\nCorresponding y values:\n[3.]\n"
        "First 2 elements of x:\n[1. 2.]\nFirst 2 elements of y:\n[1. 3.]",
        lambda: tf.debugging.assert_equal(x, y, message="boom"),
    )
    _raises(
        InvalidArgumentError,
        "Condition x < y did not hold.\nIndices of first 2 different values:\n[[0]\n [1]]\n"
        "Corresponding x values:\n[1. 3.]\nCorresponding y values:\n[1. 2.]\n"
        "First 2 elements of x:\n[1. 3.]\nFirst 2 elements of y:\n[1. 2.]",
        lambda: tf.assert_less(y, x),
    )
    _raises(
        InvalidArgumentError,
        "Condition x == y did not hold.\nFirst 3 elements of x:\n[1 2 3]\n"
        "First 1 elements of y:\n[2]",
        lambda: tf.debugging.assert_equal(tf.constant([1, 2, 3]), 2),
    )
    _raises(
        InvalidArgumentError,
        "Condition x < y did not hold.\nFirst 2 elements of x:\n[0 1]\nFirst 1 elements of y:\n[0]",
        lambda: tf.debugging.assert_less(tf.range(10), 0, summarize=2),
    )
    for f in (tf.debugging.assert_greater, tf.debugging.assert_greater_equal):
        with pytest.raises(InvalidArgumentError):
            f(x, y)
    tf.debugging.assert_less_equal(x, y)
    tf.debugging.assert_none_equal(x, x + 1.0)


def test_sign_asserts_eagerly():
    x = tf.constant(X)
    _raises(
        InvalidArgumentError,
        "hey.  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n"
        "['-1.0', '-2.0']",
        lambda: tf.debugging.assert_positive(-x, message="hey"),
    )
    _raises(
        InvalidArgumentError,
        "\nCondition x <= 0 did not hold element-wise:x (shape=(2,) dtype=float32) = \n"
        "['1.0', '2.0']",
        lambda: tf.debugging.assert_non_positive(x),
    )
    _raises(
        InvalidArgumentError,
        "\nCondition x >= 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n"
        "['-1.0', '-2.0']",
        lambda: tf.debugging.assert_non_negative(-x),
    )
    assert tf.debugging.assert_negative(-x) is None


def test_static_checks_eagerly_and_in_a_graph():
    x = tf.constant(X)
    _raises(
        ValueError,
        "hey.  Tensor  must have rank 2.  Received rank 1, shape (2,)",
        lambda: tf.debugging.assert_rank(x, 2, message="hey"),
    )
    _raises(
        ValueError,
        "Tensor  must have rank at least 2.  Received rank 1, shape (2,)",
        lambda: tf.debugging.assert_rank_at_least(x, 2),
    )
    _raises(
        ValueError,
        "Tensor  must have rank in (0, 2).  Received rank 1, shape (2,)",
        lambda: tf.debugging.assert_rank_in(x, [0, 2]),
    )
    _raises(
        ValueError,
        "hey.  Expected scalar shape, saw shape: (2,).",
        lambda: tf.debugging.assert_scalar(x, message="hey"),
    )
    _raises(
        TypeError,
        "hey.  tensor must be of type tf.int32; got tf.float32",
        lambda: tf.debugging.assert_type(x, tf.int32, message="hey"),
    )
    _raises(
        TypeError,
        "Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>",
        lambda: tf.debugging.assert_integer(x),
    )
    _raises(
        ValueError,
        "Specified by tensor shape=(2,) dtype=float32 dimension 0.  Tensor shape=(3, 2) "
        "dtype=float32 dimension 0 must have size 2.  Received size 3, shape (3, 2)",
        lambda: tf.debugging.assert_shapes([(x, ("N",)), (tf.zeros([3, 2]), ("N", 2))]),
    )
    _raises(
        ValueError,
        "hey.  Specified explicitly.  Tensor shape=(2,) dtype=float32 dimension 0 must have "
        "size 3.  Received size 2, shape (2,)",
        lambda: tf.debugging.assert_shapes([(x, (3,))], message="hey"),
    )
    assert tf.debugging.assert_shapes([(x, ("N",)), (tf.zeros([2, 2]), ("N", 2))]) is None
    assert tf.debugging.assert_scalar(tf.constant(1.0)) is None
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        _raises(
            ValueError,
            "hey.  Tensor p:0 must have rank 2.  Received rank 1, shape (2,)",
            lambda: tf.debugging.assert_rank(p, 2, message="hey"),
        )
        _raises(
            TypeError,
            "p:0 must be of type tf.int32; got tf.float32",
            lambda: tf.debugging.assert_type(p, tf.int32),
        )
        _raises(
            ValueError,
            "Expected scalar shape for p:0, saw shape: (2,).",
            lambda: tf.debugging.assert_scalar(p),
        )
        _raises(
            ValueError,
            "Specified explicitly.  Tensor p:0 dimension 0 must have size 3.  Received size 2, "
            "shape (2,)",
            lambda: tf.debugging.assert_shapes([(p, (3,))]),
        )
        _raises(
            InvalidArgumentError,
            "Condition x == y did not hold element-wise:\nx (Const:0) = \n[1 2]\n"
            "y (Const_1:0) = \n[1 3]",
            lambda: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3])),
        )
        q = tf.placeholder(tf.float32, None, name="q")
        dynamic = tf.debugging.assert_rank(q, 2)
        with tf.Session() as sess:
            _raises(
                InvalidArgumentError,
                "assertion failed: [] [Tensor q:0 must have rank] [2] [Received shape: ] [1]",
                lambda: sess.run(dynamic, {q: [1.0]}),
            )


def test_graph_asserts_run_with_the_step():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        check = tf.debugging.assert_equal(p, tf.constant(Y))
        positive = tf.debugging.assert_positive(p)
        v1_check = v1.assert_less(p, tf.constant([1.5, 1.5]), data=["extra", p])
        with tf.control_dependencies([check]):
            z = p * 2.0
        with tf.Session() as sess:
            assert sess.run(z, {p: Y}).tolist() == [2.0, 6.0]
            _raises(
                InvalidArgumentError,
                "assertion failed: [Condition x == y did not hold element-wise:] [x (p:0) = ] "
                "[1 2] [y (Const:0) = ] [1 3]",
                lambda: sess.run(z, {p: X}),
            )
            _raises(
                InvalidArgumentError,
                "assertion failed: [] [Condition x > 0 did not hold element-wise:] "
                "[x (p:0) = ] [-1 2]",
                lambda: sess.run(positive, {p: [-1.0, 2.0]}),
            )
            _raises(
                InvalidArgumentError,
                "assertion failed: [extra] [1 2]",
                lambda: sess.run(v1_check, {p: X}),
            )


def test_asserts_in_a_function_run_in_program_order():
    @tf.function
    def f(a, b):
        tf.debugging.assert_less(a, b, message="in fn")
        return a + 1.0

    assert f(tf.constant(X), tf.constant([2.0, 3.0])).numpy().tolist() == [2.0, 3.0]
    _raises(
        InvalidArgumentError,
        "assertion failed: [in fn] [Condition x < y did not hold element-wise:] "
        "[x (a:0) = ] [1 3] [y (b:0) = ] [1 2]",
        lambda: f(tf.constant(Y), tf.constant(X)),
    )


def test_check_numerics_and_assert_all_finite():
    x = tf.constant(X)
    assert tf.debugging.check_numerics(x, "m").numpy().tolist() == X
    _raises(
        InvalidArgumentError,
        "logmsg : Tensor had NaN values [Op:CheckNumerics] name: ",
        lambda: tf.debugging.check_numerics(tf.math.log(-x), "logmsg"),
    )
    _raises(
        InvalidArgumentError,
        "bad : Tensor had Inf values [Op:CheckNumerics] name: ",
        lambda: tf.debugging.assert_all_finite(x / 0.0, "bad"),
    )
    _raises(
        InvalidArgumentError,
        "m : Tensor had Inf and NaN values [Op:CheckNumerics] name: ",
        lambda: tf.debugging.check_numerics(tf.constant([np.nan, np.inf]), "m"),
    )
    # TF 2.21's eager text but for the device it names first ("{{function_node ...}} ")
    _raises(
        InvalidArgumentError,
        "bad x : Tensor had NaN values [Op:CheckNumerics] name: cn",
        lambda: tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad x", name="cn"),
    )
    with pytest.raises(TypeError, match="input 'tensor' has dtype int32"):
        tf.debugging.check_numerics(tf.constant([1]), "m")
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2])
        c = tf.debugging.check_numerics(p, "cn")
        with tf.Session() as sess:
            _raises(
                InvalidArgumentError,
                "cn : Tensor had NaN values",
                lambda: sess.run(c, {p: [np.nan, 1.0]}),
            )


def test_check_numerics_checks_the_gradient_too():
    x = tf.constant([0.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.debugging.check_numerics(tf.sqrt(x) * 0.0 + x, "fwd")
        z = tf.sqrt(y)
    _raises(
        InvalidArgumentError,
        "Not a number (NaN) or infinity (Inf) values detected in gradient. b'fwd' : "
        "Tensor had Inf values [Op:CheckNumerics] name: ",
        lambda: tape.gradient(z, x),
    )


def test_enable_check_numerics_is_tf_debugging_s():
    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(InvalidArgumentError, match='of eagerly-executing op "Log"'):
            tf.math.log(tf.constant(0.0))
    finally:
        tf.debugging.disable_check_numerics()
    assert tf.math.log(tf.constant(0.0)).numpy() == -np.inf


def test_assert_near_names_tensors_as_tf():
    # TF 2.21's eager text: its tensors as str() writes them, "tf.Tensor(...)"
    _raises(
        InvalidArgumentError,
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), "
        "dtype=float32), atol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, 2.0\nb'y (shape=(2,) dtype=float32) = '\n"
        "1.0, 2.5",
        lambda: tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.5])),
    )


def test_assert_and_is_numeric_tensor():
    _raises(
        InvalidArgumentError,
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
        "1.0, 2.0\nb'hi'",
        lambda: tf.debugging.Assert(False, [tf.constant(X), "hi"]),
    )
    assert tf.debugging.is_numeric_tensor(tf.constant(X))
    assert not tf.debugging.is_numeric_tensor(np.ones(2))
    assert not tf.debugging.is_numeric_tensor(tf.constant([True]))


# TF 2.21's signatures (inspect.signature in the TF venv)
SIGNATURES = {
    "enable_check_numerics": "(stack_height_limit=30, path_length_limit=50)",
    "disable_check_numerics": "()",
    "check_numerics": "(tensor, message, name=None)",
    "assert_equal": "(x, y, message=None, summarize=None, name=None)",
    "assert_near": "(x, y, rtol=None, atol=None, message=None, summarize=None, name=None)",
    "assert_less": "(x, y, message=None, summarize=None, name=None)",
    "assert_greater": "(x, y, message=None, summarize=None, name=None)",
    "assert_less_equal": "(x, y, message=None, summarize=None, name=None)",
    "assert_greater_equal": "(x, y, message=None, summarize=None, name=None)",
    "assert_none_equal": "(x, y, summarize=None, message=None, name=None)",
    "assert_non_negative": "(x, message=None, summarize=None, name=None)",
    "assert_positive": "(x, message=None, summarize=None, name=None)",
    "assert_negative": "(x, message=None, summarize=None, name=None)",
    "assert_non_positive": "(x, message=None, summarize=None, name=None)",
    "assert_type": "(tensor, tf_type, message=None, name=None)",
    "assert_rank_at_least": "(x, rank, message=None, name=None)",
    "assert_rank_in": "(x, ranks, message=None, name=None)",
    "assert_integer": "(x, message=None, name=None)",
    "assert_rank": "(x, rank, message=None, name=None)",
    "assert_scalar": "(tensor, message=None, name=None)",
    "assert_shapes": "(shapes, data=None, summarize=None, message=None, name=None)",
    "assert_all_finite": "(x, message, name=None)",
    "Assert": "(condition, data, summarize=None, name=None)",
    "is_numeric_tensor": "(tensor)",
}
V1_SIGNATURES = {
    "assert_equal": "(x, y, data=None, summarize=None, message=None, name=None)",
    "assert_near": "(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, "
    "name=None)",
    "assert_none_equal": "(x, y, data=None, summarize=None, message=None, name=None)",
    "assert_positive": "(x, data=None, summarize=None, message=None, name=None)",
    "assert_non_positive": "(x, data=None, summarize=None, message=None, name=None)",
    "assert_rank": "(x, rank, data=None, summarize=None, message=None, name=None)",
    "assert_rank_in": "(x, ranks, data=None, summarize=None, message=None, name=None)",
    "assert_scalar": "(tensor, name=None, message=None)",
    "assert_type": "(tensor, tf_type, message=None, name=None)",
    "assert_all_finite": "(t=None, msg=None, name=None, x=None, message=None)",
}


def _plain(f) -> str:
    sig = inspect.signature(f)
    return str(
        sig.replace(
            parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
            return_annotation=sig.empty,
        )
    )


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_tf2_signatures(name):
    assert _plain(getattr(tf.debugging, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(V1_SIGNATURES))
def test_tf1_signatures(name):
    assert _plain(getattr(v1.debugging, name)) == V1_SIGNATURES[name]
    if name != "assert_all_finite":  # not at compat.v1's top level in TF
        assert getattr(v1, name) is getattr(v1.debugging, name)


def test_top_level_names_are_tf_s():
    for name in ("assert_equal", "assert_greater", "assert_less", "assert_rank", "Assert"):
        assert getattr(tf, name) is getattr(tf.debugging, name)


def test_dtype_limits_as_tf():
    assert tf.float64.max == np.float64(1.7976931348623157e308)
    assert tf.float64.min == -np.float64(1.7976931348623157e308)
    assert tf.float32.max == np.float32(3.4028235e38) and type(tf.float32.max) is np.float32
    assert tf.float16.max == np.float16(65504.0)
    assert (tf.int32.max, tf.int32.min, tf.uint8.max, tf.uint8.min) == (
        2147483647,
        -2147483648,
        255,
        0,
    )
    assert type(tf.int64.max) is int
    assert tf.float64.limits == (0, 1) and tf.int8.limits == (0, 127)
    assert tf.bool.limits == (0, True)
    _raises(
        ValueError, "<dtype: 'float16'> does not have defined limits.", lambda: tf.float16.limits
    )
    _raises(
        TypeError,
        "Cannot find maximum value of <dtype: 'bool'> with type <dtype: 'bool'>.",
        lambda: tf.bool.max,
    )
    _raises(
        TypeError,
        "Cannot find minimum value of <dtype: 'complex64'> with type <dtype: 'complex64'>.",
        lambda: tf.complex64.min,
    )
    assert tf.float32.is_compatible_with(tf.float32) and tf.float32.is_compatible_with("float32")
    assert not tf.float32.is_compatible_with(tf.float64)
    assert tf.complex64.real_dtype == tf.float32 and tf.int32.real_dtype == tf.int32
    assert (tf.complex128.size, tf.float64.size, tf.bool.size, tf.int8.size) == (16, 8, 1, 1)
