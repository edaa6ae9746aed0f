"""Where a compiled symgrad step's time goes beside JAX's jit on the same device (issue
28): for each bench/wl_xla case, the median wall time of symgrad's step, of its XLA
program called directly (the same arrays, the loss fetched), and of JAX's step; and the
kernels of each compiled program (fusions, dots, convolutions, copies, custom calls).

    PYTHONPATH=src python bench/gpu_probe.py [case ...]
"""

from __future__ import annotations

import collections
import gc
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np
import wl_xla

from symgrad.runtime.xla.compiled import Compiled, _values


def median_s(fn: Any, n: int = 200) -> float:
    for _ in range(20):
        fn()
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def kernels(hlo: str) -> dict[str, int]:
    entry = hlo.split("ENTRY", 1)[1]
    ops = re.findall(r"= \S+(?:\s\S+)*? ([a-z][\w-]*)\(", entry)
    return dict(collections.Counter(o for o in ops if o not in ("parameter", "constant")))


def probe(case: str) -> None:
    d = wl_xla._data(case)
    step = wl_xla.build("symgrad_xla", case, d)
    step()
    comp = next(o for o in gc.get_objects() if isinstance(o, Compiled))
    feeds = comp._feeds([d.x, d.y])
    kinds = {type(v).__name__ for v in _values(comp.read) + _values(comp.written)}

    def direct() -> float:
        written, n = _values(comp.written), comp._n_donated
        outs, new = comp.jitted(feeds, _values(comp.read), written[:n], written[n:])
        for v, a in zip(comp.written, new, strict=True):
            v.__dict__["_device_value"] = [None, a]
        return float(np.asarray(outs[0]))

    written, n = _values(comp.written), comp._n_donated
    sg_hlo = comp.jitted.lower(feeds, _values(comp.read), written[:n], written[n:])
    sg_kernels = kernels(sg_hlo.compile().as_text())
    jax_kernels = _jax_kernels(case, d)
    jax_step = wl_xla.build("jax_jit", case, d)
    jax_step()
    t_sg, t_direct, t_jax = median_s(step), median_s(direct), median_s(jax_step)
    t_sg2, t_jax2 = median_s(step), median_s(jax_step)
    print(
        f"{case}: symgrad {t_sg * 1e3:.3f}/{t_sg2 * 1e3:.3f} ms, its program called directly "
        f"{t_direct * 1e3:.3f} ms, jax {t_jax * 1e3:.3f}/{t_jax2 * 1e3:.3f} ms; "
        f"variable values {sorted(kinds)}; donated {comp._n_donated} of {len(comp.written)}"
    )
    print(f"  symgrad kernels {sg_kernels}")
    print(f"  jax     kernels {jax_kernels}")


def _jax_kernels(case: str, d: Any) -> dict[str, int]:
    """The kernels of JAX's step: its ``jax.jit`` caught as the bench builds it."""
    import jax

    real, caught = jax.jit, []

    def spy(fn: Any, *a: Any, **k: Any) -> Any:
        jitted = real(fn, *a, **k)

        def call(*args: Any) -> Any:
            caught.append((jitted, args))
            return jitted(*args)

        return call

    jax.jit = spy
    try:
        step = wl_xla.build("jax_jit", case, d)
    finally:
        jax.jit = real
    step()
    jitted, args = caught[0]
    return kernels(jitted.lower(*args).compile().as_text())


if __name__ == "__main__":
    for c in sys.argv[1:] or list(wl_xla.CASES):
        probe(c)
