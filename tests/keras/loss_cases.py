"""Keras losses as ``fn(tf)`` programs returning plain floats: every class with its options,
reductions and sample weights, the functions by their TF names, and tape gradients.
``test_losses.py`` holds TF 2.21's results; the conformance stage reruns them on TF."""

from __future__ import annotations

from typing import Any

import numpy as np

R = np.random.default_rng(26)
P = R.uniform(0.02, 0.98, (4, 3)).astype(np.float32)
P_SUM = (P / P.sum(-1, keepdims=True)).astype(np.float32)
LOGITS = R.normal(0, 2, (4, 3)).astype(np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
BIN = R.integers(0, 2, (4, 3)).astype(np.float32)
SPARSE = np.array([0, 2, 1, 2])
REG_T = R.normal(0, 1, (4, 3)).astype(np.float32)
REG_P = (REG_T + R.normal(0, 1.5, (4, 3))).astype(np.float32)
POS_T = R.uniform(0.1, 3, (4, 3)).astype(np.float32)
POS_P = R.uniform(0.1, 3, (4, 3)).astype(np.float32)
SW = np.array([1.0, 0.5, 0.0, 2.0], np.float32)
SEQ_Y = np.array([[3, 1, 0, 0, 2], [1, 2, 3, 0, 0]])
SEQ_LOGITS = R.normal(0, 1, (2, 5, 4)).astype(np.float32)
NO_WEIGHTS = ("dice", "tversky", "cosine_ax0")  # their losses are not per sample


def f(x: Any) -> Any:
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x, np.float64)
    return a.round(12).tolist()


def _classes(tf: Any) -> list[tuple[str, Any, Any, Any]]:
    L = tf.keras.losses
    return [
        ("mse", L.MeanSquaredError(), REG_T, REG_P),
        ("mae", L.MeanAbsoluteError(), REG_T, REG_P),
        ("mape", L.MeanAbsolutePercentageError(), REG_T, REG_P),
        ("msle", L.MeanSquaredLogarithmicError(), POS_T, POS_P),
        ("huber", L.Huber(), REG_T, REG_P),
        ("huber_d", L.Huber(delta=0.4), REG_T, REG_P),
        ("logcosh", L.LogCosh(), REG_T, REG_P),
        ("bce", L.BinaryCrossentropy(), BIN, P),
        ("bce_logits", L.BinaryCrossentropy(from_logits=True), BIN, LOGITS),
        ("bce_smooth", L.BinaryCrossentropy(label_smoothing=0.2), BIN, P),
        ("bce_edge", L.BinaryCrossentropy(), BIN, np.round(P)),
        ("bfce", L.BinaryFocalCrossentropy(), BIN, P),
        ("bfce_opts", L.BinaryFocalCrossentropy(True, 0.3, 1.5, True, 0.1), BIN, LOGITS),
        ("cce", L.CategoricalCrossentropy(), ONE_HOT, P),
        ("cce_logits", L.CategoricalCrossentropy(from_logits=True), ONE_HOT, LOGITS),
        ("cce_smooth", L.CategoricalCrossentropy(label_smoothing=0.1), ONE_HOT, P_SUM),
        ("cfce", L.CategoricalFocalCrossentropy(), ONE_HOT, P_SUM),
        ("scce", L.SparseCategoricalCrossentropy(), SPARSE, P_SUM),
        ("scce_logits", L.SparseCategoricalCrossentropy(from_logits=True), SPARSE, LOGITS),
        ("scce_ignore", L.SparseCategoricalCrossentropy(True, ignore_class=2), SPARSE, LOGITS),
        ("kld", L.KLDivergence(), P_SUM, P_SUM[::-1].copy()),
        ("poisson", L.Poisson(), POS_T, POS_P),
        ("cosine", L.CosineSimilarity(), REG_T, REG_P),
        ("cosine_ax0", L.CosineSimilarity(axis=0), REG_T, REG_P),
        ("hinge", L.Hinge(), BIN, REG_P),
        ("hinge_pm", L.Hinge(), BIN * 2 - 1, REG_P),
        ("sq_hinge", L.SquaredHinge(), BIN, REG_P),
        ("cat_hinge", L.CategoricalHinge(), ONE_HOT, REG_P),
        ("dice", L.Dice(), BIN, P),
        ("tversky", L.Tversky(0.3, 0.7), BIN, P),
    ]


def losses(tf: Any) -> dict[str, Any]:
    """Each class four ways: default reduction, with sample weights, 'sum', 'none'."""
    out = {}
    for name, loss, yt, yp in _classes(tf):
        cfg = dict(loss.get_config())
        cls = type(loss)
        sw = None if name in NO_WEIGHTS else SW
        row = [f(loss(yt, yp)), f(loss(yt, yp, sample_weight=sw))]
        for red in ("sum", "none", "mean_with_sample_weight"):
            cfg["reduction"] = red
            other = cls(**{k: v for k, v in cfg.items() if k != "name"})
            row.append(f(other(yt, yp, sample_weight=sw)))
        out[name] = row
    return out


