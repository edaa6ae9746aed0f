"""TensorBoard's event files: TFRecord framing with masked CRC32C, and the file writer.

An event file is a sequence of TFRecords, each ``length`` (uint64 little-endian), the
masked CRC32C of those 8 bytes, ``data`` (a serialized ``Event``) and the masked CRC32C
of the data (``tensorflow/core/lib/io/record_writer.cc``).  TensorBoard checks both CRCs,
so they are computed here in Python: CRC32C (Castagnoli, reflected polynomial
0x82F63B78) from a 256-entry table, masked as TF masks it (rotate right by 15, add
0xa282ead8) so that a CRC of data that holds CRCs stays unlike them.

``EventFileWriter`` is TF's ``EventsWriter`` with the queue of its users: it makes
``logdir`` if missing, names the file ``events.out.tfevents.<10-digit seconds>.<hostname>
<suffix>``, writes the ``brain.Event:2`` event with its source at once, then holds events
in memory until a flush (when more than ``max_queue`` are held, when ``flush_secs`` have
passed since the last one, or on ``flush``/``close``), as TF's writers do.
"""

from __future__ import annotations

import os
import socket
import struct
import time
import weakref
from collections.abc import Iterator
from typing import Any

from symgrad.summary.proto import Event, SourceMetadata


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """The CRC32C (Castagnoli) of ``data``: ``crc32c(b"123456789") == 0xE3069283``."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TF's ``crc32c::Mask`` of the CRC: ``((crc >> 15) | (crc << 17)) + 0xa282ead8``."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """``data`` framed as one TFRecord."""
    length = struct.pack("<Q", len(data))
    return (
        length
        + struct.pack("<I", masked_crc32c(length))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


def read_records(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The data of each TFRecord of the file at ``path``, checking both CRCs (a record cut
    short at the end, as a writer still writing leaves it, ends the iteration)."""
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return
            length = header[:8]
            if struct.unpack("<I", header[8:])[0] != masked_crc32c(length):
                raise ValueError(f"{path}: corrupted record (length CRC)")
            data = f.read(struct.unpack("<Q", length)[0])
            footer = f.read(4)
            if len(footer) < 4:
                return
            if struct.unpack("<I", footer)[0] != masked_crc32c(data):
                raise ValueError(f"{path}: corrupted record (data CRC)")
            yield data


def read_events(path: str | os.PathLike[str]) -> Iterator[Event]:
    """The ``Event`` messages of an event file, as ``tf.compat.v1.train.summary_iterator``."""
    for data in read_records(path):
        yield Event.FromString(data)


class EventFileWriter:
    """Writes ``Event`` messages to a new event file in ``logdir`` (TF's ``EventsWriter``
    with its users' queue): the file exists, with its first event, once this returns."""

    def __init__(
        self, logdir: str, max_queue: int = 10, flush_secs: float = 120, suffix: str = ""
    ) -> None:
        self.logdir = str(logdir)
        self.max_queue, self.flush_secs = int(max_queue), float(flush_secs)
        os.makedirs(self.logdir, exist_ok=True)
        seconds = int(time.time())
        name = f"events.out.tfevents.{seconds:010d}.{socket.gethostname()}{suffix}"
        self.path = os.path.join(self.logdir, name)
        self._file: Any = open(self.path, "wb")  # noqa: SIM115 (closed by close or at exit)
        # a writer dropped or left open at exit still writes what it holds, as TF's
        # resource's destructor flushes
        self._queue: list[bytes] = []
        self._finalizer = weakref.finalize(self, _close_file, self._file, self._queue)
        self._last_flush = time.monotonic()
        first = Event(
            wall_time=float(seconds),
            file_version="brain.Event:2",
            source_metadata=SourceMetadata(writer="tensorflow.core.util.events_writer"),
        )
        self._file.write(record(first.SerializeToString()))
        self._file.flush()

    @property
    def closed(self) -> bool:
        return bool(self._file.closed)

    def add_event(self, event: Event) -> None:
        """Queue ``event``; flush when more than ``max_queue`` are held or ``flush_secs``
        have passed since the last flush (TF's ``SummaryFileWriter::WriteEvent``)."""
        if self.closed:
            return
        self._queue.append(event.SerializeToString())
        if (
            len(self._queue) > self.max_queue
            or time.monotonic() - self._last_flush > self.flush_secs
        ):
            self.flush()

    def flush(self) -> None:
        if self.closed:
            return
        _write_queue(self._file, self._queue)
        self._last_flush = time.monotonic()

    def close(self) -> None:
        self._finalizer()


def _write_queue(file: Any, queue: list[bytes]) -> None:
    for data in queue:
        file.write(record(data))
    queue.clear()
    file.flush()


def _close_file(file: Any, queue: list[bytes]) -> None:
    if not file.closed:
        _write_queue(file, queue)
        file.close()
