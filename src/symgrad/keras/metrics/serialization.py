"""``tf.keras.metrics.get``/``serialize``/``deserialize``: names resolve as Keras resolves
them (``"accuracy"`` and ``"mse"`` give metric objects, as ``compile`` expects)."""

from __future__ import annotations

from typing import Any

from symgrad.keras.metrics import accuracy, at_value, base, confusion, f_score, iou, r2, regression
from symgrad.keras.object_registration import (
    custom_config,
    function_config,
    get_registered_object,
    lookup,
)

CLASSES: dict[str, type] = {
    c.__name__: c
    for module in (accuracy, at_value, base, confusion, f_score, iou, r2, regression)
    for c in vars(module).values()
    if isinstance(c, type) and issubclass(c, base.Metric) and not c.__name__.startswith("_")
}
ALIASES = {
    "accuracy": "Accuracy", "acc": "Accuracy", "mse": "MeanSquaredError",
    "mean_squared_error": "MeanSquaredError", "mae": "MeanAbsoluteError",
    "mean_absolute_error": "MeanAbsoluteError", "mape": "MeanAbsolutePercentageError",
    "mean_absolute_percentage_error": "MeanAbsolutePercentageError",
    "msle": "MeanSquaredLogarithmicError",
    "mean_squared_logarithmic_error": "MeanSquaredLogarithmicError",
    "binary_accuracy": "BinaryAccuracy", "categorical_accuracy": "CategoricalAccuracy",
    "sparse_categorical_accuracy": "SparseCategoricalAccuracy",
    "top_k_categorical_accuracy": "TopKCategoricalAccuracy",
    "sparse_top_k_categorical_accuracy": "SparseTopKCategoricalAccuracy",
    "binary_crossentropy": "BinaryCrossentropy",
    "categorical_crossentropy": "CategoricalCrossentropy",
    "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy",
    "kl_divergence": "KLDivergence", "kld": "KLDivergence", "poisson": "Poisson",
    "hinge": "Hinge", "squared_hinge": "SquaredHinge", "categorical_hinge": "CategoricalHinge",
    "logcosh": "LogCoshError", "cosine_similarity": "CosineSimilarity",
    "root_mean_squared_error": "RootMeanSquaredError",
}  # fmt: skip


def serialize(metric: Any) -> Any:
    registered = function_config(metric)
    if registered is None and hasattr(metric, "get_config"):
        registered = custom_config(metric, metric.get_config())
    if registered is not None:
        return registered
    return {
        "module": "keras.metrics",
        "class_name": type(metric).__name__,
        "config": metric.get_config(),
        "registered_name": None,
    }


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    custom = dict(custom_objects or {})
    if isinstance(config, dict):
        cls = lookup(config, custom, CLASSES)
        if config["class_name"] == "function":
            return cls
        return cls.from_config(config.get("config", {}))
    found = get_registered_object(config, custom)
    if found is not None:
        return found
    cls_name = ALIASES.get(config, config)
    if cls_name in CLASSES:
        return CLASSES[cls_name]()
    raise ValueError(f"Could not interpret metric identifier: {config}")


def get(identifier: Any) -> Any:
    """A metric from a name, a config dict, a Metric or a function."""
    if identifier is None:
        return None
    if isinstance(identifier, dict | str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
