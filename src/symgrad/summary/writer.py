"""TF2's summary writers and the op that writes: ``tf.summary.create_file_writer``,
``as_default``, ``record_if``, the default step, and ``tf.summary.write``.

As in TF (``summary_ops_v2.py``), the default writer, step and recording condition are
per-thread state read when a summary call runs: eagerly the value is written at once;
inside a ``function`` the call is traced into a ``WriteSummary`` op (stateful, so it runs
at every call of the function, in program order, like ``tf.print``) that holds the writer
in force at trace time, as TF's op holds the writer's resource.  A summary call returns a
bool tensor: True when written, False when there is no default writer or recording is off.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from symgrad.api.variable_scope import get_current_name_scope
from symgrad.core import dtypes as dt
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.summary.proto import Event, Summary, Value, tensor_proto
from symgrad.summary.records import EventFileWriter

# TF's string dtype, for the tensors that hold text and serialized summaries (NumPy object
# arrays of bytes).  symgrad has no tf.string otherwise: only summary ops make such tensors.
STRING = dt.DType("string", object)


class _SummaryState(threading.local):
    def __init__(self) -> None:
        self.writer: SummaryWriter | None = None
        self.step: Any = None
        self.is_recording: Any = None


_state = _SummaryState()


class SummaryWriter:
    """``tf.summary.SummaryWriter``: a writer summary calls write to while it is the default."""

    def set_as_default(self, step: Any = None) -> None:
        """Make this the default writer of this thread (and ``step`` the default step) for
        good, as entering ``as_default`` without leaving it."""
        self.as_default(step).__enter__()

    def as_default(self, step: Any = None) -> Any:
        """A context in which summary calls write to this writer (``step``, when given, is
        the default step inside); leaving it flushes the writer and restores the former."""
        return _SummaryContextManager(self, step)

    def init(self) -> Any:
        raise NotImplementedError()

    def flush(self) -> Any:
        raise NotImplementedError()

    def close(self) -> Any:
        raise NotImplementedError()


class _SummaryContextManager:
    def __init__(self, writer: SummaryWriter, step: Any = None) -> None:
        self._writer, self._step = writer, step
        self._old_writer: SummaryWriter | None = None
        self._old_step: Any = None

    def __enter__(self) -> SummaryWriter:
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc: Any) -> None:
        _state.writer.flush()  # type: ignore[union-attr]
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step


_file_ids = itertools.count()  # TF's per-process counter in each TF2 file's name


class _ResourceSummaryWriter(SummaryWriter):
    """A writer of one event file (``create_file_writer``'s).  Its file is made at once,
    named as TF's ``SummaryFileWriter`` names it: ``...<hostname>.<pid>.<n>.v2``."""

    def __init__(self, logdir: str, max_queue: int, flush_millis: int, suffix: str) -> None:
        sep = "" if suffix.startswith(".") else "."
        unique = f".{os.getpid()}.{next(_file_ids)}{sep}{suffix}"
        self._events = EventFileWriter(logdir, max_queue, flush_millis / 1000, unique)
        self._closed = False

    def set_as_default(self, step: Any = None) -> None:
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step: Any = None) -> Any:
        self._check_open()
        return super().as_default(step)

    def _check_open(self) -> None:
        if get_default_graph().eager and self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def init(self) -> None:
        """The file is made when the writer is (eagerly, as TF makes it); nothing to do."""
        self._check_open()

    def flush(self) -> Operation | None:
        """Write what the writer holds to its file: now eagerly, as a ``FlushSummaryWriter``
        op (returned) in a graph or ``function``."""
        return _writer_op("FlushSummaryWriter", self)

    def close(self) -> Operation | None:
        """Flush and close the file; summaries given to it later are dropped."""
        return _writer_op("CloseSummaryWriter", self)

    def write_summary(self, step: int, summary: Summary) -> None:
        self._events.add_event(Event(wall_time=time.time(), step=step, summary=summary))


def _writer_op(op_type: str, writer: _ResourceSummaryWriter) -> Operation | None:
    close = op_type == "CloseSummaryWriter"
    if get_default_graph().eager:
        if not writer._closed:
            _writer_kernel(writer=writer, close=close)
        return None
    return apply_op(op_type, [], {"writer": writer, "close": close})


def _writer_kernel(*, writer: _ResourceSummaryWriter, close: bool) -> tuple[()]:
    if close:
        writer._events.close()
        writer._closed = True
    else:
        writer._events.flush()
    return ()


