"""tf.numpy_function and tf.compat.v1.py_func (ops PyFunc, PyFuncStateless): TF 2.21's
results for the same programs (ops/script_programs.py, recorded in script_expected.py):
eagerly a plain call, in a function once per call (and per loop iteration, per branch
taken), in a Session per run, in tf.data per element; TF's error texts for what the
function returns or raises; None gradients; a stateless call folded and dropped as TF's."""

from __future__ import annotations

import numpy as np
import pytest
from ops.script_expected import EXPECTED
from ops.script_programs import NP_PROGRAMS, assert_same, plain

import symgrad as tf
from symgrad.core.op_registry import OPS

# Programs whose own NumPy arithmetic mixes a float32 array with a 0-d array or a Python
# number: NumPy 1's value-based casting gives another dtype than NumPy 2's rules, which
# TF's literals were recorded under (TF would return NumPy 1's dtypes with NumPy 1 too).
_NUMPY2_PROMOTION = {"np_eager", "np_in_function", "np_in_control_flow", "np_dataset"}


@pytest.mark.parametrize("program", NP_PROGRAMS, ids=lambda p: p.__name__)
def test_matches_tensorflow(program):
    if program.__name__ in _NUMPY2_PROMOTION and np.lib.NumpyVersion(np.__version__) < "2.0.0":
        pytest.skip("the program's NumPy arithmetic promotes by NumPy 1's value-based rules")
    assert_same(plain(program(tf)), EXPECTED[program.__name__], program.__name__)


def test_records_are_tensorflows():
    """PyFunc is stateful (never folded, merged or cached); PyFuncStateless is pure (a
    plan may fold it, as TF's grappler does); neither has a gradient: None, no error."""
    assert OPS["PyFunc"].stateful and not OPS["PyFunc"].pure
    assert OPS["PyFuncStateless"].pure and not OPS["PyFuncStateless"].stateful
    for op_type in ("PyFunc", "PyFuncStateless"):
        assert tf.gradient_registry.lookup(op_type) is None


def test_two_stateful_calls_of_one_function_both_run():
    calls = []

    def f(a):
        calls.append(a.tolist())
        return a

    @tf.function
    def g(x):
        return tf.numpy_function(f, [x], tf.float32) + tf.numpy_function(f, [x], tf.float32)

    assert g(tf.constant(2.0)).numpy() == 4.0
    assert calls == [2.0, 2.0]


def test_the_function_gets_copies_it_may_write():
    """A Const's array (read-only) and an input other ops read are not the function's."""

    def clobber(a):
        a[...] = -1.0
        return a

    @tf.function
    def g(x):
        return tf.numpy_function(clobber, [x], tf.float32) + x

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(g(x).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_jit_compile_refuses_it():
    pytest.importorskip("jax")  # (without it, jit_compile=True refuses at decoration)

    @tf.function(jit_compile=True)
    def g(x):
        return tf.numpy_function(lambda a: a, [x], tf.float32)

    with pytest.raises(Exception, match="PyFunc"):
        g(tf.constant(1.0))
