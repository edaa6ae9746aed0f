"""Time of ``scan`` and ``map_fn``, and their gradients, against the length (issue 15).

    PYTHONPATH=src python bench/wl_scan.py                    # n = 500 ... 4,000 rows
    PYTHONPATH=src python bench/wl_scan.py --sizes 1000 8000 --width 64

Both loops write one row of a ``[n, width]`` list per iteration and read one row of their
``[n, width]`` input; their gradients read one row of the output's gradient and add one
row into the input's.  Each row costs O(width) when the list is written in place and
the gradient adds a row at a time; a copy of the whole list per iteration (what a
functional write costs) makes a row O(n * width) and the loop quadratic.  Printed: µs per
row of a ``tf.function`` call (best of ``--repeat``), forward and forward+gradient.  A
flat column is linear time; doubling with each doubling of n is quadratic.  symgrad only.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

NAME = "scan"


def programs(tf: Any) -> dict[str, Callable[[Any], Any]]:
    def scan(x: Any) -> Any:
        return tf.scan(lambda a, e: tf.tanh(a * 0.5 + e), x)

    def map_fn(x: Any) -> Any:
        return tf.map_fn(lambda e: tf.sin(e) * e, x)

    return {"scan": scan, "map_fn": map_fn}


def timed(tf: Any, fn: Callable[[Any], Any], x: Any, repeat: int) -> tuple[float, float]:
    """Seconds per call of the forward function and of forward + gradient."""

    @tf.function
    def forward(x: Any) -> Any:
        return fn(x)

    @tf.function
    def gradient(x: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(fn(x))
        return tape.gradient(loss, x)

    forward(x), gradient(x)  # trace and compile
    return tuple(  # type: ignore[return-value]
        min(timeit.repeat(lambda f=f: f(x), number=1, repeat=repeat))  # type: ignore[misc]
        for f in (forward, gradient)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import symgrad as tf

    print(f"{'program':>8} {'n':>6} {'forward µs/row':>15} {'gradient µs/row':>16}")
    for name, fn in programs(tf).items():
        for n in args.sizes:
            rng = np.random.default_rng(0)
            x = tf.constant(rng.standard_normal((n, args.width)))
            fwd, grad = timed(tf, fn, x, args.repeat)
            print(f"{name:>8} {n:>6} {fwd / n * 1e6:>15.1f} {grad / n * 1e6:>16.1f}")


if __name__ == "__main__":
    main()
