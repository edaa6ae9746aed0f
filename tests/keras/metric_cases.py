"""Keras metrics as ``fn(tf)`` programs: each metric updated over two batches (weighted and
not), its result, and its result after ``reset_state``; options of AUC/Precision/Recall/
MeanIoU; the functions; metrics updated inside ``tf.function``.  ``test_metrics.py`` holds
TF 2.21's results."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from loss_cases import BIN, LOGITS, ONE_HOT, P_SUM, POS_P, POS_T, REG_P, REG_T, SPARSE, SW, P, f

R = np.random.default_rng(7)
SCORES = R.uniform(0, 1, 40).astype(np.float32)
LABELS = (R.uniform(0, 1, 40) < SCORES).astype(np.float32)
W40 = R.uniform(0, 2, 40).astype(np.float32)
EDGES = np.array([0.0, 0.5, 1.0, 0.25, 0.75, 0.3, 1 / 3, 0.999], np.float32)
EDGE_LABELS = np.array([0, 1, 1, 0, 1, 0, 1, 0], np.float32)


def _run(metric: Any, batches: list[tuple[Any, ...]]) -> list[Any]:
    out = []
    for b in batches:
        metric.update_state(*b)
        out.append(f(metric.result()))
    metric.reset_state()
    out.append(f(metric.result()))
    return out


def _pair_batches(yt: Any, yp: Any) -> list[tuple[Any, ...]]:
    return [(yt[:2], yp[:2]), (yt[2:], yp[2:], SW[2:])]


def wrappers(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    table = [
        ("acc", M.Accuracy(), SPARSE, np.array([0, 1, 1, 2])),
        ("bin_acc", M.BinaryAccuracy(), BIN, P),
        ("bin_acc_t", M.BinaryAccuracy(threshold=0.7), BIN, P),
        ("cat_acc", M.CategoricalAccuracy(), ONE_HOT, P),
        ("sparse_acc", M.SparseCategoricalAccuracy(), SPARSE, P),
        ("top2", M.TopKCategoricalAccuracy(k=2), ONE_HOT, P),
        ("sparse_top2", M.SparseTopKCategoricalAccuracy(k=2), SPARSE, P),
        ("mse", M.MeanSquaredError(), REG_T, REG_P),
        ("rmse", M.RootMeanSquaredError(), REG_T, REG_P),
        ("mae", M.MeanAbsoluteError(), REG_T, REG_P),
        ("mape", M.MeanAbsolutePercentageError(), REG_T, REG_P),
        ("msle", M.MeanSquaredLogarithmicError(), POS_T, POS_P),
        ("cosine", M.CosineSimilarity(), REG_T, REG_P),
        ("logcosh", M.LogCoshError(), REG_T, REG_P),
        ("bce", M.BinaryCrossentropy(from_logits=True), BIN, LOGITS),
        ("cce", M.CategoricalCrossentropy(label_smoothing=0.1), ONE_HOT, P_SUM),
        ("scce", M.SparseCategoricalCrossentropy(from_logits=True), SPARSE, LOGITS),
        (
            "scce_ignore",
            M.SparseCategoricalCrossentropy(from_logits=True, ignore_class=2),
            SPARSE,
            LOGITS,
        ),
        ("kld", M.KLDivergence(), P_SUM, P),
        ("poisson", M.Poisson(), POS_T, POS_P),
        ("hinge", M.Hinge(), BIN, REG_P),
        ("sq_hinge", M.SquaredHinge(), BIN, REG_P),
        ("cat_hinge", M.CategoricalHinge(), ONE_HOT, REG_P),
        ("wrap_huber", M.MeanMetricWrapper(tf.keras.losses.huber, delta=0.3), REG_T, REG_P),
    ]
    return {name: _run(m, _pair_batches(yt, yp)) for name, m, yt, yp in table}


def reductions(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    v = REG_T
    return {
        "mean": _run(M.Mean(), [(v,), (v[:, 0], SW), (3.0,)]),
        "sum": _run(M.Sum(), [(v,), (v[:, 0], SW), (3.0,)]),
        "mean_2d_w": _run(M.Mean(), [(v, SW[:, None] * np.ones((1, 3), np.float32))]),
    }


def confusion(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    s, y = SCORES, LABELS
    batches = [(y[:25], s[:25]), (y[25:], s[25:], W40[25:])]
    edges = [(EDGE_LABELS, EDGES)]
    multi = [(BIN, P), (BIN, P, SW)]
    return {
        "tp": _run(M.TruePositives(), batches),
        "fp": _run(M.FalsePositives(thresholds=[0.2, 0.6]), batches),
        "tn": _run(M.TrueNegatives(), batches),
        "fn": _run(M.FalseNegatives(thresholds=[0.0, 0.5, 1.0]), batches),
        "precision": _run(M.Precision(), batches),
        "precision_ts": _run(M.Precision(thresholds=[0.1, 0.4, 0.8]), batches),
        "precision_top2": _run(M.Precision(top_k=2), multi),
        "precision_class": _run(M.Precision(class_id=1), multi),
        "recall": _run(M.Recall(), batches),
        "recall_top1_class": _run(M.Recall(top_k=1, class_id=2), multi),
        "auc": _run(M.AUC(), batches),
        "auc_edges": _run(M.AUC(num_thresholds=5), edges),
        "auc_even_list": _run(M.AUC(thresholds=[0.25, 0.5, 0.75]), edges),
        "auc_uneven": _run(M.AUC(thresholds=[0.1, 0.3, 0.35, 0.9]), batches),
        "auc_pr": _run(M.AUC(curve="PR"), batches),
        "auc_pr_major": _run(M.AUC(curve="PR", summation_method="majoring"), batches),
        "auc_roc_minor": _run(M.AUC(summation_method="minoring", num_thresholds=17), batches),
        "auc_prgain": _run(M.AUC(curve="PRGAIN"), batches),
        "auc_logits": _run(M.AUC(from_logits=True), [(BIN, LOGITS)]),
        "auc_2d": _run(M.AUC(), multi),
        "auc_multi": _run(M.AUC(multi_label=True), multi),
        "auc_multi_pr": _run(
            M.AUC(multi_label=True, num_labels=3, label_weights=[1.0, 2.0, 0.5], curve="PR"),
            multi,
        ),
        "auc_multi_uneven": _run(M.AUC(multi_label=True, thresholds=[0.2, 0.45, 0.9]), multi),
        "auc_multi_major": _run(
            M.AUC(multi_label=True, curve="PR", summation_method="majoring"), multi
        ),
        "auc_label_weights": _run(M.AUC(label_weights=[1.0, 0.0, 3.0]), multi),
        "sens_at_spec": _run(M.SensitivityAtSpecificity(0.6), batches),
        "spec_at_sens": _run(M.SpecificityAtSensitivity(0.8, num_thresholds=30), batches),
        "prec_at_rec": _run(M.PrecisionAtRecall(0.5, num_thresholds=1), batches),
        "rec_at_prec": _run(M.RecallAtPrecision(0.7, class_id=1), multi),
        "at_edges": _run(M.SensitivityAtSpecificity(0.5, num_thresholds=5), edges),
        "at_config": M.PrecisionAtRecall(0.3, name="p").get_config(),
    }


def iou(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    yt = np.array([0, 1, 2, 2, 1, 3, -1])
    yp = np.array([0, 1, 1, 2, 2, 0, 1])
    w = np.array([1, 2, 1, 1, 3, 1, 1])
    return {
        "miou": _run(M.MeanIoU(4), [(yt, yp), (yt[:4], yp[:4], w[:4])]),
        "miou_ignore": _run(M.MeanIoU(4, ignore_class=2), [(yt, yp)]),
        "miou_onehot": _run(M.MeanIoU(3, sparse_y_pred=False), [(SPARSE, P)]),
        "iou": _run(M.IoU(4, [1, 3]), [(yt, yp), (yt[:4], yp[:4], w[:4])]),
        "binary_iou": _run(M.BinaryIoU(threshold=0.4), [(BIN, P), (BIN, P, SW[:, None] + 0 * P)]),
        "binary_iou_1": _run(M.BinaryIoU(target_class_ids=[1]), [(BIN, P)]),
        "onehot_iou": _run(M.OneHotIoU(3, [0, 2]), [(ONE_HOT, P)]),
        "onehot_miou": _run(M.OneHotMeanIoU(3), [(ONE_HOT, P), (ONE_HOT, P, SW)]),
        "iou_config": M.IoU(3, [0], name="i").get_config(),
        "dtype": str(
            getattr(M.MeanIoU(3).variables[0].dtype, "name", M.MeanIoU(3).variables[0].dtype)
        ),
    }


def _quiet(fn: Any) -> Any:
    """``fn()`` with warnings ignored: after ``reset_state`` an adjusted R2 warns (in
    Keras too) that it has fewer samples than regressors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def scores(tf: Any) -> dict[str, Any]:
    """F-scores, R2 and correlations (Keras 3 metrics beyond the classic ones)."""
    M = tf.keras.metrics
    multi = [(BIN, P), (BIN, P, SW)]
    reg = [(REG_T, REG_P), (REG_T, REG_P * 0.5, SW)]
    return {
        "f1": _run(M.F1Score(), multi),
        "f1_micro_t": _run(M.F1Score(average="micro", threshold=0.4), multi),
        "fbeta_macro": _run(M.FBetaScore(average="macro", beta=2.0), multi),
        "fbeta_weighted": _run(M.FBetaScore(average="weighted", beta=0.5, threshold=0.6), multi),
        "r2": _run(M.R2Score(), reg),
        "r2_none": _run(M.R2Score(class_aggregation=None), reg),
        "r2_var": _run(M.R2Score(class_aggregation="variance_weighted_average"), reg),
        "r2_adjusted": _quiet(lambda: _run(M.R2Score(num_regressors=2), reg)),
        "pearson": _run(M.PearsonCorrelation(), reg),
        "concordance": _run(M.ConcordanceCorrelation(axis=0), [(REG_T, REG_P), (REG_T, -REG_P)]),
        "pearson_fn": f(M.pearson_correlation(REG_T, REG_P, axis=0)),
        "concordance_fn": f(M.concordance_correlation(REG_T, REG_P)),
        "configs": [M.F1Score().get_config(), M.R2Score().get_config()],
    }