def functions(tf: Any) -> dict[str, Any]:
    L = tf.keras.losses
    return {
        "mse": f(L.mse(REG_T, REG_P)),
        "MAE": f(L.MAE(REG_T, REG_P)),
        "mape": f(L.mape(REG_T, REG_P)),
        "msle": f(L.msle(POS_T, POS_P)),
        "kld": f(L.kld(P_SUM, P)),
        "logcosh": f(L.logcosh(REG_T, REG_P)),
        "huber": f(L.huber(REG_T, REG_P, delta=0.5)),
        "cosine": f(L.cosine_similarity(REG_T, REG_P, axis=0)),
        "poisson": f(L.poisson(POS_T, POS_P)),
        "bce": f(L.binary_crossentropy(BIN, LOGITS, from_logits=True, label_smoothing=0.1)),
        "bfce": f(L.binary_focal_crossentropy(BIN, P, gamma=3.0)),
        "cce": f(L.categorical_crossentropy(ONE_HOT, P_SUM)),
        "cfce": f(L.categorical_focal_crossentropy(ONE_HOT, LOGITS, from_logits=True)),
        "scce": f(L.sparse_categorical_crossentropy(SPARSE, LOGITS, from_logits=True)),
        "scce_ignore": f(L.sparse_categorical_crossentropy(SPARSE, P_SUM, ignore_class=1)),
        "hinge": f(L.hinge(BIN, REG_P)),
        "sq_hinge": f(L.squared_hinge(BIN, REG_P)),
        "cat_hinge": f(L.categorical_hinge(ONE_HOT, REG_P)),
        "f64": f(L.mse(REG_T.astype(np.float64), REG_P.astype(np.float64))),
        "rank1": f(L.MeanSquaredError()(REG_T[:, 0], REG_P[:, :1])),
        "scce_col": f(L.SparseCategoricalCrossentropy()(SPARSE[:, None], P_SUM)),
        "scce_seq_ignore": f(
            L.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)(SEQ_Y, SEQ_LOGITS)
        ),
        "scce_seq_ignore_sum": f(
            L.SparseCategoricalCrossentropy(True, ignore_class=0, reduction="sum")(
                SEQ_Y, SEQ_LOGITS, sample_weight=np.tile(SW[None, :], (2, 2))[:, :5] + 0.25
            )
        ),
        "scce_seq_fn": f(L.sparse_categorical_crossentropy(SEQ_Y, SEQ_LOGITS, True, 0)),
    }


def gradients(tf: Any) -> dict[str, Any]:
    """d loss / d y_pred through a tape, for each class with its default reduction."""
    out = {}
    for name, loss, yt, yp in _classes(tf):
        x = tf.Variable(yp)
        with tf.GradientTape() as tape:
            value = loss(yt, x, sample_weight=None if name in NO_WEIGHTS else SW)
        out[name] = f(tape.gradient(value, x))
    return out


def in_function(tf: Any) -> dict[str, Any]:
    """Inside tf.function a probability from softmax/sigmoid is read back as logits."""
    L = tf.keras.losses

    @tf.function
    def run(logits: Any) -> Any:
        return [
            L.CategoricalCrossentropy()(ONE_HOT, tf.nn.softmax(logits)),
            L.SparseCategoricalCrossentropy()(SPARSE, tf.nn.softmax(logits)),
            L.BinaryCrossentropy()(BIN, tf.sigmoid(logits)),
        ]

    big = LOGITS * 20
    return {"graph": [f(v) for v in run(tf.constant(big))]}


def serialization(tf: Any) -> dict[str, Any]:
    L = tf.keras.losses
    return {
        "get_mse": L.get("mse").__name__,
        "get_scce": L.get("sparse_categorical_crossentropy").__name__,
        "get_class": type(L.get("MeanSquaredError")).__name__,
        "get_dict": L.get(
            {"class_name": "BinaryCrossentropy", "config": {"from_logits": True}}
        ).get_config(),
        "ser_obj": L.serialize(L.CategoricalCrossentropy(label_smoothing=0.1)),
        "ser_fn": L.serialize(L.mse),
        "names": [c().name for c in (L.Huber, L.LogCosh, L.KLDivergence, L.Poisson)],
        "config": L.SparseCategoricalCrossentropy(ignore_class=3).get_config(),
    }


CASES = [losses, functions, gradients, in_function]
EXACT_CASES = [serialization]


def assert_close(
    got: Any, want: Any, rtol: float = 2e-6, atol: float = 1e-7, path: str = ""
) -> None:
    """Nested results equal: strings and dict keys exactly, numbers within float32 rounding."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (path, got, want)
        for k in want:
            assert_close(got[k], want[k], rtol, atol, f"{path}/{k}")
    elif isinstance(want, str) or want is None or isinstance(want, bool):
        assert got == want, (path, got, want)
    elif isinstance(want, list | tuple) and any(isinstance(w, list | dict | str) for w in want):
        assert len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(g, w, rtol, atol, f"{path}[{i}]")
    else:
        np.testing.assert_allclose(
            np.asarray(got, float), np.asarray(want, float), rtol=rtol, atol=atol, err_msg=path
        )
