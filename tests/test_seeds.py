"""The seed programs (../shared/seeds) print the seeds' numbers with `import symgrad as tf`."""

import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Copied from seed 000/001's "Output:" section.
SEED_000_OUTPUT = """\
a:
[[1. 2.]
 [3. 4.]]
b:
[[ 6.  7.  8.]
 [ 9. 10. 11.]]
c = a * b:
[[24. 27. 30.]
 [54. 61. 68.]]
tf.gradients(c, a)[0]:
[[21. 30.]
 [21. 30.]]
matmul_grad(c.op, tf.ones_like(c))[0]:
[[21. 30.]
 [21. 30.]]
tf.gradients(c * tf.stop_gradient(c), a)[0]:
[[ 573.  816.]
 [1295. 1844.]]
matmul_grad(c.op, c)[0]:
[[ 573.  816.]
 [1295. 1844.]]
"""


def _run(name: str) -> str:
    out = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                         text=True, check=True)
    return out.stdout


def test_seed_000_prints_the_seed_output_exactly():
    assert _run("seed_000.py") == SEED_000_OUTPUT


def test_seed_003_grad_ys_chain_rule_claim(capsys):
    runpy.run_path(str(EXAMPLES / "seed_003.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "same: True" in out
    lines = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    by_tf = np.array(eval(lines["tf.gradients(cost, [W, b])"].replace("np.float32", "float")))
    by_hand = np.array(eval(lines["by hand"]))
    np.testing.assert_allclose(by_tf, by_hand, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("seed_*.py")))
def test_every_seed_example_runs(name):
    assert _run(name)
