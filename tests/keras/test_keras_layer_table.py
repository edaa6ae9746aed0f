"""The Keras layer table: each layer and option against Keras-on-TF 2.21's numbers.

For every case recorded by ``gen_layer_table.py`` (same layer source text, same input and
set_weights values), symgrad's layer gives TF's output, weight names (Keras paths less the
layer name) and order, moving statistics after the call, and tape gradients of
``sum(output * r)`` with respect to the input and to every trainable weight.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import symgrad as tf
from symgrad.keras import layers

DATA = np.load(pathlib.Path(__file__).parent / "data" / "layer_table.npz")
CASES = json.loads(str(DATA["cases"]))
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-12)}
# float64 layers that compute in float32 (TF's image resize does), held to float32's bound
FLOAT32_INSIDE = {"upsampling2d_bilinear_f64"}


def _tol(dtype: str) -> dict[str, float]:
    return TOL.get(dtype, TOL["float32"])


def _build(layer, expr: str, shapes: list, multi: bool) -> None:
    """MultiHeadAttention takes its tensors as separate arguments, other layers a list."""
    if "MultiHeadAttention" in expr:
        layer.build(*shapes)
    else:
        layer.build(shapes if multi else shapes[0])


def _call(layer, expr: str, xs: list, multi: bool, kwargs: dict):
    if "MultiHeadAttention" in expr:
        return layer(*xs, **kwargs)
    return layer(xs if multi else xs[0], **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_keras_on_tf(case: list) -> None:
    cid, expr, shape, _dtype, kwargs, _ = case
    layer = eval(expr, {"layers": layers, "keras": tf.keras})
    multi = isinstance(shape[0], list)
    shapes = shape if multi else [shape]
    xts = [tf.constant(DATA[f"{cid}/x{i}"]) for i in range(len(shapes))]
    if not layer.built:
        _build(layer, expr, [tuple(sh) for sh in shapes], multi)
    names = json.loads(str(DATA[f"{cid}/names"]))
    assert [v.path.split("/", 1)[-1] for v in layer.weights] == names
    layer.set_weights([DATA[f"{cid}/w{i}"] for i in range(len(names))])
    floating = xts[0].dtype.is_floating
    with tf.GradientTape() as tape:
        if floating:
            tape.watch(xts)
        y = _call(layer, expr, xts, multi, kwargs)
        loss = tf.reduce_sum(y * tf.constant(DATA[f"{cid}/r"]))
    sources = xts if floating else []
    grads = [None] * (len(xts) - len(sources)) + tape.gradient(
        loss, [*sources, *layer.trainable_weights]
    )
    tol = _tol("float32" if cid in FLOAT32_INSIDE else str(y.dtype.name))
    np.testing.assert_allclose(y.numpy(), DATA[f"{cid}/y"], **tol)
    assert y.dtype.name == DATA[f"{cid}/y"].dtype.name
    for i, g in enumerate(grads):
        want = DATA[f"{cid}/g{i}"]
        if want.size == 0 and g is None:
            continue
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), want, **tol)
    after = json.loads(str(DATA[f"{cid}/after"]))
    for v, a in zip(layer.weights, after):
        np.testing.assert_allclose(v.numpy(), np.array(a, dtype=v.numpy().dtype), **tol)
