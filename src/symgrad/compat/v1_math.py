"""``tf.compat.v1.math``: TF1's signatures where TF2 changed them (``keep_dims``,
``reduction_indices``, ``dim``, ``in_top_k(predictions, targets, k)``,
``confusion_matrix``'s ``dtype`` before ``weights``); every other name resolves to
``tf.math``."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as _math
from symgrad.compat.v1_nn import in_top_k, log_softmax, softmax  # noqa: F401  (TF1's signatures)
from symgrad.compat.v1_ops import (  # noqa: F401
    argmax,
    argmin,
    bincount,
    count_nonzero,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from symgrad.core import dtypes as dt

_FALLBACK = "symgrad.api.math"


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    dtype: Any = dt.int32,
    name: str | None = None,
    weights: Any = None,
) -> Any:
    """TF1's ``confusion_matrix``: ``dtype`` and ``name`` come before ``weights``."""
    return _math.confusion_matrix(labels, predictions, num_classes, weights, dtype, name)


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    try:
        return getattr(_math, name)
    except AttributeError:
        raise missing("tf.compat.v1.math", name) from None