def functions(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    return {
        "binary_accuracy": f(M.binary_accuracy(BIN, P, threshold=0.4)),
        "categorical_accuracy": f(M.categorical_accuracy(ONE_HOT, P)),
        "sparse_categorical_accuracy": f(M.sparse_categorical_accuracy(SPARSE, P)),
        "sparse_col": f(M.sparse_categorical_accuracy(SPARSE[:, None], P)),
        "top_k": f(M.top_k_categorical_accuracy(ONE_HOT, P, k=2)),
        "sparse_top_k": f(M.sparse_top_k_categorical_accuracy(SPARSE, P, k=1)),
        "mse": f(M.mse(REG_T, REG_P)),
        "bce": f(M.binary_crossentropy(BIN, P)),
    }


def in_function(tf: Any) -> dict[str, Any]:
    """Metrics updated by a tf.function step across calls, and by an eager tape loop."""
    M = tf.keras.metrics
    acc, auc, mean = M.SparseCategoricalAccuracy(), M.AUC(num_thresholds=20), M.Mean()

    @tf.function
    def step(y: Any, p: Any, b: Any, s: Any) -> Any:
        acc.update_state(y, p)
        auc.update_state(b, s)
        mean.update_state(tf.reduce_sum(p))
        return acc.result()

    seen = [
        f(
            step(
                SPARSE[i : i + 2],
                P[i : i + 2],
                LABELS[i * 10 : i * 10 + 10],
                SCORES[i * 10 : i * 10 + 10],
            )
        )
        for i in (0, 2)
    ]
    return {"seen": seen, "acc": f(acc.result()), "auc": f(auc.result()), "mean": f(mean.result())}


def names(tf: Any) -> dict[str, Any]:
    M = tf.keras.metrics
    return {
        "defaults": [
            c().name for c in (M.Accuracy, M.Mean, M.Sum, M.RootMeanSquaredError, M.LogCoshError)
        ],
        "auto": [M.AUC(name=None).name.split("_")[0], M.Precision().name.split("_")[0]],
        "get": [type(M.get(n)).__name__ for n in ("accuracy", "mse", "AUC", "binary_accuracy")],
        "config_bin": M.BinaryAccuracy(threshold=0.3).get_config(),
        "config_top": M.SparseTopKCategoricalAccuracy(k=3).get_config(),
        "config_iou": M.MeanIoU(3, name="m").get_config(),
        "config_auc": {k: v for k, v in M.AUC(curve="PR", name="a").get_config().items()},
        "variables": [v.name.split(":")[0].split("/")[-1] for v in M.AUC().variables],
    }


CASES = [wrappers, reductions, confusion, iou, scores, functions, in_function]
EXACT_CASES = [names]
