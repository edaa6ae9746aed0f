"""The eager tape's records and its own backward pass (``autodiff/eager_backward.py``).

Under a tape an eager op is a light tensor the tape records (its ``Operation`` is not
built), and ``tape.gradient`` runs the records in ``backprop``'s order with array rules
where they apply.  Each program is checked three ways: TF 2.21's numbers (literals from
running it on TF), the general engine's result (the same program with the eager pass
turned off) bit for bit, and what the pass built: no op for the forward records.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.autodiff import eager_backward
from symgrad.core import gradient_registry
from symgrad.core.eager import ERRSTATE, EagerTensor

# NumPy 1.x has no error-state variable: every op takes apply_op, and backprop the pass.
needs_fast_path = pytest.mark.skipif(ERRSTATE is None, reason="the eager fast path needs NumPy 2")


def chain(x: Any, n: int = 40) -> Any:
    y = x
    for i in range(n):
        k = i % 4
        y = y * 1.0001 if k == 0 else y + 0.001 if k == 1 else tf.sin(y) if k == 2 else tf.tanh(y)
    return y


def prog_chain() -> list[Any]:
    x = tf.constant(np.array([0.1, 0.2, 0.3, 0.4], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        y = chain(x)
    return [t.gradient(y, x)]


def prog_diamond() -> list[Any]:
    """``a`` has four consumers: its gradient is a sum of four parts, in backprop's order."""
    x = tf.constant(np.array([0.5, -1.5, 2.0], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        a = tf.sin(x)
        y = a * a + tf.tanh(a) + a * 3.0 + tf.exp(a) / (a + 4.0)
    return [t.gradient(y, x)]


def prog_mlp() -> list[Any]:
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 10 - 0.2)
    b = tf.Variable(np.array([0.1, -0.2, 0.3], np.float32))
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 7)
    with tf.GradientTape() as t:
        h = tf.nn.relu(tf.matmul(x, w) + b)
        loss = tf.reduce_mean(tf.tanh(h) * h) + tf.reduce_sum(tf.square(w))
    return t.gradient(loss, [w, b])  # type: ignore[no-any-return]


def prog_mlp_xent() -> list[Any]:
    """The training bench's step in small: two dense layers, softmax cross-entropy, every
    weight and bias a source through MatMul and AddV2 (array rules reach the sources)."""
    w1 = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 10 - 0.5)
    b1 = tf.Variable(np.array([0.1, -0.2, 0.3, 0.0], np.float32))
    w2 = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 5 - 0.7)
    b2 = tf.Variable(np.array([0.05, -0.05], np.float32))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 3 - 0.4)
    y = tf.constant(np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))
    with tf.GradientTape() as t:
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2) + b2
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return t.gradient(loss, [w1, b1, w2, b2])  # type: ignore[no-any-return]


def prog_gather() -> list[Any]:
    """Two targets; gathers (IndexedSlices) summed with a dense part."""
    w = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2))
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.gather(w, [0, 2, 0]) * 2.0) + tf.reduce_sum(tf.sin(w))
        s = tf.reduce_sum(tf.gather(w, [4]) * tf.gather(w, [1]))
    return [t.gradient([loss, s], w)]


def prog_repeated_sources() -> list[Any]:
    """A source asked for more than once gets its gradient each time (TF's
    testGradientTapeRepeatedSource); a variable too."""
    x = tf.constant(3.0)
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x + tf.reduce_sum(v * x)
    return t.gradient(y, [x, x, v, x, v])  # type: ignore[no-any-return]


