"""The protocol buffer messages of TensorBoard's event files, encoded by hand.

TensorFlow writes ``Event`` messages (``tensorflow/core/util/event.proto``) that hold a
``Summary`` (``summary.proto``) whose values are a ``simple_value`` (TF1 scalars), a
``HistogramProto`` (TF1 histograms), an ``Image`` (TF1 images) or a ``TensorProto`` with
``SummaryMetadata`` naming the TensorBoard plugin (every TF2 summary).  symgrad has no
protobuf dependency, so each message here declares its fields (number, wire kind) and is
written in protobuf's wire format as TF's C++ writes it: fields by number, proto3 scalars
left out at their default unless they are in a ``oneof`` (``simple_value: 0`` is written),
a nested message written when set even if empty, repeated numbers packed.

The classes read like protobuf's Python messages (keyword arguments, ``value.add(...)``,
``SerializeToString``, ``FromString``), which is how TF1 programs build summaries by hand:
``tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="acc", simple_value=0.9)])``.
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

import numpy as np


def varint(n: int) -> bytes:
    """``n`` as a base-128 varint; a negative number as its 64-bit two's complement."""
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def fields(data: bytes) -> list[tuple[int, int, Any]]:
    """The ``(number, wire type, value)`` of each field of an encoded message, in order: a
    varint as an int, a fixed64/fixed32 as its 8/4 bytes, a length-delimited field as bytes."""
    out, i = [], 0
    while i < len(data):
        key, i = _read_varint(data, i)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, i = _read_varint(data, i)
        elif wire == 1:
            value, i = data[i : i + 8], i + 8
        elif wire == 5:
            value, i = data[i : i + 4], i + 4
        elif wire == 2:
            size, i = _read_varint(data, i)
            value, i = data[i : i + size], i + size
        else:
            raise ValueError(f"Error parsing message: wire type {wire} of field {number}")
        out.append((number, wire, value))
    return out


# Scalar kinds: (wire type, struct format or "" for a varint), as protobuf encodes them.
_SCALARS: dict[str, tuple[int, str]] = {
    "double": (1, "<d"),
    "float": (5, "<f"),
    "int64": (0, ""),
    "int32": (0, ""),
    "enum": (0, ""),
    "bool": (0, ""),
    "string": (2, ""),
    "bytes": (2, ""),
}
_DEFAULTS = {"double": 0.0, "float": 0.0, "string": "", "bytes": b"", "bool": False}


class Repeated(list):  # type: ignore[type-arg]
    """A repeated field: a list, with ``add(**fields)`` for a repeated message as protobuf's."""

    def __init__(self, kind: Any, items: Any = ()) -> None:
        super().__init__(items)
        self.kind = kind

    def add(self, **kwargs: Any) -> Any:
        item = self.kind(**kwargs)
        self.append(item)
        return item


