"""Shared test set-up: the tests folder is importable (``import optable``); every test
starts with an eager top level (a test may call ``compat.v1.disable_eager_execution``)."""

import pytest

import symgrad as tf
from symgrad.core import graph as _graph


@pytest.fixture(autouse=True)
def _eager_top_level():
    yield
    if not _graph._top_level_eager:
        tf.compat.v1.enable_eager_execution()
        _graph.keep_eager_history(False)