def _no_outputs(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    return []


for _type in ("FlushSummaryWriter", "CloseSummaryWriter"):
    register_op(
        _type,
        _no_outputs,
        _writer_kernel,
        stateful=True,
        pure=False,
        batch="acts on a writer's file: no output to batch",
        no_cases="no outputs; tests/summary/test_summary_v2.py checks the files",
    ).no_gradient()


class _NoopSummaryWriter(SummaryWriter):
    """``create_noop_writer``'s: a writer that writes nothing, not even as the default."""

    def set_as_default(self, step: Any = None) -> None:
        pass

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[None]:
        yield

    def init(self) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def create_file_writer(
    logdir: Any,
    max_queue: Any = None,
    flush_millis: Any = None,
    filename_suffix: Any = None,
    name: Any = None,
    experimental_trackable: bool = False,
    experimental_mesh: Any = None,
) -> SummaryWriter:
    """``tf.summary.create_file_writer``: a writer of a new event file in ``logdir`` (made
    if missing), which holds up to ``max_queue`` (10) events and flushes them when it holds
    more, at a write ``flush_millis`` (120,000) after the last flush, and on
    ``flush``/``close``.  Inside a ``function`` it is made at once all the same (TF lifts
    it out with ``init_scope``).  ``name`` and the experimental arguments (SavedModel
    tracking, DTensor meshes) change nothing here."""
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    args = dict(
        logdir=logdir, max_queue=max_queue, flush_millis=flush_millis,
        filename_suffix=filename_suffix,
    )  # fmt: skip
    for arg_name, arg in args.items():
        if isinstance(arg, Tensor) and not arg.has_value():
            raise ValueError(
                f"Invalid graph Tensor argument '{arg_name}={arg}' to create_file_writer() "
                "inside an @tf.function. The create call will be lifted into the outer eager "
                "execution context, so it cannot consume graph tensors defined inside the "
                "function body."
            )
    return _ResourceSummaryWriter(
        _text(logdir),
        10 if max_queue is None else int(np.asarray(max_queue)),
        120_000 if flush_millis is None else int(np.asarray(flush_millis)),
        ".v2" if filename_suffix is None else _text(filename_suffix),
    )


def _text(x: Any) -> str:
    if isinstance(x, Tensor):
        x = x.numpy()[()]
    return x.decode() if isinstance(x, bytes) else os.fspath(x)


def create_noop_writer() -> SummaryWriter:
    """``tf.summary.create_noop_writer``: a writer that does nothing (a placeholder where
    code expects one)."""
    return _NoopSummaryWriter()


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Write summaries inside only where ``condition`` holds: a bool, a bool tensor, or a
    function giving one that each summary call calls (inside a ``function``: at tracing,
    so a tensor it returns is read at each call)."""
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def _recording() -> Any:
    """The recording condition as TF's ``should_record_summaries`` makes it: a Python bool
    when known now, else a bool tensor."""
    if _state.writer is None:
        return False
    cond = _state.is_recording
    cond = cond() if callable(cond) else cond
    if cond is None:
        return True
    if isinstance(cond, Tensor) or hasattr(cond, "_as_tensor"):
        cond = convert_to_tensor(cond)
        known = constant_value(cond)
        return cond if known is None else bool(known)
    return bool(cond)


def should_record_summaries() -> Tensor:
    """``tf.summary.should_record_summaries``: a bool tensor, True when a summary call
    here would write (a default writer, and the ``record_if`` condition holds)."""
    cond = _recording()
    return cond if isinstance(cond, Tensor) else constant(cond)


def get_step() -> Any:
    """``tf.summary.experimental.get_step``: the default step (None when unset)."""
    return _state.step


def set_step(step: Any) -> None:
    """``tf.summary.experimental.set_step``: the step summary calls use when given none
    (a Variable is read at each call; a number inside a ``function`` is fixed at tracing)."""
    _state.step = step


def flush(writer: Any = None, name: Any = None) -> Any:
    """``tf.summary.flush``: flush ``writer`` (default: the default writer, if any)."""
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError(f"Invalid argument to flush(): {writer!r}")


_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(
    name: Any, default_name: str = "summary", values: Any = None
) -> Iterator[tuple[str, str]]:
    """``tf.summary.experimental.summary_scope``: yields ``(tag, scope)``; the tag is
    ``name`` under the enclosing name scopes, not made unique and with any characters (TF
    relaxes the op name's rules for tags)."""
    name = name or default_name
    graph = get_default_graph()
    current_scope = get_current_name_scope()  # TF2's: at the top level, as entered
    tag = f"{current_scope}/{name}" if current_scope else name
    with graph.name_scope(_INVALID_SCOPE_CHARACTERS.sub("", name) or default_name) as scope:
        yield tag, scope


def _choose_step(step: Any) -> Tensor:
    step = convert_to_tensor(step, dtype=dt.int64)
    if step.shape.num_elements() != 1:
        raise ValueError(
            f"Argument `step` must be a scalar. Received step with shape {step.shape}."
        )
    return step


def write_value(
    tag: str,
    data: Any,
    step: Any,
    metadata: bytes,
    prepare: Callable[[np.ndarray], np.ndarray] | None = None,
    raw: bool = False,
) -> Tensor:
    """Write ``prepare(data)`` (data itself without ``prepare``) as a tensor summary under
    ``tag``, if a writer is in force and recording is on (``raw``: data are serialized
    ``Summary`` messages, written as one event).  A function ``data`` is called only then,
    as TF makes a summary's tensor only then (its errors, such as an image's rank, too)."""
    if step is not None:
        step = _choose_step(step)
    cond = _recording()
    if cond is False:
        return constant(False)
    if step is None:
        if _state.step is None:
            raise ValueError(
                "No step set. Please specify one either through the `step` argument or "
                "through tf.summary.experimental.set_step()"
            )
        step = _choose_step(_state.step)
    data = string_tensor(data() if callable(data) else data)
    inputs = [step, convert_to_tensor(data)] + ([cond] if isinstance(cond, Tensor) else [])
    attrs = {
        "writer": _state.writer,
        "tag": tag,
        "metadata": metadata,
        "prepare": prepare,
        "raw": raw,
    }
    return apply_op("WriteSummary", inputs, attrs).outputs[0]


def _write_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    return TensorShape([]), dt.bool_


def _write_kernel(
    step: Any, data: Any, *cond: Any, writer: Any, tag: str, metadata: bytes, prepare: Any,
    raw: bool,
) -> np.ndarray:  # fmt: skip
    if cond and not cond[0]:
        return np.asarray(False)
    if not isinstance(writer, _ResourceSummaryWriter):
        return np.asarray(False)  # a noop writer
    if raw:  # TF's WriteRawProtoSummary: the messages merged into one event
        merged = Summary()
        for serialized in np.asarray(data, dtype=object).reshape(-1):
            merged.value.extend(Summary.FromString(serialized).value)
        writer.write_summary(int(step), merged)
        return np.asarray(True)
    value = Value(tag=tag, tensor=tensor_proto(np.asarray(prepare(data) if prepare else data)))
    if metadata:
        value.metadata.ParseFromString(metadata)
    writer.write_summary(int(step), Summary(value=[value]))
    return np.asarray(True)


register_op(
    "WriteSummary",
    _write_infer,
    _write_kernel,
    stateful=True,
    pure=False,
    batch="writes to a file: a side effect batching would repeat or drop",
    no_cases="writes as it runs; tests/summary/test_summary_v2.py checks the files eagerly, "
    "in a function and against TF's",
).no_gradient()


def write(
    tag: Any, tensor: Any, step: Any = None, metadata: Any = None, name: Any = None
) -> Tensor:
    """``tf.summary.write``: write ``tensor`` (or what a function ``tensor`` returns, called
    only when writing) under ``tag`` with ``metadata`` (a ``SummaryMetadata`` or its bytes)."""
    if metadata is None:
        serialized = b""
    elif hasattr(metadata, "SerializeToString"):
        serialized = metadata.SerializeToString()
    else:
        serialized = bytes(metadata)
    return write_value(str(tag), tensor, step, serialized)


def string_tensor(data: Any) -> Any:
    """``data``, with Python strings (and NumPy arrays of them) made a string tensor, which
    ``convert_to_tensor`` does not do in symgrad."""
    if isinstance(data, str | bytes) or (
        isinstance(data, list | tuple | np.ndarray) and np.asarray(data).dtype.kind in "SUO"
    ):
        value = np.asarray(data, dtype=object)
        value = np.vectorize(
            lambda s: s.encode() if isinstance(s, str) else bytes(s), otypes=[object]
        )(value)
        return apply_op("Const", [], {"value": value, "dtype": STRING}).outputs[0]
    return data
