"""Variables between compiled calls: kept on the device, seen right by every reader.

A ``function(jit_compile=True)`` leaves the variables it writes as device arrays (their
buffers donated to the next call); the NumPy path, ``numpy()``, eager snapshots,
checkpoints and later NumPy-path assignments must all see the values TF gives, and a
run that fails must leave every variable as it was.  TF 2.21's numbers where a float
result goes through ``sin``: rtol 1e-6 (float32).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.core.op_registry import OPS, apply_op, register_op
from symgrad.ops.state import variables
from symgrad.ops.state.variables import device_array
from symgrad.runtime.xla.host import host


def _doubler() -> tuple[tf.Variable, tf.Function]:
    v = tf.Variable(np.array([1.0, 2.0], np.float32))

    @tf.function(jit_compile=True)
    def bump(x: tf.Tensor) -> tf.Tensor:
        v.assign(v * 2.0 + x)
        return v.read_value()

    return v, bump


def test_the_value_stays_on_the_device_until_the_numpy_path_reads_it() -> None:
    v, bump = _doubler()
    one = tf.constant([1.0, 1.0])
    bump(one)
    held = device_array(v)
    bump(one)
    assert held.is_deleted()  # its buffer was donated to the update
    assert "_value" not in v.__dict__  # only the device holds the value
    assert v.numpy().tolist() == [7.0, 11.0]  # exact: * 2 and + of small integers
    got = v.numpy()
    got[0] = 99.0  # numpy() is the caller's copy
    assert v.numpy().tolist() == [7.0, 11.0]
    assert (v + 1.0).numpy().tolist() == [8.0, 12.0]  # the NumPy path reads it


def test_snapshots_and_fed_values_survive_the_donated_update() -> None:
    v, bump = _doubler()
    one = tf.constant([1.0, 1.0])
    before = v.value()  # an eager snapshot (a NumPy value)
    first = bump(one)
    snap = v.value()  # a view of the device buffer the next call donates
    second = bump(snap)  # the same buffer as a feed, too
    third = bump(one)
    assert before.numpy().tolist() == [1.0, 2.0]
    assert first.numpy().tolist() == snap.numpy().tolist() == [3.0, 5.0]
    assert second.numpy().tolist() == [9.0, 15.0]
    assert third.numpy().tolist() == [19.0, 31.0]
    assert v.numpy().tolist() == [19.0, 31.0]


def test_numpy_path_assignments_between_compiled_calls_are_seen() -> None:
    v, bump = _doubler()
    one = tf.constant([1.0, 1.0])
    bump(one)
    v.assign([10.0, 20.0])  # eager, on the NumPy path
    assert bump(one).numpy().tolist() == [21.0, 41.0]
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [22.0, 42.0]
    assert bump(one).numpy().tolist() == [45.0, 85.0]


def _accumulating_step() -> tuple[tf.Variable, Any, tf.Tensor]:
    """A compiled step that adds ``w * x`` to a variable it returns, and ``w``, read only."""
    w = tf.Variable(np.array([1.0, 2.0], np.float32))
    v = tf.Variable(np.array([0.0, 0.0], np.float32))

    @tf.function(jit_compile=True)
    def step(x: tf.Tensor) -> tf.Tensor:
        v.assign_add(w * x)
        return v.read_value()

    one = tf.constant([1.0, 1.0])
    return w, step, one


def test_a_variable_the_call_only_reads_is_read_again_after_an_assignment() -> None:
    # A call passes the values its last call left the variables while no variable's
    # version has moved: a NumPy-path assignment (a new array) or an in-place update
    # of a read-only one must still reach the next call.
    w, step, one = _accumulating_step()
    assert step(one).numpy().tolist() == [1.0, 2.0]  # exact: sums of small integers
    assert step(one).numpy().tolist() == [2.0, 4.0]
    w.assign([10.0, 20.0])
    assert step(one).numpy().tolist() == [12.0, 24.0]
    w.assign_add([1.0, 1.0])
    assert step(one).numpy().tolist() == [23.0, 45.0]
    assert step(one).numpy().tolist() == [34.0, 66.0]


def test_two_compiled_functions_writing_one_variable_see_each_others_writes() -> None:
    v, bump = _doubler()

    @tf.function(jit_compile=True)
    def halve() -> tf.Tensor:
        v.assign(v * 0.5)
        return v.read_value()

    one = tf.constant([1.0, 1.0])
    assert bump(one).numpy().tolist() == [3.0, 5.0]  # exact: * 2, * 0.5 and + 1
    assert halve().numpy().tolist() == [1.5, 2.5]
    assert bump(one).numpy().tolist() == [4.0, 6.0]
    assert bump(one).numpy().tolist() == [9.0, 13.0]
    assert halve().numpy().tolist() == [4.5, 6.5]
    assert halve().numpy().tolist() == [2.25, 3.25]
    assert bump(one).numpy().tolist() == [5.5, 7.5]


def test_a_checkpoint_saves_the_compiled_value(tmp_path: object) -> None:
    v, bump = _doubler()
    bump(tf.constant([1.0, 1.0]))
    path = tf.train.Checkpoint(v=v).save(f"{tmp_path}/ckpt")
    bump(tf.constant([1.0, 1.0]))
    tf.train.Checkpoint(v=v).restore(path)
    assert v.numpy().tolist() == [3.0, 5.0]
    assert bump(tf.constant([0.0, 0.0])).numpy().tolist() == [6.0, 10.0]


def _checked(x: np.ndarray) -> np.ndarray:
    if (x < 0).any():
        raise ValueError("negative input")
    return x


@pytest.fixture
def checked_op() -> Iterator[str]:
    """A host op whose kernel fails on a negative input (registered for one test)."""
    register_op(
        "XlaTestCheckedOp",
        lambda ins: (ins[0].shape, ins[0].dtype),
        _checked,
        lowerings={"jax": host},
    )
    yield "XlaTestCheckedOp"
    del OPS["XlaTestCheckedOp"]


def test_a_failed_run_leaves_every_variable_as_it_was(checked_op: str) -> None:
    v = tf.Variable([1.0, 2.0])

    @tf.function(jit_compile=True)
    def step(x: tf.Tensor) -> tf.Tensor:
        v.assign_add(x)
        return apply_op(checked_op, [v.read_value()]).output(0)

    assert step(tf.constant([1.0, 1.0])).numpy().tolist() == [2.0, 3.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative input"):
        step(tf.constant([-5.0, 0.0]))
    assert v.numpy().tolist() == [2.0, 3.0]
    assert step(tf.constant([1.0, 1.0])).numpy().tolist() == [3.0, 4.0]


class _FailedToken:
    """A runtime token holding a host kernel's failure, as JAX keeps one on a GPU host."""

    def block_until_ready(self) -> None:
        raise RuntimeError("INTERNAL: CpuCallback error calling callback: KernelError")


