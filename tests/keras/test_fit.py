"""``compile``/``fit``/``evaluate``/``predict`` against Keras 3.15 on TF 2.21: the same
program (seeded GlorotUniform initializers, which symgrad draws as Keras does, and
``shuffle=False``) run in the TF venv gave the literals below; float32 losses agree to
rounding (rtol 1e-5), accuracies exactly (they count whole samples)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

keras = tf.keras
RTOL = 1e-5


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    keras.backend.clear_session()  # later test files count layer names from zero


def make(seed: int = 1) -> keras.Model:
    keras.backend.clear_session()
    glorot = keras.initializers.GlorotUniform
    return keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu", kernel_initializer=glorot(seed=seed)),
            keras.layers.Dense(3, kernel_initializer=glorot(seed=seed + 1)),
        ]
    )


def data() -> tuple[np.ndarray, np.ndarray]:
    x = np.random.RandomState(0).rand(40, 4).astype(np.float32)
    return x, (np.arange(40) % 3).astype(np.int32)


def check_history(got: dict[str, list[float]], want: dict[str, list[float]]) -> None:
    assert list(got) == list(want)
    for k, v in want.items():
        np.testing.assert_allclose(got[k], v, rtol=RTOL, err_msg=k)


def test_fit_strings_validation_split_evaluate_predict() -> None:
    x, y = data()
    model = make()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    assert model.metrics_names == ["loss", "compile_metrics"]  # as Keras's
    h = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, validation_split=0.25, verbose=0)
    check_history(
        h.history,
        {
            "accuracy": [0.4333333373069763] * 3,
            "loss": [4.503358364105225, 4.096068859100342, 4.045821666717529],
            "val_accuracy": [0.4000000059604645, 0.4000000059604645, 0.30000001192092896],
            "val_loss": [6.434983253479004, 6.426046848297119, 6.417572975158691],
        },
    )
    assert h.epoch == [0, 1, 2] and model.history is h
    assert type(model.metrics[1].metrics[0]).__name__ == "SparseCategoricalAccuracy"
    np.testing.assert_allclose(
        model.evaluate(x, y, verbose=0), [4.6131768226623535, 0.42500001192092896], rtol=RTOL
    )
    d = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(d) == ["accuracy", "loss"]
    pred = model.predict(x[:3], verbose=0)
    np.testing.assert_allclose(
        pred,
        [
            [-0.041988350450992584, 0.15007486939430237, 0.170465886592865],
            [-0.050314731895923615, 0.15381811559200287, 0.23618517816066742],
            [-0.20277835428714752, 0.18393263220787048, 0.21696026623249054],
        ],
        rtol=RTOL,
        atol=1e-7,
    )
    assert model.predict(x, batch_size=16, verbose=0).shape == (40, 3)
    np.testing.assert_allclose(
        model.train_on_batch(x[:8], y[:8]), [2.897254467010498, 0.375], rtol=RTOL
    )
    np.testing.assert_allclose(
        model.test_on_batch(x[:8], y[:8]), [2.8697736263275146, 0.375], rtol=RTOL
    )
    np.testing.assert_allclose(
        model.predict_on_batch(x[:2]),
        [
            [-0.037669893354177475, 0.1459183394908905, 0.16787832975387573],
            [-0.045918527990579605, 0.14957647025585175, 0.23352524638175964],
        ],
        rtol=RTOL,
    )


def test_fit_class_weight_validation_data_sample_weight_initial_epoch() -> None:
    x, y = data()
    yo = np.eye(3, dtype=np.float32)[y]
    model = make(5)
    model.compile(keras.optimizers.SGD(0.1), "mse", metrics=["accuracy", "mae"])
    h = model.fit(
        x, yo, batch_size=12, epochs=2, shuffle=False, class_weight={0: 1.0, 1: 2.0, 2: 0.5},
        validation_data=(x[:10], yo[:10]), verbose=0,
    )  # fmt: skip
    assert type(model.metrics[1].metrics[0]).__name__ == "CategoricalAccuracy"
    check_history(
        h.history,
        {
            "accuracy": [0.32499998807907104, 0.3499999940395355],
            "loss": [0.26608383655548096, 0.24646615982055664],
            "mae": [0.460029274225235, 0.4436597228050232],
            "val_accuracy": [0.30000001192092896, 0.30000001192092896],
            "val_loss": [0.282584011554718, 0.26632171869277954],
            "val_mae": [0.44057244062423706, 0.4326304793357849],
        },
    )
    sw = np.linspace(0.5, 1.5, 40).astype(np.float32)
    h = model.fit(
        x, yo, batch_size=12, epochs=4, initial_epoch=2, shuffle=False, sample_weight=sw, verbose=0
    )
    assert h.epoch == [2, 3]
    check_history(
        h.history,
        {
            "accuracy": [0.4000000059604645, 0.30000001192092896],
            "loss": [0.24998140335083008, 0.2364593744277954],
            "mae": [0.437870591878891, 0.4358731806278229],
        },
    )


def test_fit_on_dataset_with_steps_per_epoch_running_out() -> None:
    x, y = data()
    model = make(7)
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(10)
    with pytest.warns(UserWarning, match="Your input ran out of data"):
        h = model.fit(ds, epochs=2, verbose=0, steps_per_epoch=3)
    # TF ends the second epoch after the one batch left, and records it
    check_history(
        h.history,
        {
            "accuracy": [0.3333333432674408, 0.4000000059604645],
            "loss": [6.5331830978393555, 4.599709510803223],
        },
    )
    np.testing.assert_allclose(
        model.evaluate(ds, verbose=0), [1.6854658126831055, 0.32499998807907104], rtol=RTOL
    )


def test_verbose_lines_have_keras_format(capsys: pytest.CaptureFixture[str]) -> None:
    x, y = data()
    model = make()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, batch_size=16, epochs=2, shuffle=False, validation_split=0.25, verbose=0)
    assert capsys.readouterr().out == ""
    model.fit(x, y, batch_size=16, epochs=2, shuffle=False, validation_split=0.25, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    # TF: "2/2 - 1s - 607ms/step - accuracy: 0.4333 - loss: 4.0458 - val_accuracy: ..."
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    pattern = r"2/2 - \d+s - \d+(us|ms|s)/step - accuracy: 0\.\d{4} - loss: \d\.\d{4} - "
    pattern += r"val_accuracy: 0\.\d{4} - val_loss: \d\.\d{4}"
    assert all(__import__("re").fullmatch(pattern, line) for line in lines[1::2]), lines
    model.evaluate(x, y, verbose=1)
    out = capsys.readouterr().out
    # TF redraws "\r1/2 ━━...━ ..." then, after backspaces, the final "2/2 ━━...━ ...\n"
    final = out.split("\r")[-1]
    assert final.startswith("\x1b[1m2/2\x1b[0m \x1b[32m" + "━" * 20 + "\x1b[0m")
    assert final.endswith("\n") and " - accuracy: " in final and " - loss: " in final
    assert out.startswith("\r\x1b[1m1/2\x1b[0m \x1b[32m" + "━" * 10)


def test_compile_errors_and_flags() -> None:
    model = make()
    x, y = data()
    with pytest.raises(ValueError, match="must call `compile"):
        model.fit(x, y, verbose=0)
    model.compile(optimizer="rmsprop", loss="mse", run_eagerly=True, jit_compile=False)
    model.fit(x, np.eye(3, dtype=np.float32)[y], epochs=1, verbose=0)
    model.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="Arguments not recognized"):
        model.evaluate(x, y, verbose=0, bogus=1)
    with pytest.raises(ValueError, match="not sufficient to split"):
        model.fit(x[:1], y[:1], validation_split=0.5, verbose=0)


def test_shuffle_with_set_random_seed_gives_tf_order() -> None:
    """Keras on TF shuffles each epoch with ``tf.random.shuffle`` (op seed 0 under the
    global seed) in a fresh ``tf.data`` iterator; unseeded initializers draw their seeds
    from Python's ``random``: with ``set_random_seed`` both repeat TF's numbers."""
    keras.utils.set_random_seed(3)
    keras.backend.clear_session()
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(5, activation="tanh"), keras.layers.Dense(1)]
    )
    np.testing.assert_allclose(np.sum(model.get_weights()[0]), 0.5974510908126831, rtol=RTOL)
    rs = np.random.RandomState(0)
    x, y = rs.rand(50, 4).astype(np.float32), rs.rand(50, 1).astype(np.float32)
    model.compile(keras.optimizers.SGD(0.1), "mse")
    h = model.fit(x, y, batch_size=8, epochs=3, verbose=0)
    want = [0.1650630235671997, 0.08373840153217316, 0.08323846757411957]
    np.testing.assert_allclose(h.history["loss"], want, rtol=RTOL)
    h = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    np.testing.assert_allclose(h.history["loss"], [0.08301497250795364], rtol=RTOL)
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        keras.utils.set_random_seed(1.5)


def _two_outputs(as_dict: bool) -> keras.Model:
    keras.backend.clear_session()
    g = keras.initializers.GlorotUniform
    inp = keras.Input((4,))
    hidden = keras.layers.Dense(6, activation="relu", kernel_initializer=g(seed=1))(inp)
    a = keras.layers.Dense(3, name="cls", kernel_initializer=g(seed=2))(hidden)
    b = keras.layers.Dense(1, name="reg", kernel_initializer=g(seed=3))(hidden)
    return keras.Model(inp, {"cls": a, "reg": b} if as_dict else [a, b])


def test_two_outputs_as_list_with_loss_weights() -> None:
    x, y1 = data()
    y2 = np.random.RandomState(0).rand(200, 1).astype(np.float32)[160:]  # after x's draws
    model = _two_outputs(as_dict=False)
    model.compile(
        "adam", loss=["sparse_categorical_crossentropy", "mse"], loss_weights=[1.0, 0.5],
        metrics=[["accuracy"], ["mae"]],
    )  # fmt: skip
    h = model.fit(
        x, [y1, y2], batch_size=16, epochs=2, shuffle=False, verbose=0, validation_split=0.25
    )
    # cls_loss/reg_loss: plain means of the batches' values, as Keras's TF backend gives them
    check_history(
        h.history,
        {
            "cls_accuracy": [0.2666666805744171, 0.3333333432674408],
            "cls_loss": [3.237448215484619, 2.770771026611328],
            "loss": [3.3602497577667236, 2.940795660018921],
            "reg_loss": [0.3358703553676605, 0.3325955271720886],
            "reg_mae": [0.4894660711288452, 0.48688048124313354],
            "val_cls_accuracy": [0.4000000059604645, 0.30000001192092896],
            "val_cls_loss": [3.1891982555389404, 3.2318243980407715],
            "val_loss": [3.2977395057678223, 3.3394248485565186],
            "val_reg_loss": [0.2170819491147995, 0.21520128846168518],
            "val_reg_mae": [0.35524407029151917, 0.35374847054481506],
        },
    )
    want = [2.8916382789611816, 2.5764565467834473, 0.28159981966018677, 0.325, 0.4523407816886902]
    np.testing.assert_allclose(model.evaluate(x, [y1, y2], verbose=0), want, rtol=RTOL)
    assert model.metrics_names == ["loss", "compile_metrics", "cls_loss", "reg_loss"]


def test_two_outputs_as_dict() -> None:
    x, y1 = data()
    y2 = np.random.RandomState(0).rand(200, 1).astype(np.float32)[160:]  # after x's draws
    model = _two_outputs(as_dict=True)
    model.compile(
        "sgd", loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
        metrics={"cls": "accuracy"},
    )  # fmt: skip
    h = model.fit(x, {"cls": y1, "reg": y2}, batch_size=16, epochs=2, shuffle=False, verbose=0)
    check_history(
        h.history,
        {
            "cls_accuracy": [0.2750000059604645, 0.32499998807907104],
            "cls_loss": [2.2155754566192627, 1.578218936920166],
            "loss": [2.7117419242858887, 1.7980152368545532],
            "reg_loss": [0.246120885014534, 0.12128525227308273],
        },
    )
    pred = model.predict(x[:2], verbose=0)
    assert sorted(pred) == ["cls", "reg"] and pred["cls"].shape == (2, 3)
    np.testing.assert_allclose(
        pred["reg"], [[0.45767825841903687], [0.41771090030670166]], rtol=RTOL
    )


LOSS_DICT_HISTORY = {
    "aa_loss": [2.184704303741455, 2.3890795707702637],
    "loss": [2.572882890701294, 2.795316219329834],
    "zz_loss": [0.2679494619369507, 0.20059442520141602],
}
LOSS_DICT_EVALUATE = [2.6449732780456543, 0.18298648297786713, 1.9143354892730713]


def test_a_loss_dict_is_walked_in_its_own_order() -> None:
    """Dict outputs with a loss dict in another order than the outputs' sorted keys: the
    ``<key>_loss`` trackers, and the sum of the weighted losses, go in the loss dict's
    order, as Keras walks it.  Inputs are named as ``Input(name=...)``; ``output_names``
    are the output layers' names, by sorted key."""
    keras.backend.clear_session()
    g = keras.initializers.GlorotUniform
    inp = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(6, activation="relu", kernel_initializer=g(seed=1))(inp)
    a = keras.layers.Dense(3, name="cls", kernel_initializer=g(seed=2))(hidden)
    b = keras.layers.Dense(1, name="reg", kernel_initializer=g(seed=3))(hidden)
    model = keras.Model(inp, {"zz": b, "aa": a})
    assert model.output_names == ["cls", "reg"] and [t.name for t in model.inputs] == ["features"]
    x, y1 = data()
    y2 = np.random.RandomState(0).rand(200, 1).astype(np.float32)[160:]
    model.compile(
        "sgd", loss={"zz": "mse", "aa": "sparse_categorical_crossentropy"},
        loss_weights={"zz": 0.5, "aa": 1.0},
    )  # fmt: skip
    h = model.fit(x, {"aa": y1, "zz": y2}, batch_size=16, epochs=2, shuffle=False, verbose=0)
    check_history(h.history, LOSS_DICT_HISTORY)
    got = model.evaluate(x, {"aa": y1, "zz": y2}, verbose=0)
    np.testing.assert_allclose(got, LOSS_DICT_EVALUATE, rtol=RTOL)
    assert model.metrics_names == ["loss", "zz_loss", "aa_loss"]


