"""tf.data programs written against TF's API as ``fn(tf)``, each returning plain Python
values.  ``test_dataset.py`` holds TensorFlow 2.21's results as literals; the conformance
stage (``conformance/test_data.py``) runs them on both libraries.  Every value here is
exact (integers, or floats from + - * of small integers), so results compare with ==.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def py(x: Any) -> Any:
    """Tensors and arrays as (nested) lists, keeping tuples and dicts."""
    if isinstance(x, dict):
        return {k: py(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(py(v) for v in x)
    if isinstance(x, list):
        return [py(v) for v in x]
    if hasattr(x, "numpy"):
        x = x.numpy()
    return np.asarray(x).tolist()


def run(ds: Any) -> list[Any]:
    return [py(e) for e in ds]


def spec(ds: Any) -> str:
    return str(ds.element_spec)


def card(ds: Any) -> int:
    return int(ds.cardinality())


X = np.arange(24, dtype=np.float32).reshape(8, 3)
Y = np.arange(8, dtype=np.int64) % 3


# -- the common pipeline ------------------------------------------------------------


def pipeline(tf: Any) -> Any:
    tf.random.set_seed(3)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(8, seed=11).batch(3)
    ds = ds.map(lambda x, y: (x * 2.0, y + 1), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.prefetch(tf.data.AUTOTUNE)
    return [run(ds), run(ds), spec(ds), card(ds)]


def pipeline_unseeded_op(tf: Any) -> Any:
    tf.random.set_seed(42)
    ds = tf.data.Dataset.range(12).shuffle(5).batch(4)
    ds2 = tf.data.Dataset.range(12).shuffle(5)
    return [run(ds), run(ds2)]


def shuffles(tf: Any) -> Any:
    tf.random.set_seed(5)
    r = tf.data.Dataset.range
    a = r(10).shuffle(4, seed=7)
    b = r(10).shuffle(4, seed=7, reshuffle_each_iteration=False)
    c = r(30).shuffle(100, seed=2)
    d = r(10).shuffle(4, seed=7).repeat(2)
    e = r(25).shuffle(1, seed=3)
    f = r(40).batch(3).shuffle(5, seed=9).unbatch()
    return [run(a), run(a), run(b), run(b), run(c), run(d), run(e), run(f)]


def shuffle_no_global_seed(tf: Any) -> Any:
    tf.random.set_seed(None)
    return run(tf.data.Dataset.range(15).shuffle(6, seed=1))


def shuffle_seed_zero(tf: Any) -> Any:
    tf.random.set_seed(0)
    return run(tf.data.Dataset.range(15).shuffle(6, seed=0))


# -- sources -----------------------------------------------------------------------


def sources(tf: Any) -> Any:
    d = tf.data.Dataset
    g = {"a": np.arange(6).reshape(3, 2), "b": (np.arange(3.0), [1, 2, 3])}
    out = [
        run(d.from_tensor_slices([1, 2, 3])),
        spec(d.from_tensor_slices([1.0, 2.0])),
        run(d.from_tensor_slices(g)),
        spec(d.from_tensor_slices(g)),
        run(d.from_tensors((np.arange(3), 5))),
        spec(d.from_tensors((np.arange(3), 5))),
        run(d.range(5)),
        run(d.range(2, 9, 3)),
        run(d.range(5, 0, -2)),
        spec(d.range(3, dtype=tf.int32)),
        [card(d.range(2, 9, 3)), card(d.range(5, 0, -2)), card(d.range(0))],
    ]
    return out


def generator(tf: Any) -> Any:
    def gen() -> Any:
        for i in range(4):
            yield i, [i] * i

    sig = (tf.TensorSpec(shape=(), dtype=tf.int32), tf.TensorSpec(shape=(None,), dtype=tf.int32))
    a = tf.data.Dataset.from_generator(gen, output_signature=sig)
    b = tf.data.Dataset.from_generator(
        lambda n: ((float(i), {"k": i}) for i in range(n)),
        output_types=(tf.float32, {"k": tf.int64}),
        output_shapes=((), {"k": ()}),
        args=(3,),
    )
    c = tf.data.Dataset.from_generator(lambda: iter([1, 2]), output_types=tf.int64)
    return [run(a), run(a), spec(a), card(a), run(b), spec(b), spec(c), run(c.batch(2))]


def zip_concat(tf: Any) -> Any:
    d = tf.data.Dataset
    a, b = d.range(5), d.range(10, 13)
    z = d.zip(a, b)
    z2 = d.zip((a, (b, a)))
    z3 = d.zip({"x": a, "y": b.repeat()})
    c = a.concatenate(b)
    c2 = d.from_tensor_slices(np.zeros((2, 3))).concatenate(d.from_tensor_slices(np.ones((1, 4))))
    return [
        run(z), run(z2), run(z3), spec(z3), card(z3), run(c), card(c), spec(c2),
        card(d.zip(a, b.repeat())),
    ]  # fmt: skip


# -- batching -------------------------------------------------------------------------


def batches(tf: Any) -> Any:
    d = tf.data.Dataset
    r = d.range(7)
    ragged = r.map(lambda x: tf.fill([tf.cast(x % 3 + 1, tf.int32)], x))
    p = ragged.padded_batch(3)
    p2 = ragged.padded_batch(2, padded_shapes=[4], padding_values=tf.constant(-1, tf.int64))
    p3 = d.zip(ragged, r).padded_batch(3, drop_remainder=True)
    u = d.from_tensor_slices(np.arange(12).reshape(2, 3, 2)).unbatch()
    rb = r.batch(3).rebatch(2)
    return [
        run(r.batch(3)), spec(r.batch(3)), card(r.batch(3)),
        run(r.batch(3, drop_remainder=True)), spec(r.batch(3, drop_remainder=True)),
        card(r.batch(3, drop_remainder=True)),
        run(p), spec(p), run(p2), run(p3), spec(p3), card(p3),
        run(u), spec(u), card(u), run(rb), card(rb), spec(rb),
    ]  # fmt: skip


# -- element-wise and counting ------------------------------------------------------------


def counting(tf: Any) -> Any:
    r = tf.data.Dataset.range(10)
    f = r.filter(lambda x: tf.equal(x % 3, 0))
    e = r.skip(7).enumerate(start=5)
    return [
        run(f), card(f), card(r.repeat().filter(lambda x: x > 2)),
        run(r.take(3)), card(r.take(30)), card(r.repeat().take(4)),
        run(r.skip(8)), card(r.skip(20)), run(r.skip(-1)),
        run(r.shard(3, 1)), card(r.shard(3, 0)), card(r.shard(3, 2)),
        run(e), spec(e),
        run(r.take(3).repeat(2)), card(r.repeat()), card(r.take(0).repeat()),
        run(r.take_while(lambda x: x < 4)),
        run(tf.data.Dataset.range(0).repeat()),
    ]  # fmt: skip


def maps(tf: Any) -> Any:
    d = tf.data.Dataset
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return {"sq": x * x, "neg": -x}

    m = d.range(4).map(f)
    values = run(m) + run(m)
    dm = d.from_tensor_slices({"a": [1, 2], "b": [3, 4]}).map(lambda e: e["a"] * 10 + e["b"])
    lm = d.range(3).map(lambda x: [x, x + 1])
    cm = d.range(5).map(lambda x: tf.cond(x > 2, lambda: x * 100, lambda: x))
    return [values, len(calls), spec(m), run(dm), run(lm), spec(lm), run(cm)]


def _even(x: Any) -> Any:
    return x % 2 == 0


def _clip(x: Any) -> Any:
    if x > 3:
        return x * 100
    return x


def _triangle(s: Any, x: Any) -> Any:
    i = x * 0
    while i < x:
        s += i
        i += 1
    return s


def autograph(tf: Any) -> Any:
    """Named pipeline functions are AutoGraph-converted, as TF converts them: tensor
    ``==``, a tensor ``if`` and a tensor ``while``."""
    r = tf.data.Dataset.range(7)
    return [
        run(r.filter(_even)), run(r.map(_clip)),
        py(r.reduce(tf.constant(0, tf.int64), _triangle)),
    ]  # fmt: skip


def cache_reduce_scan(tf: Any) -> Any:
    d = tf.data.Dataset
    tf.random.set_seed(1)
    c = d.range(6).shuffle(6, seed=4).cache()
    r = d.range(1, 6).reduce(np.int64(0), lambda s, x: s + x * x)
    r2 = d.from_tensor_slices((X, Y)).reduce(
        (np.float32(0), np.int64(0)), lambda s, e: (s[0] + tf.reduce_sum(e[0]), s[1] + e[1])
    )
    s = d.range(6).scan(np.int64(0), lambda acc, x: (acc + x, acc * 10))
    return [run(c), run(c), py(r), py(r2), run(s), spec(s)]


# -- datasets of datasets -------------------------------------------------------------------


def windows(tf: Any) -> Any:
    d = tf.data.Dataset
    r = d.range(7)
    w = r.window(3, shift=2).flat_map(lambda w: w.batch(3))
    w2 = r.window(3, shift=1, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(5))
    w3 = r.window(2, shift=5).flat_map(lambda w: w.batch(5))
    wz = d.zip(r, r).window(2).flat_map(lambda a, b: d.zip(a, b).batch(2))
    i = d.range(1, 5).interleave(
        lambda x: d.from_tensors(x).repeat(x), cycle_length=2, block_length=2
    )
    i2 = d.range(3).interleave(lambda x: d.range(x * 10, x * 10 + 3), cycle_length=3)
    return [
        run(w), run(w2), run(w3), run(wz), card(r.window(3, shift=2)),
        card(r.window(3, shift=1, stride=2, drop_remainder=True)), run(i), run(i2), spec(i),
    ]  # fmt: skip


def grouping(tf: Any) -> Any:
    d = tf.data.Dataset
    r = d.range(11)
    g = r.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), window_size=2)
    g2 = r.group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(5).map(lambda b: b + 100 * k),
        window_size_func=lambda k: k + 2,
    )  # fmt: skip
    seqs = d.range(1, 9).map(lambda n: tf.fill([tf.cast(n % 5 + 1, tf.int32)], n))
    b = seqs.bucket_by_sequence_length(lambda s: tf.shape(s)[0], [2, 4], [2, 2, 3])
    b2 = seqs.bucket_by_sequence_length(
        lambda s: tf.shape(s)[0], [3, 7], [2, 2, 2], pad_to_bucket_boundary=True
    )
    return [run(g), spec(g), run(g2), run(b), spec(b), run(b2)]


# -- iteration ----------------------------------------------------------------------------


def iteration(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(3), "b": np.arange(3.0)})
    it = iter(ds)
    first = py(next(it))
    rest = [py(x) for x in it]
    n = list(tf.data.Dataset.range(3).as_numpy_iterator())
    types = [type(v).__name__ for v in n]
    nested = list(tf.data.Dataset.from_tensors((1, [2, 3])).as_numpy_iterator())
    return [first, rest, py(n), types, py(nested), len(tf.data.Dataset.range(4).batch(3))]


def in_function(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 6).batch(2)

    @tf.function
    def total() -> Any:
        s = tf.constant(0, tf.int64)
        for x in ds:
            s += tf.reduce_sum(x)
        return s

    @tf.function
    def reduced() -> Any:
        return ds.unbatch().reduce(np.int64(0), lambda a, b: a + b * b)

    @tf.function
    def built_inside() -> Any:
        d = tf.data.Dataset.from_tensor_slices(np.arange(4)).map(lambda x: x * 2)
        return d.reduce(np.int64(0), lambda a, b: a * 10 + b)

    tf.random.set_seed(8)
    shuffled = tf.data.Dataset.range(6).shuffle(6, seed=2)

    @tf.function
    def first_pass() -> Any:
        digits = tf.constant(0, tf.int64)
        for x in shuffled:
            digits = digits * 10 + x
        return digits

    return [py(total()), py(reduced()), py(built_inside()), py(first_pass())]


def tape_loop(tf: Any) -> Any:
    """Linear regression fed by a shuffled batched dataset, three epochs of SGD."""
    tf.random.set_seed(7)
    xs = np.linspace(-1, 1, 12).astype(np.float32).reshape(12, 1)
    ys = 3 * xs - 0.5
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(12, seed=1).batch(4)
    w, b = tf.Variable([[0.0]]), tf.Variable([0.0])
    order = []
    for _ in range(3):
        for x, y in ds:
            order.append(py(x[:, 0]))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.5 * gw)
            b.assign_sub(0.5 * gb)
    return [order, py(w), py(b)]


CASES = [
    pipeline, pipeline_unseeded_op, shuffles, shuffle_no_global_seed, shuffle_seed_zero,
    sources, generator, zip_concat, batches, counting, maps, autograph, cache_reduce_scan, windows,
    grouping, iteration, in_function,
]  # fmt: skip
FLOAT_CASES = [tape_loop]  # compared within a tolerance