class Message:
    """A message: ``SPEC`` maps each field's name to ``(number, kind, label)`` where kind
    is a scalar kind or a Message class, and label is "" (proto3 scalar), "oneof" (written
    whenever set) or "repeated"."""

    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {}

    def __init__(self, **kwargs: Any) -> None:
        self._values: dict[str, Any] = {}
        for name, value in kwargs.items():
            if value is not None:
                setattr(self, name, value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        spec = type(self).SPEC.get(name)
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        if name not in self._values and (spec[2] == "repeated" or not isinstance(spec[1], str)):
            # a repeated or message field is made when first read, as protobuf's
            self._values[name] = Repeated(spec[1]) if spec[2] == "repeated" else spec[1]()
        return self._values.get(name, _DEFAULTS.get(spec[1], 0))

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        spec = type(self).SPEC.get(name)
        if spec is None:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        if spec[2] == "repeated":
            value = Repeated(spec[1], value)
        self._values[name] = value

    def HasField(self, name: str) -> bool:
        return name in self._values

    def ClearField(self, name: str) -> None:
        self._values.pop(name, None)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.SerializeToString() == other.SerializeToString()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # (mutable, as protobuf messages)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"{type(self).__name__}({inner})"

    def SerializeToString(self) -> bytes:
        out = bytearray()
        for name, (number, kind, label) in sorted(type(self).SPEC.items(), key=lambda s: s[1][0]):
            if name not in self._values:
                continue
            value = self._values[name]
            if label == "repeated":
                out += _encode_repeated(number, kind, value)
            elif not isinstance(kind, str):
                out += _field(number, 2, value.SerializeToString())
            elif label == "oneof" or value != _DEFAULTS.get(kind, 0):
                out += _encode_scalar(number, kind, value)
        return bytes(out)

    @classmethod
    def FromString(cls, data: bytes) -> Any:
        message = cls()
        message.ParseFromString(data)
        return message

    def ParseFromString(self, data: bytes) -> None:
        by_number = {
            number: (name, kind, label) for name, (number, kind, label) in self.SPEC.items()
        }
        self._values = {}
        for number, wire, raw in fields(bytes(data)):
            if number not in by_number:
                continue  # a field symgrad does not read (graph_def's, session_log's)
            name, kind, label = by_number[number]
            if label == "repeated":
                getattr(self, name).extend(_decode_repeated(kind, wire, raw))
            else:
                self._values[name] = _decode(kind, raw)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    if wire == 2:
        return varint(number << 3 | 2) + varint(len(payload)) + payload
    return varint(number << 3 | wire) + payload


def _scalar_payload(kind: str, value: Any) -> bytes:
    wire, fmt = _SCALARS[kind]
    if fmt:
        return struct.pack(fmt, value)
    if wire == 2:
        return value.encode() if isinstance(value, str) else bytes(value)
    return varint(int(value))


def _encode_scalar(number: int, kind: str, value: Any) -> bytes:
    return _field(number, _SCALARS[kind][0], _scalar_payload(kind, value))


def _encode_repeated(number: int, kind: Any, values: Any) -> bytes:
    if not values:
        return b""
    if not isinstance(kind, str):
        return b"".join(_field(number, 2, v.SerializeToString()) for v in values)
    if _SCALARS[kind][0] == 2:
        return b"".join(_encode_scalar(number, kind, v) for v in values)
    return _field(number, 2, b"".join(_scalar_payload(kind, v) for v in values))  # packed


def _decode(kind: Any, raw: Any) -> Any:
    if not isinstance(kind, str):
        return kind.FromString(raw)
    fmt = _SCALARS[kind][1]
    if fmt:
        return struct.unpack(fmt, raw)[0]
    if kind == "string":
        return raw.decode()
    if kind == "bytes":
        return bytes(raw)
    if kind == "bool":
        return bool(raw)
    return raw - (1 << 64) if raw >= 1 << 63 else raw


def _decode_repeated(kind: Any, wire: int, raw: Any) -> list[Any]:
    if not isinstance(kind, str) or wire != 2 or _SCALARS[kind][0] == 2:
        return [_decode(kind, raw)]
    fmt = _SCALARS[kind][1]
    if fmt:
        return [v for (v,) in struct.iter_unpack(fmt, raw)]
    out, i = [], 0
    while i < len(raw):
        v, i = _read_varint(raw, i)
        out.append(_decode(kind, v))
    return out


# ------------------------------------------------------------------------------------------
# The messages (field numbers as in TensorFlow's .proto files)


class PluginData(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "plugin_name": (1, "string", ""),
        "content": (2, "bytes", ""),
    }


class SummaryMetadata(Message):
    """``tf.compat.v1.SummaryMetadata``: the plugin a value belongs to, and its texts."""

    PluginData = PluginData
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "plugin_data": (1, PluginData, ""),
        "display_name": (2, "string", ""),
        "summary_description": (3, "string", ""),
        "data_class": (4, "enum", ""),
    }


class Dim(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "size": (1, "int64", ""),
        "name": (2, "string", ""),
    }


class TensorShapeProto(Message):
    Dim = Dim
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "dim": (2, Dim, "repeated"),
        "unknown_rank": (3, "bool", ""),
    }


