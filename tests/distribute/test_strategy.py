"""tf.distribute's API in this process (one logical CPU: the replicas' devices are soft
placed on CPU:0, the values are TF's); the literals are TF 2.21's (4 logical CPUs)."""

import numpy as np
import pytest

import symgrad as tf

D = tf.distribute


@pytest.fixture
def strategy():
    return D.MirroredStrategy([f"/cpu:{i}" for i in range(4)])


def local(strategy, value):
    return [np.asarray(v).tolist() for v in strategy.experimental_local_results(value)]


def test_default_strategy_and_contexts(strategy):
    assert not D.has_strategy() and not D.in_cross_replica_context()
    default = D.get_strategy()
    assert default.num_replicas_in_sync == 1
    assert D.get_replica_context().num_replicas_in_sync == 1
    assert default.run(lambda x: x * 2, args=(tf.constant(3.0),)).numpy() == 6.0
    assert default.reduce("SUM", tf.constant([1.0, 2.0]), axis=None).numpy().tolist() == [1, 2]
    with strategy.scope():
        assert D.get_strategy() is strategy and D.has_strategy()
        assert D.in_cross_replica_context() and D.get_replica_context() is None
    assert D.get_strategy() is default
    with strategy.scope(), pytest.raises(ValueError, match="Mixing different"):
        with D.MirroredStrategy(["/cpu:0"]).scope():
            pass


def test_devices_and_replica_ids(strategy):
    names = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(4)]
    assert strategy.extended.worker_devices == tuple(names)
    assert strategy.num_replicas_in_sync == 4
    ids = strategy.run(lambda: D.get_replica_context().replica_id_in_sync_group)
    assert repr(ids).startswith("PerReplica:{\n  0: <symgrad.Tensor: shape=(), dtype=int32")
    assert local(strategy, ids) == [0, 1, 2, 3]


def test_batches_split_as_tf_rebatches(strategy):
    # TF 2.21: range(10).batch(10) / batch(4), range(13).batch(10), range(7).batch(6)
    cases = [
        (10, 10, [[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]]),
        (10, 4, [[[0], [1], [2], [3]], [[4], [5], [6], [7]], [[8], [9], [], []]]),
        (13, 10, [[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]], [[10], [11], [12], []]]),
        (7, 6, [[[0, 1], [2, 3], [4, 5], []], [[6], [], [], []]]),
    ]
    for n, batch, want in cases:
        ds = tf.data.Dataset.range(n).batch(batch)
        got = [local(strategy, e) for e in strategy.experimental_distribute_dataset(ds)]
        assert got == want, (n, batch)
    # NumPy batches (a symgrad extension: TF takes only a tf.data.Dataset)
    batches = [(np.arange(8.0).reshape(4, 2), np.arange(4))]
    ((_, yb),) = list(strategy.experimental_distribute_dataset(batches))
    assert local(strategy, yb) == [[0], [1], [2], [3]]
    with pytest.raises(ValueError, match="must be batches"):
        next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(3))))
    with pytest.raises(TypeError, match="tf.data.Dataset or an iterable"):
        strategy.experimental_distribute_dataset(3)


def test_datasets_from_function(strategy):
    seen = []

    def dataset_fn(ctx):
        seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return tf.data.Dataset.range(6).batch(ctx.get_per_replica_batch_size(4))

    got = [local(strategy, e) for e in strategy.distribute_datasets_from_function(dataset_fn)]
    assert got == [[[0], [1], [2], [3]], [[4], [5], [], []]]  # TF 2.21's
    assert seen == [(1, 0, 4)]
    with pytest.raises(ValueError, match="not divisible"):
        D.InputContext(num_replicas_in_sync=4).get_per_replica_batch_size(6)


