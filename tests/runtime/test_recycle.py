"""The plan's pool of large arrays (core/recycle.py): steps that can take a buffer get one
that died in an earlier run, and no array anything else still holds is ever reused."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import recycle


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _plan(sess: tf.Session):
    return list(sess._plans.values())[-1]


def _conv_net(x, w):
    """conv -> relu -> 2x2 max pool, and the gradient of its sum w.r.t. the filter."""
    y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID")), 2, 2, "VALID")
    return y, tf.gradients(tf.reduce_sum(y * y), w)[0]


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 30, 30, 3)).astype(np.float32)
    return x, rng.standard_normal((3, 3, 3, 16)).astype(np.float32)


def test_a_second_run_takes_the_buffers_the_first_left_and_computes_the_same(graph):
    x, w = tf.placeholder(tf.float32, [4, 30, 30, 3]), tf.placeholder(tf.float32, [3, 3, 3, 16])
    _, dw = _conv_net(x, w)
    xv, wv = _data()
    with tf.Session() as sess:
        first = sess.run(dw, {x: xv, w: wv})
        pool = _plan(sess).pool
        # [4, 28, 28, 16] float32: the conv output and the pool gradient, both dead
        spare = pool.free[((4, 28, 28, 16), "<f4")]
        assert len(spare) == 2
        ids = {id(a) for a in spare}
        second = sess.run(dw, {x: xv, w: wv})
        assert {id(a) for a in pool.free[((4, 28, 28, 16), "<f4")]} == ids
        assert pool.wanted[((4, 28, 28, 16), "<f4")] == 2
    np.testing.assert_array_equal(first, second)


def test_a_fetched_buffer_is_never_handed_to_a_later_run(graph):
    x, w = tf.placeholder(tf.float32, [4, 30, 30, 3]), tf.placeholder(tf.float32, [3, 3, 3, 16])
    conv = tf.nn.conv2d(x, w, 1, "VALID")
    xv, wv = _data()
    with tf.Session() as sess:
        kept = sess.run(conv, {x: xv, w: wv})
        copy = kept.copy()
        other = sess.run(conv, {x: xv + 1, w: wv})
        assert other is not kept
        assert not np.shares_memory(other, kept)
    np.testing.assert_array_equal(kept, copy)


def test_a_buffer_another_holder_keeps_is_not_taken_back():
    pool = recycle.Pool()
    a = pool.take((64, 1024), np.dtype(np.float32))  # 256 KiB: large enough
    assert pool.wanted[((64, 1024), "<f4")] == 1
    holder = [a]
    pool.give(a)  # this frame and the list hold it: not the pool's to keep
    assert pool.free[((64, 1024), "<f4")] == []
    del holder
    view = a[1:]
    pool.give(view)  # a view never
    assert pool.free[((64, 1024), "<f4")] == []


def test_the_pool_keeps_no_more_than_one_run_takes(graph):
    x, w = tf.placeholder(tf.float32, [4, 30, 30, 3]), tf.placeholder(tf.float32, [3, 3, 3, 16])
    _, dw = _conv_net(x, w)
    xv, wv = _data()
    with tf.Session() as sess:
        for _ in range(5):
            sess.run(dw, {x: xv, w: wv})
        pool = _plan(sess).pool
        for key, spare in pool.free.items():
            assert len(spare) <= pool.wanted[key]


def test_plans_without_a_taker_keep_no_pool(graph):
    x = tf.placeholder(tf.float32, [256, 256])
    with tf.Session() as sess:
        sess.run(tf.matmul(x, x) + 1.0, {x: np.ones((256, 256), np.float32)})
        assert _plan(sess).pool is None


def test_outside_a_plan_run_empty_is_a_fresh_array():
    a, b = recycle.empty((3, 4), np.float32), recycle.empty((3, 4), np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32 and not np.shares_memory(a, b)
    recycle.done(a)  # no run: nothing to keep it, and no error


def test_the_base_of_a_dead_view_is_kept_only_when_nothing_else_holds_it():
    pool = recycle.Pool()
    key = ((64, 1024), "<f4")
    a = pool.take((64, 1024), np.dtype(np.float32))
    pool.wanted[key] = 2
    view = a.reshape(1024, 64)
    pool.give(view)  # ``a`` here still holds the base
    assert pool.free[key] == []
    del a
    pool.give(view)  # now only the view does (and this frame's name for it)
    assert len(pool.free[key]) == 1 and pool.free[key][0] is view.base


def test_a_cnn_plans_dense_gradient_comes_from_the_pool(graph):
    x, w = tf.placeholder(tf.float32, [8, 30, 30, 3]), tf.placeholder(tf.float32, [3, 3, 3, 16])
    d = tf.placeholder(tf.float32, [14 * 14 * 16, 10])
    y, _ = _conv_net(x, w)
    loss = tf.reduce_sum(tf.matmul(tf.reshape(y, [8, -1]), d) ** 2)
    gx = tf.gradients(loss, x)[0]
    rng = np.random.default_rng(2)
    xv = rng.standard_normal((8, 30, 30, 3)).astype(np.float32)
    wv = rng.standard_normal((3, 3, 3, 16)).astype(np.float32)
    dv = rng.standard_normal((14 * 14 * 16, 10)).astype(np.float32)
    with tf.Session() as sess:
        first = sess.run(gx, {x: xv, w: wv, d: dv})
        second = sess.run(gx, {x: xv, w: wv, d: dv})
        pool = _plan(sess).pool
        # the matmul's [8, 3136] input gradient, viewed by a Reshape, came back
        assert len(pool.free.get(((8, 3136), "<f4"), [])) == 1
    np.testing.assert_array_equal(first, second)
