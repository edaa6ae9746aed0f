"""Kernels run with NumPy's floating-point errors ignored (inf and nan are values, as in TF),
whatever the caller's ``np.errstate``, and leave the caller's state as it was: through
NumPy's error-state variable where the public API confirmed at import that setting it
works: NumPy's error-state variable (NumPy 2.x) or its per-thread error object (NumPy 1.x,
``errstate._ErrObj``); else through ``np.errstate``.  The elementwise fast path runs its
kernels through each thread's ``quiet_run`` (a context in which the variable is "ignore",
on NumPy 2)."""

import threading

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import eager as eager_module
from symgrad.core import errstate, fast_path, op_registry
from symgrad.core.context import current


def _divide_by_zero_eagerly_and_in_a_session():
    eager = (tf.constant([1.0, 0.0]) / 0.0).numpy()
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        y = x / 0.0
        with tf.compat.v1.Session() as sess:
            run = sess.run(y, {x: [1.0, 0.0]})
    return eager, run


@pytest.mark.parametrize("path", ["as_set_at_import", "np.errstate"])
def test_kernels_ignore_the_callers_raise_and_keep_it(monkeypatch, path):
    if path == "np.errstate":
        monkeypatch.setattr(op_registry, "ERRSTATE", None)
        monkeypatch.setattr(eager_module, "ERRSTATE", None)
        monkeypatch.setattr(fast_path, "ERRSTATE", None)  # the elementwise wrappers' light path
    with np.errstate(all="raise"):
        eager, run = _divide_by_zero_eagerly_and_in_a_session()
        assert np.geterr() == dict.fromkeys(("divide", "over", "under", "invalid"), "raise")
        with pytest.raises(FloatingPointError):
            np.ones(1) / 0.0  # the caller's own NumPy code still raises
    for got in (eager, run):
        assert np.isinf(got[0]) and np.isnan(got[1])


def test_the_error_state_variable_is_used_only_where_it_works():
    var, ignore = op_registry._errstate_var()
    assert var is not None and ignore is not None  # NumPy 2.x and 1.x both have one
    assert type(var) is type(op_registry.ERRSTATE)
    if np.__version__ < "2":
        assert type(var) is errstate._ErrObj and ignore == 0  # the error mask: all "ignore"
    with np.errstate(all="raise"):
        token = var.set(ignore)
        try:
            assert np.geterr() == dict.fromkeys(("divide", "over", "under", "invalid"), "ignore")
        finally:
            var.reset(token)
        assert np.geterr()["divide"] == "raise"


def _quiet_run_or_skip():
    if errstate.ERRSTATE is None:
        pytest.skip("NumPy's error state is set through np.errstate here")
    tf.sin(tf.constant([1.0]))  # the thread's first fast op makes its runner
    return current.__dict__["quiet_run"]


def test_quiet_run_ignores_the_callers_raise_and_keeps_it():
    run = _quiet_run_or_skip()
    if errstate._CONTEXTS:  # NumPy 2: a context's run, NumPy 1.x: set and reset
        assert type(run).__name__ == "builtin_function_or_method"
    with np.errstate(all="raise", under="warn"):
        got = run(np.divide, np.array([1.0, 0.0, -1.0]), 0.0)
        assert np.geterr() == {
            "divide": "raise",
            "over": "raise",
            "under": "warn",
            "invalid": "raise",
        }
    assert got[0] == np.inf and np.isnan(got[1]) and got[2] == -np.inf
    with np.errstate(all="raise"):  # the fast path's ops: values, no FloatingPointError
        x = tf.constant([1.0, 0.0, 1e30], tf.float32)
        y = (x / 0.0).numpy(), (x * 1e30).numpy(), tf.math.log(x - 1.0).numpy()
    np.testing.assert_array_equal(y[0][[0, 2]], [np.inf, np.inf])
    assert np.isnan(y[0][1]) and y[1][2] == np.inf and np.isnan(tf.sqrt(-x).numpy()[0])
    assert y[2][0] == -np.inf and np.isnan(y[2][1])


def test_each_thread_has_its_own_quiet_run():
    run = _quiet_run_or_skip()
    seen = []

    def worker():
        with np.errstate(all="raise"):
            seen.append(((tf.constant([1.0, -1.0]) / 0.0).numpy(), np.geterr()["divide"]))
        seen.append(current.__dict__.get("quiet_run"))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    values = [s for s in seen if type(s) is tuple]
    runs = [s for s in seen if type(s) is not tuple]
    assert [list(v) for v, _ in values] == [[np.inf, -np.inf]] * 2
    assert [mode for _, mode in values] == ["raise", "raise"]
    assert len(runs) == 2 and None not in runs
    if errstate._CONTEXTS:  # each its own context: one thread cannot block another
        assert runs[0] is not runs[1] and run not in runs


def test_a_kernel_that_reenters_the_fast_path_gets_the_general_path():
    # The context is entered while the outer kernel runs: the inner op's fast path gets
    # RuntimeError from entering it again and hands the op to the general path.
    run = _quiet_run_or_skip()
    inner = run(lambda a: (tf.constant(a) / 0.0).numpy(), np.array([2.0, 0.0], np.float32))
    assert inner[0] == np.inf and np.isnan(inner[1])
