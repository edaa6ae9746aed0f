"""The cyclic collector is paused while gradients are built and plans compiled, then
restored exactly as it was."""

import gc
import threading

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.gc_pause import collector_paused


@pytest.fixture(autouse=True)
def _restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_pauses_and_restores_when_nested():
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_restored_after_an_error():
    gc.enable()
    with pytest.raises(RuntimeError, match="boom"), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_concurrent_pauses_share_one_count():
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def hold():
        with collector_paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    inside.wait(5)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the worker's pause has not ended
    release.set()
    worker.join()
    assert gc.isenabled()


def test_gradients_in_a_graph_pause_the_collector_and_give_it_back():
    seen = []

    @tf.RegisterGradient("GcPauseProbeSquare")
    def _probe(op, grad):
        seen.append(gc.isenabled())
        return [grad * 2.0 * op.inputs[0]]

    gc.enable()
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3])
        with g.gradient_override_map({"Square": "GcPauseProbeSquare"}):
            y = tf.square(x)
        (dx,) = tf.gradients(tf.reduce_sum(y), [x])
        assert seen == [False]
        assert gc.isenabled()
        out = tf.Session(graph=g).run(dx, {x: np.array([1.0, -2.0, 0.5])})
    assert gc.isenabled()
    np.testing.assert_array_equal(out, [2.0, -4.0, 1.0])


def test_eager_gradients_leave_the_collector_running():
    seen = []

    @tf.custom_gradient
    def square(x):
        def grad(dy):
            seen.append(gc.isenabled())
            return dy * 2.0 * x

        return x * x, grad

    gc.enable()
    x = tf.constant([1.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = square(x)
    np.testing.assert_array_equal(tape.gradient(y, x), [2.0, 6.0])
    assert seen == [True]
