"""symgrad's demo: the seed programs beside the seeds' numbers, then a real training run.

First every seed program, run with ``import symgrad as tf``, is printed beside the numbers
the seed shows.  Then ``train_digits.py`` trains a small classifier on scikit-learn's
handwritten digits, TF1 style and TF2 style, saves the loss curves and the gradient graph
of one step, and explains a None gradient with ``tf.why_none`` (two more before it: a cut
inside a loop, a tape that did not record the loss).  Last, ``cnn_digits.py``
trains a small CNN from stateless random seeds for two epochs and is shown beside what
TensorFlow printed for it, and ``keras_tape_loop.py`` trains Keras models in a tape loop
beside what TensorFlow with Keras 3 printed, and ``keras_fit.py`` runs the beginner
quickstart's ``compile``/``fit`` with its progress lines.  Exit status 0 when every seed
matches, test accuracy is above 0.9, both styles print the same losses and the CNN and the
Keras programs print TensorFlow's numbers.

Run from the repository root: ``python examples/demo.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIN_ACCURACY = 0.9
NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|None")

SEEDS = [
    ("seed_000.py", "000/001: tf.gradients vs the registered MatMul gradient"),
    ("seed_002.py", "002: gradient of y vs of y[0, 0] (the gradient of the SUM)"),
    ("seed_003.py", "003: what grad_ys is for (no printed numbers: checked by hand)"),
    ("seed_004.py", "004: the tf.gradients reference (stop_gradients, unconnected)"),
]


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def same(ours: list[str], theirs: list[str], atol: float = 0.0) -> bool:
    if len(ours) != len(theirs):
        return False
    for a, b in zip(ours, theirs):
        if (a == "None") != (b == "None"):
            return False
        if a != "None" and abs(float(a) - float(b)) > 1e-6 * max(1.0, abs(float(b))) + atol:
            return False
    return True


def run_seed(script: str, title: str) -> bool:
    path = HERE / script
    print(f"\n=== seed {title}\n")
    if not path.exists():
        print(f"  (skipped: {script} is not in this checkout)")
        return True
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    if result.returncode:
        print(result.stdout + result.stderr)
        return False
    expected_file = HERE / "expected" / script.replace(".py", ".txt")
    if not expected_file.exists():
        print(result.stdout)
        ok = "same: True" in result.stdout
        print(
            "  check:",
            "OK (tf.gradients == chain through grad_ys == by hand)" if ok else "MISMATCH",
        )
        return ok
    ours, theirs = result.stdout.rstrip().splitlines(), expected_file.read_text().splitlines()
    width = max(len(line) for line in ours + ["symgrad"]) + 2
    print(f"  {'symgrad':<{width}}| the seed printed")
    for i in range(max(len(ours), len(theirs))):
        left = ours[i] if i < len(ours) else ""
        right = theirs[i] if i < len(theirs) else ""
        print(f"  {left:<{width}}| {right}")
    ok = same(numbers(result.stdout), numbers(expected_file.read_text()))
    print("  numbers:", "SAME" if ok else "DIFFERENT")
    return ok


CNN_EPOCHS = 2  # of cnn_digits.py's 8: enough to show it learning, ~0.5 s


def run_cnn() -> bool:
    """The CNN of cnn_digits.py for a few epochs, beside what TensorFlow printed for it."""
    print("\n=== a CNN (conv2d + max_pool + dense) on the digits, from stateless seeds\n")
    if importlib.util.find_spec("sklearn") is None:
        print("  cannot train: scikit-learn not installed (pip install -e '.[demo]')")
        return False
    args = [sys.executable, str(HERE / "cnn_digits.py"), "--epochs", str(CNN_EPOCHS)]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode:
        print(result.stdout + result.stderr)
        return False
    ours = result.stdout.rstrip().splitlines()
    theirs = (HERE / "expected" / "cnn_digits.txt").read_text().splitlines()[: len(ours)]
    for line in ours:
        print(f"  {line}")
    # One unit in the 5th decimal: float32 sums in another order (see cnn_digits.py).
    ok = same(numbers("\n".join(ours)), numbers("\n".join(theirs)), atol=1e-5)
    print("  TensorFlow 2.21 printed:", "the same numbers" if ok else "DIFFERENT numbers")
    return ok


def run_keras() -> bool:
    """keras_tape_loop.py: Keras models in a GradientTape loop, beside TensorFlow's output."""
    print("\n=== tf.keras: a CNN and a functional model trained in a GradientTape loop\n")
    result = subprocess.run(
        [sys.executable, str(HERE / "keras_tape_loop.py")], capture_output=True, text=True
    )
    if result.returncode:
        print(result.stdout + result.stderr)
        return False
    ours = result.stdout.rstrip().splitlines()
    theirs = (HERE / "expected" / "keras_tape_loop.txt").read_text().splitlines()
    for line in ours[1:]:  # the first line lists the weights' paths and shapes
        print(f"  {line}")
    # 1e-5: float32 sums in another order than TF's (tests/keras/test_keras_example.py).
    ok = same(numbers("\n".join(ours)), numbers("\n".join(theirs)), atol=1e-5)
    print("  TensorFlow 2.21 with Keras 3 printed:", "the same numbers" if ok else "DIFFERENT")
    return ok


