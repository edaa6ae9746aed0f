#!/usr/bin/env bash
# The GPU checks of issue 28, as one call of the device tool (a lent GPU machine whose
# python3 has JAX with CUDA; nothing is installed):  bash bench/gpu_check.sh
# Writes the logs and bench-gpu.json under $OUT (or ./gpu-out).
set -o pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src" TF_CPP_MIN_LOG_LEVEL=3
out="${OUT:-gpu-out}"; mkdir -p "$out"
py="${PY:-python3}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee "$out/gpu.txt"
$py -c "import jax, numpy, sys; print(sys.version.split()[0], 'jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())" | tee -a "$out/gpu.txt"
# The GPU tests (tests/conftest.py keeps the rest of the suite on the CPU).
SYMGRAD_TEST_GPU=1 timeout 150 $py -m pytest -q -p no:cacheprovider -o addopts="" -rfE tests/gpu 2>&1 | tee "$out/gpu-tests.log" | tail -15
# Where the time of a compiled step goes, beside JAX's (bench/gpu_probe.py).
timeout 120 $py bench/gpu_probe.py 2>&1 | tee "$out/probe.log"
# The XLA benchmark (symgrad jit_compile=True, JAX jit, the NumPy path), one run.
[ "${1:-}" = "--no-bench" ] && exit 0
cd bench && BENCH_GPU=1 timeout 270 $py run.py --only xla --framework symgrad_xla,jax_jit,symgrad_numpy \
    --json "$out/bench-gpu.json" --timeout 120 2>&1 | tee "$out/bench.log" | tail -20
