"""Spectral op records: FFT, IFFT, RFFT, IRFFT and their 2-D and 3-D forms."""
