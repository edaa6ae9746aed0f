"""symgrad on a GPU through JAX: the device answers and ``jit_compile=True`` steps.

These run only where JAX sees a GPU (the device machine a session is sometimes lent; CI
has none, so they skip there).  TF's answers for one GPU: ``list_physical_devices``'s
repr, ``/device:GPU:0`` names.  A float32 matrix product on an Ampere-or-later GPU runs
in TensorFloat-32 under both TF (``enable_tensor_float_32_execution`` defaults on) and
XLA's default precision, so float32 results are compared with the NumPy path within a
relative 1e-2 (TF32 keeps 10 mantissa bits); float64 has no such mode: 1e-12.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

# JAX takes 75 % of a GPU's memory when it starts; this process starts it first (below),
# and a program it runs (the seeds) would then fail to start JAX's GPU backend, which
# raises where the CUDA plugin is installed: both take memory as they need it.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

jax = pytest.importorskip("jax")

import symgrad as tf  # noqa: E402
from symgrad.ops.state.variables import device_array  # noqa: E402

if not tf.config.list_physical_devices("GPU"):
    pytest.skip("JAX sees no GPU here", allow_module_level=True)


def test_the_gpu_is_listed_as_tf_lists_it() -> None:
    gpus = tf.config.list_physical_devices("GPU")
    assert repr(gpus[0]) == "PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')"
    assert tf.config.list_logical_devices("GPU")[0].name == "/device:GPU:0"
    assert tf.test.is_gpu_available()
    assert tf.test.gpu_device_name() == "/device:GPU:0"
    with tf.device("/GPU:0"):
        v = tf.Variable(1.0)
        t = tf.constant(2.0) + 1
    assert v.device == t.device == "/job:localhost/replica:0/task:0/device:GPU:0"


def _mlp_step(dtype: type, jit: bool | None) -> tuple[list[float], list[np.ndarray]]:
    rng = np.random.default_rng(7)
    x = tf.constant(rng.standard_normal((64, 32)).astype(dtype))
    y = tf.constant(np.eye(10, dtype=dtype)[rng.integers(0, 10, 64)])
    shapes = [(32, 48), (48,), (48, 10), (10,)]
    params = [tf.Variable((rng.standard_normal(s) * 0.1).astype(dtype)) for s in shapes]

    @tf.function(jit_compile=jit)
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            logits = tf.matmul(h, params[2]) + params[3]
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(y, logits))
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(0.1 * g)
        return loss

    losses = [float(step(x, y)) for _ in range(5)]
    return losses, [p.numpy() for p in params]


@pytest.mark.parametrize(("dtype", "rtol"), [(np.float32, 1e-2), (np.float64, 1e-12)])
def test_a_compiled_step_runs_on_the_gpu_with_the_numpy_paths_numbers(
    dtype: type, rtol: float
) -> None:
    losses, params = _mlp_step(dtype, True)
    ref_losses, ref_params = _mlp_step(dtype, None)
    np.testing.assert_allclose(losses, ref_losses, rtol=rtol)
    for got, want in zip(params, ref_params):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())
    assert losses[-1] < losses[0]


def test_the_variables_stay_on_the_gpu_between_compiled_calls() -> None:
    v = tf.Variable(np.arange(4, dtype=np.float32))

    @tf.function(jit_compile=True)
    def bump() -> tf.Tensor:
        v.assign_add(tf.ones(4))
        return tf.reduce_sum(v)

    assert float(bump()) == 10.0  # exact: sums of small integers
    assert float(bump()) == 14.0
    held = device_array(v)
    assert {d.platform for d in held.devices()} == {"gpu"}
    assert v.numpy().tolist() == [2.0, 3.0, 4.0, 5.0]


def test_a_compiled_call_in_a_cpu_block_runs_on_the_cpu_beside_the_gpu() -> None:
    """TF's placement (``runtime/xla/placement.py``): no block is the GPU, a ``/CPU:0``
    block the CPU; a variable made in the CPU block lives there, and a call on the GPU
    that writes it is TF's error."""

    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        return x * 2.0 + 1.0

    x = tf.constant([1.0, 2.0])
    gpu, cpu = (
        "/job:localhost/replica:0/task:0/device:GPU:0",
        "/job:localhost/replica:0/task:0/device:CPU:0",
    )
    assert f(x).device == gpu
    with tf.device("/CPU:0"):
        v = tf.Variable(np.arange(4, dtype=np.float32))
        y = f(x)
    assert y.device == cpu and y.numpy().tolist() == [3.0, 5.0]

    @tf.function(jit_compile=True)
    def bump() -> tf.Tensor:
        v.assign_add(tf.ones(4))
        return tf.reduce_sum(v)

    with tf.device("/CPU:0"):
        assert float(bump()) == 10.0  # exact: sums of small integers
        assert bump().device == cpu
    assert {d.platform for d in device_array(v).devices()} == {"cpu"}
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=f"located in device {cpu} from device {gpu}"
    ):
        bump()
    assert v.numpy().tolist() == [2.0, 3.0, 4.0, 5.0]


def _strategy_step(strategy: tf.distribute.Strategy) -> tuple[list[float], np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    y = rng.standard_normal((8, 1)).astype(np.float32)
    with strategy.scope():
        w = tf.Variable(np.full((5, 1), 0.1, np.float32))

    @tf.function(jit_compile=True)
    def replica_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(tf.square(tf.matmul(xb, w) - yb), global_batch_size=8)
        grad = tape.gradient(loss, w)
        ctx = tf.distribute.get_replica_context()
        w.assign_sub(0.1 * ctx.all_reduce("sum", grad))
        return loss

    n = strategy.num_replicas_in_sync
    losses = []
    for _ in range(3):
        per = strategy.experimental_distribute_values_from_function(
            lambda c: (x[c.replica_id_in_sync_group :: n], y[c.replica_id_in_sync_group :: n])
        )
        out = strategy.run(replica_step, args=per)
        losses.append(float(strategy.reduce("sum", out, axis=None)))
    return losses, w.numpy()


def test_mirrored_strategy_runs_on_the_gpu_by_default() -> None:
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:GPU:0",)
    assert strategy.num_replicas_in_sync == 1
    losses, w = _strategy_step(strategy)
    ref_losses, ref_w = _strategy_step(tf.distribute.OneDeviceStrategy("/cpu:0"))
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-2)
    np.testing.assert_allclose(w, ref_w, rtol=1e-2, atol=1e-3)


def test_mirrored_strategy_over_the_gpu_and_the_cpu() -> None:
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/cpu:0"])
    assert strategy.num_replicas_in_sync == 2
    losses, w = _strategy_step(strategy)
    ref_losses, ref_w = _strategy_step(tf.distribute.OneDeviceStrategy("/cpu:0"))
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-2)
    np.testing.assert_allclose(w, ref_w, rtol=1e-2, atol=1e-3)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS = [p for p in sorted(EXAMPLES.glob("seed_*.py")) if "tf.function" in p.read_text()]


@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_seed_programs_print_their_numbers_compiled_for_the_gpu(path: Path) -> None:
    """Each seed program using ``function``, with ``jit_compile=True`` on every function
    and JAX's default device the GPU, prints TF's printout."""
    code = textwrap.dedent(
        f"""
        import functools, runpy, symgrad
        symgrad.function = functools.partial(symgrad.function, jit_compile=True)
        runpy.run_path({str(path)!r}, run_name="__main__")
        """
    )
    env = {**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    expected = (EXAMPLES / "expected" / f"{path.stem}.txt").read_text()
    assert out.stdout.replace("symgrad.Tensor", "tf.Tensor") == expected
