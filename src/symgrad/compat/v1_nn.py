"""``tf.compat.v1.nn``: TF1's signatures for the functions whose arguments TF2 changed.

Each function here has TF1's parameter names, order and defaults (so a positional TF1
call means what it meant in TF1: ``dropout(x, 0.9)`` keeps 90%) and forwards by keyword
to the one implementation in :mod:`symgrad.ops`.  Every other name resolves to ``tf.nn``.
"""

from __future__ import annotations

from typing import Any

from symgrad.api import nn as _nn
from symgrad.api.embedding_ops import embedding_lookup as _embedding_lookup
from symgrad.api.nn_sampled import nce_loss_v1 as nce_loss  # noqa: F401  (TF1 signature)
from symgrad.api.nn_sampled import (  # noqa: F401  (TF1 signature)
    sampled_softmax_loss_v1 as sampled_softmax_loss,
)
from symgrad.compat._args import one_of
from symgrad.core.graph import Tensor
from symgrad.ops.math.rounding import in_top_k as _in_top_k
from symgrad.ops.nn import basic as _ops_nn
from symgrad.ops.nn import conv_api as _conv
from symgrad.ops.nn import pooling as _pool
from symgrad.ops.nn.dropout import dropout as _dropout
from symgrad.ops.nn.losses import weighted_cross_entropy_with_logits  # noqa: F401  (TF1 signature)
from symgrad.ops.nn.normalization import moments as _moments
from symgrad.ops.random.candidates import (  # noqa: F401  (TF1: also under tf.nn)
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)

_FALLBACK = "symgrad.api.nn"
# tf.nn names TF1 does not have.
_NOT_INHERITED = frozenset({"gelu", "ctc_loss"})  # TF1's ctc_loss takes SparseTensor labels
_D4, _D5 = (1, 1, 1, 1), (1, 1, 1, 1, 1)


def dropout(
    x: Any,
    keep_prob: Any = None,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
    rate: Any = None,
) -> Tensor:
    """TF1's dropout: ``keep_prob`` is the probability of keeping an entry."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
    if keep_prob is None and rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return _dropout(
        x, rate=rate, noise_shape=noise_shape, seed=seed, name=name, keep_prob=keep_prob
    )


def crelu(features: Any, name: str | None = None, axis: int = -1) -> Tensor:
    return _nn.crelu(features, axis=axis, name=name)


def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    name: str | None = None,
    keep_dims: bool | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor]:
    keep = one_of(keepdims, keep_dims, "keepdims", "keep_dims")
    return _moments(x, axes, shift=shift, keepdims=bool(keep), name=name)


def sufficient_statistics(
    x: Any,
    axes: Any,
    shift: Any = None,
    keep_dims: bool | None = None,
    name: str | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor, Tensor, Any]:
    keep = one_of(keepdims, keep_dims, "keepdims", "keep_dims")
    return _nn.sufficient_statistics(x, axes, shift=shift, keepdims=bool(keep), name=name)


def softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    return _ops_nn.softmax(logits, axis=one_of(axis, dim, "axis", "dim"), name=name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    return _ops_nn.log_softmax(logits, axis=one_of(axis, dim, "axis", "dim"), name=name)


def softmax_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, dim: int = -1, name: str | None = None, axis: Any = None
) -> Tensor:
    """TF1's (deprecated) form; as TF, the gradient does not flow into ``labels``."""
    from symgrad.ops.core import stop_gradient

    _both(labels, logits, "softmax_cross_entropy_with_logits")
    return softmax_cross_entropy_with_logits_v2(stop_gradient(labels), logits, axis, name, dim)


def softmax_cross_entropy_with_logits_v2(
    labels: Any, logits: Any, axis: Any = None, name: str | None = None, dim: Any = None
) -> Tensor:
    """The cross entropy with gradients into both labels and logits (TF2's function)."""
    axis = one_of(axis, dim, "axis", "dim")
    return _ops_nn.softmax_cross_entropy_with_logits(
        labels, logits, axis=-1 if axis is None else axis, name=name
    )


def sparse_softmax_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    _both(labels, logits, "sparse_softmax_cross_entropy_with_logits")
    return _ops_nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name=name)


def _both(labels: Any, logits: Any, what: str) -> None:
    """TF1's defaults are None so that both must be named; TF's error when one is not."""
    if labels is None or logits is None:
        raise ValueError(
            f"Both `labels` and `logits` must be provided for {what}"
            f"Received: labels={labels} and logits={logits}"
        )


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    return _in_top_k(targets, predictions, k, name=name)


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: Any = None,
) -> Tensor:
    return _embedding_lookup(
        params, ids, max_norm=max_norm, name=name, partition_strategy=partition_strategy
    )


def max_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    x = one_of(input, value, "input", "value")
    return _pool.max_pool(x, ksize, strides, padding, data_format, name)


def avg_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    x = one_of(input, value, "input", "value")
    return _pool.avg_pool(x, ksize, strides, padding, data_format, name)


avg_pool2d = avg_pool


def conv1d(
    value: Any = None,
    filters: Any = None,
    stride: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: Any = None,
    data_format: str | None = None,
    name: str | None = None,
    input: Any = None,
    dilations: Any = None,
) -> Tensor:
    x = one_of(input, value, "input", "value")
    return _conv.conv1d(x, filters, stride, padding, data_format or "NWC", dilations, name)


def conv2d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = _D4,
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    w = one_of(filters, filter, "filters", "filter")
    return _conv.conv2d(input, w, strides, padding, data_format, dilations, name)


def conv3d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str = "NDHWC",
    dilations: Any = _D5,
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    w = one_of(filters, filter, "filters", "filter")
    return _conv.conv3d(input, w, strides, padding, data_format, dilations, name)


def convolution(
    input: Any,
    filter: Any,
    padding: Any,
    strides: Any = None,
    dilation_rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    """TF1's order: ``padding`` third, ``strides`` fourth."""
    w = one_of(filters, filter, "filters", "filter")
    d = one_of(dilations, dilation_rate, "dilations", "dilation_rate")
    return _conv.convolution(input, w, strides, padding, data_format, d, name)


def conv2d_transpose(
    value: Any = None,
    filter: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    x, w = one_of(input, value, "input", "value"), one_of(filters, filter, "filters", "filter")
    return _conv.conv2d_transpose(
        x, w, output_shape, strides, padding, data_format, dilations, name
    )


def conv3d_transpose(
    value: Any,
    filter: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NDHWC",
    name: str | None = None,
    input: Any = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    x, w = one_of(input, value, "input", "value"), one_of(filters, filter, "filters", "filter")
    return _conv.conv3d_transpose(
        x, w, output_shape, strides, padding, data_format, dilations, name
    )


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    return _conv.depthwise_conv2d(
        input, filter, strides, padding, data_format, dilations, name, rate
    )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    return _conv.separable_conv2d(
        input,
        depthwise_filter,
        pointwise_filter,
        strides,
        padding,
        data_format,
        dilations,
        name,
        rate,
    )


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    if name in _NOT_INHERITED:
        raise missing("tf.compat.v1.nn", name)
    try:
        return getattr(_nn, name)
    except AttributeError:
        raise missing("tf.compat.v1.nn", name) from None
