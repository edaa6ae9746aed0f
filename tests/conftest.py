"""Shared test set-up: the tests folder is importable (``import optable``); every test
starts with an eager top level (a test may call ``compat.v1.disable_eager_execution``)."""

import os

import pytest

# The suite checks CPU numbers (on a GPU, float32 products run in TensorFloat-32 and sums
# in other orders) and CPU device lists: JAX stays on the CPU, in this process and the
# programs it starts, unless SYMGRAD_TEST_GPU=1 (tests/gpu through bench/gpu_check.sh).
if os.environ.get("SYMGRAD_TEST_GPU") != "1":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

import symgrad as tf
from symgrad.core import graph as _graph


@pytest.fixture(autouse=True)
def _eager_top_level():
    yield
    if not _graph._top_level_eager:
        tf.compat.v1.enable_eager_execution()
        _graph.keep_eager_history(False)
