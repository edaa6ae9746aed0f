"""The event file's bytes: CRC32C against its published check values, TFRecord framing and
the protobuf messages against bytes TensorFlow 2.21 wrote, and the file's name."""

from __future__ import annotations

import os
import re
import socket
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.summary.proto import (
    Event,
    HistogramProto,
    SourceMetadata,
    Summary,
    SummaryMetadata,
    Value,
    plugin_metadata,
    tensor_proto,
)
from symgrad.summary.records import crc32c, masked_crc32c, read_events, record
from symgrad.summary.v1 import histogram_proto


@pytest.mark.parametrize(
    "data,crc",
    [
        (b"", 0),
        (b"123456789", 0xE3069283),  # the CRC-32C check value
        (bytes(32), 0x8A9136AA),  # RFC 3720, B.4
        (b"\xff" * 32, 0x62A8AB43),
        (bytes(range(32)), 0x46DD794E),
        (bytes(range(31, -1, -1)), 0x113FDB5C),
    ],
)
def test_crc32c_check_values(data: bytes, crc: int) -> None:
    assert crc32c(data) == crc


# The first two records of a file TF 2.21 wrote (tf.summary.scalar("loss", 0.5, step=3)).
TF_FIRST = (
    b">\x00\x00\x00\x00\x00\x00\x00\xd9\xd2@\xe7\t\x00\x00\x80g\xf3\xc2\xdaA\x1a\rbrain.Event:2R$"
    b'\n"tensorflow.core.util.events_writer\xf9\x84\xe7!'
)
TF_SCALAR = (
    b".\x00\x00\x00\x00\x00\x00\x00\xc5\xcbW\xfa\t\xd1\x07\xa8g\xf3\xc2\xdaA\x10\x03*!\n\x1f\n"
    b'\x04lossB\n\x08\x01\x12\x00"\x04\x00\x00\x00?J\x0b\n\t\n\x07scalars\xd8\x0b\xc38'
)


def test_records_and_events_are_tfs_bytes() -> None:
    first = Event(
        wall_time=1795935646.0,
        file_version="brain.Event:2",
        source_metadata=SourceMetadata(writer="tensorflow.core.util.events_writer"),
    )
    assert record(first.SerializeToString()) == TF_FIRST
    value = Value(tag="loss", tensor=tensor_proto(np.float32(0.5)))
    value.metadata.ParseFromString(plugin_metadata("scalars"))
    scalar = Event(wall_time=1795935646.625477, step=3, summary=Summary(value=[value]))
    assert record(scalar.SerializeToString()) == TF_SCALAR
    assert masked_crc32c(TF_SCALAR[:8]) == int.from_bytes(TF_SCALAR[8:12], "little")


def test_messages_read_back_and_encode_as_tf() -> None:
    data = TF_SCALAR[12:-4]
    event = Event.FromString(data)
    assert (event.step, event.summary.value[0].tag) == (3, "loss")
    assert event.summary.value[0].metadata.plugin_data.plugin_name == "scalars"
    assert event.SerializeToString() == data
    # a oneof's zero is written (simple_value 0.0); a proto3 scalar's is not (step 0)
    zero = Summary(value=[Value(tag="z", simple_value=0.0)])
    assert zero.SerializeToString() == b"\n\x08\n\x01z\x15\x00\x00\x00\x00"
    assert Event(step=0, wall_time=0.0).SerializeToString() == b""
    assert Event(step=-1).SerializeToString() == b"\x10" + b"\xff" * 9 + b"\x01"
    # TF's bytes for tensor_summary("ts", [1.0, 2.0], summary_description="dd") in a graph
    tensor = Value(tag="ts_1", tensor=tensor_proto(np.array([1, 2], np.float32)))
    tensor.metadata = SummaryMetadata(summary_description="dd")
    assert Summary(value=[tensor]).SerializeToString() == (
        b'\n \n\x04ts_1B\x12\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@'
        b"J\x04\x1a\x02dd"
    )


def test_tf1_histogram_of_nothing_is_tfs() -> None:
    """TF's bytes for an empty HistogramSummary: min DBL_MAX, max -DBL_MAX, one bucket."""
    value = Value(tag="h", histo=histogram_proto(np.zeros([0]), "h"))
    assert Summary(value=[value]).SerializeToString() == (
        b"\n+\n\x01h*&\t\xff\xff\xff\xff\xff\xff\xef\x7f\x11\xff\xff\xff\xff\xff\xff\xef\xff2"
        b"\x08\xff\xff\xff\xff\xff\xff\xef\x7f:\x08\x00\x00\x00\x00\x00\x00\x00\x00"
    )
    assert isinstance(HistogramProto.FromString(value.histo.SerializeToString()), HistogramProto)


def test_file_names_are_tfs(tmp_path: Any) -> None:
    host = re.escape(socket.gethostname())
    w2 = tf.summary.create_file_writer(str(tmp_path / "v2"))
    w3 = tf.summary.create_file_writer(str(tmp_path / "v2"), filename_suffix="mine")
    w2.close()
    w3.close()
    # v2's first (the names' order alone depends on the clock: the second and a counter)
    names = sorted(os.listdir(tmp_path / "v2"), key=lambda n: not n.endswith(".v2"))
    pid = os.getpid()
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{pid}\.\d+\.v2", names[0])
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{pid}\.\d+\.mine", names[1])
    with tf.Graph().as_default():
        tf.compat.v1.summary.FileWriter(str(tmp_path / "v1"), filename_suffix=".x").close()
    (name,) = os.listdir(tmp_path / "v1")
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.x", name)


def test_events_wait_for_a_flush(tmp_path: Any) -> None:
    """As TF's writer: the first event at once, the rest when more than max_queue wait,
    on flush, when leaving as_default, and on close."""
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=2)
    (path,) = tmp_path.iterdir()

    def count() -> int:
        return len(list(read_events(path)))

    assert count() == 1
    with w.as_default(step=1):
        tf.summary.scalar("a", 1.0)
        tf.summary.scalar("b", 1.0)
        assert count() == 1
        tf.summary.scalar("c", 1.0)  # a third waiting: more than max_queue
        assert count() == 4
        tf.summary.scalar("d", 1.0)
        assert count() == 4
    assert count() == 5
    with w.as_default(step=2):
        tf.summary.scalar("e", 1.0)
        tf.summary.flush()
        assert count() == 6
    w.close()
    w.close()
    assert [e.step for e in read_events(path)] == [0, 1, 1, 1, 1, 2]
