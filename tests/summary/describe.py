"""What a log directory's event files hold, as plain Python values to compare: read with
symgrad's own reader (``symgrad.summary.records``), so the same description is made of the
files TensorFlow writes (``record_tf.py``) and of symgrad's (``test_summary_files.py``).

PNG images are described by their decoded pixels (TF's libpng and symgrad's encoder
choose other row filters, so the bytes differ), a Keras model's JSON by its class and
layers, and file names with their time, host and process left out."""

from __future__ import annotations

import json
import re
import socket
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from symgrad.summary.proto import Event
from symgrad.summary.records import read_events

_DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 9: np.int64, 10: np.bool_}


def describe(logdir: str | Path) -> dict[str, list[Any]]:
    """``{file name pattern: [first event, then each value as (step, tag, ...)]}``."""
    out = {}
    for path in sorted(Path(logdir).rglob("events.out.tfevents.*")):
        name = str(path.relative_to(logdir)).replace(socket.gethostname(), "HOST")
        name = re.sub(r"tfevents\.\d{10}\.", "tfevents.T.", name)
        name = re.sub(r"HOST\.\d+\.\d+\.v2$", "HOST.PID.N.v2", name)
        out[name] = [_event(e) for e in read_events(path)]
    return out


def _event(e: Event) -> Any:
    if e.HasField("file_version"):
        return ["first", e.wall_time == int(e.wall_time), e.file_version, e.source_metadata.writer]
    for graph in ("graph_def", "meta_graph_def"):
        if e.HasField(graph):
            return [graph]
    return [(e.step, *_value(v)) for v in e.summary.value]


def _value(v: Any) -> tuple[Any, ...]:
    metadata = v.metadata.SerializeToString() if v.HasField("metadata") else None
    if v.HasField("simple_value"):
        return v.tag, "simple_value", v.simple_value, metadata
    if v.HasField("histo"):
        h = v.histo
        fields = [h.min, h.max, h.num, h.sum, h.sum_squares, list(h.bucket_limit), list(h.bucket)]
        return v.tag, "histo", fields, metadata
    if v.HasField("image"):
        i = v.image
        pixels = png_pixels(i.encoded_image_string)
        return v.tag, "image", [i.height, i.width, i.colorspace, pixels], metadata
    return v.tag, "tensor", _tensor(v.tensor), metadata


def _tensor(t: Any) -> list[Any]:
    shape = [d.size for d in t.tensor_shape.dim]
    if t.dtype == 7:  # strings
        return [t.dtype, shape, [_string(s) for s in t.string_val]]
    values = np.frombuffer(t.tensor_content, _DTYPES[t.dtype]).reshape(shape)
    return [t.dtype, shape, values.tolist()]


def _string(s: bytes) -> Any:
    if s.startswith(b"\x89PNG"):
        return png_pixels(s)
    if s.startswith(b'{"module": "keras"'):
        config = json.loads(s)
        return [
            "keras",
            config["class_name"],
            [la["class_name"] for la in config["config"]["layers"]],
        ]
    return s


def png_pixels(data: bytes) -> list[Any]:
    """The pixels of an 8-bit PNG (every row filter undone), as ``[height][width][channels]``."""
    chunks, i = {}, 8
    while i < len(data):
        (size,) = struct.unpack(">I", data[i : i + 4])
        kind = data[i + 4 : i + 8]
        chunks[kind] = chunks.get(kind, b"") + data[i + 8 : i + 8 + size]
        i += 12 + size
    width, height, _, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for r in range(height):
        kind, line = (
            raw[r * (stride + 1)],
            bytearray(raw[r * (stride + 1) + 1 : (r + 1) * (stride + 1)]),
        )
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            line[x] = (line[x] + _predict(kind, a, b, c)) & 0xFF
        rows.append(line)
        prev = line
    return np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels).tolist()


def _predict(kind: int, a: int, b: int, c: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return a
    if kind == 2:
        return b
    if kind == 3:
        return (a + b) // 2
    p = a + b - c  # Paeth
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def without_graphs(files: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """TF's files less the ``graph_def``/``meta_graph_def`` events of
    ``FileWriter(logdir, sess.graph)``: symgrad has no GraphDef to write."""
    return {
        k: [e for e in v if e not in (["graph_def"], ["meta_graph_def"])] for k, v in files.items()
    }


def assert_same(ours: Any, theirs: Any, where: str = "") -> None:
    """Equal, floats to float32 rounding (Keras's losses and weights after training)."""
    if isinstance(theirs, float):
        assert isinstance(ours, float), where
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-7, err_msg=where)
    elif isinstance(theirs, list | tuple):
        assert isinstance(ours, type(theirs)) and len(ours) == len(theirs), (where, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), where
        for k in theirs:
            assert_same(ours[k], theirs[k], f"{where}[{k!r}]")
    else:
        assert ours == theirs, (where, ours, theirs)
