"""AdditiveAttention, AlphaDropout, GaussianDropout, CategoryEncoding, Discretization,
IntegerLookup and StackedRNNCells beyond the layer table (tests/keras/test_keras_layer_table.py
holds their outputs and gradients against Keras-on-TF): adapt, the lookup rules, errors,
``.keras`` files and float64 gradients against finite differences.  The literals are
Keras-on-TF 2.21's output for the same program."""

from __future__ import annotations

import pathlib
import zipfile

import numpy as np
import pytest

import symgrad as tf

layers = tf.keras.layers
DATA = pathlib.Path(__file__).parent / "data"
VOC = [12, 36, 1138, 42]


def test_discretization_adapt_is_keras_quantiles() -> None:
    d = layers.Discretization(num_bins=4, epsilon=0.01)
    d.adapt(np.random.RandomState(0).uniform(-3, 3, size=(50, 3)).astype(np.float32))
    np.testing.assert_array_equal(
        d.bin_boundaries, [-1.341556429862976, 0.3996066153049469, 1.2543892860412598]
    )
    d = layers.Discretization(num_bins=3, epsilon=0.1)
    d.adapt([np.arange(10.0), np.arange(5.0, 25.0)])  # a list is a list of batches
    np.testing.assert_array_equal(d.bin_boundaries, [6.666666507720947, 13.999999046325684])
    again = layers.Discretization.from_config(d.get_config())
    assert again.bin_boundaries == d.bin_boundaries and again.num_bins == 3


def test_discretization_nan_and_integer_inputs() -> None:
    d = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    y = d(np.array([[-1.5, 1.0, 0.5], [2.0, 3.0, np.nan]]))
    assert y.dtype == tf.int32
    np.testing.assert_array_equal(y.numpy(), [[0, 2, 1], [3, 3, 3]])
    y = layers.Discretization(bin_boundaries=[0.5, 2.5])(np.array([0, 1, 3], np.int32))
    np.testing.assert_array_equal(y.numpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="Both `num_bins` and `bin_boundaries`"):
        layers.Discretization(bin_boundaries=[1.0], num_bins=2)
    with pytest.raises(ValueError, match="Cannot adapt a Discretization layer"):
        layers.Discretization(bin_boundaries=[1.0]).adapt(np.ones(3))


def test_category_encoding_modes() -> None:
    ce = layers.CategoryEncoding
    np.testing.assert_array_equal(
        ce(5, "one_hot")(np.array([[3], [1]])).numpy(), [[0, 0, 0, 1, 0], [0, 1, 0, 0, 0]]
    )
    np.testing.assert_array_equal(ce(5)(np.array([3, 1, 3])).numpy(), [0, 1, 0, 1, 0])
    y = ce(5, "count")(
        np.array([[3, 1, 3], [0, 0, 2]]), count_weights=np.array([[0.5, 1, 2], [1, 1, 3.0]])
    )
    np.testing.assert_array_equal(y.numpy(), [[0, 1, 0, 2.5, 0], [2, 0, 3, 0, 0]])
    with pytest.raises(ValueError, match="`count_weights` is not used"):
        ce(5)(np.array([1]), count_weights=np.array([1.0]))
    with pytest.raises(ValueError, match="num_tokens must be set"):
        ce()


@pytest.mark.parametrize(
    ("kwargs", "x", "want"),
    [
        ({"mask_token": 0}, [[12, 0, 7]], [[2, 0, 1]]),
        ({"num_oov_indices": 2}, [[12, 5, 8, -3]], [[2, 1, 0, 1]]),
        (
            {"output_mode": "one_hot"},
            [12, 7, 36],
            [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]],
        ),
        ({"output_mode": "multi_hot", "mask_token": 0}, [[12, 0, 36, 36]], [[0, 1, 1, 0, 0]]),
        ({"output_mode": "count"}, [[12, 5, 36, 36]], [[1, 1, 2, 0, 0]]),
        ({"invert": True}, [[1, 2, 0, 9]], [[12, 36, -1, -1]]),
        ({"invert": True, "mask_token": 0}, [[1, 2, 0, 9, 5]], [[-1, 12, 0, -1, 42]]),
    ],
)
def test_integer_lookup_rules(kwargs: dict, x: list, want: list) -> None:
    y = layers.IntegerLookup(vocabulary=VOC, **kwargs)(np.array(x))
    assert y.dtype == tf.int64
    np.testing.assert_array_equal(y.numpy(), want)


def test_integer_lookup_tf_idf_and_oov_check() -> None:
    lk = layers.IntegerLookup(
        vocabulary=VOC, output_mode="tf_idf", idf_weights=[0.25, 0.75, 0.6, 0.4]
    )
    np.testing.assert_array_equal(lk(np.array([[12, 5, 36, 36]])).numpy(), [[0.5, 0.25, 1.5, 0, 0]])
    strict = layers.IntegerLookup(vocabulary=VOC, num_oov_indices=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="all inputs should be in vocabulary"):
        strict(np.array([12, 7]))
    with pytest.raises(ValueError, match="repeated term"):
        layers.IntegerLookup(vocabulary=[1, 2, 1])
    with pytest.raises(ValueError, match="must be `'int'` when `invert` is true"):
        layers.IntegerLookup(invert=True, output_mode="count")


