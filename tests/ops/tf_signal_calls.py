"""The tf.signal (and roll / searchsorted / histogram / unique_with_counts) calls whose
TensorFlow results tests/ops/test_signal.py checks.

Each call is ``name: (fn, inputs)``: ``fn(tf, *xs)`` is the program, run with ``tf`` =
symgrad in the tests and = TensorFlow to record the numbers; ``inputs`` are
``(kind, shape)`` with kind ``"r"`` (real) or ``"c"`` (complex), made in float32/complex64
and in float64/complex128 (each call is recorded in both).  The recorded numbers are the
output and the gradient of ``Σ Re(y · weights(y))`` with respect to every input, as
TF's tape gives them (for a complex input: dL/dRe + i dL/dIm).

Record them again with TensorFlow's Python (writes tests/ops/tf_signal_expected.py):

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/ops/tf_signal_calls.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

DTYPES = ("float32", "float64")
_COMPLEX = {"float32": np.complex64, "float64": np.complex128}


def inputs(specs: list[tuple[str, tuple[int, ...]]], dtype: str) -> list[np.ndarray]:
    """Deterministic inputs, different for each argument and with no ties."""
    out = []
    for i, (kind, s) in enumerate(specs):
        n = int(np.prod(s))
        re = 1.5 * np.sin(np.arange(n) * 1.3 + 0.7 * i + 0.1)
        if kind == "c":
            im = np.cos(np.arange(n) * 0.9 + 0.4 * i)
            out.append((re + 1j * im).reshape(s).astype(_COMPLEX[dtype]))
        else:
            out.append(re.reshape(s).astype(dtype))
    return out


def weights(shape: tuple[int, ...], complex_: bool) -> np.ndarray:
    n = int(np.prod(shape))
    w = np.cos(np.arange(n) * 0.37)
    return (w + 0.5j * np.sin(np.arange(n) * 0.61) if complex_ else w).reshape(shape)


R, C = "r", "c"
CALLS: dict[str, tuple[Any, list[tuple[str, tuple[int, ...]]]]] = {
    "fft": (lambda tf, x: tf.signal.fft(x), [(C, (2, 5))]),
    "ifft": (lambda tf, x: tf.signal.ifft(x), [(C, (2, 6))]),
    "fft2d": (lambda tf, x: tf.signal.fft2d(x), [(C, (2, 3, 4))]),
    "ifft2d": (lambda tf, x: tf.signal.ifft2d(x), [(C, (3, 5))]),
    "fft3d": (lambda tf, x: tf.signal.fft3d(x), [(C, (2, 3, 4))]),
    "ifft3d": (lambda tf, x: tf.signal.ifft3d(x), [(C, (2, 2, 3))]),
    "rfft_even": (lambda tf, x: tf.signal.rfft(x), [(R, (2, 6))]),
    "rfft_odd": (lambda tf, x: tf.signal.rfft(x), [(R, (2, 5))]),
    "rfft_padded": (lambda tf, x: tf.signal.rfft(x, [8]), [(R, (2, 5))]),
    "irfft_even": (lambda tf, x: tf.signal.irfft(x), [(C, (2, 4))]),
    "irfft_odd": (lambda tf, x: tf.signal.irfft(x, [7]), [(C, (2, 4))]),
    "rfft2d": (lambda tf, x: tf.signal.rfft2d(x), [(R, (3, 4))]),
    "rfft2d_odd_padded": (lambda tf, x: tf.signal.rfft2d(x, [4, 7]), [(R, (2, 3, 5))]),
    "irfft2d": (lambda tf, x: tf.signal.irfft2d(x), [(C, (3, 4))]),
    "irfft2d_odd": (lambda tf, x: tf.signal.irfft2d(x, [2, 5]), [(C, (2, 3))]),
    "fftshift": (lambda tf, x: tf.signal.fftshift(x), [(R, (3, 5))]),
    "ifftshift_axes": (lambda tf, x: tf.signal.ifftshift(x, axes=[-1, 0]), [(R, (3, 5))]),
    "frame": (lambda tf, x: tf.signal.frame(x, 4, 3), [(R, (2, 11))]),
    "frame_pad_end": (
        lambda tf, x: tf.signal.frame(x, 4, 3, pad_end=True, pad_value=2.5),
        [(R, (2, 11))],
    ),
    "frame_axis0": (lambda tf, x: tf.signal.frame(x, 2, 1, axis=0), [(R, (5, 3))]),
    "overlap_and_add": (lambda tf, x: tf.signal.overlap_and_add(x, 3), [(R, (2, 4, 5))]),
    "overlap_and_add_step_is_length": (
        lambda tf, x: tf.signal.overlap_and_add(x, 5),
        [(R, (4, 5))],
    ),
    "stft": (lambda tf, x: tf.signal.stft(x, 6, 3), [(R, (2, 16))]),
    "stft_hamming_pad_end": (
        lambda tf, x: tf.signal.stft(
            x, 5, 2, fft_length=8, pad_end=True, window_fn=tf.signal.hamming_window
        ),
        [(R, (13,))],
    ),
    "inverse_stft": (lambda tf, x: tf.signal.inverse_stft(x, 6, 3), [(C, (2, 4, 5))]),
    "inverse_stft_window_fn": (
        lambda tf, x: tf.signal.inverse_stft(
            x, 6, 3, window_fn=tf.signal.inverse_stft_window_fn(3)
        ),
        [(C, (4, 5))],
    ),
    "dct2": (lambda tf, x: tf.signal.dct(x), [(R, (2, 6))]),
    "dct2_ortho": (lambda tf, x: tf.signal.dct(x, norm="ortho"), [(R, (2, 5))]),
    "dct3": (lambda tf, x: tf.signal.dct(x, type=3), [(R, (2, 6))]),
    "dct3_ortho": (lambda tf, x: tf.signal.dct(x, type=3, norm="ortho"), [(R, (2, 5))]),
    "dct1": (lambda tf, x: tf.signal.dct(x, type=1), [(R, (2, 5))]),
    "dct4_ortho": (lambda tf, x: tf.signal.dct(x, type=4, norm="ortho"), [(R, (2, 6))]),
    "dct2_n": (lambda tf, x: tf.signal.dct(x, n=4), [(R, (2, 6))]),
    "idct2_ortho": (lambda tf, x: tf.signal.idct(x, norm="ortho"), [(R, (2, 6))]),
    "idct3": (lambda tf, x: tf.signal.idct(x, type=3), [(R, (2, 5))]),
    "roll": (lambda tf, x: tf.roll(x, [1, -2, 7], [0, 1, 1]), [(R, (3, 5))]),
    "hann_windows": (
        lambda tf, x: [
            tf.signal.hann_window(n, periodic=p, dtype=x.dtype) * 1.0
            for n in (1, 5, 8)
            for p in (True, False)
        ],
        [(R, (1,))],
    ),
    "hamming_windows": (
        lambda tf, x: [
            tf.signal.hamming_window(n, periodic=p, dtype=x.dtype) * 1.0
            for n in (1, 5, 8)
            for p in (True, False)
        ],
        [(R, (1,))],
    ),
    "mel": (
        lambda tf, x: tf.signal.linear_to_mel_weight_matrix(6, 9, 8000, 100.0, 3900.0, x.dtype),
        [(R, (1,))],
    ),
}


def run(tf: Any, name: str, dtype: str) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """The outputs of call ``name`` and the gradients of its weighted sum."""
    fn, specs = CALLS[name]
    xs = [tf.constant(a) for a in inputs(specs, dtype)]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        out = fn(tf, *xs)
        ys = out if isinstance(out, list) else [out]
        loss = 0.0
        for y in ys:
            w = tf.constant(weights(tuple(y.shape), y.dtype.is_complex), y.dtype)
            loss = loss + tf.reduce_sum(tf.math.real(y * w))
    grads = tape.gradient(loss, xs)
    return [np.asarray(y) for y in ys], [None if g is None else np.asarray(g) for g in grads]


def _literal(a: np.ndarray | None) -> str:
    if a is None:
        return "None,"
    return f"np.array({np.ravel(a).tolist()!r}, {a.dtype.name!r}).reshape({tuple(a.shape)}),"


def main() -> None:
    import tensorflow as tf

    lines = [
        '"""TensorFlow 2.21\'s results for tests/ops/tf_signal_calls.py (generated by it)."""',
        "",
        "import numpy as np",
        "",
        "EXPECTED = {",
    ]
    for name in CALLS:
        for dtype in DTYPES:
            ys, gs = run(tf, name, dtype)
            lines.append(f"    ({name!r}, {dtype!r}): (")
            lines.append("        [" + " ".join(_literal(y) for y in ys) + "],")
            lines.append("        [" + " ".join(_literal(g) for g in gs) + "],")
            lines.append("    ),")
    lines.append("}")
    path = __file__.replace("tf_signal_calls.py", "tf_signal_expected.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
