"""tf.nn.dropout: TF's mask from TF's ``RandomUniform`` draw.

As TF's ``nn_ops.dropout_v2`` does, the mask is ``random_uniform(noise_shape, seed=seed,
dtype=x.dtype) >= rate``: the op's seeds come from ``random.get_seed`` (the global or
graph seed beside ``seed=``), so a seeded dropout under ``tf.random.set_seed`` keeps TF's
entries, eager calls continue one stream and each Session run draws a new mask.  With
``rate`` 0 nothing is drawn, but the seed counter still steps (TF's ``dummy_rng_step``),
so the ops after it draw what they would have drawn beside a real dropout.
"""

from __future__ import annotations

import numbers
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import FLOATS, check_dtype, constant, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import seeded as random


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    """TF's ``_get_noise_shape``: x's shape, or noise_shape with its None entries filled."""
    if noise_shape is None:
        return array.shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = list(noise_shape)
    if x.shape.dims is not None and len(dims) == x.shape.rank:
        dims = [x.shape.dims[i] if d is None else d for i, d in enumerate(dims)]
    return constant([int(d) for d in dims], dt.int32)


def dropout(
    x: Any,
    rate: Any = None,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
    keep_prob: Any = None,
) -> Tensor:
    """Zero each entry with probability ``rate`` and scale the rest by 1 / (1 - rate).

    ``keep_prob`` is TF1's argument (rate = 1 - keep_prob).  The mask is TF's: see the
    module docstring.
    """
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        rate = 1 - keep_prob
    with name_scope(name, "dropout"):
        is_number = isinstance(rate, numbers.Real)
        if is_number and not 0 <= rate < 1:
            raise ValueError(
                "`rate` must be a scalar tensor or a float in the range [0, 1). "
                f"Received: rate={rate}"
            )
        x = convert_to_tensor(x)
        if not x.dtype.is_floating:
            raise ValueError(
                "`x.dtype` must be a floating point tensor as `x` will be scaled. "
                f"Received: x_dtype={x.dtype}"
            )
        check_dtype("dropout", x, FLOATS, "x")
        if is_number and rate == 0:
            random.get_seed(seed)  # TF steps the op-seed counter here too
            return x
        if is_number:
            kept = math.multiply(x, constant(1 / (1 - rate), x.dtype))
        else:
            rate = array.cast(convert_to_tensor(rate), x.dtype)
            if rate.shape.rank not in (None, 0):
                raise ValueError(f"`rate` must be a scalar, got shape {rate.shape}")
            kept = math.real_div(x, constant(1, x.dtype) - rate)
        noise = random.random_uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
        mask = math.greater_equal(noise, rate)
        return array.where(mask, kept, constant(0, x.dtype))