def test_integer_lookup_adapt_orders_by_count_then_value() -> None:
    a = layers.IntegerLookup()
    a.adapt(np.array([[12, 1138, 42], [42, 1000, 36], [36, 36, 7]]))
    assert a.get_vocabulary() == [-1, 36, 42, 1138, 1000, 12, 7] and a.vocabulary_size() == 7
    np.testing.assert_array_equal(a(np.array([[12, 36, 99]])).numpy(), [[5, 1, 0]])
    b = layers.IntegerLookup(output_mode="tf_idf", mask_token=0, max_tokens=4)
    b.adapt(np.array([[12, 1138, 42, 0], [42, 1000, 36, 0], [36, 36, 7, -1]]))
    assert b.get_vocabulary() == [-1, 36, 42, 1138]
    assert b.get_config()["vocabulary_size"] == 4
    np.testing.assert_allclose(
        b(np.array([[12, 36, 99, 36]])).numpy(),
        [[1.535056710243225, 1.3862943649291992, 0.0, 0.0]],
        rtol=1e-6,
    )
    c = layers.IntegerLookup(output_mode="count")
    c.adapt(np.array([5, 5, 3, 3, 9]))  # ties: the larger value first
    assert c.get_vocabulary() == [-1, 5, 3, 9]


def test_tf_keras_file_with_an_adapted_lookup_loads_and_saves(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("h5py")
    x = np.array([[12, 36, 99]])
    want = [[0.6286634802818298, -0.003206491470336914]]  # Keras-on-TF's, same file
    m = tf.keras.models.load_model(DATA / "tf_integer_lookup.keras")
    np.testing.assert_allclose(m(x).numpy(), want, rtol=1e-6)
    assert m.layers[0].get_vocabulary() == [-1, 36, 42, 1138, 1000]
    path = tmp_path / "again.keras"
    m.save(path)
    names = zipfile.ZipFile(path).namelist()
    assert "assets/layers/integer_lookup/vocabulary.txt" in names
    np.testing.assert_array_equal(tf.keras.models.load_model(path)(x).numpy(), m(x).numpy())


def test_stacked_cells_return_state_nests_per_cell() -> None:
    cells = [layers.SimpleRNNCell(3), layers.LSTMCell(2), layers.GRUCell(2)]
    rnn = layers.RNN(layers.StackedRNNCells(cells), return_state=True)
    out = rnn(np.ones((2, 3, 4), np.float32))
    assert [len(r) if isinstance(r, list) else 1 for r in out] == [1, 1, 2, 1]
    assert [w.path for w in rnn.weights][:2] == [
        "rnn/stacked_rnn_cells/simple_rnn_cell/kernel",
        "rnn/stacked_rnn_cells/simple_rnn_cell/recurrent_kernel",
    ]
    again = layers.RNN.from_config(rnn.get_config())
    assert [type(c).__name__ for c in again.cell.cells] == ["SimpleRNNCell", "LSTMCell", "GRUCell"]


def _max_fd_error(f, x: np.ndarray) -> float:
    """The largest gap between the tape Jacobian and central differences (error ~ delta**2)."""
    theory, numeric = tf.test.compute_gradient(f, [tf.constant(x)])
    return float(np.max(np.abs(theory[0] - numeric[0])))


def test_float64_gradients_match_finite_differences() -> None:
    rs = np.random.RandomState(3)
    q, v = rs.uniform(-1, 1, (2, 3, 4)), rs.uniform(-1, 1, (2, 5, 4))
    att = layers.AdditiveAttention(dtype="float64")
    att.build([q.shape, v.shape])
    assert _max_fd_error(lambda t: att([t, tf.constant(v)]), q) < 1e-6
    assert _max_fd_error(lambda t: att([tf.constant(q), t]), v) < 1e-6
    for layer in (
        layers.AlphaDropout(0.3, seed=2, dtype="float64"),
        layers.GaussianDropout(0.3, seed=2, dtype="float64"),
    ):  # a fixed draw: reseed the generator so each evaluation sees the same noise
        state = layer.seed_generator.state.numpy()

        def f(t, layer=layer, state=state):
            layer.seed_generator.state.assign(state)
            return layer(t, training=True)

        assert _max_fd_error(f, q) < 1e-6
    cells = [layers.SimpleRNNCell(3, dtype="float64"), layers.LSTMCell(2, dtype="float64")]
    rnn = layers.RNN(layers.StackedRNNCells(cells, dtype="float64"), dtype="float64")
    assert _max_fd_error(rnn, q) < 1e-6


def test_alpha_dropout_noise_shape_none_takes_the_input_size() -> None:
    """Keras-on-TF 3.15 raises on a None in noise_shape; symgrad fills it from the input,
    as Keras documents (docs/semantics.md)."""
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)
    a = layers.AlphaDropout(0.5, noise_shape=(None, 1, 4), seed=2)(x, training=True)
    b = layers.AlphaDropout(0.5, noise_shape=(2, 1, 4), seed=2)(x, training=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