def test_all_reduce_gather_and_reduce(strategy):
    pr = strategy.experimental_distribute_values_from_function(
        lambda c: tf.constant(c.replica_id_in_sync_group * 10.0)
    )
    assert local(strategy, pr) == [0.0, 10.0, 20.0, 30.0]
    ctx = D.get_replica_context
    assert (
        local(strategy, strategy.run(lambda v: ctx().all_reduce("SUM", v), args=(pr,)))
        == [60.0] * 4
    )
    mean = strategy.run(lambda v: ctx().all_reduce(D.ReduceOp.MEAN, v), args=(pr,))
    assert local(strategy, mean) == [15.0] * 4
    gathered = strategy.run(
        lambda: ctx().all_gather(
            tf.constant([1.0, 2.0]) * tf.cast(ctx().replica_id_in_sync_group, tf.float32), axis=0
        )
    )
    assert local(strategy, gathered)[2] == [0, 0, 1, 2, 2, 4, 3, 6]
    assert strategy.reduce("SUM", pr, axis=None).numpy() == 60.0
    assert strategy.reduce("MEAN", pr, axis=None).numpy() == 15.0
    x = strategy.experimental_distribute_values_from_function(
        lambda c: (
            tf.constant([[1.0, 2.0], [3.0, 4.0]])
            * tf.cast(c.replica_id_in_sync_group + 1, tf.float32)
        )
    )
    assert strategy.reduce("SUM", x, axis=0).numpy().tolist() == [40.0, 60.0]
    assert strategy.reduce("MEAN", x, axis=0).numpy().tolist() == [5.0, 7.5]
    assert strategy.gather(x, axis=0).numpy()[:, 0].tolist() == [1, 3, 2, 6, 3, 9, 4, 12]


def test_reduce_errors(strategy):
    with pytest.raises(ValueError, match="cannot be reduced with the given reduce op ReduceOp.SUM"):
        strategy.reduce("SUM", tf.constant([1.0, 2.0]), axis=None)
    assert strategy.reduce("MEAN", tf.constant(2.0), axis=None).numpy() == 2.0
    with pytest.raises(ValueError, match="reduce_op must be"):
        strategy.reduce("MAX", tf.constant(2.0), axis=None)
    assert repr(D.ReduceOp.SUM) == "<ReduceOp.SUM: 'SUM'>"


def test_run_errors(strategy):
    with pytest.raises(TypeError, match="callable"):
        strategy.run(3)

    def bad():
        if D.get_replica_context().replica_id_in_sync_group.numpy() == 2:
            raise KeyError("replica 2 failed")
        return D.get_replica_context().all_reduce("SUM", tf.constant(1.0))

    with pytest.raises(KeyError, match="replica 2 failed"):
        strategy.run(bad)
    assert strategy.run(lambda: tf.constant(1.0)) is not None  # the strategy still works


def test_bad_devices():
    with pytest.raises(ValueError, match="No duplicates"):
        D.MirroredStrategy(["/cpu:0", "/CPU:0"])
    with pytest.raises(ValueError, match="cannot be empty"):
        D.MirroredStrategy([])
    with pytest.raises(ValueError, match="list or tuple"):
        D.MirroredStrategy("/cpu:0")
    with pytest.raises(ValueError, match="names no device"):
        D.OneDeviceStrategy("/job:localhost")


def test_one_device_strategy():
    s = D.OneDeviceStrategy("/cpu:0")
    assert s.num_replicas_in_sync == 1
    out = s.run(lambda: tf.constant(1.0) + 1)
    assert out.numpy() == 2.0 and out.device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_compute_average_loss_and_regularization(strategy):
    # TF 2.21
    np.testing.assert_allclose(tf.nn.compute_average_loss([1.0, 2.0, 3.0]).numpy(), 2.0)
    got = tf.nn.compute_average_loss([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 2.0])
    np.testing.assert_allclose(got.numpy(), 2.3333333, rtol=1e-6)
    assert tf.nn.scale_regularization_loss(3.0).numpy() == 3.0
    with strategy.scope():
        cal = strategy.run(lambda: tf.nn.compute_average_loss([1.0, 2.0, 3.0, 4.0]))
        assert local(strategy, cal) == [0.625] * 4
        reg = strategy.run(lambda: tf.nn.scale_regularization_loss(4.0))
        assert local(strategy, reg) == [1.0] * 4
        with pytest.raises(RuntimeError, match="in cross replica context"):
            tf.nn.compute_average_loss([1.0])
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(1.0)
    with pytest.raises(ValueError, match="scalar integer"):
        tf.nn.compute_average_loss([1.0], global_batch_size=2.0)


