"""examples/keras_tape_loop.py prints what TensorFlow 2.21 with Keras 3 prints for it
(examples/expected/keras_tape_loop.txt, recorded with the import line changed to
``import tensorflow as tf``): the same text, each number TF's as printed or within 1e-5
relatively (matmul and mean may sum in another order, which can move the last digit)."""

import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def test_keras_tape_loop_prints_tensorflows_numbers() -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "keras_tape_loop.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = (EXAMPLES / "expected" / "keras_tape_loop.txt").read_text()
    assert NUMBER.sub("#", out) == NUMBER.sub("#", expected)
    for got, want in zip(NUMBER.findall(out), NUMBER.findall(expected), strict=True):
        assert got == want or abs(float(got) - float(want)) <= 1e-5 * abs(float(want)) + 1e-5, (
            got,
            want,
        )
