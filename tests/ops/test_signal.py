"""tf.signal, tf.roll, tf.searchsorted, tf.histogram_fixed_width(_bins) and
tf.unique_with_counts against TensorFlow 2.21: values and gradients (literals recorded by
tests/ops/tf_signal_calls.py), float64 finite differences, and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest
from ops.tf_signal_calls import CALLS, DTYPES, run
from ops.tf_signal_expected import EXPECTED

import symgrad as tf

# FFT rounding grows with the transform's size and TF runs its FFTs in the op's precision
# (symgrad rounds a double-precision result), so values agree to a few ulps of the largest
# entry, not entry by entry; the mel matrix divides differences of logs (16 ulps).
ULPS = 16


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.dtype, want.dtype)
    eps = np.finfo(got.dtype).eps
    scale = max(float(np.max(np.abs(want))), 1.0) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=ULPS * eps * scale, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_gradients_match_tensorflow(name: str, dtype: str) -> None:
    ys, gs = run(tf, name, dtype)
    want_ys, want_gs = EXPECTED[(name, dtype)]
    assert len(ys) == len(want_ys)
    for y, want in zip(ys, want_ys, strict=True):
        _close(y, want, f"{name}: value")
    for i, (g, want) in enumerate(zip(gs, want_gs, strict=True)):
        if want is None:
            assert g is None, f"{name}: TF gives no gradient for input {i}"
        else:
            _close(g, want, f"{name}: gradient of input {i}")


def _real(y: tf.Tensor) -> tf.Tensor:
    return tf.math.real(y) * 1.5 + tf.math.imag(y) * 0.5 if y.dtype.is_complex else y


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda x: tf.signal.frame(x, 4, 3, pad_end=True), (2, 11)),
        (lambda x: tf.signal.frame(x, 2, 1, axis=-2), (5, 3)),
        (lambda x: tf.signal.overlap_and_add(x, 2), (2, 4, 5)),
        (lambda x: _real(tf.signal.stft(x, 6, 3, pad_end=True)), (2, 16)),
        (lambda x: tf.signal.dct(x, type=1), (2, 5)),
        (lambda x: tf.signal.dct(x, norm="ortho"), (2, 5)),
        (lambda x: tf.signal.idct(x, type=2, norm="ortho"), (2, 6)),
        (lambda x: tf.signal.dct(x, type=4), (2, 6)),
        (lambda x: tf.roll(x, [2, -1], [1, 0]), (3, 5)),
        (lambda x: tf.signal.ifftshift(x), (3, 5)),
        (lambda x: _real(tf.signal.rfft2d(x, [4, 7])), (2, 3, 5)),
    ],
)
def test_real_valued_gradients_match_finite_differences(fn, shape) -> None:
    x = np.sin(np.arange(int(np.prod(shape))) * 1.7).reshape(shape)
    tf.test.check_gradient(fn, x, order=2)


def test_inverse_stft_gradient_matches_finite_differences() -> None:
    z = np.sin(np.arange(20.0)).reshape(4, 5) + 1j * np.cos(np.arange(20.0) * 0.3).reshape(4, 5)
    tf.test.check_gradient(lambda s: tf.signal.inverse_stft(s, 6, 3), z, order=1)


def test_inverse_stft_inverts_stft() -> None:
    x = np.sin(np.arange(40.0) * 0.7)
    s = tf.signal.stft(x, 8, 2, window_fn=tf.signal.hann_window)
    y = tf.signal.inverse_stft(s, 8, 2, window_fn=tf.signal.inverse_stft_window_fn(2))
    np.testing.assert_allclose(y.numpy()[8:-8], x[8 : 8 + y.shape[0] - 16], atol=1e-12)


def test_op_types_and_names_are_tensorflows() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 6])
        c = tf.compat.v1.placeholder(tf.complex64, [4, 6])
        assert tf.signal.rfft(x).name == "rfft:0"
        assert tf.signal.irfft(c).shape.as_list() == [4, 10]
        assert tf.signal.fft(c).name == "FFT:0"
        assert tf.signal.rfft2d(x, [4, 8]).shape.as_list() == [4, 5]
        assert tf.roll(x, 1, 0).op.type == "Roll"
        assert tf.signal.fftshift(x).name == "fftshift:0"
        assert tf.signal.frame(x, 3, 2).shape.as_list() == [4, 2, 3]
        assert tf.signal.stft(x, 4, 2).shape.as_list() == [4, 2, 3]
        assert tf.histogram_fixed_width(x, [0.0, 1.0]).name == "histogram_fixed_width:0"
    types = {op.type for op in g.get_operations()}
    assert {"RFFT", "IRFFT", "FFT", "RFFT2D", "Roll", "HistogramFixedWidth"} <= types


def test_searchsorted_matches_tensorflow() -> None:
    seq = np.array([[0.5, 1.0, 1.0, 2.5, 4.0], [-3.0, -1.0, 0.0, 0.0, 7.0]])
    v = np.array([[1.0, 0.2, 4.0, 9.0], [0.0, -5.0, 6.5, -1.0]])
    for d in (tf.float32, tf.float64):
        left = tf.searchsorted(tf.constant(seq, d), tf.constant(v, d))
        right = tf.searchsorted(tf.constant(seq, d), tf.constant(v, d), "right", tf.int64)
        assert left.dtype == tf.int32 and right.dtype == tf.int64
        assert left.numpy().tolist() == [[1, 0, 4, 5], [2, 0, 4, 1]]
        assert right.numpy().tolist() == [[3, 0, 5, 5], [4, 0, 4, 2]]
    nested = tf.searchsorted(tf.constant([[[1, 3, 5], [2, 4, 6]]]), tf.constant([[[0, 3], [6, 7]]]))
    assert nested.numpy().tolist() == [[[0, 1], [2, 3]]]


def test_histograms_match_tensorflow() -> None:
    hv = np.array([-2.0, -1.5, -0.2, 0.0, 0.3, 0.99, 1.0, 1.7, 2.0, 3.5, 0.5, 0.25])
    for d in (tf.float32, tf.float64):
        r = tf.constant([-1.5, 2.0], d)
        assert tf.histogram_fixed_width(tf.constant(hv, d), r, 7).numpy().tolist() == [
            2, 0, 1, 3, 2, 1, 3,
        ]  # fmt: skip
        h64 = tf.histogram_fixed_width(tf.constant(hv, d), r, nbins=4, dtype=tf.int64)
        assert h64.dtype == tf.int64 and h64.numpy().tolist() == [2, 2, 5, 3]
        bins = tf.histogram_fixed_width_bins(tf.constant(hv.reshape(3, 4), d), r, nbins=7)
        assert bins.numpy().tolist() == [[0, 0, 2, 3], [3, 4, 5, 6], [6, 6, 4, 3]]
    ints = tf.histogram_fixed_width(tf.constant([0, 3, 5, 9, -2, 12]), [0, 10], nbins=3)
    assert ints.numpy().tolist() == [3, 1, 2]


def test_unique_with_counts_matches_tensorflow_and_unique() -> None:
    u = tf.unique_with_counts(tf.constant([3.0, 1.0, 3.0, 2.0, 1.0, 3.0]))
    assert u.y.numpy().tolist() == [3.0, 1.0, 2.0]
    assert u.idx.numpy().tolist() == [0, 1, 0, 2, 1, 0]
    assert u.count.numpy().tolist() == [3, 2, 1]
    y, idx, count = tf.unique_with_counts(tf.constant([7, 7, 4], tf.int64), out_idx=tf.int64)
    assert count.dtype == tf.int64 and count.numpy().tolist() == [2, 1]
    plain = tf.unique(tf.constant([7, 7, 4], tf.int64), out_idx=tf.int64)
    assert plain.y.numpy().tolist() == y.numpy().tolist() == [7, 4]
    assert plain.idx.numpy().tolist() == idx.numpy().tolist() == [0, 0, 1]


def _raises(kind, text, fn) -> None:
    with pytest.raises(kind) as e:
        fn()
    assert text in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "kind, text, fn",
    [
        (tf.errors.InvalidArgumentError, "expected one of: complex64, complex128",
         lambda: tf.signal.fft(tf.constant([1.0, 2.0]))),
        (tf.errors.InvalidArgumentError, "Input must have rank of at least 1",
         lambda: tf.signal.fft(tf.constant(3 + 1j, tf.complex64))),
        (tf.errors.InvalidArgumentError, "Input must have rank of at least 2",
         lambda: tf.signal.fft2d(tf.constant([1 + 1j, 2], tf.complex64))),
        (ValueError, "RFFT requires tf.float32 or tf.float64 inputs, got:",
         lambda: tf.signal.rfft(tf.constant([1 + 1j, 2], tf.complex64))),
        (ValueError, "IRFFT requires tf.complex64 or tf.complex128 inputs, got:",
         lambda: tf.signal.irfft(tf.constant([1.0, 2.0]))),
        (tf.errors.InvalidArgumentError, "fft_length must have shape [1]",
         lambda: tf.signal.rfft(tf.constant([1.0, 2.0, 3.0]), fft_length=[2, 3])),
        (ValueError, "Shape (3,) must have rank at least 2",
         lambda: tf.signal.rfft2d(tf.constant([1.0, 2.0, 3.0]))),
        (IndexError, "list index out of range",
         lambda: tf.signal.frame(tf.range(10.0), 3, 2, axis=2)),
        (ValueError, "Shape () must have rank at least 1",
         lambda: tf.signal.frame(tf.constant(1.0), 3, 2)),
        (tf.errors.InvalidArgumentError, "axis 1 is out of range",
         lambda: tf.roll(tf.range(5), 1, 1)),
        (tf.errors.InvalidArgumentError, "shift and axis must have the same size",
         lambda: tf.roll(tf.range(5), [1, 2], [0])),
        (tf.errors.InvalidArgumentError, "'shift' has dtype float32",
         lambda: tf.roll(tf.range(5), 1.0, 0)),
        (ValueError, "Argument `side` must be either 'right' or 'left'. Received: `side` = "
         "'middle'.",
         lambda: tf.searchsorted(tf.constant([[1, 2, 3]]), tf.constant([[2]]), side="middle")),
        (tf.errors.InvalidArgumentError, "Leading dim_size of both tensors must match.",
         lambda: tf.searchsorted([[1, 2, 3], [4, 5, 6]], [[2], [3], [4]])),
        (tf.errors.InvalidArgumentError,
         "value_range should satisfy value_range[0] < value_range[1], but got '[1, 0]'",
         lambda: tf.histogram_fixed_width(tf.constant([1.0, 2.0]), [1.0, 0.0], nbins=3)),
        (tf.errors.InvalidArgumentError, "nbins should be a positive number, but got '0'",
         lambda: tf.histogram_fixed_width(tf.constant([1.0, 2.0]), [0.0, 1.0], nbins=0)),
        (tf.errors.InvalidArgumentError, "value_range should be a vector of 2 elements.",
         lambda: tf.histogram_fixed_width(tf.constant([1.0, 2.0]), [0.0, 1.0, 2.0], nbins=3)),
        (tf.errors.InvalidArgumentError, "unique expects a 1D vector",
         lambda: tf.unique_with_counts(tf.constant([[1, 2]]))),
        (ValueError, "Types I, II, III and IV (I)DCT are supported.",
         lambda: tf.signal.dct(tf.constant([1.0, 2.0]), type=5)),
        (ValueError, "Unknown normalization. Expected None or 'ortho', got: x",
         lambda: tf.signal.dct(tf.constant([1.0, 2.0]), norm="x")),
        (NotImplementedError, "axis must be -1. Got: 0",
         lambda: tf.signal.dct(tf.constant([1.0, 2.0]), axis=0)),
        (ValueError, "Normalization is not supported for the Type-I DCT.",
         lambda: tf.signal.dct(tf.constant([1.0, 2.0]), type=1, norm="ortho")),
        (ValueError, "n should be a positive integer or None",
         lambda: tf.signal.dct(tf.constant([1.0, 2.0]), n=0)),
        (ValueError, "dtype must be a floating point type. Found",
         lambda: tf.signal.hann_window(5, dtype=tf.int32)),
        (ValueError, "frame_step must be an integer. Got",
         lambda: tf.signal.overlap_and_add(tf.ones([3, 4]), 1.5)),
        (ValueError, "Shape (4,) must have rank at least 2",
         lambda: tf.signal.overlap_and_add(tf.ones([4]), 2)),
        (ValueError, "num_mel_bins must be positive. Got: 0",
         lambda: tf.signal.linear_to_mel_weight_matrix(0)),
        (ValueError, "lower_edge_hertz 500.0 >= upper_edge_hertz 400.0",
         lambda: tf.signal.linear_to_mel_weight_matrix(
             lower_edge_hertz=500.0, upper_edge_hertz=400.0)),
        (ValueError, "upper_edge_hertz must not be larger than the Nyquist frequency "
         "(sample_rate / 2). Got 5000.0 for sample_rate: 8000",
         lambda: tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)),
    ],
)  # fmt: skip
def test_bad_arguments_raise_tensorflows_errors(kind, text, fn) -> None:
    _raises(kind, text, fn)


@pytest.mark.parametrize(
    "fn, x",
    [
        (lambda x: tf.math.real(tf.signal.rfft3d(x)), np.ones((2, 2, 2), np.float32)),
        (lambda x: tf.signal.irfft3d(x), np.ones((2, 2, 2), np.complex64)),
        (lambda x: tf.unique(x)[0], np.ones((3,), np.float32)),
        (lambda x: tf.unique_with_counts(x)[0], np.ones((3,), np.float32)),
    ],
)
def test_ops_tensorflow_cannot_differentiate_raise_lookup_error(fn, x) -> None:
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        tape.gradient(y, x)


def test_signal_compositions_need_static_shapes() -> None:
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        with pytest.raises(NotImplementedError, match="shape of `signal` known"):
            tf.signal.frame(x, 4, 2)
        with pytest.raises(NotImplementedError, match="`window_length` known"):
            tf.signal.hann_window(tf.compat.v1.placeholder(tf.int32, []))
