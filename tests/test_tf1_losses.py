"""tf.compat.v1.losses against TensorFlow 2.21: every loss with weights (per row, per
entry, none), label smoothing, each reduction (the default SUM_BY_NONZERO_WEIGHTS
included), and the graph's loss collection (get_losses, add_loss, get_total_loss).
The programs are tests/tf1_losses_calls.py; the literals TF's results for them."""

from __future__ import annotations

import numpy as np
import pytest
from tf1_losses_calls import run
from tf1_losses_expected import EXPECTED

import symgrad as tf

RESULTS = run(tf)


@pytest.mark.parametrize("key", list(EXPECTED))
def test_losses_give_tensorflows_numbers(key: str) -> None:
    got, want = RESULTS[key], EXPECTED[key]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (key, i, g, w)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7, err_msg=f"{key}[{i}]")


def test_bad_reduction_and_missing_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        tf.compat.v1.losses.mean_squared_error([1.0], [2.0], reduction="mean")
    with pytest.raises(ValueError, match="`labels` must not be None"):
        tf.compat.v1.losses.absolute_difference(None, [2.0])
