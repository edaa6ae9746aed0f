"""``flat_map``/``interleave`` trace their function once, from the element spec, as TF
does: its Python runs once, it sees the spec's shapes, and each element replays the trace.
Literals: TF 2.21's output for the same programs."""

from __future__ import annotations

import numpy as np

import symgrad as tf


def test_flat_map_function_runs_once() -> None:
    calls: list[int] = []

    def f(x):
        calls.append(1)
        return tf.data.Dataset.from_tensor_slices(tf.stack([x, x * 10])).repeat(2)

    ds = tf.data.Dataset.range(3).flat_map(f)
    want = [0, 0, 0, 0, 1, 10, 1, 10, 2, 20, 2, 20]  # TF; map_func traced once
    assert [int(v) for v in ds.as_numpy_iterator()] == want
    assert [int(v) for v in ds.as_numpy_iterator()] == want
    assert len(calls) == 1


def test_interleave_function_runs_once_inner_map_included() -> None:
    calls: list[int] = []

    def g(x):
        calls.append(1)
        return tf.data.Dataset.range(x * 10, x * 10 + x + 1).map(lambda v: v * 2)

    ds = tf.data.Dataset.range(1, 4).interleave(g, cycle_length=2, block_length=2)
    assert [int(v) for v in ds.as_numpy_iterator()] == [20, 22, 40, 42, 44, 60, 62, 64, 66]
    assert len(calls) == 1


def test_tuple_elements_zip_and_spec_shapes() -> None:
    calls: list = []

    def h(a, b):
        calls.append(1)
        return tf.data.Dataset.zip(
            (tf.data.Dataset.from_tensors(a).repeat(b), tf.data.Dataset.range(b))
        )

    x = np.array([1.5, 2.5], np.float32)
    n = np.array([2, 3], np.int64)
    z = tf.data.Dataset.from_tensor_slices((x, n)).flat_map(h)
    got = [(float(p), int(q)) for p, q in z.as_numpy_iterator()]
    assert got == [(1.5, 0), (1.5, 1), (2.5, 0), (2.5, 1), (2.5, 2)] and len(calls) == 1

    def shapes(v):
        calls.append(v.shape.as_list())
        return tf.data.Dataset.from_tensors(v).batch(1)

    calls.clear()
    s = tf.data.Dataset.from_tensor_slices(np.ones((3, 2), np.float32)).batch(2).flat_map(shapes)
    assert [a.shape for a in s.as_numpy_iterator()] == [(1, 2, 2), (1, 1, 2)]
    assert calls == [[None, 2]]  # TF: the trace sees the spec, batch size unknown
    assert s.element_spec.shape.as_list() == [None, None, 2]  # TF's spec


def test_window_elements_still_run_per_element() -> None:
    """A window's elements are datasets: the function runs on each (documented)."""
    w = tf.data.Dataset.range(5).window(2).flat_map(lambda d: d.batch(2))
    assert [v.tolist() for v in w.as_numpy_iterator()] == [[0, 1], [2, 3], [4]]
