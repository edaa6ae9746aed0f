"""The demo (examples/demo.py) end to end, and the digits training it runs.

The training is checked against a float64 NumPy implementation of the same network and
SGD steps, and TF1 style against TF2 style.
"""

import importlib
import importlib.util
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
td = importlib.import_module("train_digits")
# The demo and the digits need the ``demo`` extra; without it (CI's oldest-NumPy run) they skip.
needs_sklearn = pytest.mark.skipif(
    importlib.util.find_spec("sklearn") is None, reason="needs scikit-learn (the demo extra)"
)


def _mistake_line() -> int:
    """The line of train_digits.py that builds the ArgMax of the why_none example."""
    lines = (EXAMPLES / "train_digits.py").read_text().splitlines()
    [n] = [i + 1 for i, line in enumerate(lines) if "# the mistake" in line]
    return n


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    for extra in ("sklearn", "matplotlib"):
        pytest.importorskip(extra, reason=f"the demo needs {extra} (the demo extra)")
    out = tmp_path_factory.mktemp("demo_output")
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc, out


def test_demo_exits_zero_and_every_seed_matches(demo):
    proc, _ = demo
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = proc.stdout
    assert text.count("numbers: SAME") == 3
    assert "check: OK" in text
    assert "4 of 4 seed programs print the seeds' numbers." in text
    assert "DIFFERENT" not in text and "MISMATCH" not in text
    assert re.search(r"^demo OK: 4/4 seeds match, training passed", text, re.M)


def test_demo_trains_both_styles_above_90_percent_with_the_same_losses(demo):
    text = demo[0].stdout
    accuracy = dict(re.findall(r"(TF[12]) style: final test accuracy (\d\.\d+)", text))
    assert set(accuracy) == {"TF1", "TF2"}
    assert all(float(a) > 0.9 for a in accuracy.values()), accuracy
    [diff] = re.findall(r"max \|difference\| = (\S+) ->", text)
    assert float(diff) <= 1e-5
    assert len(re.findall(r"TF1 epoch +\d+/\d+ +loss \d\.\d+ +test acc", text)) >= 3


def test_demo_shows_the_cnn_beside_tensorflows_numbers(demo):
    text = demo[0].stdout
    assert "=== a CNN (conv2d + max_pool + dense) on the digits" in text
    assert re.search(r"epoch 2  mean loss 0\.7843\d  test accuracy 0\.7172", text)
    assert "TensorFlow 2.21 printed: the same numbers" in text
    assert "CNN prints TensorFlow's numbers" in text
    assert "=== tf.keras: a CNN and a functional model trained in a GradientTape loop" in text
    assert "Keras tape loop prints TensorFlow's numbers" in text


def test_demo_fits_with_keras_progress_lines_and_tensorflows_numbers(demo):
    text = demo[0].stdout
    assert "=== tf.keras: compile and fit, Keras's progress lines (verbose=2)" in text
    # verbose=2's line as Keras writes it, its timing text masked (TF 2.21's numbers)
    line = (
        r"^  19/19 - \d+s - \d+[mu]?s/step - accuracy: 0\.6908 - loss: 1\.5983 "
        r"- val_accuracy: 0\.8200 - val_loss: 1\.4537$"
    )
    assert re.search(line, text, re.M)
    assert text.count("  Epoch ") == 4 and "  Epoch 4/4\n" in text
    assert "test loss 1.548140  test accuracy 0.754209" in text
    assert "Keras fit prints TensorFlow's numbers" in text


