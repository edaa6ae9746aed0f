"""Masking, UnitNormalization, ActivityRegularization and ``pad_sequences``: Keras 3's
(TF 2.21) answers from the same programs."""

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf

K = tf.keras


def _steps() -> np.ndarray:
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10
    x[0, 1] = 0
    x[1, 3] = 0
    x[1, 0] = 0
    return x


def test_masking_zeroes_and_masks_the_padded_steps() -> None:
    x = _steps()
    layer = K.layers.Masking(0.0)
    assert layer.compute_mask(x).numpy().tolist() == [
        [True, False, True, True],
        [False, True, True, False],
    ]
    assert layer(x).numpy()[1].tolist() == [
        [0, 0, 0],
        x[1, 1].tolist(),
        x[1, 2].tolist(),
        [0, 0, 0],
    ]
    assert layer.get_config()["mask_value"] == 0.0
    g = K.initializers
    inp = K.Input((4, 3))
    lstm = K.layers.LSTM(
        2, kernel_initializer=g.GlorotUniform(seed=1), recurrent_initializer=g.Orthogonal(seed=2)
    )
    model = K.Model(inp, lstm(K.layers.Masking()(inp)))
    want = [
        [-0.12171734869480133, -0.26431548595428467],
        [-0.13263118267059326, -0.36446046829223633],
    ]
    assert_ulp(model(x).numpy(), np.float32(want), 8)  # the LSTM skips the masked steps


def test_unit_normalization() -> None:
    x = _steps()[0]
    got = K.layers.UnitNormalization()(x).numpy()
    want = [
        [0.0, 0.4472135603427887, 0.8944271206855774],
        [0.0, 0.0, 0.0],
        [0.4915391802787781, 0.5734623670578003, 0.6553855538368225],
        [0.5178917646408081, 0.5754353404045105, 0.6329789161682129],
    ]
    assert_ulp(got, np.float32(want), 2)
    both = K.layers.UnitNormalization(axis=[0, 1])(x).numpy()
    assert_ulp(
        both[3], np.float32([0.42146360874176025, 0.4682929217815399, 0.5151222348213196]), 2
    )
    zero = K.layers.UnitNormalization()(np.zeros((1, 3), np.float32)).numpy()
    assert zero.tolist() == [[0.0, 0.0, 0.0]]
    with pytest.raises(
        TypeError, match=r"expected an int or a list/tuple of ints. Received: axis=a"
    ):
        K.layers.UnitNormalization(axis="a")


def test_activity_regularization_adds_its_loss() -> None:
    x = _steps()[0]
    layer = K.layers.ActivityRegularization(l1=0.1, l2=0.01)
    assert layer(x).shape == (4, 3)
    assert [round(float(v), 5) for v in layer.losses] == [0.1464]
    assert (layer.get_config()["l1"], layer.get_config()["l2"]) == (0.1, 0.01)
    model = K.Sequential(
        [
            K.Input((3,)),
            K.layers.Dense(2, kernel_initializer="ones"),
            K.layers.ActivityRegularization(l2=0.5),
        ]
    )
    model.compile("sgd", "mse")
    h = model.fit(x, np.zeros((4, 2), np.float32), epochs=2, verbose=0, batch_size=4)
    np.testing.assert_allclose(h.history["loss"], [6.75, 6.3058], rtol=1e-4)


def test_pad_sequences() -> None:
    pad = K.utils.pad_sequences
    assert pad([[1, 2, 3], [4], [], [5, 6]], maxlen=2).tolist() == [[2, 3], [0, 4], [0, 0], [5, 6]]
    post = pad([[1, 2, 3], [4]], padding="post", truncating="post", value=-1)
    assert post.tolist() == [[1, 2, 3], [4, -1, -1]] and post.dtype == np.int32
    assert pad([[1.5], [2.5, 3.5]], dtype="float32").tolist() == [[0.0, 1.5], [2.5, 3.5]]
    assert pad([np.ones((2, 2)), np.zeros((1, 2))]).shape == (2, 2, 2)
    assert K.preprocessing.sequence.pad_sequences([[1, 2], [3]]).tolist() == [[1, 2], [0, 3]]
    with pytest.raises(ValueError, match='Padding type "mid" not understood'):
        pad([[1], [2]], padding="mid")
    with pytest.raises(ValueError, match="must be a list of iterables. Found non-iterable: 1"):
        pad([1, 2])
    with pytest.raises(ValueError, match="`dtype` int32 is not compatible with `value`'s type"):
        pad([["a"]], value="x")


def test_an_embeddings_mask_of_numpy_ids() -> None:
    """Its mask compares NumPy's int64 ids with 0 (tests/ops/test_numpy_operands.py)."""
    emb = tf.keras.layers.Embedding(10, 2, mask_zero=True)
    ids = np.array([[3, 5, 0], [7, 0, 0]])
    mask = [[True, True, False], [True, False, False]]
    assert emb.compute_mask(ids).numpy().tolist() == mask
    pooled = tf.keras.layers.GlobalAveragePooling1D()(emb(ids), mask=emb.compute_mask(ids))
    expected = emb.embeddings.numpy()[[3, 5]].mean(0), emb.embeddings.numpy()[7]
    np.testing.assert_allclose(pooled.numpy(), np.stack(expected), rtol=1e-6)
