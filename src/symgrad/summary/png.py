"""PNG encoding in Python (zlib from the standard library), for image summaries.

TF's ``EncodePng`` (libpng) writes 8-bit images of 1 to 4 channels: gray, gray with
alpha, RGB, RGBA.  This writes the same images with filter type 0 on every row and
zlib's default level; libpng chooses other row filters, so the bytes differ while the
decoded pixels are the same, which is what TensorBoard shows.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG color type


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def encode_png(image: np.ndarray) -> bytes:
    """A ``[height, width, channels]`` uint8 image as PNG bytes."""
    height, width, channels = image.shape
    if channels not in _COLOR_TYPES:
        raise ValueError(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    rows = np.ascontiguousarray(image, np.uint8).reshape(height, width * channels)
    scanlines = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(scanlines.tobytes()))
        + _chunk(b"IEND", b"")
    )
