"""Each summary test starts with no default writer, step or recording condition (a test
may leave a writer set with ``set_as_default``, which TF never unsets)."""

import pytest

from symgrad.summary.writer import _state


@pytest.fixture(autouse=True)
def _no_default_writer():
    yield
    _state.writer, _state.step, _state.is_recording = None, None, None
