"""Bounded eager memory (issue 18, point 1; docs/design.md, "Eager memory").

The eager graph drops the history that no source (a tensor the user holds, a variable's
read, an op a tape or the user holds) is at or upstream of, so a loop that rebinds its
tensors runs in bounded memory, while ``gradients()`` still differentiates through the
intermediates between held tensors.  Memory is measured with tracemalloc, never timed.
"""

import gc
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import graph as graph_module

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def _eager_history_released():
    """Earlier tests may have called ``disable_eager_execution`` (which keeps history)."""
    kept = graph_module._keep_history
    graph_module.keep_eager_history(False)
    yield
    graph_module.keep_eager_history(kept)


def _traced(fn):
    """Bytes allocated (and still held) while ``fn`` runs."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def _swept():
    tf.get_default_graph().sweep()


def test_rebinding_loop_stays_flat():
    graph_module.reset_default_graph()  # the sawtooth below scales with the live ops
    x = tf.constant(np.arange(4, dtype=np.float32))
    state = {"x": x}
    del x

    def steps(n):
        def run():
            x = state.pop("x")
            for _ in range(n):
                x = x * 1.0
            state["x"] = x

        return run

    steps(3000)()
    # Between two sweeps at most ~2,000 ops are live (the sweep runs when as many ops
    # were made since the last one as lived after it): a sawtooth of ~2 MB.  Unbounded
    # history grew ~1 KB per step (20 MB here).
    assert _traced(steps(20_000)) < 4_000_000
    _swept()
    # What stays is the name table's capacity (~100 KB; a dict does not shrink).
    grown = _traced(lambda: (steps(20_000)(), _swept()))
    assert grown < 256_000, f"{grown} bytes kept over 20,000 steps"
    np.testing.assert_array_equal(state["x"].numpy(), np.arange(4, dtype=np.float32))
    assert len(tf.get_default_graph().get_operations()) < 10


def _tape_step(w):
    with tf.GradientTape() as t:
        t.watch(w)
        loss = tf.reduce_sum(w * w)
    g = t.gradient(loss, w)
    return w - 0.01 * g


def test_tape_loop_stays_flat():
    graph_module.reset_default_graph()
    state = {"w": tf.constant(np.ones(1000, np.float32))}

    def steps(n):
        def run():
            w = state.pop("w")
            for _ in range(n):
                w = _tape_step(w)
            state["w"] = w

        return run

    steps(200)()
    _swept()
    # Unbounded history grew ~45 KB per step (90 MB here).
    grown = _traced(lambda: (steps(2000)(), _swept()))
    assert grown < 400_000, f"{grown} bytes kept over 2,000 steps"
    np.testing.assert_allclose(state["w"].numpy(), np.full(1000, 0.98**2200), rtol=1e-3)


def test_held_tensors_keep_the_history_between_them():
    x = tf.constant([1.0, 2.0])
    h = x * 2.0
    y = h
    n = 5000  # several sweeps
    for _ in range(n):
        y = y * 1.0001
    _swept()
    np.testing.assert_allclose(tf.gradients(y, x)[0].numpy(), [2 * 1.0001**n] * 2, rtol=1e-3)
    np.testing.assert_allclose(tf.gradients(y, h)[0].numpy(), [1.0001**n] * 2, rtol=1e-3)


def test_gradients_after_the_history_of_a_source_was_dropped():
    x = tf.constant([1.0, 2.0])
    h = tf.sin(x) * 2.0  # x will be dropped: h's history goes
    y = h * 3.0
    del x
    z = tf.constant(1.0)
    for _ in range(3000):
        z = z * 1.0
    _swept()
    # What is downstream of a held tensor is kept, and differentiates right.
    np.testing.assert_allclose(tf.gradients(y, h)[0].numpy(), [3.0, 3.0])
    # h's input is now a constant of the same value: an edge a gradient rule still sees.
    frozen = h.op.inputs[0]
    assert frozen.op.type == "Const" and frozen.op.inputs == ()
    np.testing.assert_allclose(frozen.numpy(), np.sin([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(tf.gradients(y, frozen)[0].numpy(), [6.0, 6.0])
    assert frozen.shape == (2,) and frozen.dtype == tf.float32


def test_variables_are_sources():
    v = tf.Variable([1.0, 2.0])
    y = v * 2.0
    for _ in range(3000):
        y = y * 1.0
    _swept()
    np.testing.assert_allclose(tf.gradients(y, v)[0].numpy(), [2.0, 2.0])


def test_a_tape_keeps_what_it_recorded():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 1.0
        for _ in range(3000):
            y = y * 1.0001
    key = tf.constant(0.0)
    for _ in range(3000):  # sweeps while the tape lives, outside it
        key = key + 1.0
    _swept()
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [1.0001**3000] * 2, rtol=1e-3)


def test_a_watched_tensor_the_user_let_go_of_is_kept():
    x = tf.constant([3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
        del x
        for _ in range(3000):
            y = y * 1.0
        _swept()
    (g,) = t.gradient(y, [y.op.inputs[0]])  # y's input is y's own history
    np.testing.assert_allclose(g.numpy(), [1.0])


def test_symbolic_ops_are_kept():
    p = tf.compat.v1.placeholder(tf.float32, [2])
    y = p * 2.0
    for _ in range(2000):
        y = y * 1.0
    _swept()
    with tf.compat.v1.Session() as s:
        np.testing.assert_allclose(s.run(y, {p: [1.0, 2.0]}), [2.0, 4.0])
        np.testing.assert_allclose(s.run(tf.gradients(y, p)[0], {p: [1.0, 2.0]}), [2.0, 2.0])


def test_a_held_scalar_from_the_cache_stays_a_source():
    c = tf.convert_to_tensor(3.0)  # the eager scalar cache's constant
    y = c * c
    for _ in range(3000):
        y = y * 1.0
        _ = c * 1.0  # keeps c in use, as a loop would
    _swept()
    _swept()
    np.testing.assert_allclose(tf.gradients(y, c)[0].numpy(), 6.0)


def test_explicit_graphs_keep_every_op():
    g = tf.Graph()
    with g.as_default():
        y = tf.constant(1.0)
        for _ in range(2000):
            y = y * 1.0
    assert len(g.get_operations()) == 4001  # graphs get a Const per scalar
    first = g.get_operations()[2]
    assert first.inputs[0].op.name == "Const"


_SWEEP_EVERY_OP = """
import runpy, sys
from symgrad.core import graph
add_op = graph.Graph.add_op
def add_and_sweep(self, op):
    add_op(self, op)
    self.sweep()
