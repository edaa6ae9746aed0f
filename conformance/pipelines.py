"""Random tf.data pipelines for the differential test (``test_data.py``).

``generate(seed)`` draws a chain of transformations over a small dataset (one tensor, a
pair, or a dict) as a list of steps; ``build(tf, steps)`` makes the same pipeline in either
library.  Every step keeps elements integer-valued, so results compare exactly.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

Step = tuple[str, tuple[Any, ...]]


def generate(seed: int) -> tuple[str, list[Step]]:
    rng = random.Random(seed)
    source = rng.choice(["range", "pair", "dict"])
    steps: list[Step] = []
    batched = False
    for _ in range(rng.randint(2, 6)):
        options = ["shuffle", "map", "filter", "repeat", "take", "skip", "shard", "cache"]
        options += ["choose", "sample"]
        options += ["unbatch", "rebatch"] if batched else ["batch", "window", "interleave"]
        kind = rng.choice(options)
        steps.append((kind, _args(rng, kind)))
        if kind == "batch":
            batched = True
        if kind == "unbatch":
            batched = False
    return source, steps


def _args(rng: random.Random, kind: str) -> tuple[Any, ...]:
    if kind == "shuffle":
        return (rng.choice([1, 2, 5, 17, 100]), rng.choice([None, rng.randint(0, 99)]),
                rng.choice([True, False]))  # fmt: skip
    if kind in ("batch", "rebatch"):
        return (rng.randint(1, 5), rng.choice([True, False]))
    if kind in ("repeat", "take", "skip"):
        return (rng.randint(0, 3) if kind == "repeat" else rng.randint(0, 12),)
    if kind == "shard":
        k = rng.randint(1, 3)
        return (k, rng.randint(0, k - 1))
    if kind == "window":
        return (rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 2), rng.choice([True, False]))
    if kind == "interleave":
        return (rng.randint(1, 3), rng.randint(1, 3))
    if kind == "choose":  # a choice pattern over the input and its map, and when to stop
        return (tuple(rng.randint(0, 1) for _ in range(rng.randint(1, 20))), rng.random() < 0.5)
    if kind == "sample":  # weights (None, or one may be 0), seed, when to stop, rerandomize
        weights = rng.choice([None, (0.5, 0.5), (0.2, 0.8), (0.0, 1.0), (3.0, 1.0)])
        seed = rng.choice([None, rng.randint(0, 99)])
        return (weights, seed, rng.random() < 0.5, rng.choice([None, True, False]))
    return ()


def _source(tf: Any, source: str) -> Any:
    n = np.arange(13, dtype=np.int64)
    d = tf.data.Dataset
    if source == "range":
        return d.range(13)
    if source == "pair":
        return d.from_tensor_slices((n, n * 100))
    return d.from_tensor_slices({"a": n, "b": -n})


def _first(x: Any) -> Any:
    """The component a predicate or key looks at: the first leaf of the element."""
    if isinstance(x, dict):
        return x["a"]
    return x[0] if isinstance(x, tuple) else x


def build(tf: Any, source: str, steps: list[Step], seed: int) -> Any:
    tf.random.set_seed(seed)
    ds = _source(tf, source)
    for kind, args in steps:
        ds = _apply(tf, ds, kind, args)
    return ds


def _apply(tf: Any, ds: Any, kind: str, args: tuple[Any, ...]) -> Any:
    d = tf.data.Dataset
    if kind == "shuffle":
        return ds.shuffle(args[0], seed=args[1], reshuffle_each_iteration=args[2])
    if kind == "batch":
        return ds.batch(args[0], drop_remainder=args[1])
    if kind == "rebatch":
        return ds.rebatch(args[0], drop_remainder=args[1])
    if kind == "map":
        return ds.map(
            lambda *x: tf.nest.map_structure(lambda t: t * 3 + 1, x if len(x) > 1 else x[0])
        )
    if kind == "filter":
        return ds.filter(
            lambda *x: tf.not_equal(tf.reduce_sum(_first(x if len(x) > 1 else x[0])) % 3, 0)
        )
    if kind in ("repeat", "take", "skip"):
        return getattr(ds, kind)(args[0])
    if kind == "shard":
        return ds.shard(*args)
    if kind == "cache":
        return ds.cache()
    if kind == "unbatch":
        return ds.unbatch()
    if kind == "window":
        size, shift, stride, drop = args
        w = ds.window(size, shift=shift, stride=stride, drop_remainder=drop)

        def rows(*c: Any) -> Any:
            x = c if len(c) > 1 else c[0]
            return d.zip(x) if isinstance(x, tuple | dict) else x

        return w.flat_map(rows)
    if kind == "interleave":
        cycle, block = args
        return ds.interleave(lambda *x: d.from_tensors(x if len(x) > 1 else x[0]).repeat(2),
                             cycle_length=cycle, block_length=block)  # fmt: skip
    if kind == "choose":
        pattern, stop = args
        other = _apply(tf, ds, "map", ())
        choice = d.from_tensor_slices(np.array(pattern, np.int64))
        return d.choose_from_datasets([ds, other], choice, stop_on_empty_dataset=stop)
    if kind == "sample":
        weights, seed, stop, rerandomize = args
        other = _apply(tf, ds, "map", ())
        return d.sample_from_datasets([ds, other], None if weights is None else list(weights),
                                      seed, stop, rerandomize)  # fmt: skip
    raise ValueError(kind)


def elements(ds: Any, epochs: int = 2) -> list[Any]:
    """The pipeline's elements over ``epochs`` iterations, as nested lists."""
    out = []
    for _ in range(epochs):
        out.append([_py(e) for e in ds.as_numpy_iterator()])
    return out


def _py(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _py(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_py(v) for v in x)
    return np.asarray(x).tolist()
