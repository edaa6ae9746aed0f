"""Op table: elementwise math, AddN, MatMul, BatchMatMulV2, complex ops, Identity, Cast."""

import numpy as np
import pytest
from optable import OpCase, complex_randn, fixed, parametrize, positive, randn, uniform

import symgrad as tf

C = (np.complex64, np.complex128)
I32 = np.int32


def _u(op_type, fn, ref, gen=None, **kw):
    return OpCase(op_type, fn, ref, [gen or randn(3, 4)], **kw)


def _b(op_type, fn, ref, g1=None, g2=None, **kw):
    return OpCase(op_type, fn, ref, [g1 or randn(2, 3, 4), g2 or randn(3, 1)], **kw)


CASES = [
    _u("Neg", tf.negative, np.negative),
    _u("Exp", tf.exp, np.exp),
    _u("Log", tf.log, np.log, positive(3, 4)),
    _u("Log1p", tf.log1p, np.log1p, positive(3, 4)),
    _u("Sqrt", tf.sqrt, np.sqrt, positive(3, 4)),
    _u("Rsqrt", tf.rsqrt, lambda x: 1 / np.sqrt(x), positive(3, 4)),
    _u("Square", tf.square, np.square),
    _u("Abs", tf.abs, np.abs, uniform(0.2, 1.0, 3, 4), order2=False),
    _u("Sign", tf.sign, np.sign, uniform(0.2, 1.0, 3, 4)),
    _u("Sin", tf.sin, np.sin),
    _u("Cos", tf.cos, np.cos),
    _u("Tan", tf.tan, np.tan, uniform(-1, 1, 3, 4)),
    _u("Tanh", tf.tanh, np.tanh),
    _u("Sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    _u("Reciprocal", tf.reciprocal, lambda x: 1 / x, positive(3, 4)),
    _u("Erf", tf.erf, lambda x: np.vectorize(__import__("math").erf)(x)),
    _u("Exp", tf.exp, np.exp, complex_randn(3, 4), dtypes=C, name="complex"),
    _u("Log", tf.log, np.log, complex_randn(3, 4), dtypes=C, name="complex"),
    _b("AddV2", tf.add, np.add),
    _b("Sub", tf.subtract, np.subtract),
    _b("Mul", tf.multiply, np.multiply),
    _b("Mul", tf.multiply, np.multiply, complex_randn(2, 3), complex_randn(3), dtypes=C,
       name="complex"),
    _b("RealDiv", tf.divide, np.divide, None, positive(3, 1)),
    _b("Pow", tf.pow, np.power, positive(2, 3, 4), randn(3, 1)),
    _b("Maximum", tf.maximum, np.maximum, order2=False),
    _b("Minimum", tf.minimum, np.minimum, order2=False),
    _b("SquaredDifference", tf.squared_difference, lambda x, y: (x - y) ** 2),
    _b("FloorMod", tf.floormod, np.mod, uniform(1, 5, 2, 3, 4), uniform(1.5, 2, 3, 1),
       order2=False),
    _b("FloorDiv", tf.floordiv, np.floor_divide, uniform(1, 5, 2, 3, 4), uniform(1.5, 2, 3, 1),
       grad=False),
    OpCase("AddN", lambda a, b, c: tf.add_n([a, b, c]), lambda a, b, c: a + b + c,
           [randn(3, 4), randn(3, 4), randn(3, 4)]),
    OpCase("MatMul", tf.matmul, np.matmul, [randn(3, 4), randn(4, 5)]),
    OpCase("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True),
           lambda a, b: a.T @ b, [randn(4, 3), randn(4, 5)], name="ta"),
    OpCase("MatMul", lambda a, b: tf.matmul(a, b, transpose_b=True),
           lambda a, b: a @ b.T, [randn(3, 4), randn(5, 4)], name="tb"),
    OpCase("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
           lambda a, b: a.T @ b.T, [randn(4, 3), randn(5, 4)], name="ta_tb"),
    OpCase("MatMul", lambda a, b: tf.matmul(a, b, adjoint_a=True),
           lambda a, b: a.conj().T @ b, [complex_randn(4, 3), complex_randn(4, 5)],
           dtypes=C, name="complex_adjoint"),
    OpCase("BatchMatMulV2", tf.matmul, np.matmul, [randn(2, 3, 4), randn(2, 4, 5)]),
    OpCase("BatchMatMulV2", tf.matmul, np.matmul, [randn(2, 1, 3, 4), randn(5, 4, 6)],
           name="broadcast"),
    OpCase("BatchMatMulV2", tf.matmul, np.matmul, [randn(3, 4), randn(2, 4, 5)], name="mixed"),
    OpCase("BatchMatMulV2", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
           lambda a, b: np.conj(np.swapaxes(a, -1, -2)) @ np.conj(np.swapaxes(b, -1, -2)),
           [complex_randn(2, 4, 3), complex_randn(2, 5, 4)], dtypes=C, name="adjoint"),
    OpCase("Conj", tf.conj, np.conj, [complex_randn(3, 4)], dtypes=C),
    OpCase("Real", tf.real, np.real, [complex_randn(3, 4)], dtypes=C),
    OpCase("Imag", tf.imag, np.imag, [complex_randn(3, 4)], dtypes=C),
    OpCase("Complex", tf.complex, lambda a, b: a + 1j * b, [randn(3, 4), randn(4)]),
    OpCase("Identity", tf.identity, lambda x: x, [randn(3, 4)]),
    OpCase("Cast", lambda x: tf.cast(x, tf.float64), lambda x: x.astype(np.float64),
           [randn(3, 4)], dtypes=(np.float32,), grad=False),
    OpCase("Cast", lambda x: tf.cast(tf.cast(x, tf.complex128), tf.float64), lambda x: x,
           [randn(3, 4)], dtypes=(np.float64,), name="via_complex"),
    OpCase("Cast", lambda x: tf.cast(x, tf.int32), lambda x: x.astype(np.int32),
           [uniform(-3, 3, 3, 4)], grad=False, name="to_int"),
    OpCase("Equal", tf.equal, np.equal, [fixed([1, 2, 3], I32), fixed([1, 0, 3], I32)],
           dtypes=(I32,), grad=False),
    OpCase("NotEqual", tf.not_equal, np.not_equal, [randn(3, 4), randn(4)], grad=False),
    OpCase("Less", tf.less, np.less, [randn(3, 4), randn(4)], grad=False),
    OpCase("LessEqual", tf.less_equal, np.less_equal, [randn(3, 4), randn(4)], grad=False),
    OpCase("Greater", tf.greater, np.greater, [randn(3, 4), randn(4)], grad=False),
    OpCase("GreaterEqual", tf.greater_equal, np.greater_equal, [randn(3, 4), randn(4)],
           grad=False),
    OpCase("LogicalAnd", tf.logical_and, np.logical_and,
           [fixed([True, False, True]), fixed([True, True, False])], grad=False),
    OpCase("LogicalOr", tf.logical_or, np.logical_or,
           [fixed([True, False, True]), fixed([False, False, True])], grad=False),
    OpCase("LogicalNot", tf.logical_not, np.logical_not, [fixed([True, False])], grad=False),
]

globals().update(parametrize(CASES))


def _raw(op_type):
    from symgrad.op_registry import apply_op

    return lambda *xs: apply_op(op_type, list(xs))._output(0)


EXTRA = [
    OpCase("ComplexAbs", tf.abs, np.abs, [complex_randn(3, 4)], dtypes=C),
    OpCase("Angle", tf.angle, np.angle, [complex_randn(3, 4)], dtypes=C),
    OpCase("IdentityN", lambda a, b: tf.identity_n([a, b]), lambda a, b: (a, b),
           [randn(3, 4), randn(2)]),
    OpCase("StopGradient", tf.stop_gradient, lambda x: x, [randn(3, 4)], grad=False),
    OpCase("PreventGradient", tf.prevent_gradient, lambda x: x, [randn(3, 4)], grad=False),
    OpCase("SqrtGrad", _raw("SqrtGrad"), lambda y, g: 0.5 * g / y,
           [positive(3, 4), randn(3, 4)]),
    OpCase("RsqrtGrad", _raw("RsqrtGrad"), lambda y, g: -0.5 * g * y ** 3,
           [positive(3, 4), randn(3, 4)]),
    # the backward kernels of Tanh and Sigmoid, differentiable again (second order)
    OpCase("TanhGrad", _raw("TanhGrad"), lambda y, dy: dy * (1 - y * y),
           [uniform(-0.9, 0.9, 3, 4), randn(3, 4)]),
    OpCase("SigmoidGrad", _raw("SigmoidGrad"), lambda y, dy: dy * y * (1 - y),
           [uniform(0.1, 0.9, 3, 4), randn(3, 4)]),
]

globals().update({f"{k}_extra": v for k, v in parametrize(EXTRA).items()})
CASES = CASES + EXTRA


def test_backward_kernel_ops_check_their_inputs():
    """TanhGrad/SigmoidGrad (and SqrtGrad, RsqrtGrad) take y and dy of one shape and dtype."""
    from symgrad.op_registry import apply_op

    y = tf.constant(np.zeros([2, 3], np.float32))
    with pytest.raises(ValueError, match="TanhGrad op .*y and dy must have the same shape, "
                                         r"got \(2, 3\) and \(3,\)"):
        apply_op("TanhGrad", [y, tf.constant(np.zeros([3], np.float32))])
    with pytest.raises(TypeError, match="SigmoidGrad op .*input 'dy' has dtype float64"):
        apply_op("SigmoidGrad", [y, tf.constant(np.zeros([2, 3]))])
    with pytest.raises(TypeError, match="SqrtGrad op .*input 'y' has dtype int32"):
        apply_op("SqrtGrad", [tf.constant([1, 2]), tf.constant([1, 2])])
