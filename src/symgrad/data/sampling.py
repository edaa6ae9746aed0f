"""``Dataset.random`` and ``Dataset.sample_from_datasets`` with TF's draws.

TF 2.21 builds ``sample_from_datasets(datasets, weights, seed)`` as a directed interleave
whose selector is ``Dataset.random(seed).batch(2)`` mapped through
``StatelessMultinomial(log(weights)[None], 1, seed=pair)``: each selection takes two
elements of the random dataset as a stateless seed and draws one category.  The random
dataset's elements are the uint32 words of a Philox stream keyed by its op seeds (TF's
``SingleSampleAdapter``), as int64; with ``rerandomize_each_iteration`` each iterator
takes new seeds from a generator (as ``shuffle`` does), else every iterator starts the
same stream.  Both are reproduced here with the same kernels (:mod:`symgrad.ops.random`),
so a seeded pipeline picks TF's sequence.  Inputs of zero Python weight are dropped first,
as TF drops them; a single input left is returned as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor
from symgrad.data import structure
from symgrad.data.base import INFINITE, UNKNOWN, DatasetBase, primed
from symgrad.data.shuffle import SeedGenerator, _Words, op_seeds
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import philox
from symgrad.runtime.function import TensorSpec


def random(cls: Any, seed: Any, rerandomize_each_iteration: Any) -> Any:
    """An infinite dataset of the Philox stream's uint32 words as int64 scalars."""
    generator = SeedGenerator(op_seeds(seed), bool(rerandomize_each_iteration))

    @primed
    def produce() -> Iterator[structure.Flat]:
        words = _Words(*generator.next())  # seeds drawn when the iterator is made
        yield ()
        while True:
            yield (np.asarray(words(), np.int64),)

    return cls(TensorSpec([], dt.int64), INFINITE, produce)


def _choice(logits: np.ndarray, pair: np.ndarray) -> int:
    """StatelessMultinomial(logits, 1, seed=pair)[0, 0]."""
    key, counter = philox.seed_key_counter([int(pair[0]), int(pair[1])])
    return int(philox.multinomial(key, counter, logits, 1, np.int64)[0, 0])


def _logits(weights: Any) -> np.ndarray:
    """log(weights) in their float dtype, as TF's ``math_ops.log`` gives it."""
    return np.asarray(math.log(weights).numpy())


def _selector(cls: Any, random_ds: Any, logits: Any) -> Any:
    """The int64 choices: one categorical draw per pair of random elements (with the
    logits of the matching element of ``logits`` when it is a dataset)."""

    @primed
    def produce() -> Iterator[structure.Flat]:
        randoms = random_ds._iterate()
        rows = logits._iterate() if isinstance(logits, DatasetBase) else None
        yield ()
        while True:
            if rows is None:
                row = logits
            else:
                flat = next(rows, None)
                if flat is None:
                    return
                row = _logits(convert_to_tensor(np.stack([np.asarray(c) for c in flat])))
            first, second = next(randoms, None), next(randoms, None)
            if first is None or second is None:
                return
            pair = np.array([first[0], second[0]])
            yield (np.asarray(_choice(np.reshape(row, (-1, row.shape[-1])), pair), np.int64),)

    return cls(TensorSpec([], dt.int64), UNKNOWN, produce)


def sample_from_datasets(
    cls: Any,
    datasets: Any,
    weights: Any,
    seed: Any,
    stop_on_empty_dataset: bool,
    rerandomize_each_iteration: Any,
) -> Any:
    from symgrad.data.transforms import choose_from_datasets

    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    logits: Any
    if isinstance(weights, DatasetBase):
        logits = weights
    else:
        if weights is None:
            logits = np.ones((1, len(datasets)), np.float32)
        else:
            if isinstance(weights, Tensor):
                if not weights.shape.is_compatible_with([len(datasets)]):
                    raise ValueError(
                        "Invalid `weights`. The shape of `weights` should be compatible "
                        f"with `[len(datasets)]` but is {weights.shape}."
                    )
            else:
                if len(datasets) != len(weights):
                    raise ValueError(
                        "Invalid `weights`. `weights` should have the same length as "
                        f"`datasets` but got `len(weights)={len(weights)}` vs. "
                        f"`len(datasets)={len(datasets)}`."
                    )
                kept = [(d, w) for d, w in zip(datasets, weights, strict=True) if w > 0]
                datasets = [d for d, _ in kept] or [datasets[0].take(0)]
                weights = [w for _, w in kept] or [1.0]
            w = convert_to_tensor(weights)
            if w.dtype not in (dt.float32, dt.float64):
                raise TypeError(
                    "Invalid `weights`. `weights` type must be either `tf.float32` or "
                    f"`tf.float64` but is <dtype: '{w.dtype.name}'>."
                )
            logits = _logits(w)[None]
        if len(datasets) == 1:
            return datasets[0]
    selector = _selector(cls, random(cls, seed, rerandomize_each_iteration), logits)
    return choose_from_datasets(cls, datasets, selector, stop_on_empty_dataset)
