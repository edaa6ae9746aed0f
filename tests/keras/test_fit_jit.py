"""``compile(jit_compile=...)``: Keras 3's rule on the TF backend, and steps run by XLA.

The literals are Keras 3.15 on TF 2.21 running the same program with
``jit_compile=True`` (``test_fit.py``'s model and data); float32 within rtol 1e-5, the
accuracies exactly (they count whole samples).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.runtime.xla.compiled import Compiled
from tests.keras.test_fit import check_history, data, make

keras = tf.keras


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    keras.backend.clear_session()


def test_fit_evaluate_predict_with_jit_compile_give_tf_numbers() -> None:
    x, y = data()
    model = make()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"], jit_compile=True)
    assert model.jit_compile is True
    h = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, validation_split=0.25, verbose=0)
    check_history(
        h.history,
        {
            "accuracy": [0.4333333373069763] * 3,
            "loss": [4.503358364105225, 4.096068382263184, 4.045821666717529],
            "val_accuracy": [0.4000000059604645, 0.4000000059604645, 0.30000001192092896],
            "val_loss": [6.4349822998046875, 6.426046848297119, 6.417572021484375],
        },
    )
    np.testing.assert_allclose(
        model.evaluate(x, y, verbose=0), [4.6131768226623535, 0.42500001192092896], rtol=1e-5
    )
    np.testing.assert_allclose(
        model.predict(x[:2], verbose=0),
        [
            [-0.04198833554983139, 0.15007485449314117, 0.170465886592865],
            [-0.050314731895923615, 0.15381813049316406, 0.2361851930618286],
        ],
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        model.layers[1].kernel.numpy()[:, 0],
        [0.4445754885673523, 0.32208168506622314, 0.3092643618583679, -0.11944079399108887,
         0.3457621932029724, 0.5124418139457703, -0.07033396512269974, -0.549081027507782],
        rtol=1e-5,
    )  # fmt: skip
    for kind, fn in model._step_functions.items():  # each step ran as one XLA program
        assert all(isinstance(cf.compiled, Compiled) for cf in fn._cache.values()), kind


def test_auto_is_false_on_a_cpu_and_run_eagerly_wins() -> None:
    model = make()
    model.compile("sgd", "mse")  # "auto": TF's Keras compiles only beside a GPU/TPU
    assert model.jit_compile is False
    model.compile("sgd", "mse", jit_compile="auto", run_eagerly=True)
    assert model.jit_compile is False
    with pytest.warns(UserWarning, match="If `run_eagerly` is True, then `jit_compile`"):
        model.compile("sgd", "mse", jit_compile=True, run_eagerly=True)
    assert model.jit_compile is False
    x, y = data()
    model.compile("sgd", "sparse_categorical_crossentropy")
    model.fit(x, y, epochs=1, verbose=0)
    traces = model._step_functions["train"]._cache.values()  # full and last batch
    assert traces and not any(cf.compiled for cf in traces)  # the NumPy path


def test_jit_compile_is_saved_in_the_compile_config(tmp_path: object) -> None:
    pytest.importorskip("h5py")
    x, y = data()
    model = make()
    model.compile("sgd", "sparse_categorical_crossentropy", jit_compile=True)
    model.fit(x, y, epochs=1, verbose=0)
    path = f"{tmp_path}/m.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.jit_compile is True
    np.testing.assert_allclose(
        loaded.evaluate(x, y, verbose=0), model.evaluate(x, y, verbose=0), rtol=1e-6
    )


def test_auto_compiles_beside_a_gpu_unless_a_strategy_or_determinism(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keras's ``_resolve_auto_jit_compile`` on TF, with a GPU listed (this host has none)."""
    from symgrad.api.config_extra import experimental
    from symgrad.core import devices

    gpu = devices.PhysicalDevice("/physical_device:GPU:0", "GPU")
    monkeypatch.setattr(devices, "list_physical_devices", lambda *a: [gpu])
    model = make()
    model.compile("sgd", "mse")
    assert model.jit_compile is True
    with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
        model.compile("sgd", "mse")
    assert model.jit_compile is False
    monkeypatch.setattr(experimental, "op_determinism_enabled", lambda: True)
    model.compile("sgd", "mse")
    assert model.jit_compile is False
