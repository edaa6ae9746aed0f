"""A graph TensorArray's writes cost a row, not a copy of the list, where nothing else
holds the list (ops/array/list_ops.py, runtime/inplace.py), and a loop's gradient adds one row
per read of a list it captures (TensorListAddItem): map_fn, scan and TensorArray loops
are linear in their length, and the values are those of copying writes."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError
from symgrad.ops.array import list_ops
from symgrad.ops.sparse import partial_sums


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the lists copied by row writes (SetItem's and AddItem's copying kernels)."""
    count = [0]
    grown, add = list_ops._grown, list_ops._add_item_kernel

    def counted_grown(*args):
        count[0] += 1
        return grown(*args)

    def counted_add(*args):
        count[0] += 1
        return add(*args)

    monkeypatch.setattr(list_ops, "_grown", counted_grown)
    monkeypatch.setattr(list_ops.ADD_ITEM, "kernel", counted_add)
    return count


def _scan_and_gradient(n: int):
    x = tf.constant(np.linspace(-1.0, 1.0, n * 3).reshape(n, 3))

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.scan(lambda a, e: tf.tanh(a * 0.5 + e), x)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, x)

    return f, x


def test_a_loop_writing_n_rows_copies_its_list_a_bounded_number_of_times(copies) -> None:
    counts = []
    for n in (30, 60):
        f, x = _scan_and_gradient(n)
        f(x)  # traces and compiles: kernels are bound once
        copies[0] = 0
        y, dx = f(x)
        counts.append(copies[0])
    # the first write of each loop copies the caller's list; every later one writes in
    # place: as many copies for 60 rows as for 30 (it was one per row, forward and back)
    assert counts[0] == counts[1] <= 6
    np.testing.assert_allclose(y.numpy(), _scan(np.asarray(x)), rtol=1e-12)
    np.testing.assert_allclose(dx.numpy().sum(), _fd_sum(np.asarray(x)), rtol=1e-6)


def test_map_fn_gradient_reads_its_row_before_writing_the_list_in_place(copies) -> None:
    """The gradient of a row write both reads row i of the output's gradient and zeroes
    it; the fused loop runs the read first, so the write is in place."""
    counts = []
    for n in (30, 60):
        x = tf.constant(np.linspace(-2.0, 2.0, n * 2).reshape(n, 2))
        f = tf.function(lambda x: tf.gradients(tf.map_fn(lambda e: tf.sin(e) * e, x), x)[0])
        f(x)
        copies[0] = 0
        dx = f(x).numpy()
        counts.append(copies[0])
        xv = x.numpy()
        np.testing.assert_allclose(dx, np.cos(xv) * xv + np.sin(xv), rtol=1e-12)
    assert counts[0] == counts[1] <= 6


def _scan(x: np.ndarray) -> np.ndarray:
    """tf.scan without an initializer: the first element starts the accumulator."""
    out = [x[0]]
    for e in x[1:]:
        out.append(np.tanh(out[-1] * 0.5 + e))
    return np.array(out)


def _fd_sum(x: np.ndarray) -> float:
    """The sum of d loss / d x by central differences along all of x at once."""
    h = 1e-6
    return float(np.sum(_scan(x + h) ** 2) - np.sum(_scan(x - h) ** 2)) / (2 * h)


def test_scan_gradient_matches_finite_differences() -> None:
    def fn(x):
        return tf.scan(lambda a, e: tf.tanh(a * 0.5 + e) * e, x)

    tf.test.check_vjp(fn, [np.random.default_rng(3).standard_normal((6, 2))])


def test_map_fn_gradient_of_a_captured_tensor_and_the_elements() -> None:
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((5, 3)), rng.standard_normal(3)
    tf.test.check_vjp(lambda x, w: tf.map_fn(lambda e: tf.sin(e) * w + e * e, x), [x, w])