class TensorProto(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "dtype": (1, "enum", ""),
        "tensor_shape": (2, TensorShapeProto, ""),
        "tensor_content": (4, "bytes", ""),
        "float_val": (5, "float", "repeated"),
        "double_val": (6, "double", "repeated"),
        "int_val": (7, "int32", "repeated"),
        "string_val": (8, "bytes", "repeated"),
        "int64_val": (10, "int64", "repeated"),
        "bool_val": (11, "bool", "repeated"),
    }


class HistogramProto(Message):
    """``tf.compat.v1.HistogramProto``: TF1's histogram (bucket right edges and counts)."""

    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "min": (1, "double", ""),
        "max": (2, "double", ""),
        "num": (3, "double", ""),
        "sum": (4, "double", ""),
        "sum_squares": (5, "double", ""),
        "bucket_limit": (6, "double", "repeated"),
        "bucket": (7, "double", "repeated"),
    }


class Image(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "height": (1, "int32", ""),
        "width": (2, "int32", ""),
        "colorspace": (3, "int32", ""),
        "encoded_image_string": (4, "bytes", ""),
    }


class Value(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "tag": (1, "string", ""),
        "simple_value": (2, "float", "oneof"),
        "image": (4, Image, "oneof"),
        "histo": (5, HistogramProto, "oneof"),
        "node_name": (7, "string", ""),
        "tensor": (8, TensorProto, "oneof"),
        "metadata": (9, SummaryMetadata, ""),
    }


class Summary(Message):
    """``tf.compat.v1.Summary``: the values one ``add_summary`` writes."""

    Value = Value
    Image = Image
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {"value": (1, Value, "repeated")}


class SourceMetadata(Message):
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {"writer": (1, "string", "")}


class SessionLog(Message):
    """``tf.compat.v1.SessionLog``: a session's start, stop or checkpoint, as an event."""

    STATUS_UNSPECIFIED = 0
    START = 1
    STOP = 2
    CHECKPOINT = 3
    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "status": (1, "enum", ""),
        "checkpoint_path": (2, "string", ""),
        "msg": (3, "string", ""),
    }


class Event(Message):
    """``tf.compat.v1.Event``: one record of an event file (the graph fields are not kept)."""

    SPEC: ClassVar[dict[str, tuple[int, Any, str]]] = {
        "wall_time": (1, "double", ""),
        "step": (2, "int64", ""),
        "file_version": (3, "string", "oneof"),
        "graph_def": (4, "bytes", "oneof"),
        "summary": (5, Summary, "oneof"),
        "session_log": (6, SessionLog, "oneof"),
        "meta_graph_def": (9, "bytes", "oneof"),
        "source_metadata": (10, SourceMetadata, ""),
    }


# TF's DataType numbers (types.proto) for the dtypes a summary tensor may hold.
DATA_TYPES = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "string": 7,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}


def tensor_proto(value: np.ndarray) -> TensorProto:
    """``value`` as TF's writers store a summary tensor: numbers as little-endian bytes in
    ``tensor_content`` (``AsProtoTensorContent``), strings in ``string_val``
    (``AsProtoField``: TensorBoard's reader cannot take strings from ``tensor_content``)."""
    shape = TensorShapeProto(dim=[Dim(size=int(n)) for n in value.shape])
    if value.dtype.kind in "OSU":
        strings = [v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1)]
        return TensorProto(dtype=DATA_TYPES["string"], tensor_shape=shape, string_val=strings)
    name = "bool" if value.dtype == np.bool_ else value.dtype.name
    content = np.ascontiguousarray(value, value.dtype.newbyteorder("<")).tobytes()
    return TensorProto(dtype=DATA_TYPES[name], tensor_shape=shape, tensor_content=content)


def plugin_metadata(plugin: str, description: Any = None, content: bytes = b"") -> bytes:
    """The serialized ``SummaryMetadata`` of a TensorBoard plugin's summary, as the plugins'
    ``create_summary_metadata`` make it (their ``content`` is an empty version-0 message)."""
    return SummaryMetadata(
        plugin_data=PluginData(plugin_name=plugin, content=content),
        summary_description=description,
    ).SerializeToString()
