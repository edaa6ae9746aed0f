"""tf.compat.v1.losses against TensorFlow 2.21: every loss with weights (per row, per
entry, none), label smoothing, each reduction (the default SUM_BY_NONZERO_WEIGHTS
included), and the graph's loss collection (get_losses, add_loss, get_total_loss).
The programs are tests/tf1_losses_calls.py; the literals TF's results for them."""

from __future__ import annotations

import numpy as np
import pytest
from tf1_losses_calls import run
from tf1_losses_expected import EXPECTED

import symgrad as tf

RESULTS = run(tf)


@pytest.mark.parametrize("key", list(EXPECTED))
def test_losses_give_tensorflows_numbers(key: str) -> None:
    got, want = RESULTS[key], EXPECTED[key]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (key, i, g, w)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7, err_msg=f"{key}[{i}]")


def test_bad_reduction_and_missing_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        tf.compat.v1.losses.mean_squared_error([1.0], [2.0], reduction="mean")
    with pytest.raises(ValueError, match="`labels` must not be None"):
        tf.compat.v1.losses.absolute_difference(None, [2.0])


def test_a_loss_is_named_as_tfs_value_in_its_own_scope() -> None:
    """TF 2.21's names: each loss reenters its scope in compute_weighted_loss and ends in
    div_no_nan named "value" (fetched as "<scope>/value:0"); SUM ends in the Sum, NONE in
    the weighted product."""
    L = tf.compat.v1.losses
    with tf.Graph().as_default():
        y, p = tf.constant([[0.0, 1.0]]), tf.constant([[0.3, 0.7]])
        names = [
            t.name
            for t in (
                L.mean_squared_error(y, p),
                L.huber_loss(y, p),
                L.sparse_softmax_cross_entropy(tf.constant([1]), p),
                L.mean_squared_error(y, p, scope="mine"),
                L.mean_squared_error(y, p, reduction=L.Reduction.SUM),
                L.compute_weighted_loss([1.0, 2.0]),
            )
        ]
    assert names == [
        "mean_squared_error/value:0",
        "huber_loss/value:0",
        "sparse_softmax_cross_entropy_loss/value:0",
        "mine/value:0",
        "mean_squared_error_1/Sum:0",
        "weighted_loss/value:0",
    ]
