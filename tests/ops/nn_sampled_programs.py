"""Programs for tf.nn's sampled losses, candidate samplers, LRN, atrous_conv2d and
log_poisson_loss that run unchanged on TensorFlow and on symgrad (``tf`` is either); TF 2.21's
results are recorded in ``nn_sampled_expected.py``, which tests/ops/test_nn_sampled.py
compares with symgrad's.

Record them again with TensorFlow's Python (writes tests/ops/nn_sampled_expected.py)::

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/ops/nn_sampled_programs.py
    ruff format tests/ops/nn_sampled_expected.py
"""

from __future__ import annotations

import pprint
from pathlib import Path
from typing import Any

import numpy as np


def _np(t: Any) -> list[Any]:
    return np.asarray(t).tolist() if isinstance(t, np.ndarray) else t.numpy().tolist()


def samplers(tf: Any) -> dict[str, Any]:
    """Two runs of each sampler in a graph (one stream), seed=3, and accidental hits."""
    out: dict[str, Any] = {}
    for fn in ("log_uniform_candidate_sampler", "uniform_candidate_sampler"):
        for unique in (True, False):
            with tf.Graph().as_default():
                true = tf.constant([[1, 7], [3, 4]], tf.int64)
                s = getattr(tf.random, fn)(true, 2, 5, unique, 10, seed=3)
                with tf.compat.v1.Session() as sess:
                    runs = [sess.run(s) for _ in range(2)]
            out[f"{fn}_{unique}"] = [[r.tolist() for r in run] for run in runs]
    hits = tf.nn.compute_accidental_hits(
        tf.constant([[1, 7], [3, 4]], tf.int64), tf.constant([7, 1, 2, 7], tf.int64), 2
    )
    out["hits"] = [_np(h) for h in hits]
    return out


def _inputs(tf: Any) -> tuple[Any, ...]:
    rng = np.random.RandomState(0)
    w = tf.constant(rng.randn(7, 3).astype(np.float32))
    b = tf.constant(rng.randn(7).astype(np.float32))
    x = tf.constant(rng.randn(2, 3).astype(np.float32))
    labels = tf.constant([[1, 4], [2, 4]], tf.int64)
    sampled = (
        tf.constant([4, 0, 3], tf.int64),
        tf.constant([[0.5, 0.25], [0.75, 0.25]]),
        tf.constant([0.25, 0.6, 0.3]),
    )
    return w, b, x, labels, sampled


LOSSES = [
    ("nce", "nn", "nce_loss", {}),
    ("nce_hits", "nn", "nce_loss", {"remove_accidental_hits": True}),
    ("ssm", "nn", "sampled_softmax_loss", {}),
    ("ssm_no_hits", "nn", "sampled_softmax_loss", {"remove_accidental_hits": False}),
    ("nce_v1_mod", "v1", "nce_loss", {"partition_strategy": "mod"}),
    ("ssm_v1_div", "v1", "sampled_softmax_loss", {"partition_strategy": "div"}),
]


def losses(tf: Any) -> dict[str, Any]:
    """Each loss and its gradients for weights, biases and inputs (summed loss)."""
    w, b, x, labels, sampled = _inputs(tf)
    out: dict[str, Any] = {}
    for key, where, name, kw in LOSSES:
        fn = getattr(tf.nn if where == "nn" else tf.compat.v1.nn, name)
        with tf.GradientTape() as tape:
            tape.watch([w, b, x])
            loss = fn(w, b, labels, x, 3, 7, num_true=2, sampled_values=sampled, **kw)
        grads = tape.gradient(loss, [w, b, x])
        out[key] = [_np(loss)] + [_np(tf.convert_to_tensor(g)) for g in grads]
    return out


