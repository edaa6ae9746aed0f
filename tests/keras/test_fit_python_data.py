"""fit/evaluate/predict on Python generators and ``keras.utils.PyDataset`` give TF 2.21's
numbers, callback events, warnings and (for a PyDataset) the order batches are read in,
from the same program (python_data_program.py; TF's output is data/python_data_tf.json)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from tests.keras.python_data_program import X, Y, run_all

TF = json.loads((pathlib.Path(__file__).parent / "data" / "python_data_tf.json").read_text())
RTOL = dict(rtol=2e-6, atol=1e-7)


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return run_all(tf.keras)


@pytest.mark.parametrize("name", [k for k in TF if isinstance(TF[k], dict)])
def test_fit_matches_tf(ours: dict[str, Any], name: str) -> None:
    got, want = ours[name], TF[name]
    assert got["events"] == want["events"]
    assert got["warnings"] == want["warnings"]
    assert set(got["history"]) == set(want["history"])
    for key, values in want["history"].items():
        np.testing.assert_allclose(got["history"][key], values, **RTOL)
    np.testing.assert_allclose(got["weights"], want["weights"], **RTOL)
    # TF reads a PyDataset a batch ahead in a thread: the reads are TF's, up to that one
    flat = [i for group in got["reads"] for i in group]
    assert flat == [i for group in want["reads"] for i in group][: len(flat)]
    if "steps" not in name:
        assert got["reads"] == want["reads"]


def test_evaluate_and_predict_match_tf(ours: dict[str, Any]) -> None:
    np.testing.assert_allclose(ours["evaluate_generator"], TF["evaluate_generator"], **RTOL)
    np.testing.assert_allclose(ours["evaluate_pydataset"][0], TF["evaluate_pydataset"][0], **RTOL)
    assert ours["evaluate_pydataset"][1] == TF["evaluate_pydataset"][1]
    np.testing.assert_allclose(ours["predict_pydataset"][0], TF["predict_pydataset"][0], **RTOL)
    assert ours["predict_pydataset"][1] == TF["predict_pydataset"][1]
    np.testing.assert_allclose(ours["predict_generator"], TF["predict_generator"], **RTOL)


def _model() -> Any:
    m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    return m


def _gen(n: int = 2) -> Any:
    for i in range(n):
        yield X[4 * i : 4 * i + 4], Y[4 * i : 4 * i + 4]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(x=_gen(), y=Y), "When providing `x` as a generator, `y` should not be passed"),
        (dict(x=_gen(), class_weight={0: 1.0}), "`class_weight` is not supported for Python"),
        (dict(x=_gen(), validation_split=0.5), "`validation_split` is only supported"),
        (dict(x=_gen(0)), "must yield at least one batch"),
        (dict(x=(x for x in X)), "the generator must return a tuple"),
    ],
)
def test_bad_python_input_is_refused_as_keras_does(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _model().fit(verbose=0, shuffle=False, **kwargs)


def test_sequence_is_pydataset() -> None:
    """(PyDataset's signature is in data/fit_signatures_tf.txt, checked by test_callbacks.)"""
    assert tf.keras.utils.Sequence is tf.keras.utils.PyDataset

    class Empty(tf.keras.utils.PyDataset):
        def __len__(self) -> int:
            return 0

    with pytest.raises(ValueError, match="The PyDataset has length 0"):
        _model().fit(Empty(), verbose=0)
