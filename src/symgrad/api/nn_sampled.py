"""``tf.nn.nce_loss``, ``tf.nn.sampled_softmax_loss`` and ``tf.nn.log_poisson_loss``.

The sampled losses are TF's composition (``nn_impl._compute_sampled_logits``) op for op: the
true and sampled classes' rows and biases looked up together, the true logits as row-wise
dot products summed by a MatMul with ones (TF's ``_sum_rows``), accidental hits pushed to
-FLT_MAX, the log of the expected counts subtracted; then sigmoid (NCE) or softmax
cross entropy.  So the loss and its gradients for weights, biases and inputs are TF's.
TF's ``SparseToDense`` of the accidental hits is a ``TensorScatterUpdate`` on zeros here
(the same values: a later duplicate overwrites an earlier one in both).
"""

from __future__ import annotations

import math as _pymath
from typing import Any

from symgrad.api.embedding_ops import embedding_lookup
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import joining, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.array.tensor_scatter import tensor_scatter_nd_update
from symgrad.ops.cast_select import cast
from symgrad.ops.core import convert_to_tensor, stop_gradient
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import elementwise as math
from symgrad.ops.nn import basic as nn
from symgrad.ops.nn.losses import sigmoid_cross_entropy_with_logits
from symgrad.ops.random.candidates import compute_accidental_hits, log_uniform_candidate_sampler


def log_poisson_loss(
    targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None
) -> Tensor:
    """exp(c) - z·c, plus Stirling's z·log(z) - z + ½·log(2πz) where z > 1 if
    ``compute_full_loss`` (TF's formula, op for op)."""
    with name_scope(name, "log_poisson_loss"):
        c = convert_to_tensor(log_input)
        z = convert_to_tensor(targets)
        if not z.shape.is_compatible_with(c.shape):
            raise ValueError(
                "`log_input` and `targets` must have the same shape, received "
                f"({c.shape} vs {z.shape})."
            )
        result = math.subtract(math.exp(c), c * z)
        if compute_full_loss:
            half = convert_to_tensor(0.5, dtype=z.dtype)
            two_pi = convert_to_tensor(2 * _pymath.pi, dtype=z.dtype)
            stirling = (z * math.log(z)) - z + (half * math.log(two_pi * z))
            zeros, ones = array.zeros_like(z), array.ones_like(z)
            cond = math.logical_and(z >= zeros, z <= ones)
            result += array.where(cond, zeros, stirling)
        return result


def _sum_rows(x: Tensor) -> Tensor:
    """Each row's sum as TF takes it: a MatMul with a column of ones."""
    cols = array.shape(x)[1]
    ones = array.ones(joining.stack([cols, 1]), x.dtype)
    return array.reshape(matmul(x, ones), [-1])


def _lookup(params: Any, ids: Tensor, partition_strategy: str, dtype: dt.DType) -> Tensor:
    rows = embedding_lookup(params, ids, partition_strategy=partition_strategy)
    return rows if rows.dtype is dtype else cast(rows, dtype)


def _accidental_hits(
    labels: Tensor, sampled: Tensor, num_true: int, num_sampled: int
) -> tuple[Tensor, Tensor, Tensor]:
    """Where (row, sampled position) a sampled class is one of the row's true classes, the
    [batch, num_sampled] shape and the -FLT_MAX weights."""
    rows, ids, weights = compute_accidental_hits(labels, sampled, num_true=num_true)
    where = joining.concat(
        [array.reshape(rows, [-1, 1]), array.reshape(cast(ids, dt.int32), [-1, 1])],
        1,
        "sparse_indices",
    )
    shape = joining.concat([array.shape(labels)[:1], array.expand_dims(num_sampled, 0)], 0)
    return where, shape, weights


