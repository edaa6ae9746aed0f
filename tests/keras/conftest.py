"""Keras tests: each module starts from a fresh session's layer-name counters and leaves
them as it found them.

Keras numbers layers per session (``dense``, ``dense_1``, ...), and the layer table's
recorded weight paths assume the counters of a fresh session; a module that builds layers
(here or in another folder run before, such as tests/train) would otherwise shift the
names of every module after it."""

from collections.abc import Iterator

import pytest

from symgrad.keras import backend


@pytest.fixture(autouse=True, scope="module")
def _keep_layer_names() -> Iterator[None]:
    saved = dict(backend._NAME_UIDS)
    backend._NAME_UIDS.clear()
    yield
    backend._NAME_UIDS.clear()
    backend._NAME_UIDS.update(saved)
