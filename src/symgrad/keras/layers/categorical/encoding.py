# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's categorical preprocessing layers: CategoryEncoding, Discretization and
IntegerLookup, as Keras computes them on TensorFlow.

The encodings are Keras's ``encode_categorical_inputs``: ``multi_hot`` and ``count`` of a
rank <= 2 input through ``tf.math.bincount(minlength=maxlength=depth, axis=-1)``,
``one_hot`` through ``tf.one_hot`` (a trailing axis of 1 replaced).  Discretization's
``digitize`` is ``Bucketize`` (the number of boundaries not above each value, NaN past
the last one), computed here with comparisons; its ``adapt`` is Keras's NumPy quantile
summary, line for line.  IntegerLookup's table is a comparison with the vocabulary
(inputs as int64), with Keras's mask, OOV (``floormod`` buckets) and ``invert`` rules;
``adapt`` orders tokens by count, then by value, both descending, as Keras does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.shape import squeeze
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.bincount import bincount
from symgrad.ops.reduction.reduce import reduce_max, reduce_sum


def encode_categorical(
    inputs: Any, output_mode: str, depth: int, dtype: Any, count_weights: Any = None
) -> Any:
    """Keras's ``numerical_utils.encode_categorical_inputs`` on the TF backend (dense)."""
    if output_mode == "int":
        return array.cast(inputs, dtype)
    if inputs.shape.rank == 0:
        inputs = array.expand_dims(inputs, -1)
    rank = inputs.shape.rank
    if rank <= 2 and output_mode in ("multi_hot", "count"):
        counts = bincount(
            inputs, weights=count_weights, minlength=depth, maxlength=depth,
            dtype=dtype, axis=-1, binary_output=output_mode == "multi_hot",
        )  # fmt: skip
        # Keras's dense_bincount: set_shape((depth,) or (batch, depth))
        counts.set_shape([depth] if rank == 1 else [inputs.shape.as_list()[0], depth])
        return array.cast(counts, dtype)
    if output_mode == "multi_hot":
        return reduce_max(array.one_hot(inputs, depth, dtype=dtype), axis=-2)
    if output_mode == "one_hot":
        if rank > 1 and inputs.shape.as_list()[-1] == 1:
            inputs = squeeze(inputs, [-1])
        return array.one_hot(inputs, depth, dtype=dtype)
    if count_weights is not None:
        dtype = count_weights.dtype
    hot = array.one_hot(inputs, depth, dtype=dtype)
    if count_weights is not None:
        hot = m.multiply(hot, array.expand_dims(count_weights, -1))
    return reduce_sum(hot, axis=1 if rank > 1 else 0)


def _check_mode(mode: Any, allowed: tuple[str, ...], caller: str) -> None:
    if mode not in allowed:
        raise ValueError(
            f"Unknown value for `output_mode` argument of layer {caller}. Allowed values "
            f"are: {allowed}. Received: {mode}"
        )