# TF 2.21 (tensorflow-cpu, /work/main/.venv-tf) on the same programs.
TF = {
    prog_chain: [[0.8536861, 0.5866882, 0.36611417, 0.22512284]],
    prog_diamond: [[4.423195, 0.106707826, -2.372758]],
    prog_mlp: [
        [[-0.3864285, -0.2, 0.12855783], [0.22033745, 0.4, 0.7670651]],
        [0.04736154, 0.0, 0.26955074],
    ],
    prog_repeated_sources: [9.0, 9.0, [3.0, 3.0], 9.0, [3.0, 3.0]],
    prog_mlp_xent: [
        [
            [
                -0.04749396815896034,
                -0.04749397188425064,
                -0.047493964433670044,
                -0.04749395325779915,
            ],
            [-0.044086754322052, -0.0440867617726326, -0.044086754322052, -0.04408673942089081],
            [
                -0.04067953675985336,
                -0.04067954421043396,
                -0.04067953675985336,
                -0.04067952185869217,
            ],
        ],
        [0.01022164523601532, 0.010221637785434723, 0.010221637785434723, 0.01022164523601532],
        [
            [-0.08486980944871902, 0.08486980944871902],
            [-0.0034072278067469597, 0.0034072278067469597],
            [0.03716880828142166, -0.03716880828142166],
            [0.11863141506910324, -0.11863141506910324],
        ],
        [-0.051108211278915405, 0.051108211278915405],
    ],
    prog_gather: [
        [[5.0, 4.5403023], [7.5838532, 8.010008], [1.3463564, 2.283662], [0.96017027, 0.75390226]]
        + [[1.8544999, 2.0888698]]
    ],
}
PROGRAMS = list(TF)


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eager_backward, "usable", lambda records, targets: False)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_eager_pass_matches_tf_and_the_general_engine_bit_for_bit(
    prog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    lean = [tf.convert_to_tensor(g).numpy() for g in prog()]
    for got, want in zip(lean, TF[prog], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    _general(monkeypatch)
    general = [tf.convert_to_tensor(g).numpy() for g in prog()]
    for a, b in zip(lean, general, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@needs_fast_path
def test_records_stay_light_and_array_rules_run(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for op_type, (fn, rule) in list(gradient_registry.ARRAY_RULES.items()):

        def counted(*args: Any, _rule: Any = rule, _t: str = op_type) -> Any:
            calls.append(_t)
            return _rule(*args)

        monkeypatch.setitem(gradient_registry.ARRAY_RULES, op_type, (fn, counted))
    x = tf.constant(np.array([0.1, 0.2], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        p = tf.sin(x)
        q = tf.tanh(p * 2.0)
        y = q + 1.0
    assert all(type(v) is EagerTensor and v._op is None for v in (p, q, y))
    assert set(t._records) == {id(p), id(q), id(y), id(q.op.inputs[0])}  # q's op: built now
    dx = t.gradient(y, x)
    np.testing.assert_allclose(
        dx.numpy(), 2 * np.cos([0.1, 0.2]) * (1 - np.tanh(2 * np.sin([0.1, 0.2])) ** 2), rtol=1e-6
    )
    if "AddV2" in gradient_registry.ARRAY_RULES and "Tanh" in gradient_registry.ARRAY_RULES:
        # Sin's rule too: its result (x's gradient) leaves the pass as a light Const in
        # Sin's ``_grad`` scope, whose op is built only when asked for.
        assert calls == ["AddV2", "Tanh", "Mul", "Sin"]
        assert type(dx) is EagerTensor and dx._op is None
        assert dx.op.name == p.op.name + "_grad/Const" and dx.op.type == "Const"
    assert p._op is not None and y._op is None  # read above: built; never read: not built


@needs_fast_path
def test_a_training_step_runs_no_registered_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources read through MatMul and AddV2 take the array rules too: the pass builds no
    op, and each source's gradient leaves it as a light Const in its rule's scope."""
    ran: list[Any] = []
    monkeypatch.setattr(eager_backward, "apply_rule", lambda op, *a: ran.append(op.type))
    grads = prog_mlp_xent()
    assert ran == []
    for g in grads:
        assert type(g) is EagerTensor and g._op is None and g._type == "Const"
    names = [g.op.name.rsplit("/", 1)[0] for g in grads]
    assert [n.split("_grad")[0].rstrip("_0123456789") for n in names] == [
        "MatMul", "add", "MatMul", "add"
    ]  # fmt: skip
    assert all(n.endswith("_grad") for n in names)


def test_nested_and_persistent_tapes_take_the_general_engine() -> None:
    x = tf.constant(1.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.sin(x) * x
        dy = inner.gradient(y, x)  # recorded by outer: its rules' ops are built
    d2 = outer.gradient(dy, x)
    # d/dx (x sin x) = sin x + x cos x; d2 = 2 cos x - x sin x (float64)
    np.testing.assert_allclose(dy.numpy(), np.sin(1.5) + 1.5 * np.cos(1.5), rtol=1e-6)
    np.testing.assert_allclose(d2.numpy(), 2 * np.cos(1.5) - 1.5 * np.sin(1.5), rtol=1e-5)
    with tf.GradientTape(persistent=True) as p:
        p.watch(x)
        z = tf.exp(x) * x
        g1 = p.gradient(z, x)  # inside its block: the tape records its own gradient
    g2 = p.gradient(g1, x)
    np.testing.assert_allclose(g2.numpy(), np.exp(1.5) * (2 + 1.5), rtol=1e-6)


def test_why_none_after_use_finds_light_records() -> None:
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.sin(x)
    c = tf.constant(3.0)
    assert t.gradient(y, c) is None
    (why,) = tf.why_none(t, y, c)
    assert why.reason == "not_watched"
    assert tf.why_none(t, y, x)[0] is None  # y's op, built after the tape was used, is known


def test_a_target_that_is_a_watched_source_beside_a_record() -> None:
    """One target is a record's output, the other the watched source itself (no record):
    the general engine takes both, with ones as op seeds (TF 2.21: [3.0, 5.0])."""
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    assert t.gradient([y, x], x).numpy().tolist() == [3.0, 5.0]


def _mlp64(params: list[Any], nested: bool = False) -> Any:
    """The training bench's step in float64: the loss and, under ``nested``, an outer tape
    that records the inner pass (which then takes the general engine)."""
    w1, b1, w2, b2 = params
    x = tf.constant(np.linspace(-1.0, 1.0, 15).reshape(5, 3))
    y = tf.constant(np.eye(2)[[0, 1, 1, 0, 1]])  # rows summing to 1: the rule assumes it
    with tf.GradientTape() as t:
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(h, w2) + b2)
        )
    return loss, t.gradient(loss, params)


def _params64() -> list[Any]:
    rng = np.random.default_rng(29)
    return [tf.Variable(rng.normal(size=s)) for s in ((3, 4), (4,), (4, 2), (2,))]


def test_the_mlp_step_in_float64_matches_finite_differences() -> None:
    """The eager pass's array rules (MatMul, a broadcast bias's Sum, Relu, the softmax
    cross-entropy, Mean) against central differences of the loss, per parameter entry."""
    params = _params64()
    _, grads = _mlp64(params)
    for p, g in zip(params, grads, strict=True):
        assert g.dtype == tf.float64 and g.shape == p.shape
        base, fd = p.numpy().copy(), np.zeros(p.shape)
        for i in np.ndindex(*p.shape):
            for sign in (1.0, -1.0):
                moved = base.copy()
                moved[i] += sign * 1e-6
                p.assign(moved)
                fd[i] += sign * _mlp64(params)[0].numpy() / 2e-6
            p.assign(base)
        np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6, atol=1e-9)


def test_the_mlp_step_under_an_outer_tape_gives_the_same_gradients_and_second_order() -> None:
    """An outer tape makes the inner pass take the general engine (its rules' ops are
    recorded): the same first-order bits, and a second order that reads them."""
    params = _params64()
    _, lean = _mlp64(params)
    with tf.GradientTape() as outer:
        _, general = _mlp64(params)
        s = tf.add_n([tf.reduce_sum(g * g) for g in general])
    for a, b in zip(lean, general, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    (d2,) = outer.gradient(s, [params[3]])  # d/d b2 of sum |grad|^2: through softmax
    assert d2 is not None and d2.shape == (2,)
    eps, b2 = 1e-6, params[3].numpy().copy()
    fd = np.zeros(2)
    for i in range(2):
        for sign in (1.0, -1.0):
            moved = b2.copy()
            moved[i] += sign * eps
            params[3].assign(moved)
            fd[i] += sign * sum(np.sum(g.numpy() ** 2) for g in _mlp64(params)[1]) / (2 * eps)
        params[3].assign(b2)
    np.testing.assert_allclose(d2.numpy(), fd, rtol=1e-5, atol=1e-9)


@needs_fast_path
def test_gradient_consts_are_named_in_their_rules_scope_with_the_live_suffix() -> None:
    """``_Consts``'s inlined ``unique_name``: ``<op>_grad/Const``, then ``_1`` while that
    one lives, and the name ``Graph.unique_name`` gives under the scope (``_scoped_name``)."""
    x = tf.constant([1.0, 2.0])
    y = tf.sin(x)
    graph = y.graph
    const = eager_backward._Consts(graph, ((__file__, lineno()), -1))
    first = const(np.ones(2, np.float32), y)
    second = const(np.ones(2, np.float32), y)
    base = f"{y.op.name}_grad/Const"
    assert (first.op.name, second.op.name) == (base, base + "_1")
    assert first.dtype == tf.float32 and second.shape == (2,)
    assert eager_backward._scoped_name(graph, y) == base + "_2"
    del first
    assert const(np.ones((), np.float64), y).op.name in (base, base + "_2")


_FIELDS = ("_op", "dtype", "shape", "_count", "_type", "_inputs", "graph", "_override")
_FIELDS += ("_control", "_device")


@needs_fast_path
def test_a_gradient_const_has_the_fields_light_gives_it_and_the_users_line() -> None:
    """``_Consts`` fills a gradient Const's fields itself: each as ``_light`` fills it
    (under a gradient override map, control dependencies and a device), its name in the
    graph's name index and live list; the op built from it and the tape's with block and
    use name the user's lines (kept as (code, instruction) until read)."""
    from symgrad.core.eager import _caller_site, _light

    x = tf.constant([1.0, 2.0])
    y = tf.sin(x)
    graph, value = y.graph, np.ones(2, np.float32)
    with (
        graph.gradient_override_map({"Const": "Identity"}),
        tf.device("/cpu:0"),
        tf.control_dependencies([y]),
    ):
        site = _caller_site(sys._getframe())
        line = lineno() - 1
        fast = eager_backward._Consts(graph, site)(value, y)
        name = fast._name
        attrs = {"value": value, "dtype": tf.float32}
        light = _light(graph, "Const", name + "x", (), attrs, tf.float32, fast.shape, value)
    for field in _FIELDS:
        assert getattr(fast, field) == getattr(light, field), field
    assert fast._value is value and fast._attrs == attrs and fast._attrs["value"] is value
    assert graph._by_name[name]() is fast and any(r() is fast for r in graph._live)
    assert fast.op.traceback == (__file__, line)
    assert (fast.op.name, fast.op.type, fast.op.device) == (name, "Const", light.op.device)
    assert fast.op.gradient_override == "Identity" and fast.op.control_inputs == (y.op,)

    v = tf.Variable([1.0, 2.0])
    start = lineno() + 1
    with tf.GradientTape() as t:
        z = tf.reduce_sum(tf.sin(v * 2.0))
    (g,) = t.gradient(z, [v])
    used = lineno() - 1
    assert type(g) is EagerTensor and g._op is None and g.op.traceback == (__file__, used)
    assert (t._block, t._used_at) == ((__file__, start), (__file__, used))


def lineno() -> int:
    return sys._getframe(1).f_lineno


def test_gradient_keeps_the_structure_of_sources_flat_or_nested() -> None:
    """A flat list of sources (``_sources``'s shortcut) gives a new list; a tuple, a
    nested list or a dict its own structure, as ``nest.pack_sequence_as`` makes it."""
    v, x = tf.Variable([1.0, 2.0]), tf.constant(3.0)
    structures: list[Any] = [[v, x], (v, x), [v, [x]], {"b": x, "a": v}, v]
    for sources in structures:
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(v * x)
        got = t.gradient(y, sources)
        if sources is v:
            assert isinstance(got, tf.Tensor)
        else:
            assert type(got) is type(sources) and got is not sources
        flat = tf.nest.flatten(got)
        want = {id(v): [3.0, 3.0], id(x): 3.0}
        for s, g in zip(tf.nest.flatten(sources), flat, strict=True):
            assert np.asarray(g.numpy()).tolist() == want[id(s)]


def test_a_used_tapes_record_finds_each_op_it_recorded_however_built():
    # Spent (a used tape's record, for why_none): a light record whose op is built after
    # the gradient, one whose op was built before and whose tensor is freed since, and
    # an op recorded as an op (several outputs); nothing else.
    import gc

    from symgrad.autodiff.eager_backward import Spent

    x = tf.constant([[1.0, 2.0]])
    later, before = x * 2.0, tf.sin(x)
    before_op = before.op
    xent = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=x)
    spent = Spent([later, before, xent.op])
    del before
    gc.collect()
    assert id(later.op) in spent
    assert id(before_op) in spent
    assert id(xent.op) in spent
    assert id(tf.cos(x).op) not in spent


@needs_fast_path
def test_an_op_fed_only_integers_it_knows_is_not_recorded_and_its_wiring_says_so() -> None:
    """TF's recording rule: an op is recorded when an input the tape knows is of a
    differentiable dtype.  The integer result of a recorded op (``argmax``) is known to
    the tape; an op fed only that (its cast) is not recorded, and an op fed it beside a
    float it knows (``gather``) is, the integer input wired -1 (no gradient goes there)."""
    x = tf.constant(np.array([[0.3, 1.0], [0.2, 0.5]], np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        i = tf.argmax(x, axis=1)  # recorded (x is known); its output an int64, [1, 1]
        f = tf.cast(i, tf.float32)  # fed only the int: not recorded
        g = tf.gather(x, i)  # fed x and the int: recorded
        y = tf.reduce_sum(g * 3.0 + x)
    records = t._records
    assert id(i) in records and id(g) in records and id(f) not in records
    wiring = dict(zip(records, t._wiring, strict=True))
    assert wiring[id(i)][1] == (t._known[id(x)], -1)  # (x, the axis constant)
    assert wiring[id(g)][1] == (t._known[id(x)], -1, -1)  # (x, the int indices, the axis)
    dx = tf.convert_to_tensor(t.gradient(y, x)).numpy()
    np.testing.assert_array_equal(dx, [[1.0, 1.0], [7.0, 7.0]])  # TF 2.21's
