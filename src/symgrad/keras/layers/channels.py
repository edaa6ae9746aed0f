"""``data_format="channels_first"`` for the convolution, pooling and reshaping layers.

Keras's TF backend runs ``tf.nn.convolution`` with ``NCHW`` (which TF lays out as NHWC on
a CPU) and transposes to channels-last around pooling; symgrad transposes to channels-last
around every such layer's channels-last computation: the same products and sums, so the
same numbers to float rounding, and gradients through the transposes.
"""

from __future__ import annotations

import functools
from typing import Any

from symgrad.keras import backend
from symgrad.ops.array import structure as array


def standardize(data_format: Any) -> str:
    """Keras's ``standardize_data_format``: None is the backend's image data format."""
    if data_format is None:
        return backend.image_data_format()
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return value


def to_last(x: Any) -> Any:
    rank = x.shape.rank
    return array.transpose(x, [0, *range(2, rank), 1])


def to_first(x: Any) -> Any:
    rank = x.shape.rank
    return array.transpose(x, [0, rank - 1, *range(1, rank - 1)])


def last_shape(shape: Any) -> Any:
    return (shape[0], *shape[2:], shape[1])


def _first(layer: Any) -> bool:
    return getattr(layer, "data_format", "channels_last") == "channels_first"


def channels_last_call(call: Any) -> Any:
    """``call`` written for channels-last inputs, run on channels-first ones transposed (an
    output of rank 2, as global pooling gives, has no channel axis to move back)."""

    @functools.wraps(call)
    def wrapped(self: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not _first(self):
            return call(self, inputs, *args, **kwargs)
        out = call(self, to_last(inputs), *args, **kwargs)
        return to_first(out) if out.shape.rank > 2 else out

    return wrapped


def channels_last_build(build: Any) -> Any:
    """``build`` written for channels-last shapes, given the channels-first one reordered."""

    @functools.wraps(build)
    def wrapped(self: Any, input_shape: Any) -> Any:
        return build(self, last_shape(input_shape) if _first(self) else input_shape)

    return wrapped
