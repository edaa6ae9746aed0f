"""``tf.keras.callbacks`` in ``fit`` against Keras 3.15 on TF 2.21 (the same program, run in
the TF venv, gave the literals): which epoch EarlyStopping stops at and the weights it
restores, the learning rates the schedulers log, CSV columns, the order of every hook."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf
from tests.keras.test_fit import RTOL, check_history, data, make

keras = tf.keras
cbs = keras.callbacks


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    keras.backend.clear_session()


def _compiled(seed: int, optimizer: object, metrics: object = ("accuracy",)) -> keras.Model:
    model = make(seed)
    model.compile(optimizer, "sparse_categorical_crossentropy", metrics=list(metrics or []))
    return model


def test_early_stopping_restores_best_weights() -> None:
    x, y = data()
    model = _compiled(3, keras.optimizers.SGD(0.5))
    es = cbs.EarlyStopping(patience=2, restore_best_weights=True)
    h = model.fit(
        x, y, batch_size=16, epochs=30, shuffle=False, validation_split=0.25, verbose=0,
        callbacks=[es],
    )  # fmt: skip
    check_history(
        h.history,
        {
            "accuracy": [0.30000001192092896, 0.36666667461395264, 0.36666667461395264],
            "loss": [7.432542324066162, 1.0253751277923584, 2.6471970081329346],
            "val_accuracy": [0.30000001192092896] * 3,
            "val_loss": [1.0986123085021973, 6.183783054351807, 1.0986123085021973],
        },
    )
    assert (es.stopped_epoch, es.best_epoch) == (2, 0)
    np.testing.assert_allclose(np.sum(model.get_weights()[0]), -4.372853755950928, rtol=RTOL)
    np.testing.assert_allclose(
        model.evaluate(x[30:], y[30:], verbose=0), [1.0986123085021973, 0.3], rtol=RTOL
    )


def test_early_stopping_on_accuracy_from_epoch() -> None:
    x, y = data()
    model = _compiled(3, keras.optimizers.SGD(0.5))
    es = cbs.EarlyStopping(monitor="val_accuracy", patience=1, start_from_epoch=2)
    h = model.fit(
        x, y, batch_size=16, epochs=30, shuffle=False, validation_split=0.25, verbose=0,
        callbacks=[es],
    )  # fmt: skip
    assert (len(h.epoch), es.stopped_epoch) == (4, 3)  # TF's
    assert es.monitor_op is np.greater  # accuracy goes up, as Keras's _direction says
    es = cbs.EarlyStopping(monitor="val_foo", patience=1)
    with pytest.raises(ValueError, match="automatically determine"):
        model.fit(x, y, validation_split=0.25, verbose=0, callbacks=[es])


def test_schedulers_and_csv_logger(tmp_path: object) -> None:
    x, y = data()
    model = _compiled(4, keras.optimizers.Adam(0.05))
    path = f"{tmp_path}/log.csv"
    callbacks = [
        cbs.LearningRateScheduler(lambda e, lr: lr * 0.5 if e >= 2 else lr),
        cbs.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, min_delta=0.05),
        cbs.CSVLogger(path),
    ]
    h = model.fit(x, y, batch_size=16, epochs=6, shuffle=False, verbose=0, callbacks=callbacks)
    lr = [0.05, 0.05, 0.025, 0.00625, 0.0015625, 0.000390625]
    check_history(
        h.history,
        {
            "accuracy": [0.325, 0.3, 0.325, 0.325, 0.325, 0.325],
            "loss": [3.373595714569092] + [1.0986123085021973] * 5,
            "learning_rate": lr,
        },
    )
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "epoch,accuracy,learning_rate,loss,val_accuracy,val_learning_rate,val_loss"
    assert lines[1].startswith("0,0.32499998807907104,0.05000000074505806,3.37359") and lines[
        1
    ].endswith(",NA,NA,NA")
    assert len(lines) == 7


HOOKS = [
    f"on_{m}_{e}"
    for m in ("train", "test", "predict")
    for e in ("begin", "end", "batch_begin", "batch_end")
]


def test_every_hook_in_keras_order() -> None:
    calls: list[str] = []

    class Recorder(cbs.Callback):
        pass

    for hook in [*HOOKS, "on_epoch_begin", "on_epoch_end"]:

        def record(self, *args, name=hook, **kwargs):
            calls.append(name + ("" if not args else str(args[0])))

        setattr(Recorder, hook, record)
    x, y = data()
    model = _compiled(4, "sgd", metrics=None)
    model.fit(
        x,
        y,
        batch_size=16,
        epochs=2,
        shuffle=False,
        validation_data=(x[:20], y[:20]),
        verbose=0,
        callbacks=[Recorder()],
    )
    model.evaluate(x[:20], y[:20], verbose=0, callbacks=[Recorder()])
    model.predict(x[:20], batch_size=16, verbose=0, callbacks=[Recorder()])
    epoch = [
        *(f"on_train_batch_{e}{i}" for i in range(3) for e in ("begin", "end")),
        "on_test_begin",
        *(f"on_test_batch_{e}{i}" for i in range(2) for e in ("begin", "end")),
        "on_test_end",
    ]
    assert calls == [
        "on_train_begin", "on_epoch_begin0", *epoch, "on_epoch_end0", "on_epoch_begin1", *epoch,
        "on_epoch_end1", "on_train_end", "on_test_begin", "on_test_batch_begin0",
        "on_test_batch_end0", "on_test_end", "on_predict_begin", "on_predict_batch_begin0",
        "on_predict_batch_end0", "on_predict_batch_begin1", "on_predict_batch_end1",
        "on_predict_end",
    ]  # fmt: skip


def _linear() -> keras.Model:
    keras.backend.clear_session()
    init = keras.initializers.GlorotUniform(seed=9)
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, kernel_initializer=init)])


def test_terminate_on_nan(capsys: pytest.CaptureFixture[str]) -> None:
    x, y = data()
    x[20] = np.nan
    model = _linear()
    model.compile("sgd", "sparse_categorical_crossentropy")
    h = model.fit(
        x, y, batch_size=8, epochs=3, shuffle=False, verbose=0, callbacks=[cbs.TerminateOnNaN()]
    )
    assert h.epoch == [0] and np.isnan(h.history["loss"][0])  # TF's
    assert capsys.readouterr().out == "Batch 2: Invalid loss, terminating training\n"
    model = _linear()
    model.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 2"):
        model.fit(
            x,
            y,
            batch_size=8,
            shuffle=False,
            verbose=0,
            callbacks=[cbs.TerminateOnNaN(raise_error=True)],
        )


def test_lambda_callback_and_stop_training() -> None:
    x, y = data()
    model = _compiled(4, "sgd")
    seen: list[int] = []

    def stop(epoch: int, logs: dict) -> None:
        seen.append(epoch)
        model.stop_training = epoch == 1

    h = model.fit(x, y, epochs=5, verbose=0, callbacks=[cbs.LambdaCallback(on_epoch_end=stop)])
    assert seen == [0, 1] and h.epoch == [0, 1]


def test_model_checkpoint_best_only(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    x, y = data()
    model = _compiled(3, keras.optimizers.SGD(0.5))
    saved: list[str] = []
    monkeypatch.setattr(model, "save_weights", lambda path, overwrite=True: saved.append(path))
    ckpt = cbs.ModelCheckpoint(
        f"{tmp_path}/w{{epoch:02d}}-{{val_loss:.2f}}.weights.h5",
        save_best_only=True,
        save_weights_only=True,
    )
    model.fit(
        x,
        y,
        batch_size=16,
        epochs=3,
        shuffle=False,
        validation_split=0.25,
        verbose=0,
        callbacks=[ckpt],
    )
    # val_loss 1.0986, 6.18, 1.0986 (TF's): only epoch 1 improves
    assert saved == [f"{tmp_path}/w01-1.10.weights.h5"]
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        cbs.ModelCheckpoint("model.keras", save_weights_only=True)
    with pytest.raises(ValueError, match=r"must end in `\.keras`"):
        cbs.ModelCheckpoint("model.weights.h5")


def test_model_checkpoint_saves_whole_model(tmp_path: object) -> None:
    """save_weights_only=False writes a .keras model after each improving epoch (Keras 3):
    the file loads as a compiled model in the state of the best epoch."""
    pytest.importorskip("h5py")
    x, y = data()
    model = _compiled(3, keras.optimizers.SGD(0.5))
    path = f"{tmp_path}/best.keras"
    states: list[list[np.ndarray]] = []
    keep = cbs.LambdaCallback(on_epoch_end=lambda e, logs: states.append(model.get_weights()))
    ckpt = cbs.ModelCheckpoint(path, save_best_only=True)
    model.fit(
        x, y, batch_size=16, epochs=3, shuffle=False, validation_split=0.25, verbose=0,
        callbacks=[ckpt, keep],
    )  # fmt: skip
    # val_loss 1.0986, 6.18, 1.0986 (TF's, as above): the file holds epoch 1's model
    loaded = keras.models.load_model(path)
    assert int(loaded.optimizer.iterations.numpy()) == 2  # 30 training samples, batch 16
    for a, b in zip(loaded.get_weights(), states[0], strict=True):
        np.testing.assert_array_equal(a, b)
    assert loaded.compiled and loaded.loss == model.loss


def test_model_checkpoint_writes_weights_file(tmp_path: object) -> None:
    pytest.importorskip("h5py")
    x, y = data()
    model = _compiled(3, keras.optimizers.SGD(0.1))
    path = f"{tmp_path}/best.weights.h5"
    model.fit(
        x,
        y,
        epochs=2,
        verbose=0,
        validation_split=0.25,
        callbacks=[cbs.ModelCheckpoint(path, save_weights_only=True)],
    )
    other = make(8)
    other.load_weights(path)
    for a, b in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


SIGNATURES = (Path(__file__).parent / "data" / "fit_signatures_tf.txt").read_text().splitlines()


@pytest.mark.parametrize("line", SIGNATURES, ids=[x.split(" ")[0] for x in SIGNATURES])
def test_signature_is_keras_3(line: str) -> None:
    """Recorded with ``inspect.signature`` on Keras 3.15.1 (tests/keras/data)."""
    name, _, want = line.partition(" ")
    owner, attr = name.split(".")
    spaces = {"Model": keras.Model, "callbacks": cbs, "Callback": cbs.Callback}
    obj = getattr(spaces.get(owner, keras.utils), attr)
    sig = inspect.signature(obj.__init__ if isinstance(obj, type) else obj)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    plain = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    assert str(plain) == want
