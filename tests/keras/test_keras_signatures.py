"""Keras 3's constructor signatures: parameter names, order, kinds and defaults of the
layers, initializers, regularizers, constraints, ops, Model, Sequential, Input, Layer
and add_weight, against the text ``inspect.signature`` gives on Keras 3.15.1 / TF 2.21
(data/signatures_tf.txt, recorded with the TF venv)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import symgrad as tf

LINES = (Path(__file__).parent / "data" / "signatures_tf.txt").read_text().splitlines()


def _plain(sig: inspect.Signature) -> str:
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _target(words: list[str]) -> object:
    k = tf.keras
    if words[0] in ("layers", "initializers", "regularizers", "constraints", "ops"):
        return getattr(getattr(k, words[0]), words[1])
    if words[0] == "add_weight":
        return k.layers.Layer.add_weight
    if words[0] == "Layer":
        return k.layers.Layer.__init__
    return getattr(k, words[0])


@pytest.mark.parametrize("line", LINES, ids=[" ".join(x.split(" (")[0].split()) for x in LINES])
def test_signature_is_keras_3(line: str) -> None:
    head, _, want = line.partition(" (")
    obj = _target(head.split())
    fn = obj.__init__ if isinstance(obj, type) else obj  # type: ignore[misc]
    assert _plain(inspect.signature(fn)).replace("self: 'Any'", "self") == "(" + want
