"""keras.regularizers.OrthogonalRegularizer against Keras-on-TF 2.21: penalties and
gradients (within a few float32 ulps: the order of the sums), configs and errors."""

from __future__ import annotations

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf

R = tf.keras.regularizers
W = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [0.0, 1.0, 1.0]], "float32")
TF = {
    "rows": (0.171987846493721, [
        [0.007999371737241745, 0.008865315467119217, 0.02573000267148018],
        [0.009373815730214119, 0.021297046914696693, 0.013629332184791565],
        [-0.006971782073378563, 0.024646133184432983, 0.02091534249484539],
        [0.0915142074227333, -0.01367944572120905, 0.013679450377821922]]),
    "columns": (0.17677707970142365, [
        [0.010874981060624123, 0.010246772319078445, -0.005313381552696228],
        [0.0062930407002568245, -0.012762065976858139, 0.00132833793759346],
        [-0.004673834890127182, 0.03460606560111046, 0.037226736545562744],
        [0.03900987282395363, -0.03963664919137955, -0.04519681632518768]]),
}  # fmt: skip


@pytest.mark.parametrize("mode", ["rows", "columns"])
def test_penalty_and_gradient_match_tf(mode: str) -> None:
    r = R.OrthogonalRegularizer(factor=0.5, mode=mode)
    w = tf.constant(W)
    with tf.GradientTape() as tape:
        tape.watch(w)
        v = r(w)
    assert v.dtype == tf.float32
    assert_ulp(v.numpy(), TF[mode][0], ulps=4)
    assert_ulp(tape.gradient(v, w).numpy(), TF[mode][1], ulps=64, atol=1e-8)
    assert r.get_config() == {"factor": 0.5, "mode": mode}


def test_configs_and_names() -> None:
    assert type(R.get("orthogonal_regularizer")) is R.OrthogonalRegularizer
    assert R.get("OrthogonalRegularizer").get_config() == {
        "factor": 0.009999999776482582, "mode": "rows"}  # fmt: skip
    entry = {"module": "keras.regularizers", "class_name": "OrthogonalRegularizer",
             "config": {"factor": 0.10000000149011612, "mode": "rows"},
             "registered_name": None}  # fmt: skip
    assert R.serialize(R.OrthogonalRegularizer(0.1)) == entry
    dense = tf.keras.layers.Dense(3, kernel_regularizer=R.OrthogonalRegularizer(0.1))
    assert dense.get_config()["kernel_regularizer"] == entry
    again = tf.keras.layers.Dense.from_config(dense.get_config())
    assert again.kernel_regularizer.get_config() == entry["config"]


def test_errors() -> None:
    with pytest.raises(ValueError, match=r"^Invalid value for argument factor: expected a "
                       r"non-negative float\.Received: factor=-1\.0$"):  # fmt: skip
        R.OrthogonalRegularizer(factor=-1.0)
    with pytest.raises(ValueError, match=r'Expected one of \{"rows", "columns"\}\. Received: '
                       r"mode=diag$"):  # fmt: skip
        R.OrthogonalRegularizer(mode="diag")
    with pytest.raises(ValueError, match=r"^Inputs to OrthogonalRegularizer must have rank 2\. "
                       r"Received: inputs\.shape=\(2, 2, 2\)$"):  # fmt: skip
        R.OrthogonalRegularizer()(tf.ones([2, 2, 2]))
