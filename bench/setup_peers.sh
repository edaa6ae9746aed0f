#!/usr/bin/env bash
# Create bench/.venv (ignored by git's `.venv/` rule) with the peer frameworks and symgrad.
#
#     bash bench/setup_peers.sh            # log goes to bench/.venv-setup.log as well
#
# torch is pinned to the CPU wheel (a plain `torch` would pull a multi-GB CUDA build).
# The versions that installed are written to bench/.venv/peer_versions.txt; bench/run.py
# records the versions it imports in its JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=bench/.venv
PYTHON=${PYTHON:-python3}
PEERS=(numpy tensorflow-cpu "torch==2.13.0" jax jaxlib pytensor autograd)

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --upgrade pip
"$VENV/bin/python" -m pip install "${PEERS[@]}"
"$VENV/bin/python" -m pip install -e .
"$VENV/bin/python" -m pip freeze > "$VENV/peer_versions.txt"
grep -i -E '^(numpy|tensorflow[-_]cpu|torch|jax|jaxlib|pytensor|autograd|symgrad)[=@ ]' \
    "$VENV/peer_versions.txt" || true
echo "peer venv ready: $VENV/bin/python bench/run.py"
