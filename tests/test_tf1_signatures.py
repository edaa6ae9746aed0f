"""TF1 and TF2 positional calls mean what they mean in TensorFlow 2.21 (issue 23).

Before, ``tf.compat.v1`` was ``tf``: ``compat.v1.nn.dropout(h, 0.9)`` read 0.9 as the rate
(zeroing 90%), ``compat.v1.nn.moments(x, axes, shift, name)`` took the name as keepdims,
``compat.v1.transpose(x, perm, name)`` conjugated, ``compat.v1.nn.convolution`` swapped
padding and strides, ``tf.gradients``/``tf.hessians`` had TF1's order, and
``tf.random_normal_initializer()`` drew with stddev 1.0.  The programs are
tests/tf1_positional_calls.py; the literals TF 2.21's results for them.
"""

from __future__ import annotations

import numpy as np
import pytest
from tf1_positional_calls import CALLS, run
from tf1_positional_expected import EXPECTED

import symgrad as tf


@pytest.mark.parametrize("name", list(CALLS))
def test_positional_call_gives_tensorflows_numbers(name: str) -> None:
    got, want = run(tf, name), EXPECTED[name]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


def test_tf1_dropout_keeps_keep_prob_of_the_entries() -> None:
    """The TF1 tutorial line: ``dropout(h, keep_prob)`` keeps ~90% for 0.9."""
    kept = np.count_nonzero(tf.compat.v1.nn.dropout(tf.ones([10000]), 0.9, seed=1).numpy())
    assert 8800 < kept < 9200
    kept = np.count_nonzero(tf.nn.dropout(tf.ones([10000]), 0.9, seed=1).numpy())
    assert 800 < kept < 1200  # TF2: the second argument is the rate


def test_deprecated_spellings_are_exclusive() -> None:
    x = tf.constant([[1.0, 2.0]])
    with pytest.raises(ValueError, match="Cannot specify both 'keepdims' and 'keep_dims'"):
        tf.compat.v1.reduce_sum(x, 1, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match="Cannot specify both 'rate' and 'keep_prob'"):
        tf.compat.v1.nn.dropout(x, 0.5, rate=0.5)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dim'"):
        tf.compat.v1.nn.softmax(x, 0, dim=0)


def test_a_missing_name_says_symgrad_lacks_it() -> None:
    for ns, name in ((tf, "estimator"), (tf.nn, "ctc_greedy_decoder"), (tf.compat.v1, "estimator")):
        with pytest.raises(
            AttributeError,
            match=f"symgrad does not have the TensorFlow API .*{name} yet",
        ):
            getattr(ns, name)
    with pytest.raises(AttributeError, match="tf.compat.v1.nn.gelu yet.*README.md"):
        tf.compat.v1.nn.gelu  # noqa: B018  (TF1 has no gelu)
    with pytest.raises(AttributeError, match="tf.compat.v1.nn.ctc_loss yet"):
        tf.compat.v1.nn.ctc_loss  # noqa: B018  (TF1's takes SparseTensor labels)
    with pytest.raises(AttributeError, match="tf.compat.v1.optimizers"):
        tf.compat.v1.optimizers  # noqa: B018


def test_tf2_only_and_tf1_only_names_where_tf_has_them() -> None:
    assert tf.optimizers is tf.keras.optimizers
    assert isinstance(tf.compat.v1.Variable(1.0), tf.Variable)
    assert tf.compat.v1.placeholder is tf.placeholder  # TF1-only, no TF2 conflict: kept
    assert tf.compat.v1.random_normal_initializer().stddev == 1.0  # TF1's default
    assert tf.random_normal_initializer().stddev == 0.05  # TF2's


@pytest.mark.parametrize(
    "path",
    [
        "math.foo",
        "linalg.foo",
        "random.stateless_binomial",
        "nn.ctc_greedy_decoder",
        "test.foo",
        "dtypes.bfloat16",
    ],
)
def test_every_namespace_names_what_it_lacks(path: str) -> None:
    ns, name = path.split(".")
    with pytest.raises(AttributeError, match=f"TensorFlow API tf.{ns}.{name} yet.*README.md"):
        getattr(getattr(tf, ns), name)


def test_tf1_cross_entropies_need_both_arguments() -> None:
    nn = tf.compat.v1.nn
    with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided for soft"):
        nn.softmax_cross_entropy_with_logits([0.0, 1.0])
    with pytest.raises(ValueError, match="must be provided for sparse_softmax_cross_entropy"):
        nn.sparse_softmax_cross_entropy_with_logits([0])
