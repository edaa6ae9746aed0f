"""TensorBoard event files: symgrad's hold what TensorFlow 2.21's hold for the same
programs, and TensorFlow's and TensorBoard's own readers read them.

The programs are ``tests/summary/summary_programs.py`` (TF2 summaries eagerly and in
``tf.function``, TF1's merged summary ops with a ``FileWriter``, Keras 3's ``TensorBoard``
callback in ``fit``); ``describe`` says what a log directory holds (images by their
pixels).  TF 2.21 takes its summary ops from TensorBoard, which ``.ci/conformance``
installs beside it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorflow

import symgrad

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "summary"))
from describe import assert_same, describe, without_graphs
from summary_programs import PROGRAMS

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_symgrad_writes_what_tensorflow_writes(program: Any, tmp_path: Any) -> None:
    program(tensorflow, str(tmp_path / "tf"))
    program(symgrad, str(tmp_path / "sg"))
    ours, theirs = describe(tmp_path / "sg"), without_graphs(describe(tmp_path / "tf"))
    assert_same(ours, theirs, program.__name__)
    for path in (tmp_path / "sg").rglob("events.*"):
        _read_with_tensorflow(path)
        _read_with_tensorboard(path, tmp_path / "tf" / path.relative_to(tmp_path / "sg").parent)


def _read_with_tensorflow(path: Path) -> None:
    """TF's ``summary_iterator`` (its record reader checks the CRCs) parses every event,
    and TF's ``MakeNdarray`` and ``decode_png`` read the tensors and images."""
    from tensorflow.python.framework import tensor_util

    events = list(tensorflow.compat.v1.train.summary_iterator(str(path)))
    assert events[0].file_version == "brain.Event:2"
    for event in events[1:]:
        for value in event.summary.value:
            if value.HasField("tensor"):
                array = tensor_util.MakeNdarray(value.tensor)
                if value.metadata.plugin_data.plugin_name == "images":
                    for png in array[2:]:
                        assert tensorflow.image.decode_png(png).shape[:2] == (
                            int(array[1]),
                            int(array[0]),
                        )
            elif value.HasField("image"):
                tensorflow.image.decode_png(value.image.encoded_image_string)


def _read_with_tensorboard(path: Path, tf_dir: Path) -> None:
    """TensorBoard's ``EventAccumulator`` files each value under the same plugin and tag
    as it files TF's, with the same steps (and scalar values, to float32)."""
    ours = _accumulated(str(path))
    (tf_path,) = tf_dir.glob("events.*")
    theirs = _accumulated(str(tf_path))
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert [s for s, _ in ours[key]] == [s for s, _ in theirs[key]], key
        np.testing.assert_allclose(
            [v for _, v in ours[key]], [v for _, v in theirs[key]], rtol=2e-6
        )


def _accumulated(path: str) -> dict[tuple[str, str], list[tuple[int, float]]]:
    acc = event_accumulator.EventAccumulator(path, size_guidance={"tensors": 0, "scalars": 0})
    acc.Reload()
    out: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for tag in acc.Tags()["tensors"]:
        metadata = acc.summary_metadata.get(tag)  # none for tf.summary.write's own
        plugin = metadata.plugin_data.plugin_name if metadata else ""
        events = acc.Tensors(tag)
        out[(plugin, tag)] = [
            (e.step, float(np.asarray(tensorflow.make_ndarray(e.tensor_proto), object).size))
            if plugin != "scalars"
            else (e.step, float(tensorflow.make_ndarray(e.tensor_proto)))
            for e in events
        ]
    for tag in acc.Tags()["scalars"]:
        out[("simple_value", tag)] = [(e.step, e.value) for e in acc.Scalars(tag)]
    for tag in acc.Tags()["histograms"]:
        out[("histo", tag)] = [(e.step, e.histogram_value.num) for e in acc.Histograms(tag)]
    for tag in acc.Tags()["images"]:
        out[("image", tag)] = [(e.step, float(e.width * e.height)) for e in acc.Images(tag)]
    return out
