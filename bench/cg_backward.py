"""The eager tape's backward pass in the small MLP step, for callgrind (issue 29).

Each step runs the forward under a ``GradientTape``, then ``tape.gradient`` inside
``itertools.takewhile``'s ``next``, so that callgrind collects that call alone::

    OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH=$PWD/src valgrind --tool=callgrind \\
        --toggle-collect=takewhile_next python bench/cg_backward.py 200
    callgrind_annotate --inclusive=yes callgrind.out.<pid> | grep takewhile_next

The total divided by the step count is the instructions of one ``tape.gradient``
(50 warm-up steps first, not collected).
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

import wl_training as w

import symgrad as tf


def main(steps: int) -> None:
    d = w.make_data(**w.CASES["small"])
    ws = [tf.Variable(a) for a in d.ws]
    bs = [tf.Variable(b) for b in d.bs]
    params = ws + bs
    x, y = tf.constant(d.x), tf.constant(d.y)

    def forward() -> tuple[Any, Any]:
        with tf.GradientTape() as tape:
            loss = w.sg_loss(tf, x, y, ws, bs)
        return tape, loss

    def grad(pair: tuple[Any, Any]) -> Any:
        return pair[0].gradient(pair[1], params)

    for _ in range(50):
        grad(forward())
    for _ in range(steps):
        for _ in itertools.takewhile(grad, [forward()]):
            pass


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