def test_regularizer_seeded_dropout_and_auc_in_fit() -> None:
    """``model.losses`` join the loss; a seeded Dropout draws TF's masks step after step."""
    keras.backend.clear_session()
    g = keras.initializers.GlorotUniform
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(
                8, activation="relu", kernel_initializer=g(seed=1),
                kernel_regularizer=keras.regularizers.L2(0.01),
            ),
            keras.layers.Dropout(0.3, seed=2),
            keras.layers.Dense(1, activation="sigmoid", kernel_initializer=g(seed=2)),
        ]
    )  # fmt: skip
    rs = np.random.RandomState(0)
    x, y = rs.rand(40, 4).astype(np.float32), (rs.rand(40) > 0.5).astype(np.float32)
    metrics = ["accuracy", keras.metrics.AUC(name="auc")]
    model.compile(keras.optimizers.Adam(0.01), "binary_crossentropy", metrics=metrics)
    h = model.fit(
        x, y, batch_size=16, epochs=3, shuffle=False, verbose=0, validation_data=(x[:16], y[:16])
    )
    check_history(
        h.history,
        {
            "accuracy": [0.44999998807907104, 0.44999998807907104, 0.375],
            "auc": [0.48120301961898804, 0.359649121761322, 0.4147869348526001],
            "loss": [0.7414714694023132, 0.7425397634506226, 0.7286888360977173],
            "val_accuracy": [0.5, 0.5, 0.5],
            "val_auc": [0.5703125, 0.546875, 0.53125],
            "val_loss": [0.7248133420944214, 0.7191530466079712, 0.7151225209236145],
        },
    )
    want = [0.7195652723312378, 0.44999998807907104, 0.4523809552192688]
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), want, rtol=RTOL)