def test_a_list_another_value_still_holds_is_not_written_over() -> None:
    """Writes are in place only where no later step reads the old list: here the loop
    also hands the old list on, and a plan fetches an array before and after a write."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        zeros = tf.zeros([4, 3], tf.float64)

        def body(i, new, old):
            return i + 1, list_ops.set_item(new, i, x * tf.cast(i + 1, tf.float64)), new

        _, new, old = tf.while_loop(lambda i, a, b: i < 4, body, [0, zeros, zeros])
        ta = tf.TensorArray(tf.float64, size=2).write(0, x)
        before = ta.stack()
        after = ta.write(1, x * 2.0).stack()
        with tf.Session() as sess:
            got = sess.run([new, old, before, after], {x: [1.0, 2.0, 3.0]})
    rows = np.outer(np.arange(1, 5), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(got[0], rows)
    np.testing.assert_array_equal(got[1], np.vstack([rows[:3], np.zeros((1, 3))]))
    np.testing.assert_array_equal(got[2], [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(got[3], [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])


def test_add_item_adds_one_row_and_says_which_index_is_out_of_range() -> None:
    buf = tf.constant(np.ones((3, 2)))
    out = list_ops.add_item(buf, 1, tf.constant([2.0, 5.0], tf.float64))
    np.testing.assert_array_equal(out.numpy(), [[1.0, 1.0], [3.0, 6.0], [1.0, 1.0]])
    np.testing.assert_array_equal(buf.numpy(), np.ones((3, 2)))  # the input is unchanged
    with pytest.raises(InvalidArgumentError, match="element 3 in a list with 3 elements"):
        list_ops.add_item(buf, 3, tf.constant([2.0, 5.0], tf.float64))


def test_a_captured_list_read_in_a_loop_gets_its_gradient_row_by_row() -> None:
    """The gradient loop sums each iteration's read of the captured list with AddItem,
    not with a whole list of zeros plus one row."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [4, 2])
        y = tf.map_fn(lambda e: e * e, x)
        [dx] = tf.gradients(tf.reduce_sum(y), [x])
        with tf.Session() as sess:
            value = np.arange(8.0).reshape(4, 2)
            np.testing.assert_array_equal(sess.run(dx, {x: value}), 2 * value)
    bodies = [op.get_attr("body") for op in g.get_operations() if "While" in op.type]
    types = {op.type for b in bodies for op in b.graph.get_operations()}
    assert "TensorListAddItem" in types


def test_an_array_read_and_written_in_a_loop_differentiates_without_a_copy_per_step(copies):
    """The body reads row i - 1 and writes row i: the gradient of the read (a row in
    zeros) joins the write's gradient as one row (AddItem, ``partial_sums``),
    and the stand-in rows are scattered in place: copies do not grow with the length."""
    counts = []
    for n in (30, 60):
        x = tf.constant(np.linspace(-1.0, 1.0, n * 2).reshape(n, 2))

        @tf.function
        def f(x, n=n):
            with tf.GradientTape() as tape:
                tape.watch(x)
                ta = tf.TensorArray(tf.float64, size=n).write(0, x[0])
                step = lambda i, ta: (i + 1, ta.write(i, tf.tanh(ta.read(i - 1) + x[i])))  # noqa: E731
                _, ta = tf.while_loop(lambda i, ta: i < n, step, [1, ta])
                loss = tf.reduce_sum(ta.stack() ** 2)
            return tape.gradient(loss, x)

        f(x)
        copies[0] = 0
        dx = f(x).numpy()
        counts.append(copies[0])
    assert counts[0] == counts[1] <= 8
    xv = x.numpy()
    rows = [xv[0]]
    for e in xv[1:]:
        rows.append(np.tanh(rows[-1] + e))
    want, carry = np.zeros_like(xv), np.zeros(2)
    for k in range(len(xv) - 1, -1, -1):
        total = 2 * rows[k] + carry
        want[k] = carry = total if k == 0 else total * (1 - rows[k] ** 2)
    np.testing.assert_allclose(dx, want, rtol=1e-12)


def test_a_sum_of_rows_in_zeros_and_a_dense_gradient_is_added_row_by_row() -> None:
    with tf.Graph().as_default():
        buf = tf.placeholder(tf.float64, [3, 2])
        r0, r2 = buf[0] * 2.0, buf[2] * 3.0  # rows read (through slices, not list ops)
        dense = tf.ones([3, 2], tf.float64)
        a = list_ops.set_item(tf.zeros([3, 2], tf.float64), 0, r0)
        b = list_ops.set_item(tf.zeros([3, 2], tf.float64), 2, r2)
        total = partial_sums.sum_with_parts([dense, a, b], tf.add_n)
        assert total.op.type == "TensorListAddItem"
        only_rows = partial_sums.sum_with_parts([a, b], tf.add_n)  # no dense part: AddN
        assert only_rows.op.type == "AddN"
        with tf.Session() as sess:
            got, rows = sess.run([total, only_rows], {buf: np.arange(6.0).reshape(3, 2)})
    np.testing.assert_array_equal(got, [[1.0, 3.0], [1.0, 1.0], [13.0, 16.0]])
    np.testing.assert_array_equal(rows, [[0.0, 2.0], [0.0, 0.0], [12.0, 15.0]])
