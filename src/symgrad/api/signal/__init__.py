"""``tf.signal``: FFTs (TF's op types and gradients), framing, windows, STFT, DCT and the
mel weight matrix, under TensorFlow's names (re-exports only)."""

from __future__ import annotations

from symgrad.api.signal.dct_mel import dct, idct, linear_to_mel_weight_matrix
from symgrad.api.signal.shape_ops import fftshift, frame, ifftshift, overlap_and_add
from symgrad.api.signal.spectral import (
    hamming_window,
    hann_window,
    inverse_stft,
    inverse_stft_window_fn,
    stft,
)
from symgrad.core import missing as _missing
from symgrad.ops.signal.fft import (
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

__all__ = [
    "dct",
    "fft",
    "fft2d",
    "fft3d",
    "fftshift",
    "frame",
    "hamming_window",
    "hann_window",
    "idct",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftshift",
    "inverse_stft",
    "inverse_stft_window_fn",
    "irfft",
    "irfft2d",
    "irfft3d",
    "linear_to_mel_weight_matrix",
    "overlap_and_add",
    "rfft",
    "rfft2d",
    "rfft3d",
    "stft",
]

__getattr__ = _missing.module_getattr("tf.signal")
