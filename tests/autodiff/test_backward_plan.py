"""The eager backward pass's plan cache (``autodiff/backward_plan.py``).

A plan is keyed on the tape's structure; a hit must give what a fresh plan gives (the
same numbers bit for bit, the same names), and every change of structure (wiring,
sources, targets, dtypes) a plan of its own.  Each check compares against the general
engine (``backprop``: the eager pass turned off) bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.autodiff import backward_plan, eager_backward
from symgrad.core import gradient_registry
from symgrad.core.eager import ERRSTATE, EagerTensor

needs_fast_path = pytest.mark.skipif(ERRSTATE is None, reason="the eager fast path needs NumPy 2")


@pytest.fixture(autouse=True)
def _empty_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backward_plan, "_CACHE", {})


def _arrays(grads: list[Any]) -> list[Any]:
    return [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]


def _general(monkeypatch: pytest.MonkeyPatch, fn: Callable[[], list[Any]]) -> list[Any]:
    with monkeypatch.context() as m:
        m.setattr(eager_backward, "usable", lambda records, targets: False)
        return _arrays(fn())


def _same(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x is None) == (y is None)
        if x is not None:
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


def _mlp(batch: int = 4, dtype: Any = np.float32) -> tuple[list[Any], Any]:
    rng = np.random.default_rng(0)
    params = [
        tf.Variable(rng.standard_normal((3, 5)).astype(dtype)),
        tf.Variable(rng.standard_normal(5).astype(dtype)),
        tf.Variable(rng.standard_normal((5, 2)).astype(dtype)),
        tf.Variable(rng.standard_normal(2).astype(dtype)),
    ]
    x = tf.constant(rng.standard_normal((batch, 3)).astype(dtype))
    return params, x


def _loss(params: list[Any], x: Any) -> Any:
    w1, b1, w2, b2 = params
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    return tf.reduce_mean(tf.tanh(tf.matmul(h, w2) + b2) * 2.0)


def _step(params: list[Any], x: Any, sources: list[Any] | None = None) -> list[Any]:
    with tf.GradientTape() as t:
        loss = _loss(params, x)
    return t.gradient(loss, params if sources is None else sources)  # type: ignore[no-any-return]


@needs_fast_path
def test_a_loop_builds_one_plan_and_its_hits_match_a_fresh_plan_and_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params, x = _mlp()
    first = _step(params, x)
    assert len(backward_plan._CACHE) == 1
    (plan,) = backward_plan._CACHE.values()
    for _ in range(3):
        hit = _step(params, x)
        assert list(backward_plan._CACHE.values()) == [plan]  # the same plan, reused
        _same(_arrays(hit), _arrays(first))
        # The names are those a fresh plan gives: each in its rule's ``_grad`` scope.
        for g in hit:
            assert type(g) is EagerTensor and g.op.type == "Const"
            assert g.op.name.rsplit("/", 1)[0].rstrip("_0123456789").endswith("_grad")
        assert [g.name.split("_")[0] for g in hit] == [g.name.split("_")[0] for g in first]
    _same(_arrays(first), _general(monkeypatch, lambda: _step(params, x)))


@needs_fast_path
@pytest.mark.parametrize("change", ["batch", "dtype"])
def test_shapes_and_dtypes_that_change_between_steps(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for batch, dtype in [(4, np.float32), (3, np.float32), (4, np.float64), (4, np.float32)]:
        if (change == "batch" and dtype is np.float64) or (change == "dtype" and batch == 3):
            continue
        params, x = _mlp(batch, dtype)
        got = _arrays(_step(params, x))
        assert got[0].dtype == dtype
        _same(got, _general(monkeypatch, lambda p=params, v=x: _step(p, v)))


@needs_fast_path
def test_sources_in_another_order_or_repeated_get_their_own_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params, x = _mlp()
    straight = _arrays(_step(params, x))
    orders = [params[::-1], [params[1], params[1], params[0]], [params[2]], params + [x]]
    for sources in orders:
        got = _arrays(_step(params, x, sources))
        want = _general(monkeypatch, lambda s=sources: _step(params, x, s))
        _same(got, want)
    # (x, never watched, is no source: ``params + [x]`` takes the straight plan, x gets None)
    assert len(backward_plan._CACHE) == len(orders)
    _same(_arrays(_step(params, x, params[::-1])), straight[::-1])


@needs_fast_path
def test_another_target_of_the_same_tape(monkeypatch: pytest.MonkeyPatch) -> None:
    params, x = _mlp()

    def run() -> list[Any]:
        with tf.GradientTape(persistent=True) as t:
            w1, b1, w2, _ = params
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            a = tf.reduce_sum(h * 3.0)
            b = tf.reduce_mean(tf.matmul(h, w2))
        return t.gradient(a, params) + t.gradient(b, params) + t.gradient([a, b], params)

    got = _arrays(run())
    assert got[2] is None and got[6] is not None  # w2: not under a, under b
    _same(got, _general(monkeypatch, run))
    _same(_arrays(run()), got)  # the three plans, hit


@needs_fast_path
def test_a_record_whose_input_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same op types in the same order, wired otherwise: each wiring its own plan."""
    w = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32))
    b = tf.Variable(np.array([1.5, 0.25, -0.5], np.float32))
    c = tf.constant(np.array([2.0, 3.0, 4.0], np.float32))

    def run(first: Any, second: Any) -> list[Any]:
        with tf.GradientTape() as t:
            y = tf.sin(first * second)
            z = tf.reduce_sum(y * w)
        return t.gradient(z, [w, b])  # type: ignore[no-any-return]

    pairs = [(w, b), (b, b), (c, b), (w, c), (w, b)]
    for first, second in pairs:
        got = _arrays(run(first, second))
        _same(got, _general(monkeypatch, lambda f=first, s=second: run(f, s)))
    assert got[1] is not None and _arrays(run(w, c))[1] is None
    assert len(backward_plan._CACHE) == 4


