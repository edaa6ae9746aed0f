"""Op table: Relu, ReluGrad, Softplus, L2Loss, Softmax, LogSoftmax and the cross entropies."""

import numpy as np
from optable import OpCase, fixed, parametrize, randn, uniform

import symgrad as tf
from symgrad.op_registry import apply_op

I32, I64 = np.int32, np.int64


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _log_softmax(x, axis=-1):
    s = x - x.max(axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis, keepdims=True))


def _away_from_zero(*shape):
    """Values with |x| >= 0.2, so the kink of relu is out of finite differences' reach."""
    return lambda rng, d: (np.sign(rng.standard_normal(shape)) * rng.uniform(0.2, 2, shape)
                           ).astype(d)


def _labels(*shape):
    """Rows of a probability distribution over the last axis."""
    return lambda rng, d: _softmax(rng.standard_normal(shape)).astype(d)


def _raw(op_type):
    return lambda *ts: apply_op(op_type, list(ts)).outputs


def _xent_ref(logits, labels):
    return -np.sum(labels * _log_softmax(logits), -1), _softmax(logits) - labels


def _sparse_ref(logits, labels):
    onehot = np.eye(logits.shape[-1])[labels]
    return _xent_ref(logits, onehot.astype(logits.dtype))


CASES = [
    OpCase("Relu", tf.nn.relu, lambda x: np.maximum(x, 0), [_away_from_zero(3, 4)]),
    OpCase("Relu", tf.nn.relu, lambda x: np.maximum(x, 0), [uniform(-5, 5, 3, 4)],
           dtypes=(I32, I64), grad=False, name="int"),
    OpCase("ReluGrad", _raw("ReluGrad"), lambda g, f: np.where(f > 0, g, 0),
           [randn(3, 4), _away_from_zero(3, 4)]),
    OpCase("Softplus", tf.nn.softplus, lambda x: np.log1p(np.exp(x)), [randn(3, 4)]),
    OpCase("L2Loss", tf.nn.l2_loss, lambda x: np.sum(x * x) / 2, [randn(3, 4)]),
    OpCase("Softmax", tf.nn.softmax, _softmax, [randn(2, 3, 4)]),
    # a non-last axis needs a known rank (TF's wrapper too): reshape fixes it for the
    # harness's unknown-shape run
    OpCase("Softmax", lambda x: tf.nn.softmax(tf.reshape(x, [2, 3, 4]), axis=1),
           lambda x: _softmax(x, 1),
           [randn(2, 3, 4)], name="axis1"),
    OpCase("LogSoftmax", tf.nn.log_softmax, _log_softmax, [randn(3, 4)]),
    OpCase("LogSoftmax", lambda x: tf.nn.log_softmax(tf.reshape(x, [3, 4]), axis=0),
           lambda x: _log_softmax(x, 0),
           [randn(3, 4)], name="axis0"),
    # the raw op: both outputs get cotangents; labels get TF's first-order rule only
    OpCase("SoftmaxCrossEntropyWithLogits", _raw("SoftmaxCrossEntropyWithLogits"), _xent_ref,
           [randn(3, 5), _labels(3, 5)], diff=[0]),
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
           lambda y, x: _xent_ref(x, y)[0], [_labels(3, 5), randn(3, 5)], name="api",
           order2=False),  # TF's rule drops the backprop output's dependence on labels
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda y, x: tf.nn.softmax_cross_entropy_with_logits(
               labels=tf.reshape(y, [2, 4, 3]), logits=tf.reshape(x, [2, 4, 3]), axis=1),
           lambda y, x: -np.sum(y * _log_softmax(x, 1), 1),
           [lambda rng, d: np.moveaxis(_softmax(rng.standard_normal((2, 3, 4))), 2, 1).astype(d),
            randn(2, 4, 3)],
           name="rank3_axis1", order2=False),
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
           lambda y, x: _xent_ref(x, y)[0], [_labels(3, 5), randn(3, 5)], diff=[1],
           name="order2_logits"),
    OpCase("SparseSoftmaxCrossEntropyWithLogits", _raw("SparseSoftmaxCrossEntropyWithLogits"),
           _sparse_ref, [randn(4, 3), fixed([2, 0, 1, 2], I32)]),
    OpCase("SparseSoftmaxCrossEntropyWithLogits",
           lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(
               labels=tf.constant([[0, 4, 1], [3, 3, 2]], tf.int64), logits=x),
           lambda x: _sparse_ref(x.reshape(6, 5), np.array([0, 4, 1, 3, 3, 2]))[0].reshape(2, 3),
           [randn(2, 3, 5)], name="rank3"),
]

globals().update(parametrize(CASES))
