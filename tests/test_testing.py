"""symgrad.test: compute_gradient/max_error as TF2, and the checkers catching wrong rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.api.testing import GradientCheckError
from symgrad.ops.core import unbroadcast

RNG = np.random.default_rng(7)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


# --------------------------------------------------------------------------------------
# compute_gradient / max_error


def test_compute_gradient_matmul_matches_analytic_jacobians() -> None:
    a, b = randn(2, 3), randn(3, 4)
    (ja, jb), (na, nb) = tf.test.compute_gradient(tf.matmul, [a, b])
    # y[i, k] = Σ_j a[i, j] b[j, k]: rows are y's entries, columns x's entries.
    np.testing.assert_allclose(ja, np.kron(np.eye(2), b.T), atol=1e-12)
    np.testing.assert_allclose(jb, np.kron(a, np.eye(4)), atol=1e-12)
    assert ja.shape == (8, 6) and jb.shape == (8, 12)
    assert tf.test.max_error((ja, jb), (na, nb)) < 1e-10


def test_compute_gradient_elementwise_and_reduction() -> None:
    x = randn(5)
    (jt,), (jn,) = tf.test.compute_gradient(tf.sin, [x])
    np.testing.assert_allclose(jt, np.diag(np.cos(x)), atol=1e-12)
    np.testing.assert_allclose(jn, np.diag(np.cos(x)), atol=1e-6)
    (jt,), _ = tf.test.compute_gradient(lambda v: tf.reduce_sum(v * v), [x])
    np.testing.assert_allclose(jt, 2 * x[None, :], atol=1e-12)


def test_compute_gradient_keeps_tf_dtypes_and_default_delta() -> None:
    theoretical, numerical = tf.test.compute_gradient(lambda x: x * x, [1.0])
    assert isinstance(theoretical, tuple) and isinstance(numerical, tuple)
    assert theoretical[0].dtype == np.float32 and numerical[0].dtype == np.float32
    np.testing.assert_array_equal(theoretical[0], [[2.0]])
    np.testing.assert_allclose(numerical[0], [[2.0]], rtol=1e-3)


def test_compute_gradient_complex_counts_real_and_imaginary_parts() -> None:
    z = np.array([1 + 2j, 3 - 1j])
    (jt,), (jn,) = tf.test.compute_gradient(lambda v: v * v, [z])
    assert jt.shape == (4, 4) and jt.dtype == np.float64
    np.testing.assert_allclose(jt, jn, atol=1e-6)
    np.testing.assert_allclose(jt[:2, :2], [[2, -4], [4, 2]])  # 2z = 2 + 4i at z = 1 + 2i


def test_compute_gradient_in_a_graph_uses_a_session() -> None:
    x = randn(3)
    with tf.Graph().as_default():
        (jt,), (jn,) = tf.test.compute_gradient(tf.exp, [x])
    np.testing.assert_allclose(jt, np.diag(np.exp(x)), rtol=1e-12)
    assert tf.test.max_error([jt], [jn]) < 1e-5


def test_compute_gradient_unconnected_argument_gives_zeros() -> None:
    (_j0, j1), _ = tf.test.compute_gradient(lambda a, b: a * 2.0, [randn(2), randn(3)])
    np.testing.assert_array_equal(j1, np.zeros((2, 3)))


def test_compute_gradient_rejects_non_list_x() -> None:
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tf.test.compute_gradient(tf.sin, np.ones(3))  # type: ignore[arg-type]


def test_max_error() -> None:
    assert tf.test.max_error([np.array([1.0, 2.0])], [np.array([1.5, 2.0])]) == 0.5
    assert tf.test.max_error([np.zeros((0, 3))], [np.zeros((0, 3))]) == 0


# --------------------------------------------------------------------------------------
# check_vjp / check_gradient on correct rules


def test_checkers_pass_on_built_in_rules() -> None:
    tf.test.check_gradient("Mul", randn(3, 4), randn(4))  # broadcasting
    tf.test.check_gradient(
        "MatMul", randn(2, 3), randn(3, 4), attrs={"transpose_a": False, "transpose_b": False}
    )
    tf.test.check_gradient("Sin", randn(2, 3).astype(np.float32))
    tf.test.check_gradient(lambda z: z * tf.conj(z) * z, randn(3) + 1j * randn(3))
    tf.test.check_vjp(lambda x, axis: tf.reduce_sum(tf.tanh(x), axis), [randn(2, 3), 1], order=3)


def test_check_vjp_with_several_outputs_and_chosen_arguments() -> None:
    def two(x: tf.Tensor, y: tf.Tensor) -> list[tf.Tensor]:
        return [x * y, tf.sin(x)]

    tf.test.check_vjp(two, [randn(3), randn(3)], diff=[0], order=2)


def test_check_gradient_works_inside_a_graph() -> None:
    with tf.Graph().as_default():
        tf.test.check_gradient("Exp", randn(2, 3))


def test_gradient_check_error_is_an_assertion_error() -> None:
    assert issubclass(GradientCheckError, AssertionError)


# --------------------------------------------------------------------------------------
# Deliberately wrong user rules: each failure is named


def _mul_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x * y


def _broadcast_shape(a: tf.TensorShape, b: tf.TensorShape) -> Any:
    return np.broadcast_shapes(tuple(a.as_list()), tuple(b.as_list()))


tf.custom_op("TTWrongCount", _mul_kernel, _broadcast_shape, grad=lambda op, g: g * op.inputs[1])
tf.custom_op(
    "TTWrongShape",
    _mul_kernel,
    _broadcast_shape,
    grad=lambda op, g: (tf.reduce_sum(g * op.inputs[1], 0), g * op.inputs[0]),
)
tf.custom_op(
    "TTWrongDtype",
    _mul_kernel,
    _broadcast_shape,
    grad=lambda op, g: (tf.cast(g * op.inputs[1], tf.float32), g * op.inputs[0]),
)
tf.custom_op(
    "TTNoUnbroadcast",
    _mul_kernel,
    _broadcast_shape,
    grad=lambda op, g: (g * op.inputs[1], g * op.inputs[0]),
)
tf.custom_op(
    "TTUnbroadcast",
    _mul_kernel,
    _broadcast_shape,
    grad=lambda op, g: (
        unbroadcast(g * op.inputs[1], op.inputs[0]),
        unbroadcast(g * op.inputs[0], op.inputs[1]),
    ),
)
tf.custom_op("TTWrongValue", np.sin, lambda s: s, grad=lambda op, g: g * tf.sin(op.inputs[0]))
tf.custom_op(
    "TTNotTwice", np.sin, lambda s: s, grad=lambda op, g: g * tf.stop_gradient(tf.cos(op.inputs[0]))
)
tf.custom_op("TTRaises", np.sin, lambda s: s, grad=lambda op, g: 1 / 0)
tf.custom_op("TTNoRule", np.sin, lambda s: s)


def test_correct_user_rule_with_unbroadcast_passes() -> None:
    tf.test.check_gradient("TTUnbroadcast", randn(3, 4), randn(4))


def test_wrong_count_is_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"check_gradient\('TTWrongCount'\): the "
        r"gradient function returned 1 gradient\(s\) but the op has 2 input",
    ):
        tf.test.check_gradient("TTWrongCount", randn(3, 4), randn(3, 4))


def test_wrong_shape_is_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"TTWrongShape'\): the gradient for input 0 "
        r"has shape \(4,\) but the input has shape \(3, 4\)$",
    ):
        tf.test.check_gradient("TTWrongShape", randn(3, 4), randn(3, 4))


def test_wrong_dtype_is_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"TTWrongDtype'\): the gradient for input 0 "
        r"has dtype float32 but the input has dtype float64",
    ):
        tf.test.check_gradient("TTWrongDtype", randn(3, 4), randn(3, 4))


def test_missing_unbroadcast_is_named() -> None:
    # Same shapes pass: the rule is only wrong where an input was broadcast.
    tf.test.check_gradient("TTNoUnbroadcast", randn(3, 4), randn(3, 4))
    with pytest.raises(
        GradientCheckError,
        match=r"TTNoUnbroadcast'\): the gradient for input "
        r"1 has shape \(3, 4\) but the input has shape \(4,\) — that is the "
        r"output's shape: the input was broadcast, so its gradient must be "
        r"summed over the broadcast dimensions",
    ):
        tf.test.check_gradient("TTNoUnbroadcast", randn(3, 4), randn(4))


def test_wrong_values_are_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"TTWrongValue'\): wrong gradient for "
        r"argument 0 \(shape \(2, 3\)\): ⟨VJP\(u\), v⟩ = .* but central "
        r"differences give ⟨u, JVP\(v\)⟩ = ",
    ):
        tf.test.check_gradient("TTWrongValue", randn(2, 3))


def test_rule_that_is_not_differentiable_fails_at_order_two() -> None:
    tf.test.check_gradient("TTNotTwice", randn(2, 3), order=1)
    with pytest.raises(
        GradientCheckError,
        match=r"TTNotTwice'\) \[order 2: gradient of the "
        r"VJP\]: wrong gradient for argument 0",
    ):
        tf.test.check_gradient("TTNotTwice", randn(2, 3), order=2)


def test_rule_that_raises_is_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"TTRaises'\): the gradient function raised "
        r"ZeroDivisionError",
    ):
        tf.test.check_gradient("TTRaises", randn(2))


def test_missing_or_unknown_rule_is_named() -> None:
    with pytest.raises(
        GradientCheckError,
        match=r"no gradient is registered for op type "
        r"'TTNoRule'; register one with @RegisterGradient\('TTNoRule'\)",
    ):
        tf.test.check_gradient("TTNoRule", randn(2))
    with pytest.raises(GradientCheckError, match=r"no op type 'NoSuchOp' is registered"):
        tf.test.check_gradient("NoSuchOp", randn(2))
    with pytest.raises(GradientCheckError, match=r"registered as NoGradient"):
        tf.test.check_gradient("StopGradient", randn(2))


def test_check_vjp_names_a_wrong_function_gradient() -> None:
    def leaky(x: tf.Tensor) -> tf.Tensor:
        return x * tf.stop_gradient(x)  # true derivative 2x; backprop sees x

    with pytest.raises(GradientCheckError, match=r"^leaky: wrong gradient for argument 0"):
        tf.test.check_vjp(leaky, [randn(3)])


def test_check_vjp_reports_engine_errors_with_the_function_name() -> None:
    wrong = tf.custom_op(
        "TTEngineCount", _mul_kernel, _broadcast_shape, grad=lambda op, g: g * op.inputs[1]
    )
    with pytest.raises(
        GradientCheckError,
        match=r"^bad: backprop failed: ValueError: Num "
        r"gradients 1 generated for op",
    ):
        tf.test.check_vjp(lambda x, y: tf.sin(wrong(x, y)), [randn(2), randn(2)], name="bad")


def test_check_vjp_needs_a_float_argument() -> None:
    with pytest.raises(GradientCheckError, match="must be floating-point or complex"):
        tf.test.check_vjp(lambda i: tf.cast(i, tf.float64), [np.arange(3)])


def test_compute_gradient_takes_graph_constants():
    """TF's graph-mode tests pass a Const built in the graph as the point to check at."""
    with tf.Graph().as_default():
        x = tf.constant([3.0, 4.0], dtype=tf.float64)
        theoretical, numerical = tf.test.compute_gradient(tf.math.reduce_euclidean_norm, [x])
    np.testing.assert_allclose(theoretical[0], [[0.6, 0.8]])
    assert tf.test.max_error(theoretical, numerical) < 1e-6