@needs_fast_path
def test_a_gradient_registered_anew_is_not_hidden_by_a_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plan keeps each op type's array rule; once the registry holds another rule for
    it, the array rule no longer stands for it and the registered rule runs."""
    x = tf.constant(np.array([0.1, 0.7], np.float32))

    def run() -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x))
        return t.gradient(y, x).numpy()

    before = run()
    np.testing.assert_allclose(before, 1 - np.tanh([0.1, 0.7]) ** 2, rtol=1e-6)
    registry = gradient_registry.gradient_registry._registry
    twice = (lambda op, g: g * 2.0, "test")
    monkeypatch.setitem(registry, "Tanh", twice)
    np.testing.assert_array_equal(run(), np.array([2.0, 2.0], np.float32))
    monkeypatch.undo()
    np.testing.assert_array_equal(run(), before)


@needs_fast_path
def test_what_the_pass_does_not_take_leaves_the_cache_alone() -> None:
    """Nested tapes and a persistent tape inside its block go to ``backprop``: no plan."""
    x = tf.constant(np.array([0.3, -0.2], np.float32))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.sin(x) * x)
        dx = inner.gradient(y, x)
    d2 = outer.gradient(dx, x)
    np.testing.assert_allclose(
        d2.numpy(), 2 * np.cos([0.3, -0.2]) - np.array([0.3, -0.2]) * np.sin([0.3, -0.2]), rtol=1e-6
    )
    assert len(backward_plan._CACHE) == 1  # the outer tape's own pass only
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.reduce_sum(x * x)
        g = t.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), np.array([0.6, -0.4], np.float32))
    assert len(backward_plan._CACHE) == 1


@needs_fast_path
def test_unconnected_and_sparse_gradients_through_a_cached_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    other = tf.Variable(np.array([1.0, 2.0], np.float32))

    def run() -> list[Any]:
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(table, [0, 2, 2]) * 3.0)
        return t.gradient(y, [table, other], unconnected_gradients="zero")  # type: ignore[no-any-return]

    for _ in range(2):
        g_table, g_other = run()
        assert isinstance(g_table, tf.IndexedSlices)
        np.testing.assert_array_equal(tf.convert_to_tensor(g_table).numpy()[2], [6.0, 6.0])
        np.testing.assert_array_equal(g_other.numpy(), [0.0, 0.0])
    _same(_arrays(run()), _general(monkeypatch, run))


@needs_fast_path
def test_the_wiring_the_tape_writes_as_it_records_answers_each_set_of_sources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tape numbers what it knows as it records; one recording then answers any
    subset of its sources (a persistent tape asked twice), a variable read twice, a
    source listed twice, a watched tensor that is also a target, an op of two outputs
    (the cross entropy's) beside light records, and an integer result of a recorded op
    (``argmax``, cast back), whose consumer gets no gradient through it: each as the
    general engine gives it, bit for bit."""
    params, x = _mlp()
    w1, b1, w2, b2 = params
    labels = tf.constant(np.eye(2, dtype=np.float32)[[0, 1, 1, 0]])

    def record() -> tuple[Any, Any, Any]:
        t = tf.GradientTape(persistent=True)
        with t:
            t.watch(x)
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2) + b2 + tf.reduce_sum(w1)  # w1 read twice
            hot = tf.cast(tf.argmax(logits, axis=1), tf.float32)  # int: no gradient through
            xent = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            loss = tf.reduce_mean(xent * (1.0 + hot))
        return t, loss, h

    def asked() -> list[Any]:
        t, loss, h = record()
        out = t.gradient(loss, [w1, b2, w1])  # a subset, w1 twice
        out += t.gradient(loss, [x, b1, h])  # another subset of the same recording
        out += t.gradient(h, [h, x])  # the target a source
        return out  # type: ignore[no-any-return]

    fast = _arrays(asked())
    _same(fast, _general(monkeypatch, asked))
    _same(fast, _arrays(asked()))  # a second recording: the cached plans, the same bits
    assert len(backward_plan._CACHE) == 3  # one per set of sources and targets
    np.testing.assert_array_equal(fast[0], fast[2])
    np.testing.assert_array_equal(fast[6], np.ones((4, 5), np.float32))  # d h / d h