def test_dataset_with_sample_weights_weighted_metrics_and_validation_dataset() -> None:
    x, y = data()
    sw = np.linspace(0.2, 2, 40).astype(np.float32)
    keras.backend.clear_session()
    init = keras.initializers.GlorotUniform(seed=4)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, kernel_initializer=init)])
    model.compile(
        keras.optimizers.SGD(0.3), "sparse_categorical_crossentropy", metrics=["accuracy"],
        weighted_metrics=["accuracy"],
    )  # fmt: skip
    ds = tf.data.Dataset.from_tensor_slices((x, y, sw)).batch(12)
    val = tf.data.Dataset.from_tensor_slices((x[:20], y[:20])).batch(7)
    h = model.fit(ds, epochs=2, verbose=0, validation_data=val)
    check_history(  # TF sorts the whole epoch's logs: weighted_accuracy comes last
        h.history,
        {
            "accuracy": [0.4000000059604645, 0.3499999940395355],
            "loss": [7.14758825302124, 11.52596378326416],
            "val_accuracy": [0.3499999940395355, 0.3499999940395355],
            "val_loss": [10.476762771606445, 10.476762771606445],
            "val_weighted_accuracy": [0.3499999940395355, 0.3499999940395355],
            "weighted_accuracy": [0.37272727489471436, 0.3499999940395355],
        },
    )
    assert model.predict(tf.data.Dataset.from_tensor_slices(x[:5]).batch(2), verbose=0).shape == (
        5,
        3,
    )
    with pytest.raises(ValueError, match="cannot `class_weight` and `sample_weight`"):
        model.fit(ds, verbose=0, class_weight={0: 2.0, 1: 1.0, 2: 1.0})
    with pytest.raises(ValueError, match="cannot `class_weight` and `sample_weight`"):
        model.fit(x, y, verbose=0, sample_weight=sw, class_weight={0: 2.0, 1: 1.0, 2: 1.0})


