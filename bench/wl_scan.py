"""Time of loops over the rows of an array, and of their gradients, against the length.

    PYTHONPATH=src python bench/wl_scan.py                    # n = 500 ... 4,000 rows
    PYTHONPATH=src python bench/wl_scan.py --sizes 1000 8000 --width 64

``scan`` and ``map_fn`` write one row of a ``[n, width]`` list per iteration and read one
row of their ``[n, width]`` input; their gradients read one row of the output's gradient
and add one row into the input's.  ``x[i]`` is an RNN's loop: a ``while_loop`` whose body
reads row ``i`` of a captured ``[n, width]`` tensor; its gradient adds one slice per step.
Each row costs O(width) when lists are written in place and gradients are added a row at
a time; a copy of the whole array per iteration (a functional write, or a gradient of
zeros but for one row) makes a row O(n * width) and the loop quadratic (issue 15).
Printed: µs per row of a ``tf.function`` call (best of ``--repeat``), forward and
forward+gradient.  A flat column is linear time; doubling with each doubling of n is
quadratic.  symgrad only.
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

    def slices(x: Any) -> Any:  # an RNN's loop: each step reads x[i] of a captured x
        step = lambda i, h: (i + 1, tf.tanh(h * 0.5 + x[i]))  # noqa: E731
        n = tf.shape(x)[0]
        return tf.while_loop(lambda i, h: i < n, step, [0, tf.zeros_like(x[0])])[1]

    return {"scan": scan, "map_fn": map_fn, "x[i]": slices}


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