@needs_fast_path
def test_slots_fed_once_or_several_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slot one gradient can reach holds it alone, one several can reach a list summed
    when read (``Plan.multi``): a tensor used by several ops, by one op twice (``h2 * h2``),
    a watched intermediate that is a step's output and a source, a target that is also a
    source.  Values as the general engine's, bit for bit; a source's Const named in the
    ``_grad`` scope of the one op that fed it, or unscoped where its gradients were summed."""
    params, x = _mlp()
    w1, b1, w2, _ = params

    def run() -> list[Any]:
        out = []
        for target in ("y", "z", "h2"):
            with tf.GradientTape() as t:
                h1 = tf.matmul(x, w1)
                t.watch(h1)
                h2 = h1 + b1
                y = tf.reduce_sum(h2 * h2) + tf.reduce_sum(h1) + tf.reduce_sum(b1 * 3.0)
                if target == "z":
                    z = tf.reduce_sum(tf.matmul(tf.nn.relu(h2), w2))
            if target == "y":
                out += t.gradient(y, [h1, w1, b1, h2])
            elif target == "z":
                out += t.gradient(z, [w2, w1])
            else:
                out += t.gradient(h2, [h2, h1])
        return out

    got = run()
    _same(_arrays(got), _general(monkeypatch, run))
    names = [g.op.name for g in run()]
    _same(_arrays(run()), _arrays(got))  # the plans, hit
    scopes = [n.rsplit("/", 1)[0] if "/" in n else "" for n in names]
    # h1, b1 and h2 (each summed): unscoped; w1 (fed by MatMul alone): scoped; z's w2 and
    # w1: scoped; h2's own gradient (its seed: no op fed it): unscoped; h1's: scoped (add).
    scoped = "".join("s" if s.rstrip("_0123456789").endswith("_grad") else "-" for s in scopes)
    assert scoped == "-s--ss-s"
