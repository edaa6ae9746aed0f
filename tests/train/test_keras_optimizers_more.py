"""tf.keras.optimizers.schedules.CosineDecayRestarts (Keras 3 as TF 2.21 ships it):
TensorFlow's rates, and variables after several steps, for the programs in
tf_keras_optimizers_more.py."""

import pytest
import tf_keras_optimizers_more
from compare import assert_matches

import symgrad as tf

LITERALS = {
    "restarts": (
        [[0.4280819, -0.9520546, 1.8801366], [1.5239726, 0.15410918, -0.6061638]],
        [-0.08232996, -0.10883503, 0.2544175],
        (
            5,
            [
                [0.0026318915, -0.0017545945, 0.004386486],
                [-0.00087729725, 0.003509189, -0.005263783],
            ],
            [-0.05107995, 0.025539976, -0.012769988],
        ),
    ),
    "restart_rates": (
        (
            (
                1.0,
                0.75,
                0.24999997,
                1.0,
                0.9330127,
                0.75,
                0.49999997,
                0.25000006,
                1.0,
                0.9829629,
                0.6294096,
                0.49999997,
                1.0,
                0.9957224,
                0.6913417,
                1.0,
                0.9989295,
                0.9869385,
            ),
            (
                0.5,
                0.44142136,
                0.29999998,
                0.15857865,
                0.42000002,
                0.3731371,
                0.26,
                0.14686292,
                0.3185097,
                0.22800002,
                0.2024,
                0.12999228,
                0.21187696,
                0.165536,
                0.14194304,
                0.12932788,
                0.11717987,
                0.10151116,
            ),
            (
                0.1,
                0.0525,
                0.0525,
                0.040625002,
                0.016874999,
                0.02875,
                0.025971776,
                0.018937072,
                0.0057161497,
                0.016714955,
                0.00796875,
                0.0059767906,
                0.008256158,
                0.007340254,
                0.0075706327,
                0.006402535,
                0.0063496935,
                0.0053703263,
            ),
            (
                0.3,
                0.3,
                0.22500001,
                0.074999996,
                0.3,
                0.2909539,
                0.26490667,
                0.22500001,
                0.12395276,
                0.074999996,
                0.29898575,
                0.29595673,
                0.2395738,
                0.22500001,
                0.09058803,
                0.2971883,
                0.29595673,
                0.04706375,
            ),
        ),
        (0.1, 0.040625002, 0.015485889),
        {
            "module": "keras.optimizers.schedules",
            "class_name": "CosineDecayRestarts",
            "config": {
                "initial_learning_rate": 0.1,
                "first_decay_steps": 2,
                "t_mul": 1.5,
                "m_mul": 0.5,
                "alpha": 0.05,
                "name": "SGDRDecay",
            },
            "registered_name": None,
        },
        0.018937072,
        {
            "module": "keras.optimizers.schedules",
            "class_name": "CosineDecayRestarts",
            "config": {
                "initial_learning_rate": 0.3,
                "first_decay_steps": 1,
                "t_mul": 3.0,
                "m_mul": 1.0,
                "alpha": 0.0,
                "name": "SGDRDecay",
            },
            "registered_name": None,
        },
    ),
    "inverse_time_rates": (
        (0.5, 0.4054054, 0.3409091, 0.29411763, 0.23076925, 0.1744186, 0.12396694),
        (1.0, 1.0, 0.6666667, 0.6666667, 0.5, 0.33333334, 0.25),
    ),
}


@pytest.mark.parametrize("program", tf_keras_optimizers_more.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    assert_matches(program(tf), LITERALS[program.__name__])
