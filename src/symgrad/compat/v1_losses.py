"""``tf.compat.v1.losses``: TF1's losses, built as TF's ``losses_impl`` builds them.

Each loss casts to float32, weighs the elementwise losses (``weights`` broadcast against
them), reduces them by ``reduction`` (default ``SUM_BY_NONZERO_WEIGHTS``: the weighted sum
over the number of non-zero weights), casts back to the input's dtype and, in a graph,
adds the result to the ``loss_collection`` that ``get_losses``/``get_total_loss`` read.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.variable_scope import GraphKeys, add_to_collection, get_collection
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, executing_eagerly, name_scope
from symgrad.ops import core
from symgrad.ops.array import structure as array
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.add_n import add_n
from symgrad.ops.math.safe_math import divide_no_nan
from symgrad.ops.nn import basic as _nn
from symgrad.ops.nn.losses import sigmoid_cross_entropy_with_logits
from symgrad.ops.reduction import reduce as reduction

_LOSSES = GraphKeys.LOSSES

__all__ = [
    "Reduction",
    "absolute_difference",
    "add_loss",
    "compute_weighted_loss",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """How ``compute_weighted_loss`` reduces the weighted losses (TF's names and values)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _num_present(losses: Tensor, weights: Any) -> Tensor:
    """How many losses have a non-zero weight (all of them for a non-zero scalar)."""
    if isinstance(weights, float | int) and weights != 0:
        return array.cast(array.size(losses), dt.float32)
    w = array.cast(weights, dt.float32)
    present = array.where(math.equal(w, 0.0), array.zeros_like(w), array.ones_like(w))
    present = math.multiply(present, array.ones_like(losses))  # broadcast to the losses
    return reduction.reduce_sum(present)


def compute_weighted_loss(
    losses: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = core.convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = array.cast(losses, dt.float32)
        w = array.cast(weights, dt.float32)
        weighted = math.multiply(losses, w)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = _reduce(weighted, losses, weights, w, reduction)
        loss = array.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


def _reduce(weighted: Tensor, losses: Tensor, weights: Any, w: Tensor, how: str) -> Tensor:
    total = _sum(weighted)
    if how == Reduction.MEAN:
        return _safe_mean(total, _sum(math.multiply(array.ones_like(losses), w)))
    if how == Reduction.SUM_BY_NONZERO_WEIGHTS:
        return _safe_mean(total, _num_present(losses, weights))
    if how == Reduction.SUM_OVER_BATCH_SIZE:
        return _safe_mean(total, array.cast(array.size(losses), dt.float32))
    return total


def _safe_mean(total: Tensor, count: Tensor) -> Tensor:
    """TF's: the sum (summed again, as TF does) over the count, 0 for none, named "value"
    (a loss is fetched as "<loss scope>/value:0")."""
    return divide_no_nan(_sum(total), count, name="value")


def _sum(x: Tensor) -> Tensor:
    return reduction.reduce_sum(x)


def _pair(labels: Any, predictions: Any, what: str) -> tuple[Tensor, Tensor]:
    if labels is None:
        raise ValueError("Argument `labels` must not be None.")
    if predictions is None:
        raise ValueError(f"Argument `{what}` must not be None.")
    p = array.cast(predictions, dt.float32)
    y = array.cast(labels, dt.float32)
    if not p.shape.is_compatible_with(y.shape):
        raise ValueError(f"Shapes {p.shape} and {y.shape} are incompatible")
    return y, p


def mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "mean_squared_error") as scope:  # (compute_weighted_loss reenters it)
        y, p = _pair(labels, predictions, "predictions")
        losses = math.squared_difference(p, y)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def absolute_difference(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "absolute_difference") as scope:
        y, p = _pair(labels, predictions, "predictions")
        losses = math.abs(math.subtract(p, y))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    delta: float = 1.0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "huber_loss") as scope:
        y, p = _pair(labels, predictions, "predictions")
        abs_error = math.abs(math.subtract(p, y))
        quadratic = math.minimum(abs_error, delta)
        linear = math.subtract(abs_error, quadratic)  # the error beyond delta
        losses = math.add(
            math.multiply(0.5, math.multiply(quadratic, quadratic)), math.multiply(delta, linear)
        )
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    epsilon: float = 1e-7,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "log_loss") as scope:
        y, p = _pair(labels, predictions, "predictions")
        pos = math.multiply(y, math.log(math.add(p, epsilon)))
        neg = math.multiply(
            math.subtract(1.0, y), math.log(math.add(math.subtract(1.0, p), epsilon))
        )
        losses = math.subtract(math.negative(pos), neg)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sigmoid_cross_entropy(
    multi_class_labels: Any,
    logits: Any,
    weights: Any = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "sigmoid_cross_entropy_loss") as scope:
        x = core.convert_to_tensor(logits)
        z = array.cast(multi_class_labels, x.dtype)
        if label_smoothing > 0:
            z = math.add(math.multiply(z, 1 - label_smoothing), 0.5 * label_smoothing)
        losses = sigmoid_cross_entropy_with_logits(labels=z, logits=x, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(
    onehot_labels: Any,
    logits: Any,
    weights: Any = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "softmax_cross_entropy_loss") as scope:
        x = core.convert_to_tensor(logits)
        z = array.cast(onehot_labels, x.dtype)
        if label_smoothing > 0:
            n = array.cast(array.shape(z)[-1], x.dtype)
            z = math.add(math.multiply(z, 1.0 - label_smoothing), math.divide(label_smoothing, n))
        z = core.stop_gradient(z, name="labels_stop_gradient")
        losses = _nn.softmax_cross_entropy_with_logits(z, x, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sparse_softmax_cross_entropy(
    labels: Any,
    logits: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: str | None = _LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as scope:
        x = core.convert_to_tensor(logits)
        y = core.convert_to_tensor(labels)
        if y.shape.rank is not None and y.shape.rank == x.shape.rank and y.shape[-1] == 1:
            y = array.squeeze(y, [-1])  # TF removes a squeezable last dimension
        losses = _nn.sparse_softmax_cross_entropy_with_logits(y, x, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def add_loss(loss: Any, loss_collection: str | None = _LOSSES) -> None:
    """Add ``loss`` to the graph's ``loss_collection`` (not when executing eagerly, as TF)."""
    if loss_collection and not executing_eagerly():
        add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None, loss_collection: str = _LOSSES) -> list[Any]:
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope: str | None = None) -> list[Any]:
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(
    scope: str | None = None, name: str = "total_regularization_loss"
) -> Tensor:
    losses = get_regularization_losses(scope)
    return add_n(losses, name=name) if losses else core.constant(0.0)


def get_total_loss(
    add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None
) -> Tensor:
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return add_n(losses, name=name)
