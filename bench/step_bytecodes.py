"""The small eager step's cost in Python bytecodes, by phase and by function (issue 29).

Unlike a timing, the count is the same on every run and host, so a change to the eager
path can be measured on a busy machine.  From the project root:
``.venv/bin/python bench/step_bytecodes.py``.  The step is ``wl_training``'s TF2 step
(the 64-64-64-10 MLP, batch 32) taken apart: the tape's ``with``, the forward, the
gradient, the six ``lr * g`` and the six ``assign_sub``.
"""

from __future__ import annotations

import collections
import sys
from collections.abc import Callable
from typing import Any

import wl_training as w

import symgrad as tf

WARMUP = 60


def main() -> None:
    d = w.make_data(**w.CASES["small"])
    ws = [tf.Variable(a) for a in d.ws]
    bs = [tf.Variable(b) for b in d.bs]
    params = ws + bs
    x, y = tf.constant(d.x), tf.constant(d.y)
    by_function: collections.Counter[str] = collections.Counter()

    def counted(fn: Callable[[], Any]) -> tuple[Any, int]:
        before = by_function.total()

        def trace(frame: Any, event: str, arg: Any) -> Any:
            frame.f_trace_opcodes = True
            if event == "opcode":
                by_function[frame.f_code.co_name] += 1
            return trace

        sys.settrace(trace)
        try:
            result = fn()
        finally:
            sys.settrace(None)
        return result, by_function.total() - before

    def step() -> dict[str, int]:
        tape = tf.GradientTape()
        costs = {}
        _, costs["enter"] = counted(tape.__enter__)
        loss, costs["fwd"] = counted(lambda: w.sg_loss(tf, x, y, ws, bs))
        _, costs["exit"] = counted(lambda: tape.__exit__(None, None, None))
        grads, costs["grad"] = counted(lambda: tape.gradient(loss, params))
        updates, costs["lr*g"] = counted(lambda: [d.lr * g for g in grads])
        _, costs["assign"] = counted(lambda: [p.assign_sub(u) for p, u in zip(params, updates)])
        return costs

    for _ in range(WARMUP):
        by_function.clear()
        costs = step()
    print(" ".join(f"{k} {v}" for k, v in costs.items()), "total", sum(costs.values()))
    print("top functions (the last step):")
    for name, n in by_function.most_common(30):
        print(f"  {n:6d} {name}")


if __name__ == "__main__":
    main()
