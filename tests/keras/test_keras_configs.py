"""Every layer's ``get_config()`` is Keras-on-TF 2.21's dict for the same constructor
arguments (recorded by ``gen_layer_configs.py``), and ``from_config`` rebuilds an equal layer."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import symgrad as tf
from symgrad.keras import layers

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "layer_configs.json").read_text())
CONFIGS: dict = RECORDED["configs"]
# A Lambda's config holds its function's marshalled bytecode, which is Python's own.
SKIP_VALUE = {"layers.Lambda(lambda x: x)": ("function",)}


def _json(config: dict) -> dict:
    return json.loads(json.dumps(config, default=lambda o: f"<{type(o).__name__}>"))


def _unnamed(config: Any) -> Any:
    """The config less layer names (Keras numbers them per session: dense_3)."""
    if isinstance(config, list):
        return [_unnamed(v) for v in config]
    if not isinstance(config, dict):
        return config
    return {k: _unnamed(v) for k, v in config.items() if k != "name"}


def _make(expr: str):
    return eval(expr, {"layers": layers, "keras": tf.keras})


@pytest.mark.parametrize("expr", list(CONFIGS), ids=list(range(len(CONFIGS))))
def test_config_is_keras_dict(expr: str) -> None:
    got = _unnamed(_json(_make(expr).get_config()))
    want = _unnamed(CONFIGS[expr])
    for key in SKIP_VALUE.get(expr, ()):
        got.pop(key), want.pop(key)
    assert got == want


@pytest.mark.parametrize("expr", list(CONFIGS), ids=list(range(len(CONFIGS))))
def test_from_config_round_trip(expr: str) -> None:
    if expr in SKIP_VALUE:
        pytest.skip("a Lambda's function is not rebuilt from bytecode")
    layer = _make(expr)
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert type(again) is type(layer)
    assert _json(again.get_config()) == _json(config)
