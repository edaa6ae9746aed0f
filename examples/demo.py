"""symgrad's demo: every seed program, run with `import symgrad as tf`, beside the seed's numbers.

Run from the repository root: ``python examples/demo.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|None")

SEEDS = [
    ("seed_000.py", "000/001: tf.gradients vs the registered MatMul gradient"),
    ("seed_002.py", "002: gradient of y vs of y[0, 0] (the gradient of the SUM)"),
    ("seed_003.py", "003: what grad_ys is for (no printed numbers: checked by hand)"),
    ("seed_004.py", "004: the tf.gradients reference (stop_gradients, unconnected)"),
]


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def same(ours: list[str], theirs: list[str]) -> bool:
    if len(ours) != len(theirs):
        return False
    for a, b in zip(ours, theirs):
        if (a == "None") != (b == "None"):
            return False
        if a != "None" and abs(float(a) - float(b)) > 1e-6 * max(1.0, abs(float(b))):
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
        print("  check:", "OK (tf.gradients == chain through grad_ys == by hand)" if ok
              else "MISMATCH")
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


def main() -> int:
    results = [run_seed(script, title) for script, title in SEEDS]
    print(f"\n{sum(results)} of {len(results)} seed programs print the seeds' numbers.")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
