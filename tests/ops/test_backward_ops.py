"""The backward-kernel ops (TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad) check their inputs."""

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.op_registry import apply_op


def test_backward_kernel_ops_check_their_inputs():
    """They take y and dy of one shape and dtype, as TF's kernels do."""
    y = tf.constant(np.zeros([2, 3], np.float32))
    with pytest.raises(
        ValueError,
        match="TanhGrad op .*y and dy must have the same shape, "
        r"got \(2, 3\) and \(3,\)",
    ):
        apply_op("TanhGrad", [y, tf.constant(np.zeros([3], np.float32))])
    with pytest.raises(TypeError, match="SigmoidGrad op .*input 'dy' has dtype float64"):
        apply_op("SigmoidGrad", [y, tf.constant(np.zeros([2, 3]))])
    with pytest.raises(TypeError, match="SqrtGrad op .*input 'y' has dtype int32"):
        apply_op("SqrtGrad", [tf.constant([1, 2]), tf.constant([1, 2])])