graph.Graph.add_op = add_and_sweep
runpy.run_path(sys.argv[1], run_name="__main__")
"""


@pytest.mark.parametrize("seed", ["seed_000.py", "user_op_seed001.py", "seed_003.py"])
def test_seeds_with_a_sweep_after_every_op(seed):
    out = subprocess.run(
        [sys.executable, "-c", _SWEEP_EVERY_OP, str(EXAMPLES / seed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if seed == "seed_000.py":
        assert out == (EXAMPLES / "expected" / "seed_000.txt").read_text()
    elif seed == "seed_003.py":
        assert "same: True" in out


def test_tf1_programs_keep_history_for_session_run():
    graph_module.keep_eager_history(True)  # what compat.v1.disable_eager_execution() does
    x = tf.random.normal([3]) * 1.0
    for _ in range(2000):
        x = x * 1.0
    _swept()
    with tf.compat.v1.Session() as s:
        first, second = s.run(x), s.run(x)
    assert not np.array_equal(first, second)  # the draw behind x runs again, as in TF


def test_enable_eager_execution_releases_history_again():
    # disable_eager_execution keeps the eager graph's history (for Session.run); enabling
    # eager execution again ends that, so a long eager chain is cut at sweeps as before.
    graph_module.keep_eager_history(False)
    tf.compat.v1.disable_eager_execution()
    assert graph_module._keep_history
    tf.compat.v1.enable_eager_execution()
    assert not graph_module._keep_history
    z = tf.constant(0.5) * 1.0
    for _ in range(3000):
        z = z * 1.0
    ops, op = 0, z.op
    while op.inputs and op.type == "Mul":
        op, ops = op.inputs[0].op, ops + 1
    assert op.type == "Const" and ops < 3000


# The incremental sweep (issue 29): a sweep that finds the history walked last time still
# held walks only the entries added since (history.incremental_sweep).  These check that
# it takes over where it should, and that what it skips is cut as soon as it may be.


def _history_length(t):
    """How many Mul ops lead back from ``t`` before a frozen Const (or the start)."""
    ops, op = 0, t.op
    while op.inputs and op.type == "Mul":
        op, ops = op.inputs[0].op, ops + 1
    return ops


def _spy_sweeps(monkeypatch):
    """A list that gets True for each incremental sweep and False for each full one."""
    from symgrad.core import history

    kinds = []
    incremental = history.incremental_sweep

    def spy(*args):
        ok = incremental(*args)
        kinds.append(ok)
        return ok

    monkeypatch.setattr(history, "incremental_sweep", spy)
    return kinds


def test_a_held_chain_is_swept_incrementally_and_differentiates(monkeypatch):
    graph_module.reset_default_graph()
    kinds = _spy_sweeps(monkeypatch)
    x = tf.constant([1.0, 2.0])
    y = x
    for _ in range(5000):  # sweeps at ~1K, 2K, 4K live ops: all of it held through x
        y = y * 1.0001
    for _ in range(5000):  # ops nobody keeps, beside the held chain
        _ = x * 2.0
    assert kinds.count(True) >= 3, kinds
    assert _history_length(y) == 5000
    np.testing.assert_allclose(tf.gradients(y, x)[0].numpy(), [1.0001**5000] * 2, rtol=1e-3)


def test_a_root_dropped_after_an_incremental_sweep_is_cut_at_the_next(monkeypatch):
    graph_module.reset_default_graph()
    kinds = _spy_sweeps(monkeypatch)
    x = tf.constant([1.0, 2.0])
    y = x * 2.0
    for _ in range(3000):  # y's history stays: x is held
        y = y * 1.0
    assert kinds and kinds[-1] is True
    assert _history_length(y) == 3001
    del x
    for _ in range(20_000):  # x is let go of: y's history can go, and the chain after it
        y = y * 1.0
    assert False in kinds[-3:], kinds
    # Cut: what stays is the ops since a sweep or two (the cached 1.0 in flight at a
    # sweep keeps its consumers one sweep longer), not 23,001.
    assert _history_length(y) < 5000


def test_an_op_held_only_by_its_consumers_after_a_sweep_is_cut_later(monkeypatch):
    # The held chain's start is a tensor whose only holder after the sweep is a new
    # consumer: counting the new consumers' references finds it released.
    graph_module.reset_default_graph()
    kinds = _spy_sweeps(monkeypatch)
    x = tf.constant([1.0, 2.0])
    keep = x * 1.0
    for _ in range(3000):
        keep = keep * 1.0
    assert kinds == [True]  # (the sweep at 2,048 ops skipped keep's history)
    z = x * 3.0  # x's consumer made after the sweeps above
    del x
    for _ in range(6000):
        z = z * 1.0
    assert _history_length(z) < 6000
    assert _history_length(keep) < 3001  # keep's history went with x
    np.testing.assert_allclose(z.numpy(), [3.0, 6.0])


def test_a_tape_keeps_what_it_recorded_across_incremental_sweeps(monkeypatch):
    graph_module.reset_default_graph()
    kinds = _spy_sweeps(monkeypatch)
    x = tf.constant([1.0, 2.0])
    held = x * 1.0
    for _ in range(1500):
        held = held * 1.0
    w = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(w)
        y = w * 2.0
        del w
        for _ in range(3000):
            y = y * 1.0001
    for _ in range(3000):  # sweeps while the tape lives, outside it
        _ = held * 1.0
    assert _history_length(y) == 3001  # what the tape recorded stays, back to w * 2.0
    start = y
    for _ in range(3000):
        start = start.op.inputs[0]
    (g,) = t.gradient(y, [start])
    np.testing.assert_allclose(g.numpy(), [1.0001**3000] * 2, rtol=1e-3)
    np.testing.assert_allclose(start.numpy(), [6.0, 8.0])
    np.testing.assert_allclose(tf.gradients(held, x)[0].numpy(), [1.0, 1.0])
    assert True in kinds
