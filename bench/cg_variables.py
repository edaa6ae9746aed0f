"""A variable's eager read and update in the small MLP step, for callgrind (issue 29).

``python bench/cg_variables.py CASE N`` runs 2000 warm-up calls (past the graph's first
sweeps), then N calls of CASE:

* ``assign_sub``: ``v.assign_sub(t)``, ``v`` a [64,64] float32 variable, ``t`` a light tensor;
* ``read``: ``h + b``, ``b`` a [64] float32 variable (its read is the cost above ``h + c``);
* ``read_tape``: ``h + b`` under a tape watching ``b`` (one tape for every 50 calls);
* ``value``, ``value_tape``: ``b.value()`` alone, outside a tape and under one;
* ``updates``: the step's six ``p.assign_sub(lr * g)`` (the ``lr * g`` included).

The difference of two runs' instruction counts (N=2000 and N=6000) over 4000 is one call::

    OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH=$PWD/src valgrind --tool=callgrind \\
        --callgrind-out-file=/tmp/cg.%p python bench/cg_variables.py assign_sub 2000

(The N calls run inside ``itertools.takewhile``'s ``next``: ``--toggle-collect=takewhile_next``
collects them alone, so one run's total over N is one call too.)

``--wall`` prints the best of 7 timings of 2000 calls instead (µs per call).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import wl_training as w

import symgrad as tf


def _cases() -> dict[str, Callable[[], Any]]:
    d = w.make_data(**w.CASES["small"])
    ws = [tf.Variable(a) for a in d.ws]
    bs = [tf.Variable(b) for b in d.bs]
    params = ws + bs
    v = tf.Variable(np.ones((64, 64), np.float32))
    t = tf.constant(np.full((64, 64), 1e-6, np.float32)) * 1.0  # a light tensor
    h = tf.constant(np.ones((32, 64), np.float32)) * 1.0
    b = bs[0]
    grads = [tf.constant(np.full(p.shape, 1e-3, np.float32)) * 1.0 for p in params]
    tape_box: list[Any] = [None, 0]

    def taped(call: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            if tape_box[1] % 50 == 0:
                if tape_box[0] is not None:
                    tape_box[0].__exit__(None, None, None)
                tape_box[0] = tf.GradientTape().__enter__()
            tape_box[1] += 1
            return call()

        return run

    def updates() -> None:
        for p, g in zip(params, grads):
            p.assign_sub(d.lr * g)

    return {
        "assign_sub": lambda: v.assign_sub(t),
        "read": lambda: h + b,
        "read_tape": taped(lambda: h + b),
        "value": b.value,
        "value_tape": taped(b.value),
        "updates": updates,
    }


def main(case: str, n: int, wall: bool) -> None:
    call = _cases()[case]
    for _ in range(2000):
        call()
    if not wall:
        for _ in itertools.takewhile(lambda _: _timed(call, n), [1]):
            pass
        return
    best = min(_timed(call, n) for _ in range(7))
    print(f"{case}: {best * 1e6 / n:.2f} us per call")


def _timed(call: Callable[[], Any], n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), "--wall" in sys.argv)
