"""tf.nn's sampled losses, candidate samplers, LRN, atrous_conv2d and log_poisson_loss
against TF 2.21's recorded numbers (tests/ops/nn_sampled_programs.py), plus TF's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from nn_sampled_expected import EXPECTED
from nn_sampled_programs import PROGRAMS
from ulp import assert_ulp

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError


def _close(got: Any, want: Any, rtol: float, atol: float) -> None:
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=rtol, atol=atol)


def test_sampler_draws_are_tfs_and_counts_within_two_ulp() -> None:
    got, want = PROGRAMS["samplers"](tf), EXPECTED["samplers"]
    for key, runs in want.items():
        if key == "hits":
            continue
        for g, w in zip(got[key], runs, strict=True):
            assert g[0] == w[0], key  # the draws: TF's Philox stream, bit for bit
            # expected counts: libm's log1pf/expm1f vs rounding once from double
            assert_ulp(np.float32(g[1]), np.float32(w[1]), 2)
            assert_ulp(np.float32(g[2]), np.float32(w[2]), 2)
    assert got["hits"] == want["hits"]


def test_eager_draws_and_default_sampled_values_are_tfs() -> None:
    got, want = PROGRAMS["eager"](tf), EXPECTED["eager"]
    assert got["log_uniform"] == want["log_uniform"]
    assert got["global_seed"] == want["global_seed"]
    for g, w in zip(got["ssm"], want["ssm"], strict=True):
        _close(g, w, 1e-6, 0)


def test_sampled_losses_and_gradients_match_tf() -> None:
    got, want = PROGRAMS["losses"](tf), EXPECTED["losses"]
    for key, values in want.items():
        loss, *grads = got[key]
        _close(loss, values[0], 1e-6, 0)
        for g, w in zip(grads, values[1:], strict=True):
            _close(g, w, 1e-5, 1e-6)  # sums of gathered rows in another order


def test_lrn_atrous_poisson_match_tf() -> None:
    got, want = PROGRAMS["others"](tf), EXPECTED["others"]
    for key, values in want.items():
        for g, w in zip(got[key], values, strict=True):
            _close(g, w, 2e-6, 1e-6)


def test_ctc_loss_and_gradient_match_tf() -> None:
    got, want = PROGRAMS["ctc"](tf), EXPECTED["ctc"]
    for key, (loss, grad) in want.items():
        _close(got[key][0], loss, 1e-6, 0)
        _close(got[key][1], grad, 1e-5, 1e-6)


def test_ctc_loss_is_one_op_with_tfs_gradient_rule() -> None:
    x = tf.constant(np.random.default_rng(1).standard_normal((4, 2, 3)), tf.float64)
    labels, lengths, steps = tf.constant([[1, 2], [2, 0]]), tf.constant([2, 1]), tf.constant([4, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss(labels, x, lengths, steps)
        weighted = loss * tf.constant([2.0, 3.0], tf.float64)
    assert loss.op.type == "CTCLossDense"
    g = tape.gradient(weighted, x).numpy()
    theo, num = tf.test.compute_gradient(
        lambda t: tf.nn.ctc_loss(labels, t, lengths, steps) * tf.constant([2.0, 3.0], tf.float64),
        [x],
    )
    np.testing.assert_allclose(theo[0], num[0], rtol=1e-4, atol=1e-5)
    assert g[3, 1].tolist() == [0.0, 0.0, 0.0]  # past the second sequence's 3 steps


def test_remove_accidental_hits_pushes_hit_logits_to_minus_flt_max() -> None:
    from symgrad.api.nn_sampled import _compute_sampled_logits

    w, b, x, labels, sampled = _inputs()
    logits, _ = _compute_sampled_logits(
        w, b, labels, x, 3, 7, num_true=2, sampled_values=sampled, remove_accidental_hits=True
    )
    # class 4 (sampled position 0) is true for both rows
    assert np.all(logits.numpy()[:, 2] < -1e38)
    assert np.all(np.abs(logits.numpy()[:, 3:]) < 1e3)


def _inputs() -> tuple[Any, ...]:
    from nn_sampled_programs import _inputs as inputs

    return inputs(tf)


def test_sampler_errors_are_tfs() -> None:
    true = tf.constant([[1, 7], [3, 4]], tf.int64)
    with pytest.raises(InvalidArgumentError, match="Sampler's range is too small"):
        tf.random.uniform_candidate_sampler(true, 2, 5, True, 3, seed=1)
    with pytest.raises(InvalidArgumentError, match="num_true columns"):
        tf.random.log_uniform_candidate_sampler(true, 3, 2, True, 10, seed=1)
    with pytest.raises(InvalidArgumentError, match="batch_size \\* num_true matrix"):
        tf.nn.compute_accidental_hits(true, tf.constant([1], tf.int64), 3)


def test_lrn_errors_and_gradient_op() -> None:
    with pytest.raises(InvalidArgumentError, match="rank 4"):
        tf.nn.lrn(tf.ones([2, 3, 4]))
    x = tf.constant(np.random.default_rng(0).standard_normal((1, 2, 2, 4)), tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.lrn(x, 1, 1.0, 0.5, 0.75)
    assert tape.gradient(y, x).op.type == "LRNGrad"
    theo, num = tf.test.compute_gradient(lambda t: tf.nn.lrn(t, 1, 1.0, 0.5, 0.75), [x])
    np.testing.assert_allclose(theo[0], num[0], rtol=1e-6, atol=1e-7)


def test_log_poisson_loss_shape_error() -> None:
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.log_poisson_loss(tf.ones([2]), tf.ones([3]))


def test_partitioned_weights_are_refused() -> None:
    w, b, x, labels, sampled = _inputs()
    with pytest.raises(NotImplementedError, match="partitioned"):
        tf.nn.nce_loss([w[:4], w[4:]], b, labels, x, 3, 7, 2, sampled_values=sampled)
