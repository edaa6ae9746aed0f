"""``tf.compat.v1.summary``: TF1's summary ops, ``merge_all`` and ``FileWriter``.

TF1's summaries are ops whose output is a serialized ``Summary`` (a string scalar:
symgrad's summary ``STRING`` tensors hold it as bytes).  The ops are added to the
``GraphKeys.SUMMARIES`` collection, ``merge_all`` merges that collection's values into one
``Summary``, a ``Session`` computes it and ``FileWriter.add_summary`` writes it with a
step.  The kernels are TF's: ``ScalarSummary`` writes ``simple_value`` floats,
``HistogramSummary`` TF's exponential buckets (``HistogramProto``), ``ImageSummary`` PNGs
with floats rescaled as TF rescales them, ``TensorSummaryV2`` a tensor with metadata.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np

from symgrad.api.variable_scope import GraphKeys, add_to_collection, get_collection
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import convert_to_tensor
from symgrad.summary.png import encode_png
from symgrad.summary.proto import (
    Event,
    HistogramProto,
    Image,
    PluginData,
    Summary,
    SummaryMetadata,
    Value,
    tensor_proto,
)
from symgrad.summary.records import EventFileWriter
from symgrad.summary.writer import STRING, string_tensor


def _summary_out(inputs: Sequence[Tensor], **_: Any) -> Spec:
    return TensorShape([]), STRING


def _register(op_type: str, kernel: Any) -> None:
    register_op(
        op_type,
        _summary_out,
        kernel,
        batch="a serialized Summary: nothing to batch",
        no_cases="its output is a serialized Summary; tests/summary/test_summary_v1.py "
        "checks the bytes against TF's",
    ).no_gradient()


def _serialized(*values: Value) -> np.ndarray:
    return np.asarray(Summary(value=list(values)).SerializeToString(), dtype=object)


def _scalar_kernel(values: np.ndarray, *, tag: str) -> np.ndarray:
    if values.shape != ():
        raise InvalidArgumentError(
            f"tags and values are not the same shape: [] != [{','.join(map(str, values.shape))}]"
            f" (tag '{tag}')"
        )
    return _serialized(Value(tag=tag, simple_value=float(values)))


_register("ScalarSummary", _scalar_kernel)


def _default_limits() -> np.ndarray:
    """TF's default histogram bucket limits (``histogram.cc``): ±1e-12 growing by 10% to
    1e20, then ±DBL_MAX, around 0."""
    limits, v = [], 1.0e-12
    while v < 1.0e20:
        limits.append(v)
        v *= 1.1
    limits.append(np.finfo(np.float64).max)
    return np.array([-x for x in reversed(limits)] + [0.0] + limits)


_LIMITS = _default_limits()


def histogram_proto(values: np.ndarray, name: str) -> HistogramProto:
    """TF1's ``Histogram``: counts in the default buckets (a value goes to the first
    bucket whose limit is above it), sums added in order, and each run of empty buckets
    written as its last one (``EncodeToProto`` without ``preserve_zero_buckets``)."""
    x = np.asarray(values, np.float64).reshape(-1)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        kind = (
            "Nan in summary histogram for: "
            if np.isnan(x[bad[0]])
            else "Infinity in Histogram for: "
        )
        raise InvalidArgumentError(kind + name)
    counts = np.bincount(np.searchsorted(_LIMITS, x, side="right"), minlength=_LIMITS.size)
    limits, buckets = [], []
    i = 0
    while i < _LIMITS.size:
        j = i + 1
        if counts[i] <= 0:
            while j < _LIMITS.size and counts[j] <= 0:
                j += 1
        limits.append(float(_LIMITS[j - 1]))
        buckets.append(float(counts[j - 1]))
        i = j
    big = float(np.finfo(np.float64).max)
    return HistogramProto(
        min=float(min(big, x.min())) if x.size else big,
        max=float(max(-big, x.max())) if x.size else -big,
        num=float(x.size),
        sum=float(np.cumsum(x)[-1]) if x.size else 0.0,
        sum_squares=float(np.cumsum(x * x)[-1]) if x.size else 0.0,
        bucket_limit=limits,
        bucket=buckets,
    )


def _histogram_kernel(values: np.ndarray, *, tag: str, node: str) -> np.ndarray:
    return _serialized(Value(tag=tag, histo=histogram_proto(values, node)))


_register("HistogramSummary", _histogram_kernel)


def normalized_image(image: np.ndarray) -> np.ndarray:
    """TF's ``NormalizeFloatImage`` for one ``[h, w, c]`` image: over the pixels whose
    channels are all finite, values ≥ 0 are scaled by 255/max, else by 127/max|v| and
    shifted by 128 (in float32); a pixel with a NaN or inf takes ``bad_color`` (red)."""
    x = np.asarray(image)
    x = x.astype(np.float64 if x.dtype == np.float64 else np.float32)  # TF's T, half as float
    finite = np.isfinite(x).all(axis=-1)
    seen = x[finite]
    # the range is found in float32 (TF's image_min/max), the transform done in T
    lo = np.float32(seen.min()) if seen.size else np.float32(np.inf)
    hi = np.float32(seen.max()) if seen.size else np.float32(-np.inf)
    if lo < 0:
        top = max(abs(lo), abs(hi))
        scale, offset = (0 if top < 1e-6 else np.float32(127) / top), 128
    else:
        scale, offset = (0 if hi < 1e-6 else np.float32(255) / hi), 0
    out = (x * x.dtype.type(scale) + x.dtype.type(offset)).astype(np.uint8)
    out[~finite] = np.array([255, 0, 0, 255], np.uint8)[: x.shape[-1]]
    return out


def _image_kernel(tensor: np.ndarray, *, tag: str, max_images: int) -> np.ndarray:
    if tensor.ndim != 4 or tensor.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(
            f"Tensor must be 4-D with last dim 1, 3, or 4, not [{','.join(map(str, tensor.shape))}]"
        )
    _, height, width, depth = tensor.shape
    values = []
    for i in range(min(max_images, tensor.shape[0])):
        pixels = tensor[i] if tensor.dtype == np.uint8 else normalized_image(tensor[i])
        image = Image(
            height=height, width=width, colorspace=depth, encoded_image_string=encode_png(pixels)
        )
        values.append(
            Value(tag=f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image", image=image)
        )
    return _serialized(*values)


_register("ImageSummary", _image_kernel)


def _tensor_kernel(tensor: np.ndarray, *, tag: str, metadata: bytes) -> np.ndarray:
    return _serialized(
        Value(tag=tag, tensor=tensor_proto(tensor), metadata=SummaryMetadata.FromString(metadata))
    )


_register("TensorSummaryV2", _tensor_kernel)


def _merge_kernel(*inputs: np.ndarray) -> np.ndarray:
    tags: set[str] = set()
    merged = Summary()
    for serialized in inputs:
        try:
            summary = Summary.FromString(bytes(serialized[()]))
        except (ValueError, IndexError):
            raise InvalidArgumentError("Could not parse one of the summary inputs") from None
        for value in summary.value:
            if value.tag and value.tag in tags:
                raise InvalidArgumentError(f"Duplicate tag {value.tag} found in summary inputs ")
            tags.add(value.tag)
            merged.value.append(value)
    return np.asarray(merged.SerializeToString(), dtype=object)


_register("MergeSummary", _merge_kernel)


_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name: Any) -> Any:
    """TF1's ``clean_tag``: characters other than ``-/\\w.`` become ``_``, and leading
    slashes go."""
    return None if name is None else _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")


@contextlib.contextmanager
def _summary_scope(name: Any, family: Any, default_name: Any = None) -> Iterator[tuple[str, str]]:
    """TF1's ``summary_scope``: the op's name scope, made unique; the tag is that scope
    (``loss_1`` for a second ``loss``), under ``family/`` when given."""
    name, family = _clean_tag(name), _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with get_default_graph().name_scope(base or default_name) as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else f"{family}/{tag}"), scope


def _summary_op(
    op_type: str, x: Any, attrs: dict[str, Any], scope: str, collections: Any
) -> Tensor:
    out = apply_op(op_type, [x], attrs, scope).outputs[0]
    for key in [GraphKeys.SUMMARIES] if collections is None else collections:
        add_to_collection(key, out)
    return out


def scalar(name: Any, tensor: Any, collections: Any = None, family: Any = None) -> Tensor:
    """A ``Summary`` with ``tensor`` (a scalar) as ``simple_value``, added to
    ``collections`` (``GraphKeys.SUMMARIES``)."""
    with _summary_scope(name, family) as (tag, scope):
        return _summary_op(
            "ScalarSummary", convert_to_tensor(tensor), {"tag": tag}, scope, collections
        )


def histogram(name: Any, values: Any, collections: Any = None, family: Any = None) -> Tensor:
    """A ``Summary`` with the histogram of ``values`` in TF's default buckets; a NaN or
    infinite value is an error when it runs."""
    with _summary_scope(name, family, "HistogramSummary") as (tag, scope):
        attrs = {"tag": tag, "node": scope.rstrip("/")}
        return _summary_op("HistogramSummary", convert_to_tensor(values), attrs, scope, collections)


def image(
    name: Any, tensor: Any, max_outputs: Any = 3, collections: Any = None, family: Any = None
) -> Tensor:
    """A ``Summary`` with the first ``max_outputs`` images of ``tensor`` (``[k, h, w, c]``,
    c 1, 3 or 4, uint8 or float) as PNG, tagged ``name/image/i`` (``name/image`` when
    ``max_outputs`` is 1)."""
    with _summary_scope(name, family) as (tag, scope):
        attrs = {"tag": tag, "max_images": int(max_outputs)}
        return _summary_op("ImageSummary", convert_to_tensor(tensor), attrs, scope, collections)


def tensor_summary(
    name: Any,
    tensor: Any,
    summary_description: Any = None,
    collections: Any = None,
    summary_metadata: Any = None,
    family: Any = None,
    display_name: Any = None,
) -> Tensor:
    """A ``Summary`` holding ``tensor`` itself, with ``summary_metadata``."""
    metadata = summary_metadata if summary_metadata is not None else SummaryMetadata()
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    x = convert_to_tensor(string_tensor(tensor))
    with _summary_scope(name, family) as (tag, scope):
        attrs = {"tag": tag, "metadata": metadata.SerializeToString()}
        return _summary_op("TensorSummaryV2", x, attrs, scope, collections)


def text(name: Any, tensor: Any, collections: Any = None) -> Tensor:
    """A ``Summary`` of ``tensor``'s strings for TensorBoard's Text.  A Python string is
    taken as a string tensor (symgrad's ``constant`` makes none)."""
    x = string_tensor(tensor)
    if not isinstance(x, Tensor) or x.dtype != STRING:
        x = convert_to_tensor(x)
        raise ValueError(f"Expected tensor {x.name} to have dtype string, got {x.dtype}")
    metadata = SummaryMetadata(plugin_data=PluginData(plugin_name="text"))
    return tensor_summary(name, x, summary_metadata=metadata, collections=collections)


def merge(inputs: Any, collections: Any = None, name: Any = None) -> Tensor:
    """One ``Summary`` with the values of each of ``inputs`` (a tag twice is an error when
    it runs)."""
    if get_default_graph().eager:
        raise RuntimeError(
            "Merging tf.summary.* ops is not compatible with eager execution. "
            "Use tf.contrib.summary instead."
        )
    name = _clean_tag(name)
    with get_default_graph().name_scope(name or "Merge"):
        tensors = [convert_to_tensor(x) for x in inputs]
        out = apply_op("MergeSummary", tensors, {}, name or "MergeSummary").outputs[0]
    for key in collections or []:
        add_to_collection(key, out)
    return out


def merge_all(key: str = GraphKeys.SUMMARIES, scope: Any = None, name: Any = None) -> Tensor | None:
    """``merge`` of the collection ``key`` (None when it is empty)."""
    if get_default_graph().eager:
        raise RuntimeError(
            "Merging tf.summary.* ops is not compatible with eager execution. "
            "Use tf.contrib.summary instead."
        )
    summary_ops = get_collection(key, scope=scope)
    return merge(summary_ops, name=name) if summary_ops else None


class FileWriter:
    """``tf.compat.v1.summary.FileWriter``: writes ``Event`` records to a new event file in
    ``logdir`` (named ``events.out.tfevents.<seconds>.<hostname><filename_suffix>``).

    The graph given (``sess.graph``) is not written: symgrad has no ``GraphDef`` to
    serialize, so TensorBoard's Graphs tab stays empty.  A value's plugin metadata is
    written with its tag's first value only, as TF's writer does."""

    def __init__(
        self,
        logdir: Any,
        graph: Any = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        graph_def: Any = None,
        filename_suffix: Any = None,
        session: Any = None,
    ) -> None:
        if get_default_graph().eager:
            raise RuntimeError(
                "v1.summary.FileWriter is not compatible with eager execution. "
                "Use `tf.summary.create_file_writer`,"
                "or a `with v1.Graph().as_default():` context"
            )
        self._args = (str(logdir), max_queue, flush_secs, filename_suffix or "")
        self.event_writer = EventFileWriter(*self._args)
        self._closed = False
        self._seen_summary_tags: set[str] = set()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def get_logdir(self) -> str:
        return self._args[0]

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """Write ``summary`` (a ``Summary`` or its bytes, as a summary op gives them) at
        ``global_step``."""
        if isinstance(summary, bytes | np.ndarray):
            summary = Summary.FromString(bytes(np.asarray(summary, dtype=object)[()]))
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(Event(summary=summary), global_step)

    def add_graph(self, graph: Any, global_step: Any = None, graph_def: Any = None) -> None:
        """Accepted and not written (symgrad has no ``GraphDef``)."""

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        """Write a ``SessionLog`` (START, STOP or CHECKPOINT) at ``global_step``."""
        self._add_event(Event(session_log=session_log), global_step)

    def add_event(self, event: Event) -> None:
        self._warn_if_closed()
        self.event_writer.add_event(event)

    def _add_event(self, event: Event, step: Any) -> None:
        self._warn_if_closed()
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def _warn_if_closed(self) -> None:
        if self._closed:
            warnings.warn(
                "Attempting to use a closed FileWriter. The operation will be a noop unless "
                "the FileWriter is explicitly reopened.",
                stacklevel=3,
            )

    def flush(self) -> None:
        self._warn_if_closed()
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        """After ``close``, write on in a new event file."""
        if self._closed:
            self.event_writer = EventFileWriter(*self._args)
            self._closed = False


class FileWriterCache:
    """One ``FileWriter`` per log directory, made on first ``get``."""

    _cache: ClassVar[dict[str, FileWriter]] = {}
    _lock = threading.RLock()

    @staticmethod
    def clear() -> None:
        with FileWriterCache._lock:
            for item in FileWriterCache._cache.values():
                item.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir: Any) -> FileWriter:
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=get_default_graph())
            return FileWriterCache._cache[logdir]


__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "Summary",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
]
