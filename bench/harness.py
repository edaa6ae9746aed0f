"""Shared pieces of the benchmark suite: thread limits, the timer, peak memory, worker I/O.

Every measurement runs in its own subprocess (see ``run.py``); the worker side of that
protocol lives here: a worker prints ``BENCH_RESULT {json}`` lines, each merged into the
measurement's row, so a worker killed by its time limit still reports what it finished.
"""

from __future__ import annotations

import cProfile
import gc
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

THREADS = int(os.environ.get("BENCH_THREADS", "2"))  # per framework; 2 unless overridden
GPU = os.environ.get("BENCH_GPU") == "1"  # let JAX (and symgrad's XLA path) use the GPU
RESULT_PREFIX = "BENCH_RESULT "


def thread_env(threads: int = THREADS) -> dict[str, str]:
    """Environment that caps every framework's thread pools at ``threads`` (and hides
    the GPUs unless ``BENCH_GPU=1``)."""
    hide = {} if GPU else {"JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""}
    return {
        **hide,
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": str(threads),
        "NUMEXPR_NUM_THREADS": str(threads),
        "TF_NUM_INTRAOP_THREADS": str(threads),
        "TF_NUM_INTEROP_THREADS": "1",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TF_ENABLE_ONEDNN_OPTS": "1",
        "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={threads}",
        "PYTENSOR_FLAGS": "floatX=float32,openmp=False",
    }


def import_tf() -> Any:
    """TensorFlow with its thread pools capped (call before building anything)."""
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    return tf


def tf_session_config(tf: Any) -> Any:
    return tf.compat.v1.ConfigProto(
        intra_op_parallelism_threads=THREADS, inter_op_parallelism_threads=1
    )


def import_torch() -> Any:
    import torch

    torch.set_num_threads(THREADS)
    return torch


def time_call(
    fn: Callable[[], Any], repeat: int, warmup: int = 2, min_sample_s: float = 0.005
) -> dict[str, Any]:
    """Median seconds per call of ``fn``.

    After ``warmup`` calls, each of ``repeat`` samples times enough back-to-back calls to
    last ``min_sample_s`` (so sub-millisecond calls are not lost in timer noise).
    """
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    loops = max(1, int(min_sample_s / max(time.perf_counter() - t0, 1e-9)))
    if os.environ.get("BENCH_PROFILE"):
        return _profile(fn, loops * repeat)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return {
        "median_s": statistics.median(samples),
        "min_s": min(samples),
        "samples": repeat,
        "loops": loops,
    }


def time_paired(
    fns: dict[str, Callable[[], Any]],
    rounds: int,
    warmup: int = 2,
    min_sample_s: float = 0.005,
    gap_s: float = 0.0,
) -> dict[str, float]:
    """Ratios of each callable's time to the first one's, measured interleaved.

    Each of ``rounds`` rounds times one block of back-to-back calls of every callable in
    turn, so all of them run under the same machine conditions; the result for each name
    after the first is the median over rounds of (its block / the first's block).  On a
    shared machine whose speed drifts, such a paired ratio is far steadier than a ratio of
    medians taken minutes apart in separate processes.

    ``gap_s``: a pause after each block, for callables from different frameworks.  A
    thread pool spins on after its call (Intel OpenMP's default KMP_BLOCKTIME is 200 ms,
    OpenBLAS spins too) and takes the cores from the next block; without a pause, the
    hand-written NumPy step timed right after PyTorch's and TensorFlow's ran 1.2-1.5x
    slower than the same step timed after itself.
    """
    loops: dict[str, int] = {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        t0 = time.perf_counter()
        fn()
        loops[name] = max(1, int(min_sample_s / max(time.perf_counter() - t0, 1e-9)))
    per_round: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(loops[name]):
                fn()
            per_round[name].append((time.perf_counter() - t0) / loops[name])
            if gap_s:
                time.sleep(gap_s)
    first, *others = fns
    return {
        name: statistics.median(a / b for a, b in zip(per_round[name], per_round[first]))
        for name in others
    }


def _profile(fn: Callable[[], Any], calls: int) -> dict[str, Any]:
    """cProfile ``calls`` calls of ``fn``; the top 25 by cumulative time go to stderr."""
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    elapsed = (time.perf_counter() - t0) / calls
    print(
        f"--- cProfile of {calls} calls ({1e3 * elapsed:.3f} ms/call under the profiler)",
        file=sys.stderr,
    )
    pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    return {"median_s": elapsed, "min_s": elapsed, "samples": 1, "loops": calls, "profiled": True}


def cpu_and_wall(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """Run ``fn`` once after a GC pass: (its result, CPU seconds, wall seconds)."""
    gc.collect()
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


# --- peak resident memory (Linux /proc) -------------------------------------------------


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field} line")


def rss_mib() -> float:
    return _status_kib("VmRSS") / 1024


def peak_rss_mib() -> float:
    return _status_kib("VmHWM") / 1024


def reset_peak_rss() -> None:
    """Set the peak-RSS mark (VmHWM) to the current RSS."""
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


# --- worker protocol -----------------------------------------------------------------------


def emit(**values: Any) -> None:
    """Report values of the current measurement to the orchestrator (one JSON line)."""
    print(RESULT_PREFIX + json.dumps(values), flush=True)


def parse_results(stdout: str) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for line in stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            row.update(json.loads(line[len(RESULT_PREFIX) :]))
    return row
