"""Kernels run with NumPy's floating-point errors ignored (inf and nan are values, as in TF),
whatever the caller's ``np.errstate``, and leave the caller's state as it was: through
NumPy's error-state variable where the public API confirmed at import that setting it
works: NumPy's error-state variable (NumPy 2.x) or its per-thread error object (NumPy 1.x,
``eager._ErrObj``); else through ``np.errstate``."""

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import eager as eager_module
from symgrad.core import op_registry


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
        monkeypatch.setattr(eager_module, "ERRSTATE", None)  # the elementwise wrappers' light path
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
        assert type(var) is eager_module._ErrObj and ignore == 0  # the error mask: all "ignore"
    with np.errstate(all="raise"):
        token = var.set(ignore)
        try:
            assert np.geterr() == dict.fromkeys(("divide", "over", "under", "invalid"), "ignore")
        finally:
            var.reset(token)
        assert np.geterr()["divide"] == "raise"