def test_demo_saves_the_loss_curve_as_png(demo):
    _, out = demo
    png = (out / "loss_curve.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (700, 400)


def test_demo_renders_the_gradient_graph_of_one_step(demo):
    proc, out = demo
    if shutil.which("dot"):
        path = out / "gradient_graph.svg"
        assert "<svg" in path.read_text()
        assert "(SVG, drawn by Graphviz's dot)" in proc.stdout
    else:
        path = out / "gradient_graph.dot"
        assert path.read_text().startswith("digraph")
        assert "Graphviz's dot is not installed" in proc.stdout
    text = path.read_text()
    for name in (
        "MatMul",
        "Relu",
        "SparseSoftmaxCrossEntropyWithLogits",
        "gradients/MatMul_grad/MatMul",
        "gradients/Relu_grad/ReluGrad",
        "var w1:0",
        "d/d b2:0",
    ):
        assert name in text, name
    assert f"saved: {path}" in proc.stdout


def test_demo_explains_the_none_gradient_naming_argmax_and_its_line(demo):
    text = demo[0].stdout
    assert "tf.gradients(error_rate, [w1, b1, w2, b2]) = [None, None, None, None]" in text
    assert (
        "The gradient w.r.t. w1:0 is None: every path to ys is cut by an op with no gradient"
        in text
    )
    assert re.search(
        r"'ArgMax' \(type ArgMax, created at \S*train_digits\.py:"
        f"{_mistake_line()}\\)",
        text,
    )
    assert "path: ReadVariableOp -> MatMul -> add -> Relu -> MatMul_1 -> add_1 -> ArgMax" in text


def test_why_none_mistake_returns_the_argmax_cut():
    grads, why = td.why_none_mistake(td.init_params())
    assert grads == [None, None, None, None]
    [e] = why
    assert (e.reason, e.op.type) == ("no_gradient", "ArgMax")
    assert e.location.endswith(f"train_digits.py:{_mistake_line()}")


# --------------------------------------------------------------------------------------
# The training itself, against NumPy


def _numpy_sgd_losses(data, init, batches, lr):
    """The same MLP and SGD steps in float64 NumPy, backprop written out by hand."""
    w1, b1, w2, b2 = (p.astype(np.float64) for p in init)
    losses = []
    for idx in batches:
        x, y, n = data.x_train[idx].astype(np.float64), data.y_train[idx], len(idx)
        a = x @ w1 + b1
        h = np.maximum(a, 0.0)
        z = h @ w2 + b2
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        losses.append(-np.log(p[np.arange(n), y]).mean())
        dz = p.copy()
        dz[np.arange(n), y] -= 1.0
        dz /= n
        da = (dz @ w2.T) * (a > 0)
        w2 -= lr * (h.T @ dz)
        b2 -= lr * dz.sum(axis=0)
        w1 -= lr * (x.T @ da)
        b1 -= lr * da.sum(axis=0)
    return np.array(losses)


@needs_sklearn
def test_tf1_and_tf2_styles_follow_the_numpy_trajectory():
    data, init = td.load_data(), td.init_params()
    schedule = [td.minibatches(len(data.x_train), 1)[0][:4]]  # four SGD steps
    lr = 0.5  # large, so that every step visibly changes the loss
    tf1 = td.train_tf1(data, init, schedule, lr=lr, stream=io.StringIO())
    tf2 = td.train_tf2(data, init, schedule, lr=lr, stream=io.StringIO())
    reference = _numpy_sgd_losses(data, init, schedule[0], lr)
    assert np.all(np.abs(np.diff(reference)) > 1e-2)
    np.testing.assert_allclose(tf1.losses, reference, rtol=1e-5)
    np.testing.assert_allclose(tf2.losses, tf1.losses, rtol=1e-6)


@needs_sklearn
def test_data_split_is_deterministic_and_scaled():
    a, b = td.load_data(), td.load_data()
    assert (len(a.x_train), len(a.x_test)) == (1348, 449)
    np.testing.assert_array_equal(a.y_test, b.y_test)
    assert a.x_train.dtype == np.float32 and 0.0 <= a.x_train.min() < a.x_train.max() <= 1.0
    assert set(np.unique(a.y_train)) == set(range(10))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_redraws_one_line_on_a_terminal():
    stream = _Terminal()
    bar = td.Progress("TF1", epochs=2, steps=3, stream=stream)
    for e in range(2):
        for _ in range(3):
            bar.step(e, 0.5)
        bar.epoch(e, 0.25, 0.875)
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    last = text.rstrip("\n").split("\r")[-1]
    assert last == "  TF1 [" + "#" * 30 + "] epoch  2/2 loss 0.2500 test acc 0.875"
    assert "[" + "#" * 15 + "." * 15 + "] epoch  1/2" in text


def test_demo_explains_a_cut_in_a_loop_and_a_tape_that_missed_the_loss(demo):
    text = demo[0].stdout
    assert "=== why is my gradient None? (tf.why_none)" in text
    assert "inside a loop: tape.gradient(r, x) = None" in text
    assert re.search(
        r"cut by tf\.stop_gradient: StopGradient at iterations 0-4, created at demo\.py:\d+", text
    )
    assert "for a tape: tape.gradient(loss, w) = None" in text
    assert re.search(r"after the tape's with block \(demo\.py lines \d+-\d+\)", text)
