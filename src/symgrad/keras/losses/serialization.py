"""``tf.keras.losses.get``/``serialize``/``deserialize`` and the legacy ``Reduction``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.keras.losses import classes, extra
from symgrad.keras.losses import functions as F
from symgrad.keras.object_registration import (
    custom_config,
    function_config,
    get_registered_object,
    lookup,
)

FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        F.mean_squared_error, F.mean_absolute_error, F.mean_absolute_percentage_error,
        F.mean_squared_logarithmic_error, F.cosine_similarity, F.huber, F.log_cosh,
        F.kl_divergence, F.poisson, F.hinge, F.squared_hinge, F.categorical_hinge,
        F.binary_crossentropy, F.binary_focal_crossentropy, F.categorical_crossentropy,
        F.categorical_focal_crossentropy, F.sparse_categorical_crossentropy, extra.dice,
        extra.tversky,
    )
}  # fmt: skip
ALIASES = {
    "mse": "mean_squared_error", "MSE": "mean_squared_error", "mae": "mean_absolute_error",
    "MAE": "mean_absolute_error", "mape": "mean_absolute_percentage_error",
    "MAPE": "mean_absolute_percentage_error", "msle": "mean_squared_logarithmic_error",
    "MSLE": "mean_squared_logarithmic_error", "kld": "kl_divergence", "KLD": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence", "logcosh": "log_cosh",
}  # fmt: skip
CLASSES: dict[str, type] = {
    c.__name__: c
    for c in (
        classes.MeanSquaredError, classes.MeanAbsoluteError,
        classes.MeanAbsolutePercentageError, classes.MeanSquaredLogarithmicError,
        classes.CosineSimilarity, classes.Huber, classes.LogCosh, classes.KLDivergence,
        classes.Poisson, classes.Hinge, classes.SquaredHinge, classes.CategoricalHinge,
        classes.BinaryCrossentropy, classes.BinaryFocalCrossentropy,
        classes.CategoricalCrossentropy, classes.CategoricalFocalCrossentropy,
        classes.SparseCategoricalCrossentropy, classes.Loss, classes.LossFunctionWrapper,
        extra.Dice, extra.Tversky,
    )
}  # fmt: skip


class Reduction:
    """Keras 2's reduction names, kept by Keras 3 as ``keras.losses.Reduction``."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


def serialize(loss: Any) -> Any:
    registered = function_config(loss) or (
        custom_config(loss, loss.get_config()) if isinstance(loss, classes.Loss) else None
    )
    if registered is not None:
        return registered
    if isinstance(loss, classes.Loss):
        return {
            "module": "keras.losses",
            "class_name": type(loss).__name__,
            "config": loss.get_config(),
            "registered_name": None,
        }
    if callable(loss) and getattr(loss, "__name__", None) in FUNCTIONS:
        return {
            "module": "builtins",
            "class_name": "function",
            "config": loss.__name__,
            "registered_name": "function",
        }
    raise ValueError(f"Cannot serialize {loss!r}: not a Keras loss")


def deserialize(name: Any, custom_objects: Any = None) -> Any:
    custom = dict(custom_objects or {})
    if isinstance(name, dict):
        if name.get("class_name") == "function":
            return _lookup(name["config"], custom)
        cls = lookup(name, custom, CLASSES)
        return cls.from_config(name.get("config", {}))
    return _lookup(name, custom)


def _lookup(name: str, custom: dict[str, Any]) -> Any:
    found = get_registered_object(name, custom)
    if found is not None:
        return found
    key = ALIASES.get(name, name)
    if key in FUNCTIONS:
        return FUNCTIONS[key]
    if name in CLASSES:
        return CLASSES[name]()
    raise ValueError(f"Could not interpret loss identifier: {name}")


def get(identifier: Any) -> Any:
    """A loss from a name (``"mse"``, ``"MeanSquaredError"``), a config dict or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict | str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier}")
