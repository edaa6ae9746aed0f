"""Elementwise logistic losses: sigmoid and weighted cross entropy with logits.

Both are TF's compositions of elementwise ops, in TF's numerically stable forms
(``max(x, 0) - x·z + log1p(exp(-|x|))``), so their gradients are those of the ops.
"""

from __future__ import annotations

from typing import Any

from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.nn import basic as nn


def _xent_args(name: str, labels: Any, logits: Any) -> tuple[Tensor, Tensor]:
    if labels is None or logits is None:
        raise ValueError(
            f"Both labels and logits must be provided for {name}Received: "
            f"labels={labels} and logits={logits}"
        )
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype_hint=x.dtype)
    if not z.shape.is_compatible_with(x.shape):
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({x.shape} vs {z.shape})."
        )
    return z, x


def sigmoid_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """-z·log(sigmoid(x)) - (1 - z)·log(1 - sigmoid(x)), as max(x, 0) - x·z + log1p(e^-|x|).

    TF selects with ``x >= 0`` rather than using max and abs, so the gradient at x = 0 is
    that of the x >= 0 branch.
    """
    with name_scope(name, "logistic_loss"):
        z, x = _xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
        zeros = array.zeros_like(x)
        cond = math.greater_equal(x, zeros)
        relu_logits = array.where(cond, x, zeros)
        neg_abs_logits = array.where(cond, -x, x)
        return math.add(relu_logits - x * z, math.log1p(math.exp(neg_abs_logits)))


def weighted_cross_entropy_with_logits(
    labels: Any = None,
    logits: Any = None,
    pos_weight: Any = None,
    name: str | None = None,
    targets: Any = None,
) -> Tensor:
    """The sigmoid cross entropy with the positive term weighted by ``pos_weight``:
    (1 - z)·x + (1 + (q - 1)·z)·(log1p(exp(-|x|)) + max(-x, 0))."""
    if labels is None:
        labels = targets
    with name_scope(name, "logistic_loss"):
        z, x = _xent_args("weighted_cross_entropy_with_logits", labels, logits)
        log_weight = 1 + (pos_weight - 1) * z
        return math.add(
            (1 - z) * x, log_weight * (math.log1p(math.exp(-math.abs(x))) + nn.relu(-x))
        )