def test_a_failed_host_kernel_leaves_no_error_for_later_barriers(checked_op: str) -> None:
    # On the H100 host the failed call's error stayed in JAX's runtime tokens, and JAX
    # raised it again at exit (its atexit barrier).  Here the token stays clean, so
    # the failed token is put beside the real ones, where the call's own does not
    # replace it, before the failing call.
    import jax
    from jax._src import dispatch

    try:

        @tf.function(jit_compile=True)
        def step(x: tf.Tensor) -> tf.Tensor:
            return apply_op(checked_op, [x + 1.0]).output(0)

        assert step(tf.constant([1.0])).numpy().tolist() == [2.0]
        dispatch.runtime_tokens.output_runtime_tokens["failed"] = _FailedToken()
        with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
            step(tf.constant([-5.0]))
        jax.effects_barrier()  # nothing left to raise: the failure was reported once
        assert "failed" not in dispatch.runtime_tokens.output_runtime_tokens
        assert step(tf.constant([2.0])).numpy().tolist() == [3.0]
    finally:
        dispatch.runtime_tokens.output_runtime_tokens.pop("failed", None)


def test_a_tape_differentiates_through_a_compiled_function() -> None:
    w = tf.Variable(np.array([0.5, -1.5, 2.0], np.float32))

    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        return tf.reduce_sum(tf.sin(x) * w * w)

    x = tf.constant(np.array([0.25, 1.0, -2.0], np.float32))
    assert f(x).numpy() == pytest.approx(-1.6820290088653564, rel=1e-6)  # compiled call
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, w])
    # TF 2.21, tf.function(jit_compile=True) under a GradientTape
    np.testing.assert_allclose(float(y), -1.6820290088653564, rtol=1e-6)
    np.testing.assert_allclose(
        gx.numpy(), [0.24222810566425323, 1.2156801223754883, -1.664587378501892], rtol=1e-6
    )
    np.testing.assert_allclose(
        gw.numpy(), [0.24740396440029144, -2.5244128704071045, -3.6371896266937256], rtol=1e-6
    )