class CategoryEncoding(Layer):
    """Integer category ids to one-hot, multi-hot or count vectors of length ``num_tokens``."""

    def __init__(
        self, num_tokens: Any = None, output_mode: str = "multi_hot", sparse: bool = False,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError(
                "num_tokens must be set to use this layer. If the number of tokens is not "
                "known beforehand, use the IntegerLookup layer instead."
            )
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise NotImplementedError("symgrad's CategoryEncoding supports sparse=False")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse
        self.built = True

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("sparse")
        return config

    def call(self, inputs: Any, count_weights: Any = None) -> Any:
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(
                    "`count_weights` is not used when `output_mode` is not `'count'`. "
                    f"Received `count_weights={count_weights}`."
                )
            count_weights = array.cast(convert_to_tensor(count_weights), self.compute_dtype)
        inputs = convert_to_tensor(inputs)
        return encode_categorical(
            inputs, self.output_mode, self.num_tokens, self.dtype, count_weights
        )


# -- Discretization: Keras's quantile summaries (keras/src/layers/preprocessing/discretization)


def summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    values = np.sort(np.reshape(values, [-1]))
    step = max(np.size(values) / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1) :: int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def compress_summary(summary: np.ndarray, epsilon: float) -> np.ndarray:
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_weight_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_weight_percents, summary[0])
    cum_weights = np.interp(percents, cum_weight_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


def merge_summaries(prev: np.ndarray, nxt: np.ndarray, epsilon: float) -> np.ndarray:
    merged = np.concatenate((prev, nxt), axis=1)
    merged = np.take(merged, np.argsort(merged[0]), axis=1)
    return compress_summary(merged, epsilon)


def digitize(x: Any, bins: Any) -> Any:
    """``tf.raw_ops.Bucketize(x, boundaries)``: how many (float32) boundaries are not
    above each value (int32); ints and float16 compare as float32, as TF's kernel."""
    if x.dtype != dt.float64:
        x = array.cast(x, dt.float32)
    b = constant(np.asarray([float(v) for v in bins], np.float32).astype(x.dtype.np))
    above = m.logical_not(m.less(array.expand_dims(x, -1), b))  # NaN: past every boundary
    return reduce_sum(array.cast(above, dt.int32), axis=-1)


class Discretization(Layer):
    """Bucket each value by ``bin_boundaries`` (given, or learned by ``adapt`` as
    ``num_bins`` quantiles to within ``epsilon``)."""

    def __init__(
        self, bin_boundaries: Any = None, num_bins: Any = None, epsilon: float = 0.01,
        output_mode: str = "int", sparse: bool = False, dtype: Any = None, name: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        if sparse:
            raise NotImplementedError("symgrad's Discretization supports sparse=False")
        _check_mode(output_mode, ("int", "one_hot", "multi_hot", "count"), "Discretization")
        if num_bins is not None and num_bins < 0:
            raise ValueError(
                f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`"
            )
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. Received: "
                f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries, self.num_bins, self.epsilon = bin_boundaries, num_bins, epsilon
        self.output_mode, self.sparse = output_mode, sparse
        self.summary: Any = None if bin_boundaries else np.array([[], []], dtype="float32")
        self.built = True

    @property
    def output_dtype(self) -> str:
        return self.compute_dtype if self.output_mode != "int" else "int32"

    def adapt(self, data: Any, steps: Any = None) -> None:
        if self.num_bins is None:
            raise ValueError(
                "Cannot adapt a Discretization layer that has been initialized with "
                "`bin_boundaries`, use `num_bins` instead."
            )
        self.reset_state()
        if hasattr(data, "shape"):  # an array or tensor; a list is a list of batches
            batches: Any = [data]
        else:
            batches = data
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        data = np.array(data).astype("float32")
        self.summary = merge_summaries(summarize(data, self.epsilon), self.summary, self.epsilon)

    def finalize_state(self) -> None:
        if self.num_bins is not None:
            bounds = compress_summary(self.summary, 1.0 / self.num_bins)[0, :-1]
            self.bin_boundaries = bounds.tolist()

    def reset_state(self) -> None:
        if self.num_bins is not None:
            self.summary = np.array([[], []], dtype="float32")

    def call(self, inputs: Any) -> Any:
        if self.bin_boundaries is None:
            raise ValueError(
                "You need to either pass the `bin_boundaries` argument at construction time "
                "or call `adapt(dataset)` before you can start using the `Discretization` layer."
            )
        indices = digitize(convert_to_tensor(inputs), self.bin_boundaries)
        return encode_categorical(
            indices, self.output_mode, len(self.bin_boundaries) + 1, self.output_dtype
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
            "epsilon": self.epsilon, "output_mode": self.output_mode, "sparse": self.sparse,
            "name": self.name, "dtype": self.dtype,
        }  # fmt: skip

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            bounds = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = bounds
            return layer
        return cls(**config)