def run_fit() -> bool:
    """keras_fit.py: the beginner quickstart's compile/fit, beside TensorFlow's output."""
    print("\n=== tf.keras: compile and fit, Keras's progress lines (verbose=2)\n")
    if importlib.util.find_spec("sklearn") is None:
        print("  cannot fit: scikit-learn not installed (pip install -e '.[demo]')")
        return False
    result = subprocess.run(
        [sys.executable, str(HERE / "keras_fit.py")], capture_output=True, text=True
    )
    if result.returncode:
        print(result.stdout + result.stderr)
        return False
    ours = result.stdout.rstrip()
    for line in ours.splitlines():
        print(f"  {line}")
    theirs = (HERE / "expected" / "keras_fit.txt").read_text()
    # The progress lines round to 4 decimals: a float32 rounding apart may show 1e-4 apart.
    # Their timing text ("0s - 2ms/step") has no decimal point, so numbers() skips it.
    ok = same(numbers(ours), numbers(theirs), atol=1e-4)
    print("  TensorFlow 2.21 with Keras 3 printed:", "the same numbers" if ok else "DIFFERENT")
    return ok


def run_training(out: Path) -> bool:
    """The digits classifier, TF1 and TF2 style (examples/train_digits.py)."""
    print("\n=== training: a 64-64-10 MLP on scikit-learn's handwritten digits\n")
    needed = {"sklearn": "scikit-learn", "matplotlib": "matplotlib"}
    missing = [pkg for mod, pkg in needed.items() if importlib.util.find_spec(mod) is None]
    if missing:
        print(
            f"  cannot train: {', '.join(missing)} not installed. Install the demo extra: "
            "pip install -e '.[demo]'"
        )
        return False
    sys.path.insert(0, str(HERE))
    import train_digits

    result = train_digits.run(out)
    same = result.max_loss_difference <= train_digits.SAME_TOLERANCE
    return result.accuracy > MIN_ACCURACY and same


def run_why_none() -> bool:
    """Two None gradients explained: a cut inside a loop, and a tape that missed the loss."""
    import symgrad as tf

    print("\n=== why is my gradient None? (tf.why_none)\n")
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        body = lambda i, a: (i + 1, tf.stop_gradient(a * x))  # noqa: E731  (the cut)
        _, r = tf.while_loop(lambda i, a: i < 5, body, [0, x])
    loop = tape.why_none(r, x)
    print(f"  inside a loop: tape.gradient(r, x) = {tape.gradient(r, x)}\n{loop}\n")
    w = tf.Variable(3.0, name="w")
    with tf.GradientTape() as tape:
        y = w * 2.0
    loss = y * y  # the mistake: computed after the with block
    print(f"  for a tape: tape.gradient(loss, w) = {tape.gradient(loss, w)}")
    after = tape.why_none(loss, w)
    print(after)
    return "iterations 0-4" in str(loop) and "after the tape's with block" in str(after)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="symgrad's demo")
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE.parent / "demo_output",
        help="folder for the loss plot and the graph (default: demo_output/)",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = [run_seed(script, title) for script, title in SEEDS]
    print(f"\n{sum(results)} of {len(results)} seed programs print the seeds' numbers.")
    explained = run_why_none()
    trained = run_training(args.out)
    cnn = run_cnn()
    keras = run_keras()
    fitted = run_fit()
    ok = all(results) and explained and trained and cnn and keras and fitted
    cnn_text = "prints TensorFlow's numbers" if cnn else "FAILED"
    keras_text = "prints TensorFlow's numbers" if keras else "FAILED"
    fit_text = "prints TensorFlow's numbers" if fitted else "FAILED"
    training = (
        f"passed (test accuracy > {MIN_ACCURACY}, TF1 == TF2)" if trained else "FAILED (see above)"
    )
    print(
        f"\ndemo {'OK' if ok else 'FAILED'}: {sum(results)}/{len(results)} seeds match, "
        f"training {training}, CNN {cnn_text}, Keras tape loop {keras_text}, "
        f"Keras fit {fit_text}, "
        f"{time.perf_counter() - start:.1f} s; outputs in {args.out}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