def test_a_weight_its_input_gradient_reads_is_not_donated_and_the_step_is_tfs() -> None:
    """w1's update (w1 - 0.5 h.T @ g) does not wait for the gradient to layer 0 (g @ w1.T),
    which reads the old w1: XLA would copy w1 aside each call, so it is not donated; w0's
    only reader (x @ w0) is an ancestor of its update, so w0 is updated in place."""
    from symgrad.runtime.xla import donation

    x = tf.constant([[1.0, 2.0, -1.0], [0.5, -1.0, 2.0]])
    w0 = tf.Variable(np.array([[1, -1, 0.5, 2], [0, 1, -0.5, 1], [1, 0.5, 1, -1]], np.float32))
    w1 = tf.Variable(np.array([[1, 0], [-1, 2], [0.5, 1], [2, -0.5]], np.float32))

    @tf.function(jit_compile=True)
    def step(x: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.relu(x @ w0) @ w1)
        g0, g1 = tape.gradient(loss, [w0, w1])
        w0.assign_sub(0.5 * g0)
        w1.assign_sub(0.5 * g1)
        return loss

    losses = [float(step(x).numpy())]
    held0, held1 = (device_array(v) for v in (w0, w1))
    losses += [float(step(x).numpy()) for _ in range(2)]
    assert held0.is_deleted() and not held1.is_deleted()
    compiled = step.get_concrete_function(x).compiled
    assert donation.copied(compiled.program) == {id(w1)}
    # TF 2.21, the same step in tf.function(jit_compile=True); exact (sums and products
    # of halves and small integers, halved)
    assert losses == [14.625, -7.34375, -71.4921875]
    assert w0.numpy().tolist() == [
        [3.125, -1.625, 1.9375, 7.34375],
        [5.25, 0.25, 3.875, 3.5625],
        [-2.375, 0.5, -2.3125, 3.8125],
    ]
    assert w1.numpy().tolist() == [
        [-4.25, -5.25],
        [-1.875, 1.125],
        [-3.875, -3.375],
        [-5.34375, -7.84375],
    ]


def test_scatter_updates_and_undone_runs_between_compiled_calls_are_seen() -> None:
    # A call passes the values its last call left the variables while no variable has
    # been written since (one count of writes over all variables, ``WRITES``): a scatter
    # update of a variable it only reads, and a failed graph run whose write of it is
    # undone, must both reach the next call.
    w, step, one = _accumulating_step()
    assert step(one).numpy().tolist() == [1.0, 2.0]  # exact: sums of small integers
    w.scatter_update(tf.IndexedSlices(tf.constant([5.0]), tf.constant([1])))
    assert step(one).numpy().tolist() == [2.0, 7.0]
    graph = tf.Graph()
    with graph.as_default():
        wrote = w.assign([100.0, 100.0])
        with tf.control_dependencies([wrote]):
            bad = tf.debugging.check_numerics(tf.constant(np.nan), "nan")
    with tf.compat.v1.Session(graph=graph) as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(bad)
    assert w.numpy().tolist() == [1.0, 5.0]  # the failed run's write undone
    assert step(one).numpy().tolist() == [3.0, 12.0]
    assert step(one).numpy().tolist() == [4.0, 17.0]


def test_an_atomic_run_keeps_a_device_value_before_xla_takes_its_buffer() -> None:
    v, bump = _doubler()
    one = tf.constant([1.0, 1.0])
    bump(one)  # [3, 5], left on the device, its buffer donated by the next call

    def run(_: object) -> None:
        bump(one)
        raise RuntimeError("after the call")

    with pytest.raises(RuntimeError, match="after the call"):
        variables.atomic(run, None)
    assert v.numpy().tolist() == [3.0, 5.0] and v._version == 1  # put back, as it was
    assert bump(one).numpy().tolist() == [7.0, 11.0]  # exact: * 2 and + of small integers
