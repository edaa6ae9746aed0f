"""symgrad's benchmark suite: symgrad and its peers, timed side by side in one run.

    bash bench/setup_peers.sh                       # once: bench/.venv with the peers
    bench/.venv/bin/python bench/run.py --json bench-results.json
    bench/.venv/bin/python bench/run.py --quick     # ~2 minutes, for development
    bench/.venv/bin/python bench/run.py --only training --case small \
        --framework symgrad_session --profile       # cProfile instead of timing

Every (workload, case, framework) is measured in its own subprocess with 2 threads for
every framework.  A framework whose package is missing is skipped with a note (run with
the project's .venv, only symgrad and NumPy are measured).  Ratios are within this run.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import harness
import wl_cnn
import wl_gradient_build
import wl_keras
import wl_keras_fit
import wl_layer_call
import wl_memory
import wl_mirrored
import wl_per_op
import wl_training
import wl_while
import wl_xla

WORKLOADS = {
    m.NAME: m
    for m in (
        wl_gradient_build,
        wl_training,
        wl_per_op,
        wl_memory,
        wl_cnn,
        wl_while,
        wl_keras,
        wl_keras_fit,
        wl_layer_call,
        wl_xla,
        wl_mirrored,
    )
}
REQUIRES = {
    "symgrad": "symgrad",
    "tf": "tensorflow",
    "torch": "torch",
    "jax": "jax",
    "pytensor": "pytensor",
    "autograd": "autograd",
    "numpy": "numpy",
}
DISTRIBUTIONS = [
    "numpy",
    "symgrad",
    "tensorflow-cpu",
    "torch",
    "jax",
    "jaxlib",
    "pytensor",
    "autograd",
]
BENCH_DIR = Path(__file__).resolve().parent


def required_module(framework: str) -> str:
    return REQUIRES[framework.split("_")[0]]


def missing_modules() -> set[str]:
    return {m for m in set(REQUIRES.values()) if importlib.util.find_spec(m) is None}


def run_task(task: dict[str, Any], timeout_s: float, profile: bool) -> dict[str, Any]:
    """Measure one task in a fresh subprocess; returns its row (with 'error' on failure)."""
    env = {**os.environ, **harness.thread_env(), **task.get("env", {})}
    if profile:
        env["BENCH_PROFILE"] = "1"
    cmd = [sys.executable, str(BENCH_DIR / "run.py"), "--worker", json.dumps(task)]
    row = {k: task[k] for k in ("workload", "case", "framework")}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out, err, code = _text(exc.stdout), _text(exc.stderr), None
    row.update(harness.parse_results(out))
    row["subprocess_s"] = round(time.perf_counter() - t0, 2)
    if profile:
        sys.stderr.write(err)
    if code is None:
        row["timed_out"] = f"time limit of {timeout_s:.0f} s reached"
        if not set(row) - {"workload", "case", "framework", "subprocess_s", "timed_out"}:
            row["error"] = row["timed_out"]
    elif code != 0:
        last = [line for line in err.strip().splitlines() if line.strip()][-1:] or ["?"]
        row.setdefault("error", f"exit {code}: {last[0][:200]}")
    return row


def _text(data: bytes | str | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


def worker(task_json: str) -> None:
    task = json.loads(task_json)
    WORKLOADS[task["workload"]].run(task["framework"], task["case"], task["params"])


def select(tasks: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    keep = []
    for t in tasks:
        if args.case and t["case"] not in args.case.split(","):
            continue
        if args.framework and t["framework"] not in args.framework.split(","):
            continue
        keep.append(t)
    return keep


def run_workload(module: Any, args: argparse.Namespace, missing: set[str]) -> list[dict]:
    rows: list[dict[str, Any]] = []
    for task in select(module.tasks(args.quick), args):
        skip = (
            f"{required_module(task['framework'])} is not installed"
            if required_module(task["framework"]) in missing
            else getattr(module, "skip_reason", lambda t, r: None)(task, rows)
        )
        if skip:
            row = {k: task[k] for k in ("workload", "case", "framework")}
            rows.append({**row, "params": task["params"], "skipped": skip})
            continue
        row = run_task(task, min(args.timeout, task.get("timeout_s", args.timeout)), args.profile)
        rows.append({**row, "params": task["params"]})
        note = row.get("error") or f"{row.get('median_s', row.get('gradients_s', ''))}"
        print(
            f"  {task['case']:<14} {task['framework']:<18} {row['subprocess_s']:>7.1f} s  {note}",
            file=sys.stderr,
            flush=True,
        )
    return rows


def versions() -> dict[str, str]:
    found = {}
    for dist in DISTRIBUTIONS:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[dist] = metadata.version(dist)
    return found


def meta(args: argparse.Namespace, missing: set[str]) -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "threads_per_framework": harness.THREADS,
        "gpu": harness.GPU,
        "loadavg_at_start": load,
        "quick": args.quick,
        "versions": versions(),
        "missing": sorted(missing),
        "interpreter": sys.executable,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (~2 min)")
    p.add_argument("--only", help=f"comma-separated workloads of {', '.join(WORKLOADS)}")
    p.add_argument("--case", help="comma-separated cases (e.g. small, chain:1000, eager)")
    p.add_argument("--framework", help="comma-separated frameworks (e.g. symgrad_session)")
    p.add_argument("--json", help="write every row and the goals to this file")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per subprocess")
    p.add_argument(
        "--profile",
        action="store_true",
        help="cProfile the timed calls instead of timing them (top 25 to stderr)",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker:
        worker(args.worker)
        return
    missing = missing_modules()
    info = meta(args, missing)
    print(f"# symgrad benchmark — {info['date']}, load average {info['loadavg_at_start']}")
    if missing:
        print(
            f"\nNot installed, skipped: {', '.join(sorted(missing))} "
            "(run `bash bench/setup_peers.sh`, then use bench/.venv/bin/python)."
        )
    results: dict[str, Any] = {"meta": info, "rows": [], "goals": []}
    names = args.only.split(",") if args.only else list(WORKLOADS)
    for name in names:
        print(f"[{name}]", file=sys.stderr, flush=True)
        rows = run_workload(WORKLOADS[name], args, missing)
        text, goals = WORKLOADS[name].tables(rows)
        print("\n" + text + "\n")
        print("\n".join(g["line"] for g in goals))
        results["rows"] += rows
        results["goals"] += goals
    _summary(results["goals"])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
        print(f"\nwrote {args.json}")


def _summary(goals: list[dict[str, Any]]) -> None:
    counts = {s: sum(g["status"] == s for g in goals) for s in ("PASS", "FAIL", "N/A")}
    print(f"\ngoals: {counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['N/A']} N/A")


if __name__ == "__main__":
    main()