def test_writing_a_mirrored_variable_from_replicas(strategy):
    """TF 2.21's values: the write is combined by the variable's aggregation, then applied
    once (NONE and ONLY_FIRST_REPLICA: the first replica's value)."""
    agg = tf.VariableAggregation
    with strategy.scope():
        plain = tf.Variable(1.0)
        counter = tf.Variable(0.0, trainable=False)
        total = tf.Variable(1.0, aggregation=agg.SUM)
        mean = tf.Variable(1.0, aggregation=agg.MEAN)
        first = tf.Variable(1.0, aggregation=agg.ONLY_FIRST_REPLICA)

    def rid():
        return tf.cast(D.get_replica_context().replica_id_in_sync_group, tf.float32)

    strategy.run(lambda: plain.assign_add(1.0))
    strategy.run(lambda: plain.assign_add(rid()))
    strategy.run(lambda: counter.assign_add(1.0))
    strategy.run(lambda: total.assign_add(rid()))
    strategy.run(lambda: mean.assign_add(rid()))
    strategy.run(lambda: first.assign_add(rid() + 5))
    got = [v.numpy() for v in (plain, counter, total, mean, first)]
    assert got == [2.0, 1.0, 7.0, 2.5, 6.0]
    strategy.run(lambda: mean.assign(rid()))
    strategy.run(lambda: total.assign(rid()))
    assert (mean.numpy(), total.numpy()) == (1.5, 6.0)
    out = strategy.run(lambda: mean.assign_sub(rid()))
    assert [float(v.numpy()) for v in strategy.experimental_local_results(out)] == [0.0] * 4
    # outside any replica, a write is applied as it is
    plain.assign_add(1.0)
    assert plain.numpy() == 3.0


