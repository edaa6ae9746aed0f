"""The TensorFlow tutorials' compile/fit programs (issue 26, "Done when") on generated data:
tests/keras/tutorials_program.py runs the beginner quickstart, the CNN with
``validation_data``, overfit-and-underfit (L2 regularizers, Dropout, InverseTimeDecay,
EarlyStopping) and the Transformer tutorial's masked loss/accuracy with its CustomSchedule
and Adam(beta_2=0.98, epsilon=1e-9). ``python tutorials_program.py tensorflow`` on TF 2.21 /
Keras 3.15.1 printed TF_NUMBERS; symgrad must print them to float32 rounding."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf

sys.path.insert(0, str(Path(__file__).parent))
import tutorials_program

RTOL, ATOL = 1e-5, 1e-6  # float32 rounding; ATOL for logits near zero

TF_NUMBERS: dict[str, dict[str, Any]] = {
    "quickstart": {
        "logits0": [
            0.7909955382347107,
            0.003988401498645544,
            0.06188567355275154,
            -0.1261330544948578,
            -0.014042702503502369,
            0.00797803420573473,
            -0.6259040236473083,
            0.37222203612327576,
            -0.6465354561805725,
            -0.35972848534584045,
        ],
        "first_loss": 2.351651906967163,
        "history": {
            "accuracy": [0.1145833358168602, 0.1458333283662796, 0.1979166716337204],
            "loss": [2.362806558609009, 2.291686773300171, 2.2270007133483887],
        },
        "evaluate": [2.3359436988830566, 0.0625],
        "probs": [
            [
                0.12119355797767639,
                0.12718963623046875,
                0.11252635717391968,
                0.06467588245868683,
                0.11578236520290375,
                0.08537939935922623,
                0.0589330717921257,
                0.10786886513233185,
                0.06390035152435303,
                0.1425505131483078,
            ],
            [
                0.09677336364984512,
                0.10583650320768356,
                0.12706506252288818,
                0.05873708054423332,
                0.12895818054676056,
                0.103750079870224,
                0.0643724799156189,
                0.10725195705890656,
                0.09317339211702347,
                0.11408191919326782,
            ],
        ],
    },
    "cnn": {
        "history": {
            "accuracy": [0.0833333358168602, 0.125, 0.1041666641831398],
            "loss": [2.407467842102051, 2.3629400730133057, 2.337812662124634],
            "val_accuracy": [0.1875, 0.125, 0.125],
            "val_loss": [2.197946548461914, 2.2186450958251953, 2.2374041080474854],
        },
        "evaluate": [2.2374041080474854, 0.125],
    },
    "overfit": {
        "history": {
            "accuracy": [0.578125, 0.875, 0.953125, 0.90625],
            "binary_crossentropy": [
                0.7107459902763367,
                0.2774869203567505,
                0.12998083233833313,
                0.22629308700561523,
            ],
            "loss": [
                0.7543644905090332,
                0.3256322741508484,
                0.18414047360420227,
                0.28559666872024536,
            ],
            "val_accuracy": [0.5, 0.5625, 0.5625, 0.5625],
            "val_binary_crossentropy": [
                1.1426074504852295,
                1.7352796792984009,
                2.617432117462158,
                3.3199596405029297,
            ],
            "val_loss": [
                1.189335823059082,
                1.787951111793518,
                2.675736427307129,
                3.382077932357788,
            ],
        },
        "stopped_epoch": 3,
    },
    "transformer": {
        "lrs": [0.03125, 0.125, 0.0833333358168602],
        "history": {
            "loss": [2.4872398376464844, 2.387038230895996, 2.213149309158325, 2.0924088954925537],
            "masked_accuracy": [
                0.10683760792016983,
                0.14835165441036224,
                0.16727717220783234,
                0.2844932973384857,
            ],
        },
        "iterations": 12,
        "lr_now": 0.07216878235340118,
    },
}


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    tf.keras.backend.clear_session()  # later test files count layer names from zero


def check(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict):
        assert list(got) == list(want), where
        for k in want:
            check(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, int):
        assert got == want, where
    else:
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=where)


@pytest.mark.parametrize("name", list(TF_NUMBERS))
def test_tutorial_prints_tf_numbers(name: str) -> None:
    check(tutorials_program.PROGRAMS[name](tf), TF_NUMBERS[name], name)


@pytest.mark.parametrize(
    ("staircase", "want"),
    [
        (False, [0.1, 0.08571428805589676, 0.07499999552965164, 0.06666667014360428,
                 0.054545458406209946, 0.046153850853443146]),
        (True, [0.1, 0.1, 0.1, 0.06666667014360428, 0.06666667014360428, 0.05000000074505806]),
    ],
)  # fmt: skip
def test_inverse_time_decay_as_keras(staircase: bool, want: list[float]) -> None:
    # the overfit-and-underfit tutorial's schedule; TF 2.21's values at steps 0,1,2,3,5,7
    s = tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 3, 0.5, staircase=staircase)
    got = [float(s(i).numpy()) for i in (0, 1, 2, 3, 5, 7)]
    np.testing.assert_allclose(got, want, rtol=RTOL)
    assert s.get_config() == {
        "initial_learning_rate": 0.1,
        "decay_steps": 3,
        "decay_rate": 0.5,
        "staircase": staircase,
        "name": "InverseTimeDecay",
    }
    again = tf.keras.optimizers.schedules.deserialize(tf.keras.optimizers.schedules.serialize(s))
    assert type(again).__name__ == "InverseTimeDecay" and again.staircase is staircase