def others(tf: Any) -> dict[str, Any]:
    """lrn (three attr sets) with its gradient, atrous_conv2d, log_poisson_loss."""
    rng = np.random.RandomState(1)
    x = tf.constant(rng.randn(1, 2, 3, 6).astype(np.float32))
    g0 = tf.constant(rng.randn(1, 2, 3, 6).astype(np.float32))
    out: dict[str, Any] = {}
    attrs = [{}, {"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}]
    for i, kw in enumerate(attrs + [{"depth_radius": 1, "beta": 1.0}]):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.local_response_normalization(x, **kw)
        out[f"lrn{i}"] = [_np(y), _np(tape.gradient(y, x, output_gradients=g0))]
    v = tf.constant(rng.randn(1, 6, 7, 2).astype(np.float32))
    f = tf.constant(rng.randn(2, 3, 2, 3).astype(np.float32))
    for pad in ("SAME", "VALID"):
        with tf.GradientTape() as tape:
            tape.watch([v, f])
            y = tf.nn.atrous_conv2d(v, f, 2, pad)
        out[f"atrous_{pad}"] = [_np(y)] + [_np(g) for g in tape.gradient(y, [v, f])]
    z = tf.constant([0.0, 0.5, 1.0, 2.5, 7.0])
    c = tf.constant([-1.0, 0.3, 0.0, 1.2, 2.0])
    for full in (False, True):
        with tf.GradientTape() as tape:
            tape.watch(c)
            y = tf.nn.log_poisson_loss(z, c, compute_full_loss=full)
        out[f"poisson_{full}"] = [_np(y), _np(tape.gradient(y, c))]
    return out


def ctc(tf: Any) -> dict[str, Any]:
    """Dense-label ctc_loss and its gradient: blank first, last (4 and -1), batch-major with
    ``unique`` given."""
    rng = np.random.RandomState(2)
    x = tf.constant(rng.randn(6, 3, 5).astype(np.float32))
    labels = tf.constant([[1, 2, 2, 0], [3, 1, 4, 4], [2, 0, 0, 0]])
    shifted = tf.constant([[0, 1, 1, 3], [2, 0, 3, 3], [1, 3, 3, 3]])
    lengths, steps = tf.constant([3, 4, 1]), tf.constant([6, 5, 3])
    unique = (
        tf.constant([[1, 2, 0, 0], [3, 1, 4, 0], [2, 0, 0, 0]], tf.int64),
        tf.constant([[0, 1, 1, 2], [0, 1, 2, 2], [0, 1, 1, 1]]),
    )
    calls = {
        "blank0": lambda x: tf.nn.ctc_loss(labels, x, lengths, steps),
        "blank4": lambda x: tf.nn.ctc_loss(shifted, x, lengths, steps, blank_index=4),
        "blank_last": lambda x: tf.nn.ctc_loss(shifted, x, lengths, steps, blank_index=-1),
        "batch_major_unique": lambda x: tf.nn.ctc_loss(
            labels, tf.transpose(x, [1, 0, 2]), lengths, steps, False, unique
        ),
    }
    out: dict[str, Any] = {}
    for key, call in calls.items():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        out[key] = [_np(y), _np(tape.gradient(y, x))]
    return out


def eager_draws(tf: Any) -> dict[str, Any]:
    """Eager calls: a seeded op continues its stream, the global seed seeds the op, and the
    losses draw their candidates from log_uniform_candidate_sampler when not given them."""
    tf.random.set_seed(None)  # symgrad: every eager op's stream starts over (TF's fresh kernels)
    rng = np.random.RandomState(0)
    w = tf.constant(rng.randn(50, 3).astype(np.float32))
    b = tf.constant(rng.randn(50).astype(np.float32))
    x = tf.constant(rng.randn(2, 3).astype(np.float32))
    labels = tf.constant([[1], [7]], tf.int64)
    true = tf.constant([[1, 7], [3, 4]], tf.int64)
    out: dict[str, Any] = {
        "ssm": [_np(tf.nn.sampled_softmax_loss(w, b, labels, x, 6, 50, seed=5)) for _ in "ab"],
        "log_uniform": [
            _np(tf.random.log_uniform_candidate_sampler(true, 2, 5, True, 10, seed=3)[0])
            for _ in "ab"
        ],
    }
    tf.random.set_seed(4)
    out["global_seed"] = _np(tf.random.uniform_candidate_sampler(true, 2, 5, False, 10)[0])
    tf.random.set_seed(None)
    return out


PROGRAMS = {
    "eager": eager_draws,
    "samplers": samplers,
    "losses": losses,
    "others": others,
    "ctc": ctc,
}


if __name__ == "__main__":
    import tensorflow as tf

    results = {name: fn(tf) for name, fn in PROGRAMS.items()}
    path = Path(__file__).with_name("nn_sampled_expected.py")
    text = pprint.pformat(results, width=100, sort_dicts=False)
    path.write_text(
        f'"""TF {tf.__version__}\'s results for tests/ops/nn_sampled_programs.py '
        f'(written by it: do not edit)."""\n\nEXPECTED = {text}\n'
    )