def test_a_reshuffled_dataset_gives_each_epoch_tfs_order():
    """Keras's epoch iterator opens one unread iterator after each epoch that read every
    batch, so epoch k reads the dataset's (2k-1)th shuffle: TF 2.21's losses (printed to 5
    places; another order gives epoch 2 0.47544)."""
    tf.random.set_seed(0)
    x = tf.linspace(-1.0, 1.0, 48)
    feats = tf.stack([x, tf.repeat(x[::2], 2) ** 2, tf.sin(x)], axis=1)
    y = tf.reduce_sum(feats * [1.0, -0.5, 2.0], axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((feats, y)).shuffle(48, seed=1).batch(8)
    g = tf.keras.initializers.GlorotUniform
    model = tf.keras.Sequential(
        [
            tf.keras.Input((3,)),
            tf.keras.layers.Dense(8, activation="tanh", kernel_initializer=g(seed=1)),
            tf.keras.layers.Dense(1, kernel_initializer=g(seed=2)),
        ]
    )
    model.compile(tf.keras.optimizers.Adam(0.05), "mse")
    losses = model.fit(ds, epochs=3, verbose=0).history["loss"]
    np.testing.assert_allclose(losses, [2.35984, 0.52903, 0.12339], atol=1e-5)


def test_arrays_of_different_lengths_are_an_error() -> None:
    """Keras's check: x of 4 samples and y of 5 trained silently on misaligned pairs."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError) as e:
        model.fit(np.ones((4, 3), np.float32), np.ones((5, 2)), verbose=0)
    assert str(e.value) == (
        "Data cardinality is ambiguous. Make sure all arrays contain the same number of "
        "samples.'x' sizes: 4\n'y' sizes: 5\n"
    )
    with pytest.raises(ValueError, match="'sample_weight' sizes: 3"):
        model.evaluate(np.ones((4, 3)), np.ones((4, 2)), sample_weight=np.ones(3), verbose=0)


def test_a_short_last_batch_takes_a_relaxed_trace_and_weighs_by_its_size() -> None:
    """Keras's steps are ``tf.function(reduce_retracing=True)``: the short last batch
    runs a trace whose batch size is unknown, and the loss is still weighted by each
    batch's size (Keras's TF backend reads it at run time).  TF 2.21's losses below; the
    loss of the whole data is 7.0043148 whatever the batches."""
    rng = np.random.RandomState(0)
    x, y = rng.randn(10, 3).astype(np.float32), rng.randn(10, 1).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, "linear", False)])
    model.layers[0].kernel.assign(np.ones((3, 1), np.float32))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse")
    first = model.fit(x, y, batch_size=4, epochs=1, verbose=0).history["loss"]
    second = model.fit(x, y, batch_size=3, epochs=2, verbose=0).history["loss"]
    np.testing.assert_allclose(first + second, [7.0043154, 7.0043144, 7.0043154], rtol=4e-7)
    shapes = [cf.inputs[0].shape.as_list() for cf in model._step_function("train")._cache.values()]
    assert sorted(shapes, key=str) == [[4, 3], [None, 3]]  # the batches of 3 take the second
