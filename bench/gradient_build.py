"""Benchmark: how long ``symgrad.gradients()`` takes to BUILD a gradient graph, per op.

Not a test.  Two shapes of graph, built inside ``with tf.Graph().as_default():`` (so no
kernel runs and only graph construction is timed):

* chain:  x -> sin -> *1.01 -> sin -> *1.01 ... (N elementwise ops in a line);
* fan-in: N branches ``sin(x * c_i)`` of one x, summed by one AddN (x gets N gradient
  contributions, aggregated once).

For each N it prints the forward build time, the ``gradients()`` time (CPU seconds of
this process, so a busy machine distorts less), the number of ops ``gradients()`` added,
and microseconds per N and per gradient op; flat µs/op means linear time.

    python bench/gradient_build.py                      # N = 1e3, 1e4, 1e5
    python bench/gradient_build.py --sizes 1000,10000 --json out.json
    python bench/gradient_build.py --profile chain:100000   # cProfile, top 25 by tottime
    python bench/gradient_build.py --no-gc              # the same with the cyclic GC off
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import platform
import pstats
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import symgrad as tf


def build_chain(n: int) -> tuple[Any, Any]:
    x = tf.placeholder(tf.float32, [16], name="x")
    y = x
    for i in range(n):
        y = tf.sin(y) if i % 2 == 0 else y * 1.01
    return x, y


def build_fan_in(n: int) -> tuple[Any, Any]:
    x = tf.placeholder(tf.float32, [16], name="x")
    return x, tf.add_n([tf.sin(x * (1.0 + i / n)) for i in range(n)])


SHAPES: dict[str, Callable[[int], tuple[Any, Any]]] = {"chain": build_chain,
                                                       "fan_in": build_fan_in}


def measure(shape: str, n: int, check: bool, repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` builds; CPU time of this process (the machine may be shared)."""
    best: dict[str, Any] = {}
    for _ in range(repeat):
        row = _measure_once(shape, n, check)
        if not best or row["gradients_s"] < best["gradients_s"]:
            best = row
    return best


def _measure_once(shape: str, n: int, check: bool) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        gc.collect()
        t0, w0 = time.process_time(), time.perf_counter()
        x, y = SHAPES[shape](n)
        t1, w1 = time.process_time(), time.perf_counter()
        ops_before = len(graph.get_operations())
        (g,) = tf.gradients(y, [x])
        t2, w2 = time.process_time(), time.perf_counter()
        grad_ops = len(graph.get_operations()) - ops_before
        row = {"shape": shape, "n": n, "forward_ops": ops_before, "forward_s": t1 - t0,
               "gradients_s": t2 - t1, "gradient_ops": grad_ops,
               "gradients_us_per_op": 1e6 * (t2 - t1) / n,
               "gradients_us_per_grad_op": 1e6 * (t2 - t1) / max(grad_ops, 1),
               "forward_wall_s": w1 - w0, "gradients_wall_s": w2 - w1}
        if check:
            with tf.Session(graph=graph) as sess:
                value = sess.run(g, {x: np.linspace(-1, 1, 16, dtype=np.float32)})
            row["gradient_finite"] = bool(np.all(np.isfinite(value)))
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (f"{'graph':<7} {'N':>8} {'fwd ops':>8} {'fwd s':>8} {'grad s':>8} "
            f"{'grad ops':>9} {'µs/N':>8} {'µs/grad op':>11}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['shape']:<7} {r['n']:>8} {r['forward_ops']:>8} {r['forward_s']:>8.3f} "
              f"{r['gradients_s']:>8.3f} {r['gradient_ops']:>9} "
              f"{r['gradients_us_per_op']:>8.1f} {r['gradients_us_per_grad_op']:>11.1f}")


def profile(spec: str) -> None:
    shape, n = spec.split(":")
    graph = tf.Graph()
    with graph.as_default():
        x, y = SHAPES[shape](int(n))
        prof = cProfile.Profile()
        prof.enable()
        tf.gradients(y, [x])
        prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--shapes", default="chain,fan_in")
    parser.add_argument("--json", help="write the rows as JSON to this path")
    parser.add_argument("--check", action="store_true",
                        help="also run each gradient once in a Session (not timed)")
    parser.add_argument("--profile", metavar="SHAPE:N", help="cProfile one gradients() call")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many builds")
    parser.add_argument("--no-gc", action="store_true",
                        help="disable Python's cyclic GC while timing (isolates its share)")
    args = parser.parse_args(argv)
    if args.no_gc:
        gc.disable()
    if args.profile:
        profile(args.profile)
        return
    sys.setrecursionlimit(1000)  # graph walks must not recurse: keep the default limit
    rows = [measure(shape, int(n), args.check, args.repeat)
            for shape in args.shapes.split(",") for n in args.sizes.split(",")]
    print_table(rows)
    if args.json:
        meta = {"python": platform.python_version(), "numpy": np.__version__,
                "machine": platform.machine(), "symgrad": tf.__version__,
                "gc": not args.no_gc}
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
