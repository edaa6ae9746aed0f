"""tf.py_function (op EagerPyFunc): TF 2.21's results for the same programs
(ops/script_programs.py, recorded in ops/script_expected.py): eagerly, in a function
(once per call), in a Session, in tf.data, in a TF1 top-level graph; TF's error texts;
its gradient, which replays the tape the function ran under (first order, eagerly, in a
function and through tf.gradients; a second order is None, a second gradient of one run
TF's KeyError); and those gradients against float64 finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from ops.script_expected import EXPECTED
from ops.script_programs import PY_PROGRAMS, assert_same, plain

import symgrad as tf
from symgrad.core.op_registry import OPS


@pytest.mark.parametrize("program", PY_PROGRAMS, ids=lambda p: p.__name__)
def test_matches_tensorflow(program):
    assert_same(plain(program(tf)), EXPECTED[program.__name__], program.__name__)


def _body(a, b):
    return tf.sin(a) * tf.reduce_sum(b * b) + tf.exp(a[:, :1]) * a


def _vjp_eager(x, y, u):
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.py_function(_body, [x, y], tf.float64)
    return tape.gradient(z, [x, y], output_gradients=u)


@pytest.mark.parametrize("vjp", [_vjp_eager, tf.function(_vjp_eager)], ids=["eager", "function"])
def test_gradient_matches_finite_differences(vjp):
    """<u, J v> of the replayed tape against central differences of the body, in float64
    (each forward run's gradient is taken once: a second is TF's KeyError)."""
    rng = np.random.default_rng(2)
    for _ in range(3):
        x, y, u = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((3, 4))
        dx, dy = (g.numpy() for g in vjp(tf.constant(x), tf.constant(y), tf.constant(u)))
        vx, vy, eps = rng.standard_normal((3, 4)), rng.standard_normal(4), 1e-6
        hi = _body(tf.constant(x + eps * vx), tf.constant(y + eps * vy)).numpy()
        lo = _body(tf.constant(x - eps * vx), tf.constant(y - eps * vy)).numpy()
        numeric = np.sum(u * (hi - lo)) / (2 * eps)
        np.testing.assert_allclose(np.sum(dx * vx) + np.sum(dy * vy), numeric, rtol=1e-7)


def test_the_kept_tape_goes_with_its_gradient():
    """What a run keeps for the gradient is taken by it (TF pops its tape_cache), and
    nothing is kept where no tape records."""
    x = tf.constant([1.0, 2.0])
    y = tf.py_function(lambda a: a * a, [x], tf.float32)
    assert y.op.get_attr("func").kept is None
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
    func = y.op.get_attr("func")
    assert func.kept is not None
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
    assert func.kept is None


def test_record_is_stateful_and_not_lowered():
    assert OPS["EagerPyFunc"].stateful and not OPS["EagerPyFunc"].pure
    pytest.importorskip("jax")
    from symgrad.runtime.xla.table import NO_LOWERING

    assert {"PyFunc", "PyFuncStateless", "EagerPyFunc"} <= set(NO_LOWERING)