@pytest.mark.parametrize(
    "op, want",  # TF 2.21's gradients
    [
        ("SUM", [[20.0, 40.0], [40.0, 80.0], [60.0, 120.0], [80.0, 160.0]]),
        ("MEAN", [[5.0, 10.0], [10.0, 20.0], [15.0, 30.0], [20.0, 40.0]]),
    ],
)
def test_gradient_through_all_reduce(strategy, op, want):
    """d/dx_j of sum_i (r_i + 1) * all_reduce(x * x)_i: the replicas' gradients all-reduced."""

    def f():
        ctx = D.get_replica_context()
        r = tf.cast(ctx.replica_id_in_sync_group, tf.float32)
        x = tf.constant([1.0, 2.0]) * (r + 1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(ctx.all_reduce(op, x * x) * (r + 1))
        return tape.gradient(loss, x)

    assert local(strategy, strategy.run(f)) == want
    traced = tf.function(lambda: strategy.experimental_local_results(strategy.run(f)))
    assert [t.numpy().tolist() for t in traced()] == want


def test_a_function_takes_and_returns_per_replica_values(strategy):
    """PerReplica values are composite, as TF's: a function traces once for them."""
    double = tf.function(lambda x: strategy.run(lambda v: v * 2, args=(x,)))
    ds = tf.data.Dataset.range(12).batch(4)
    got = [local(strategy, double(batch)) for batch in strategy.experimental_distribute_dataset(ds)]
    assert got[2] == [[16], [18], [20], [22]]
    assert double.experimental_get_tracing_count() == 1


def test_a_failing_merge_stops_every_replica(strategy):
    def step():
        return D.get_replica_context().merge_call(lambda s: 1 / 0)

    with pytest.raises(ZeroDivisionError):
        strategy.run(step)
    with pytest.raises(RuntimeError, match="different number of"):
        strategy.run(
            lambda: (
                D.get_replica_context().replica_id_in_sync_group.numpy() == 0
                or D.get_replica_context().merge_call(lambda s: 0)
            )
        )
    assert local(strategy, strategy.run(lambda: tf.constant(1.0))) == [1.0] * 4


def test_variables_live_on_the_strategys_first_device():
    """TF 2.21 (2 logical CPUs): OneDeviceStrategy('/cpu:1')'s variables are on CPU:1,
    the ops of its scope are not placed by it."""
    s = D.OneDeviceStrategy("/cpu:1")
    with s.scope():
        v = tf.Variable(1.0)
        c = tf.constant(1.0) + 1
    assert v._device == "/job:localhost/replica:0/task:0/device:CPU:1"  # the request
    assert c.op.device == ""
    with D.MirroredStrategy(["/cpu:0", "/cpu:1"]).scope():
        with tf.device("/cpu:1"):
            w = tf.Variable(1.0)
        u = tf.Variable(1.0)
    assert (w._device, u._device) == (
        "/device:CPU:1",
        "/job:localhost/replica:0/task:0/device:CPU:0",
    )


def test_per_replica_arguments_take_functions_quick_key_and_retrace_by_shape():
    """A PerReplica of tensors keys a trace by its parts' dtypes and shapes (the quick
    key of a call of tensors): same shapes, one trace; another shape, a new one; a plain
    tuple of the same tensors is another structure."""
    from symgrad.distribute.values import PerReplica

    f = tf.function(lambda v: v[0] + v[1])
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    np.testing.assert_array_equal(f(PerReplica([a, b])).numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(f(PerReplica([b, b])).numpy(), [6.0, 8.0])
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(f(PerReplica([a[:1], b[:1]])).numpy(), [4.0])
    assert f.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(f((a, b)).numpy(), [4.0, 6.0])
    assert f.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("op_type", ["ReplicaCall", "CrossReplicaSum", "ReplicaId"])
def test_the_sharded_steps_ops_refuse_the_numpy_path(op_type):
    # They exist only inside a jit_compile=True strategy step (runtime/xla/spmd.py); a
    # NumPy run of one says so instead of computing a wrong number.
    from symgrad.core.errors import UnimplementedError
    from symgrad.core.op_registry import OPS
    from symgrad.runtime.xla import spmd  # noqa: F401  (registers them)

    with pytest.raises(UnimplementedError, match=r"jit_compile=True\) runs only compiled"):
        OPS[op_type].kernel(np.ones(2, np.float32))


@pytest.mark.parametrize("jit", [None, True])
def test_run_takes_a_function_whose_replicas_all_reduce(strategy, jit):
    """strategy.run(a tf.function): one traced step over every replica, as TF makes it
    (each replica tracing the function on its own thread deadlocked in the merge)."""
    if jit:
        pytest.importorskip("jax")
    with strategy.scope():
        w = tf.Variable(2.0, aggregation=tf.VariableAggregation.MEAN)

    @tf.function(jit_compile=jit)
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * x * x)
        g = D.get_replica_context().all_reduce("sum", tape.gradient(loss, w))
        w.assign_sub(0.01 * g)
        return loss, g

    x = strategy.experimental_distribute_values_from_function(
        lambda c: tf.constant([float(c.replica_id_in_sync_group) + 1.0, 0.5])
    )
    got = []
    for _ in range(2):
        loss, g = strategy.run(step, args=(x,))
        got.append((local(strategy, loss), local(strategy, g), float(w.numpy())))
    # TF 2.21, jit_compile=None (TF refuses jit_compile=True over several CPUs: a variable
    # on another device); float32 sums of a few terms: rtol 1e-6
    want = [
        ([2.5, 8.5, 18.5, 32.5], [31.0] * 4, 1.690000057220459),
        (
            [2.1125001907348633, 7.18250036239624, 15.632500648498535, 27.462501525878906],
            [31.0] * 4,
            1.380000114440918,
        ),
    ]
    for (loss_got, g_got, w_got), (loss_want, g_want, w_want) in zip(got, want):
        np.testing.assert_allclose(loss_got, loss_want, rtol=1e-6)
        assert g_got == g_want
        np.testing.assert_allclose(w_got, w_want, rtol=1e-6)
    assert step.experimental_get_tracing_count() == 0  # the strategy traced its own step


def test_a_strategy_that_ran_a_function_is_freed():
    import gc
    import weakref

    strategy = D.MirroredStrategy([f"/cpu:{i}" for i in range(2)])
    step = tf.function(lambda x: D.get_replica_context().all_reduce("sum", x))
    out = strategy.run(step, args=(tf.constant(1.0),))
    assert local(strategy, out) == [2.0, 2.0]
    gone = weakref.ref(strategy)
    del strategy, out
    gc.collect()
    assert gone() is None
