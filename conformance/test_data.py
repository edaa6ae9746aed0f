"""tf.data and Keras losses/metrics against TensorFlow, in one process.

The programs of ``tests/data/data_cases.py`` and ``tests/keras/{loss,metric}_cases.py`` run
on both libraries (the default suite holds TF's results as literals; this reruns them);
then 100 random pipelines (``pipelines.py``) are compared element by element over two
epochs, with their ``element_spec`` and ``cardinality``; then random losses (shapes,
options, reductions, sample weights) with their tape gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorflow
from pipelines import build, elements, generate

import symgrad

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS / "data"))
sys.path.insert(0, str(TESTS / "keras"))

import data_cases  # noqa: E402
import loss_cases  # noqa: E402
import metric_cases  # noqa: E402


@pytest.mark.parametrize("case", data_cases.CASES, ids=lambda f: f.__name__)
def test_data_case(case: Any) -> None:
    assert case(symgrad) == case(tensorflow)


@pytest.mark.parametrize(
    "case",
    loss_cases.CASES + loss_cases.EXACT_CASES + metric_cases.CASES + metric_cases.EXACT_CASES,
    ids=lambda f: f"{f.__module__}.{f.__name__}",
)
def test_keras_case(case: Any) -> None:
    loss_cases.assert_close(case(symgrad), case(tensorflow))


@pytest.mark.parametrize("seed", range(100))
def test_random_pipeline(seed: int) -> None:
    source, steps = generate(seed)
    got = build(symgrad, source, steps, seed)
    want = build(tensorflow, source, steps, seed)
    assert str(got.element_spec) == str(want.element_spec), steps
    assert int(got.cardinality()) == int(want.cardinality()), steps
    try:
        want_elements = elements(want)
    except tensorflow.errors.InvalidArgumentError:
        with pytest.raises(symgrad.core.errors.InvalidArgumentError):
            elements(got)
        return
    assert elements(got) == want_elements, steps


def _loss_program(seed: int) -> tuple[str, dict[str, Any], np.ndarray, np.ndarray, Any]:
    rng = np.random.default_rng(seed)
    name = rng.choice(sorted(_LOSSES))
    shape = (int(rng.integers(1, 5)), int(rng.integers(2, 5)))
    options: dict[str, Any] = {"reduction": str(rng.choice(["sum_over_batch_size", "sum", "none"]))}
    kind = _LOSSES[name]
    if "logits" in kind and rng.random() < 0.5:
        options["from_logits"] = True
    if "smooth" in kind and rng.random() < 0.5:
        options["label_smoothing"] = float(rng.choice([0.05, 0.2]))
    logits = rng.normal(0, 2, shape).astype(np.float32)
    if "sparse" in kind:
        y_true = rng.integers(0, shape[1], shape[:1])
    elif "onehot" in kind:
        y_true = np.eye(shape[1], dtype=np.float32)[rng.integers(0, shape[1], shape[:1])]
    elif "binary" in kind:
        y_true = rng.integers(0, 2, shape).astype(np.float32)
    else:
        y_true = rng.normal(0, 1, shape).astype(np.float32)
    if options.get("from_logits"):
        y_pred = logits
    elif "positive" in kind or "binary" in kind or "onehot" in kind or "sparse" in kind:
        y_pred = (1 / (1 + np.exp(-logits))).astype(np.float32)
        if "onehot" in kind or "sparse" in kind:
            y_pred = (y_pred / y_pred.sum(-1, keepdims=True)).astype(np.float32)
        if "positive" in kind:
            y_true = np.abs(y_true)
    else:
        y_pred = logits
    weight = rng.uniform(0, 2, shape[:1]).astype(np.float32) if rng.random() < 0.5 else None
    return name, options, y_true, y_pred, weight


_LOSSES = {
    "MeanSquaredError": "", "MeanAbsoluteError": "", "MeanAbsolutePercentageError": "",
    "MeanSquaredLogarithmicError": "positive", "Huber": "", "LogCosh": "",
    "BinaryCrossentropy": "binary logits smooth", "BinaryFocalCrossentropy": "binary logits smooth",
    "CategoricalCrossentropy": "onehot logits smooth",
    "CategoricalFocalCrossentropy": "onehot logits smooth",
    "SparseCategoricalCrossentropy": "sparse logits", "KLDivergence": "onehot positive",
    "Poisson": "positive", "CosineSimilarity": "", "Hinge": "binary", "SquaredHinge": "binary",
    "CategoricalHinge": "onehot",
}  # fmt: skip


def _loss_and_grad(tf: Any, name: str, options: dict[str, Any], yt: Any, yp: Any, w: Any) -> Any:
    loss = getattr(tf.keras.losses, name)(**options)
    x = tf.Variable(yp)
    with tf.GradientTape() as tape:
        value = loss(yt, x, sample_weight=w)
        total = tf.reduce_sum(
            value
            * np.cos(np.arange(int(np.prod(value.shape)))).reshape(value.shape).astype(np.float32)
        )
    return [np.asarray(value).tolist(), np.asarray(tape.gradient(total, x)).tolist()]


@pytest.mark.parametrize("seed", range(80))
def test_random_loss(seed: int) -> None:
    name, options, yt, yp, w = _loss_program(seed)
    got = _loss_and_grad(symgrad, name, options, yt, yp, w)
    want = _loss_and_grad(tensorflow, name, options, yt, yp, w)
    loss_cases.assert_close(got, want, rtol=1e-5, atol=1e-6)
