"""``function(jit_compile=True)``: traces compiled by XLA through JAX give TF's numbers.

The literals are TF 2.21's, from the same programs run with ``tf.function(jit_compile=
True)``; float32 within rtol 1e-6, float64 within 1e-12 (XLA may fuse differently).
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.runtime import xla
from symgrad.runtime.xla.compiled import Compiled

TOL = {np.float32: 1e-6, np.float64: 1e-12}
# TF 2.21, tf.function(jit_compile=True): losses of three steps and the final weights
TF_STEPS = {
    np.float32: (
        [1.7475758790969849, 1.425415277481079, 1.0344074964523315],
        [[0.6203436851501465, -0.44927579164505005], [0.24878817796707153, 0.4524487257003784],
         [0.12155547738075256, 0.5982754230499268]],
    ),
    np.float64: (
        [1.7475758350059534, 1.4254154404076587, 1.0344076385111196],
        [[0.6203436384331381, -0.4492758110837469], [0.24878845344210143, 0.4524487836529453],
         [0.12155518499103674, 0.5982754052633077]],
    ),
}  # fmt: skip


def _train(dtype: type, jit: bool | None) -> tuple[list[float], np.ndarray, tf.Function]:
    w = tf.Variable(np.array([[0.5, -0.25], [0.75, 1.0], [-0.5, 0.25]], dtype))

    @tf.function(jit_compile=jit)
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.tanh(tf.matmul(x, w)) - y))
        w.assign_sub(0.5 * tape.gradient(loss, w))
        return loss

    x = tf.constant(np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]], dtype))
    y = tf.constant(np.array([[0.25, -0.5], [1.0, 0.0]], dtype))
    losses = [float(step(x, y)) for _ in range(3)]
    return losses, w.numpy(), step


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_training_step_gives_tf_numbers_and_updates_variables(dtype: type) -> None:
    losses, w, step = _train(dtype, True)
    want_losses, want_w = TF_STEPS[dtype]
    np.testing.assert_allclose(losses, want_losses, rtol=TOL[dtype])
    np.testing.assert_allclose(w, want_w, rtol=TOL[dtype])
    assert w.dtype == dtype
    (cf,) = step._cache.values()
    assert isinstance(cf.compiled, Compiled)  # the step ran on XLA, not the NumPy plan
    np_losses, np_w, np_step = _train(dtype, None)
    np.testing.assert_allclose(losses, np_losses, rtol=TOL[dtype])
    np.testing.assert_allclose(w, np_w, rtol=TOL[dtype])
    assert not next(iter(np_step._cache.values())).compiled


def test_tensor_while_and_if_compile_to_lax_control_flow() -> None:
    @tf.function(jit_compile=True)
    def loop(x: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
        i = tf.constant(0)
        s = x
        while i < n:
            s = s * 1.5 + 1.0
            i += 1
        if tf.reduce_sum(s) > 10.0:
            s = s - 10.0
        return s

    # TF 2.21's values
    assert loop(tf.constant([1.0, 2.0]), tf.constant(3)).numpy().tolist() == [-1.875, 1.5]
    assert loop(tf.constant([0.5, -2.0]), tf.constant(1)).numpy().tolist() == [1.75, -2.0]
    (cf,) = loop._cache.values()
    text = cf.compiled.lower_text([np.ones(2, np.float32), np.int32(2)])
    assert "stablehlo.while" in text and "stablehlo.case" in text


def test_gradient_of_a_bounded_loop_inside_the_compiled_function() -> None:
    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(
                lambda i, v: i < 3,
                lambda i, v: (i + 1, tf.sin(v) * v),
                (0, x),
                maximum_iterations=5,
            )
            s = tf.reduce_sum(y)
        return s, tape.gradient(s, x)

    s, g = f(tf.constant([0.5, -1.25], tf.float64))
    np.testing.assert_allclose(float(s), 0.9829958862197576, rtol=1e-12)  # TF 2.21
    np.testing.assert_allclose(g.numpy(), [0.049099799171515274, -2.561795529698481], rtol=1e-12)


def test_unbounded_loop_gradient_is_tf_kind_of_error() -> None:
    @tf.function(jit_compile=True)
    def f(x: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * v), (0, x))
        return tape.gradient(y, x)

    with pytest.raises(xla.XlaLimitError, match="maximum_iterations"):
        f(tf.constant(1.5), tf.constant(2))


def test_an_op_without_lowering_names_its_type_and_the_users_line() -> None:
    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        return tf.unique(x)[0]  # the line the error names

    line = f.python_function.__code__.co_firstlineno + 2
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1, 2, 2]))
    text = str(info.value)
    assert "Detected unsupported operations when trying to compile graph" in text
    assert "Unique" in text and f"test_xla_function.py:{line}" in text
    assert "jax" not in type(info.value).__module__


def test_set_jit_compiles_by_default_and_falls_back_where_an_op_has_no_lowering() -> None:
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(True)
    try:
        assert tf.config.optimizer.get_jit() == "autoclustering"
        square = tf.function(lambda x: x * x)
        unique = tf.function(lambda x: tf.unique(x)[0])
        assert square(tf.constant(3.0)).numpy() == 9.0
        assert unique(tf.constant([3, 3, 1])).numpy().tolist() == [3, 1]
        assert isinstance(next(iter(square._cache.values())).compiled, Compiled)
        assert next(iter(unique._cache.values())).compiled is False  # the NumPy plan ran
        off = tf.function(lambda x: x + 1, jit_compile=False)
        assert off(tf.constant(1.0)).numpy() == 2.0
        assert next(iter(off._cache.values())).compiled is None
    finally:
        tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() == ""


def test_stateless_random_with_a_run_time_seed_gives_the_same_philox_bits() -> None:
    def draw(seed: tf.Tensor) -> tf.Tensor:
        return tf.random.stateless_normal([3, 5], seed=seed, dtype=tf.float64)

    seed = tf.constant([7, 11], tf.int64)
    jitted = tf.function(draw, jit_compile=True)(seed).numpy()
    np.testing.assert_array_equal(jitted, tf.function(draw)(seed).numpy())
    const = tf.function(lambda: tf.random.stateless_uniform([4], seed=(1, 2)), jit_compile=True)
    np.testing.assert_array_equal(const().numpy(), tf.random.stateless_uniform([4], seed=(1, 2)))


def test_print_runs_on_the_host_in_order_before_the_call_returns() -> None:
    stream = io.StringIO()

    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        tf.print("x is", x, output_stream=stream)
        y = x * 2
        tf.print("y is", y, output_stream=stream)
        return y

    assert f(tf.constant([1, 2])).numpy().tolist() == [2, 4]
    assert stream.getvalue() == "x is [1 2]\ny is [2 4]\n"


def test_custom_gradient_inside_a_compiled_function() -> None:
    @tf.custom_gradient
    def clip_grad(x: tf.Tensor) -> tuple[tf.Tensor, object]:
        return tf.identity(x), lambda g: tf.clip_by_value(g, -1.0, 1.0)

    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(clip_grad(x) * 5.0)
        return tape.gradient(y, x)

    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 1.0]


def test_without_jax_jit_compile_raises_import_error_naming_the_extra() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["jax"] = None  # as if JAX were not installed
        import symgrad as tf
        assert tf.function(lambda x: x + 1)(tf.constant(1.0)).numpy() == 2.0
        try:
            tf.function(lambda x: x + 1, jit_compile=True)
        except ImportError as e:
            print("ImportError:", e)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ImportError:" in out.stdout and "pip install symgrad[jax]" in out.stdout


def test_import_symgrad_does_not_import_jax() -> None:
    code = "import sys, symgrad; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_seed_programs_using_function_print_the_same_with_jit_compile() -> None:
    """Every seed program that uses ``function`` (examples/seed_*.py), run with
    ``jit_compile=True`` on each of its functions, prints the seed's numbers."""
    root = Path(__file__).resolve().parents[2] / "examples"
    seeds = [p for p in sorted(root.glob("seed_*.py")) if "tf.function" in p.read_text()]
    assert seeds
    for path in seeds:
        code = textwrap.dedent(
            f"""
            import functools, runpy, symgrad
            symgrad.function = functools.partial(symgrad.function, jit_compile=True)
            runpy.run_path({str(path)!r}, run_name="__main__")
            """
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        expected = (root / "expected" / f"{path.stem}.txt").read_text()  # TF's printout
        assert out.stdout.replace("symgrad.Tensor", "tf.Tensor") == expected, path.name


def test_a_host_kernel_failing_at_run_time_is_tf_error_not_a_jax_one() -> None:
    from symgrad.core.op_registry import OPS, apply_op, register_op
    from symgrad.runtime.xla.host import host

    def kernel(x: np.ndarray) -> np.ndarray:
        if (x < 0).any():
            raise ValueError("negative input")
        return x

    register_op(
        "XlaTestHostOp",
        lambda ins: (ins[0].shape, ins[0].dtype),
        kernel,
        lowerings={"jax": host},
    )
    try:
        f = tf.function(lambda x: apply_op("XlaTestHostOp", [x]).output(0), jit_compile=True)
        assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="negative input"):
            f(tf.constant([1.0, -2.0]))
    finally:
        del OPS["XlaTestHostOp"]