def _compute_sampled_logits(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    subtract_log_q: bool = True,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str | None = None,
    seed: int | None = None,
) -> tuple[Tensor, Tensor]:
    """(logits, labels) of shape [batch, num_true + num_sampled]: TF's helper, op for op."""
    weights = list(weights) if isinstance(weights, (list, tuple)) else [weights]
    with name_scope(name, "compute_sampled_logits"):
        labels = convert_to_tensor(labels, dtype_hint=dt.int64)
        if labels.dtype is not dt.int64:
            labels = cast(labels, dt.int64)
        inputs = convert_to_tensor(inputs)
        labels_flat = array.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels,
                num_true=num_true,
                num_sampled=num_sampled,
                unique=True,
                range_max=num_classes,
                seed=seed,
            )
        sampled, true_expected, sampled_expected = (stop_gradient(s) for s in sampled_values)
        sampled = cast(sampled, dt.int64)
        all_ids = joining.concat([labels_flat, sampled], 0)
        all_w = _lookup(weights, all_ids, partition_strategy, inputs.dtype)
        n_true = array.shape(labels_flat)[0]
        true_w = slicing.slice(all_w, [0, 0], joining.stack([n_true, -1]))
        sampled_w = slicing.slice(all_w, joining.stack([n_true, 0]), [-1, -1])
        sampled_logits = matmul(inputs, sampled_w, transpose_b=True)
        all_b = _lookup(biases, all_ids, partition_strategy, inputs.dtype)
        true_b = slicing.slice(all_b, [0], array.shape(labels_flat))
        sampled_b = slicing.slice(all_b, array.shape(labels_flat), [-1])
        dim = array.shape(true_w)[1:2]
        new_true_w_shape = joining.concat([[-1, num_true], dim], 0)
        row_wise_dots = math.multiply(
            array.expand_dims(inputs, 1), array.reshape(true_w, new_true_w_shape)
        )
        dots_as_matrix = array.reshape(row_wise_dots, joining.concat([[-1], dim], 0))
        true_logits = array.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_logits += array.reshape(true_b, [-1, num_true])
        sampled_logits += sampled_b
        if remove_accidental_hits:
            where, shape, acc_weights = _accidental_hits(labels, sampled, num_true, num_sampled)
            if sampled_logits.dtype is not acc_weights.dtype:
                acc_weights = cast(acc_weights, sampled_logits.dtype)
            zeros = array.zeros(shape, sampled_logits.dtype)
            sampled_logits += tensor_scatter_nd_update(zeros, where, acc_weights)
        if subtract_log_q:
            true_logits -= math.log(true_expected)
            sampled_logits -= math.log(sampled_expected)
        out_logits = joining.concat([true_logits, sampled_logits], 1)
        out_labels = joining.concat(
            [array.ones_like(true_logits) / num_true, array.zeros_like(sampled_logits)], 1
        )
        return out_logits, out_labels


def nce_loss_v1(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str = "nce_loss",
) -> Tensor:
    """Per-example noise-contrastive estimation loss: sigmoid cross entropy of the true and
    sampled logits (log expected counts subtracted), summed over each row."""
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
    )
    losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(losses)


def nce_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    name: str = "nce_loss",
) -> Tensor:
    """TF2's ``tf.nn.nce_loss``: TF1's with ``partition_strategy="div"``."""
    return nce_loss_v1(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy="div",
        name=name,
    )


def sampled_softmax_loss_v1(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    partition_strategy: str = "mod",
    name: str = "sampled_softmax_loss",
    seed: int | None = None,
) -> Tensor:
    """Per-example softmax cross entropy over the true and sampled classes only."""
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
        seed=seed,
    )
    labels = stop_gradient(labels, name="labels_stop_gradient")
    return nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def sampled_softmax_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    seed: int | None = None,
    name: str = "sampled_softmax_loss",
) -> Tensor:
    """TF2's ``tf.nn.sampled_softmax_loss``: TF1's with ``partition_strategy="div"``."""
    return sampled_softmax_loss_v1(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy="div",
        name=name,
        seed=seed,
    )
