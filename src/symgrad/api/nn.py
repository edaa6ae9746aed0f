"""``tf.nn``: the neural-network functions under their TensorFlow names.

The functions whose arguments TF2 changed are defined at the end with TF2's signatures
(forwarding by keyword to the implementation); ``tf.compat.v1.nn`` has TF1's
(:mod:`symgrad.compat.v1_nn`).  TF1-only names with no TF2 conflict stay here too:
xw_plus_b, fused_batch_norm, depthwise_conv2d_native, conv2d_backprop_input,
conv2d_backprop_filter and conv3d_backprop_filter_v2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api import embedding_ops as _embedding
from symgrad.api.nn_sampled import log_poisson_loss, nce_loss, sampled_softmax_loss
from symgrad.core import missing as _missing
from symgrad.core.graph import Tensor, name_scope
from symgrad.distribute.losses import compute_average_loss, scale_regularization_loss
from symgrad.ops.array.gather import gather
from symgrad.ops.array.joining import concat
from symgrad.ops.array.structure import cast, rank, shape
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.math.elementwise import (
    add,
    multiply,
    reciprocal,
    sigmoid,
    square,
    squared_difference,
    subtract,
    tanh,
)
from symgrad.ops.nn import conv_api as _conv
from symgrad.ops.nn import dropout as _dropout
from symgrad.ops.nn import losses as _losses
from symgrad.ops.nn import normalization as _norm
from symgrad.ops.nn import pooling as _pool
from symgrad.ops.nn.activations import elu, gelu, leaky_relu, relu6, selu, silu, swish
from symgrad.ops.nn.basic import (
    l2_loss,
    log_softmax,
    relu,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
)
from symgrad.ops.nn.bias import bias_add, xw_plus_b
from symgrad.ops.nn.conv_api import (
    conv1d_transpose,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    conv3d_backprop_filter_v2,
    conv_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    depthwise_conv2d_native,
)
from symgrad.ops.nn.ctc import ctc_loss
from symgrad.ops.nn.losses import sigmoid_cross_entropy_with_logits
from symgrad.ops.nn.lrn import local_response_normalization, lrn
from symgrad.ops.nn.normalization import batch_normalization, fused_batch_norm, l2_normalize
from symgrad.ops.nn.pooling import (
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)
from symgrad.ops.random.candidates import compute_accidental_hits
from symgrad.ops.reduction.reduce import reduce_prod, reduce_sum

__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_normalization",
    "bias_add",
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "conv2d_transpose",
    "conv3d",
    "conv3d_backprop_filter_v2",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "crelu",
    "depthwise_conv2d",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
    "depthwise_conv2d_native",
    "dropout",
    "elu",
    "embedding_lookup",
    "fused_batch_norm",
    "gelu",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "moments",
    "normalize_moments",
    "relu",
    "relu6",
    "selu",
    "separable_conv2d",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "sufficient_statistics",
    "swish",
    "tanh",
    "weighted_cross_entropy_with_logits",
    "xw_plus_b",
]

# tf.nn names of functions that live with tf.math (issue 16)
from symgrad.ops.array.sorting import top_k
from symgrad.ops.math.rounding import in_top_k
from symgrad.ops.math.safe_math import softsign
from symgrad.ops.reduction.statistics import zero_fraction

__all__ += ["in_top_k", "softsign", "top_k", "zero_fraction"]
__all__ += ["compute_average_loss", "scale_regularization_loss"]
__all__ += [
    "atrous_conv2d",
    "compute_accidental_hits",
    "ctc_loss",
    "local_response_normalization",
    "log_poisson_loss",
    "lrn",
    "nce_loss",
    "sampled_softmax_loss",
]


# TF2's signatures for the functions whose TF1 arguments differ (tf.compat.v1.nn has TF1's).


def dropout(
    x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    """Zero each entry with probability ``rate``, scale the rest by 1 / (1 - rate)."""
    return _dropout.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed, name=name)


def moments(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    return _norm.moments(x, axes, shift=shift, keepdims=keepdims, name=name)


def crelu(features: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """relu(concat([x, -x], axis)): the positive and the negative part side by side."""
    with name_scope(name, "CRelu") as scope:
        x = convert_to_tensor(features, name="features")
        return relu(concat([x, -x], axis, name=scope))


def sufficient_statistics(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Any]:
    """(count, Σ(x - shift), Σ(x - shift)², shift) over ``axes`` (TF's one-pass moments)."""
    axes = list(set(axes))
    with name_scope(name, "sufficient_statistics"):
        t = convert_to_tensor(x, name="x")
        dims = t.shape.dims
        if dims is not None and all(dims[d] is not None for d in axes):
            counts = constant(int(np.prod([dims[d] for d in axes])), t.dtype)
        else:
            ax = [a + rank(t) if a < 0 else a for a in axes]
            counts = reduce_prod(gather(cast(shape(t), t.dtype), ax), name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss, v_ss = subtract(t, shift), squared_difference(t, shift)
        else:
            m_ss, v_ss = t, square(t)
        m_ss = reduce_sum(m_ss, axes, keepdims=keepdims, name="mean_ss")
        v_ss = reduce_sum(v_ss, axes, keepdims=keepdims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(
    counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Mean and variance from sufficient statistics: (mean_ss/n + shift, var_ss/n - m²)."""
    with name_scope(name, "normalize"):
        divisor = reciprocal(counts, name="divisor")
        if shift is None:
            mean = shifted = multiply(mean_ss, divisor, name="mean")
        else:
            shifted = multiply(mean_ss, divisor, name="shifted_mean")
            mean = add(shifted, shift, name="mean")
        variance = subtract(multiply(variance_ss, divisor), square(shifted), name="variance")
        return mean, variance


def max_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    return _pool.max_pool(input, ksize, strides, padding, data_format, name)


def avg_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    return _pool.avg_pool(input, ksize, strides, padding, data_format, name)


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: Any,
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.conv1d(input, filters, stride, padding, data_format, dilations, name)


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.conv2d(input, filters, strides, padding, data_format, dilations, name)


def conv3d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.conv3d(input, filters, strides, padding, data_format, dilations, name)


def convolution(
    input: Any,
    filters: Any,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.convolution(input, filters, strides, padding, data_format, dilations, name)


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.conv2d_transpose(
        input, filters, output_shape, strides, padding, data_format, dilations, name
    )


def conv3d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.conv3d_transpose(
        input, filters, output_shape, strides, padding, data_format, dilations, name
    )


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.depthwise_conv2d(input, filter, strides, padding, data_format, dilations, name)


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    return _conv.separable_conv2d(
        input, depthwise_filter, pointwise_filter, strides, padding, data_format, dilations, name
    )


def atrous_conv2d(
    value: Any, filters: Any, rate: Any, padding: Any, name: str | None = None
) -> Tensor:
    """A 2-D convolution with ``rate - 1`` zeros between filter taps: ``convolution`` with
    dilations ``[rate, rate]``, as TF's."""
    return _conv.convolution(
        value, filters, padding=padding, dilations=[int(rate), int(rate)], name=name
    )


def embedding_lookup(
    params: Any, ids: Any, max_norm: Any = None, name: str | None = None
) -> Tensor:
    return _embedding.embedding_lookup(params, ids, max_norm=max_norm, name=name)


def weighted_cross_entropy_with_logits(
    labels: Any, logits: Any, pos_weight: Any, name: str | None = None
) -> Tensor:
    return _losses.weighted_cross_entropy_with_logits(
        labels=labels, logits=logits, pos_weight=pos_weight, name=name
    )


__getattr__ = _missing.module_getattr("tf.nn")
