"""keras.layers.RMSNormalization against Keras-on-TF 2.21: outputs, config, weights and
gradients (TF's literals; the input gradient within a few ulps: its sums' order)."""

from __future__ import annotations

import numpy as np
from ulp import assert_ulp

import symgrad as tf

X = np.linspace(-1.5, 2.0, 24, dtype="float32").reshape(2, 3, 4)
W = np.arange(24, dtype="float32").reshape(2, 3, 4)
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}  # fmt: skip
Y = [
    [
        [-1.1690715551376343, -1.0504701137542725, -0.9318686127662659, -0.813267171382904],
        [-1.3020780086517334, -1.0797719955444336, -0.8574659824371338, -0.635159969329834],
        [-1.5822848081588745, -0.7302852869033813, 0.12171421945095062, 0.973713755607605],
    ],
    [
        [0.5623454451560974, 0.8247732520103455, 1.0872011184692383, 1.3496289253234863],
        [0.7952739000320435, 0.9247370958328247, 1.054200291633606, 1.1836634874343872],
        [0.8671764731407166, 0.9526727795600891, 1.038169026374817, 1.1236653327941895],
    ],
]
GX = [
    [
        [-1.2195792198181152, -0.31647276878356934, 0.5866337418556213, 1.4897401332855225],
        [-3.7615466117858887, -0.6607975959777832, 2.4399523735046387, 5.540701389312744],
        [28.616872787475586, 42.924781799316406, 57.23269271850586, 71.54060363769531],
    ],
    [
        [7.860385894775391, 3.5957469940185547, -0.6688919067382812, -4.933528900146484],
        [1.7870817184448242, 0.7128324508666992, -0.3614177703857422, -1.4356689453125],
        [0.7575778961181641, 0.28626155853271484, -0.18505382537841797, -0.6563692092895508],
    ],
]
GS = [18.949466705322266, 33.42681121826172, 51.244747161865234, 72.40327453613281]
Y2 = [
    [
        [-1.6609556674957275, -1.49245285987854, -1.3239500522613525, -1.1554473638534546],
        [-0.9869446754455566, -0.8184418678283691, -0.6499391198158264, -0.4814364016056061],
        [-0.31293365359306335, -0.14443092048168182, 0.024071820080280304, 0.19257456064224243],
    ],
    [
        [0.2480180412530899, 0.3637597858905792, 0.47950154542922974, 0.5952432751655579],
        [0.7109850645065308, 0.8267267942428589, 0.942468523979187, 1.0582102537155151],
        [1.1739519834518433, 1.2896937131881714, 1.405435562133789, 1.5211772918701172],
    ],
]


def test_outputs_config_and_gradients_match_tf() -> None:
    layer = tf.keras.layers.RMSNormalization(name="rms")
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * tf.constant(W))
    gx, gs = tape.gradient(loss, [x, layer.scale])
    assert layer.get_config() == {"name": "rms", "trainable": True, "dtype": POLICY,
                                  "axis": [-1], "epsilon": 1e-06}  # fmt: skip
    assert [w.name for w in layer.weights] == ["scale"] and tuple(layer.scale.shape) == (4,)
    assert_ulp(y.numpy(), Y, ulps=2)
    assert_ulp(gx.numpy(), GX, ulps=16, atol=2e-6)
    assert_ulp(gs.numpy(), GS, ulps=4)


def test_several_axes_and_round_trip() -> None:
    layer = tf.keras.layers.RMSNormalization(axis=(2, 1), epsilon=0.1, name="rms2")
    assert_ulp(layer(tf.constant(X)).numpy(), Y2, ulps=2)
    config = layer.get_config()
    assert (config["axis"], config["epsilon"]) == ([1, 2], 0.1)
    assert tuple(layer.scale.shape) == (3, 4)
    again = tf.keras.layers.RMSNormalization.from_config(config)
    assert again.get_config() == config


def test_gradient_matches_finite_differences() -> None:
    layer = tf.keras.layers.RMSNormalization(dtype="float64")
    x = tf.constant(X.astype("float64")[0])
    theory, numeric = tf.test.compute_gradient(layer, [x])
    np.testing.assert_allclose(theory[0], numeric[0], rtol=1e-4, atol=1e-6)  # (the FD's step)
