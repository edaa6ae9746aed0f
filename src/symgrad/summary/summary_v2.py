"""``tf.summary.scalar``, ``histogram``, ``image`` and ``text``: TensorBoard's TF2 summaries.

TF 2.21 takes them from TensorBoard's plugins (``tensorboard/plugins/*/summary_v2.py``),
which write a tensor with ``SummaryMetadata`` naming the plugin: ``scalars`` (a float32
scalar), ``histograms`` (a float64 ``[buckets, 3]`` of left edge, right edge, count),
``images`` (a string vector: width, height, then one PNG per image) and ``text`` (the
strings).  The histogram and image tensors are computed here in NumPy as the plugins'
TF ops compute them, when the summary is written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.ops.array.structure import cast
from symgrad.ops.core import convert_to_tensor
from symgrad.summary.png import encode_png
from symgrad.summary.proto import plugin_metadata
from symgrad.summary.writer import STRING, string_tensor, summary_scope, write_value

DEFAULT_BUCKET_COUNT = 30


def scalar(name: Any, data: Any, step: Any = None, description: Any = None) -> Any:
    """Write ``data`` (a scalar, cast to float32) at ``step`` for TensorBoard's Scalars."""
    with summary_scope(name, "scalar_summary") as (tag, _):
        data = convert_to_tensor(data)
        if data.shape.rank is not None and data.shape.rank != 0:
            raise ValueError(f"Expected scalar shape, saw shape: {data.shape}.")
        return write_value(
            tag, cast(data, dt.float32), step, plugin_metadata("scalars", description)
        )


def histogram(
    name: Any, data: Any, step: Any = None, buckets: Any = None, description: Any = None
) -> Any:
    """Write the histogram of ``data``'s entries (``buckets`` equal-width buckets, 30 by
    default, from its least to its greatest value) for TensorBoard's Histograms."""
    count = DEFAULT_BUCKET_COUNT if buckets is None else int(buckets)
    with summary_scope(name, "histogram_summary") as (tag, _):
        return write_value(
            tag,
            convert_to_tensor(data),
            step,
            plugin_metadata("histograms", description),
            lambda x: histogram_buckets(x, count),
        )


def histogram_buckets(data: np.ndarray, bucket_count: int) -> np.ndarray:
    """TensorBoard's ``_buckets``: rows ``[left, right, count]``; the edges are
    ``min + i * (max - min) / k`` (TF's ``linspace``) and the last one ``max``; a value
    lands in bucket ``floor((x - min) / width)``, the last bucket closed.  No data: ``k``
    zero rows; a single value: every edge that value, all counted in the last bucket."""
    k = max(0, bucket_count)
    x = np.asarray(data, np.float64).reshape(-1)
    if x.size == 0 or k == 0:
        return np.zeros((k, 3))
    lo, hi = x.min(), x.max()
    if hi - lo == 0:
        counts = np.zeros(k)
        counts[-1] = x.size
        return np.stack([np.full(k, hi), np.full(k, hi), counts], axis=1)
    delta = (hi - lo) / k
    position = np.floor((x - lo) / delta)
    # TF casts a NaN or infinite position to int32's minimum, which one_hot counts nowhere
    index = np.where(np.isfinite(position), position, -1).clip(-1, k - 1).astype(np.int64)
    counts = np.bincount(index[index >= 0], minlength=k).astype(np.float64)
    edges = np.concatenate([[lo], lo + delta * np.arange(1, k, dtype=np.float64), [hi]])
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def image(
    name: Any, data: Any, step: Any = None, max_outputs: Any = 3, description: Any = None
) -> Any:
    """Write the first ``max_outputs`` images of ``data`` (``[k, height, width,
    channels]``, channels 1 to 4; floats in [0, 1], integers over their range) as PNG
    for TensorBoard's Images."""
    with summary_scope(name, "image_summary") as (tag, _):

        def images() -> Any:
            x = convert_to_tensor(data)
            if x.shape.rank is not None and x.shape.rank != 4:
                graph_name = "" if x.graph.eager else x.name
                raise ValueError(
                    f"Tensor {graph_name} must have rank 4.  Received rank {x.shape.rank}, "
                    f"shape {x.shape}"
                )
            if int(max_outputs) < 0:
                raise ValueError(f"`max_outputs` must be non-negative, got {max_outputs}")
            return x

        return write_value(
            tag,
            images,
            step,
            plugin_metadata("images", description),
            lambda x: encoded_images(x, int(max_outputs)),
        )


def to_uint8(x: np.ndarray) -> np.ndarray:
    """TF's ``convert_image_dtype(x, tf.uint8, saturate=True)``: floats times 255.5 (in
    their own precision), clipped to [0, 255] and truncated; wider integers divided by
    ``(max + 1) // 256``; narrower ones cast and multiplied."""
    if x.dtype == np.uint8:
        return x
    if x.dtype.kind == "f":
        scaled = x * x.dtype.type(255.5)
        return np.clip(scaled, 0, 255).astype(np.uint8)
    if x.dtype.kind in "iu":
        top = int(np.iinfo(x.dtype).max)
        if top > 255:
            return np.clip(x // ((top + 1) // 256), 0, 255).astype(np.uint8)
        return np.clip(x, 0, 255).astype(np.uint8) * np.uint8(256 // (top + 1))
    raise TypeError(f"Cannot convert an image of dtype {x.dtype} to uint8")


def encoded_images(data: np.ndarray, max_outputs: int) -> np.ndarray:
    """TensorBoard's image tensor: ``[width, height, png_0, ...]`` as strings."""
    pixels = to_uint8(np.asarray(data))
    head = [str(pixels.shape[2]).encode(), str(pixels.shape[1]).encode()]
    return np.array(head + [encode_png(p) for p in pixels[:max_outputs]], dtype=object)


def text(name: Any, data: Any, step: Any = None, description: Any = None) -> Any:
    """Write ``data`` (a string, or a tensor or array of strings) for TensorBoard's Text
    (Markdown)."""
    with summary_scope(name, "text_summary") as (tag, _):
        data = string_tensor(data)
        if getattr(data, "dtype", None) != STRING:
            got = getattr(data, "dtype", None) or convert_to_tensor(data).dtype
            raise TypeError(f"tensor must be of type tf.string; got {got!r}")
        return write_value(tag, data, step, plugin_metadata("text", description))
