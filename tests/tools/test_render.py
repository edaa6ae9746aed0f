"""to_dot / to_text / render: forward and gradient graphs, their links and their marks."""

from __future__ import annotations

import pathlib
import re
import shutil
import sys

import pytest

import symgrad as tf
from symgrad.tools import render as render_mod


def lineno() -> int:
    return sys._getframe(1).f_lineno


def nodes(dot: str) -> dict[str, tuple[str, str]]:
    """op name (first label line) -> (node id, the node's whole attribute text)."""
    out = {}
    for nid, attrs in re.findall(r"^\s*(n\d+) \[(.*)\];$", dot, re.M):
        label = re.search(r'label="([^"]*)"', attrs).group(1)  # type: ignore[union-attr]
        out[label.split("\\n")[0]] = (nid, attrs)
    return out


@pytest.fixture
def model():
    """y = sum(stop_gradient(x) * x + w * w); z unused; gradients w.r.t. x, w, z."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=[2], name="x")
        z = tf.placeholder(tf.float32, shape=[2], name="z")
        w = tf.Variable([1.0, 2.0], name="w")
        sg = tf.stop_gradient(x, name="sg")
        prod = tf.multiply(sg, x, name="prod")
        line = lineno() - 1
        y = tf.reduce_sum(prod + tf.square(w, name="wsq"), name="y")
        grads = tf.gradients(y, [x, w, z])
    return {"y": y, "xs": [x, w, z], "grads": grads, "prod_line": line, "graph": g}


def test_dot_has_forward_and_gradient_clusters_with_labelled_nodes(model):
    dot = tf.render.to_dot(model["y"], model["xs"], model["grads"])
    assert dot.startswith("digraph symgrad {") and dot.rstrip().endswith("}")
    assert "subgraph cluster_forward" in dot and "subgraph cluster_gradients" in dot
    ns = nodes(dot)
    assert {"x", "sg", "prod", "wsq", "y"} <= set(ns)
    assert 'label="prod\\nMul\\nfloat32 (2,)"' in ns["prod"][1]
    assert f'tooltip="{__file__}:{model["prod_line"]}"' in ns["prod"][1]
    # data edge x -> prod carries dtype and shape
    assert f'{ns["x"][0]} -> {ns["prod"][0]} [label="float32 (2,)"];' in dot


def test_each_gradient_op_is_linked_by_a_dashed_edge_to_its_forward_op(model):
    dot = tf.render.to_dot(model["y"], model["xs"], model["grads"])
    ns = nodes(dot)
    grad_ops = [name for name in ns if name.startswith("gradients/prod_grad/")]
    assert grad_ops
    for name in grad_ops:
        link = f"{ns[name][0]} -> {ns['prod'][0]} [style=dashed"
        assert link in dot
        assert "(grad of prod)" in ns[name][1]
    wsq_grads = [name for name in ns if name.startswith("gradients/wsq_grad/")]
    assert wsq_grads and all(
        f"{ns[n][0]} -> {ns['wsq'][0]} [style=dashed" in dot for n in wsq_grads
    )


def test_marks_seed_stop_unconnected_results_and_legend(model):
    dot = tf.render.to_dot(model["y"], model["xs"], model["grads"])
    ns = nodes(dot)
    assert "shape=octagon" in ns["sg"][1]  # stop op
    assert "peripheries=2" in ns["y"][1]  # the y
    assert 'fillcolor="#b9f0b4"' in ns["x"][1]  # a connected x
    assert "dashed" in ns["z"][1] and "#d00000" in ns["z"][1]  # unconnected x, drawn anyway
    read = [n for n in ns if n.startswith("ReadVariableOp")]
    assert any("var w:0" in ns[n][1] for n in read)
    seed = ns["gradients/ones_like"][1]
    assert "shape=invhouse" in seed and "seed" in seed
    dx = model["grads"][0]
    assert "d/d x:0" in ns[dx.op.name][1] and "peripheries=2" in ns[dx.op.name][1]
    assert "subgraph cluster_legend" in dot
    for text in (
        "stop op",
        "x with no gradient (unconnected)",
        "seed (grad_ys / ones)",
        "gradient of",
    ):
        assert text in dot


def test_stop_gradients_argument_and_no_gradient_ops_are_marked():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[3], name="x")
        h = tf.sin(x, name="h")
        am = tf.argmax(h, name="am")
        y = tf.exp(h, name="y") + tf.cast(am, tf.float32)
        dot = tf.render.to_dot(y, [x], stop_gradients=[h])
        text = tf.render.to_text(y, [x], stop_gradients=[h])
    ns = nodes(dot)
    assert "shape=octagon" in ns["h"][1] and "stop_gradients=" in ns["h"][1]
    assert 'fillcolor="#d9d9d9"' in ns["am"][1]  # registered NoGradient
    assert "dashed" in ns["x"][1]  # cut off by stop_gradients
    assert f'{ns["am"][0]} -> {ns["Cast"][0]} [label="int64 ()", color="#aaaaaa"' in dot
    assert re.search(r"^  h += Sin\(x:0\) -> float32 \(3,\)  \[stop, stop_gradients=\]", text, re.M)
    assert re.search(r"^  am += ArgMax\(h:0, .*\[nograd\]", text, re.M)


def test_text_lists_ops_in_order_with_inputs_marks_and_lines(model):
    text = tf.render.to_text(model["y"], model["xs"], model["grads"])
    lines = text.splitlines()
    assert lines[0].startswith("forward (") and any(s.startswith("gradients (") for s in lines)
    prod = next(s for s in lines if s.lstrip().startswith("prod "))
    assert "= Mul(sg:0, x:0) -> float32 (2,)" in prod
    assert prod.endswith(f"@ test_render.py:{model['prod_line']}")
    names = [s.split()[0] for s in lines if s.startswith("  ")]
    assert names.index("x") < names.index("sg") < names.index("prod") < names.index("y")
    z = next(s for s in lines if s.lstrip().startswith("z "))
    assert "[unconnected]" in z
    assert any("[seed]" in s and "gradients/ones_like" in s for s in lines)
    grad_lines = [s for s in lines if s.lstrip().startswith("gradients/prod_grad/")]
    assert grad_lines and all("(grad of prod)" in s for s in grad_lines)
    sg = next(s for s in lines if s.lstrip().startswith("sg "))
    assert "[stop]" in sg


def test_eager_tape_gradients_render():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sin(x)
    dx = tape.gradient(y, x)
    dot = tf.render.to_dot(y, [x], [dx])
    ns = nodes(dot)
    grad_names = [n for n in ns if f"{y.op.name}_grad" in n]
    assert grad_names and all(
        f"{ns[n][0]} -> {ns[y.op.name][0]} [style=dashed" in dot for n in grad_names
    )


def test_forward_only_without_xs():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, name="a")
        y = tf.exp(a, name="e")
        dot = tf.render.to_dot(y, legend=False)
    assert "cluster_gradients" not in dot and "cluster_legend" not in dot
    assert set(nodes(dot)) == {"a", "e"}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_render_writes_a_file_with_dot(model, tmp_path, fmt):
    path = str(tmp_path / f"graph.{fmt}")
    assert tf.render.render(model["y"], model["xs"], model["grads"], path=path) == path
    data = pathlib.Path(path).read_bytes()
    if fmt == "svg":
        assert b"<svg" in data and b"gradients/prod_grad/" in data and b"prod" in data
    else:
        assert data.startswith(b"\x89PNG")


def test_render_without_dot_says_to_install_graphviz(model, tmp_path, monkeypatch):
    monkeypatch.setattr(render_mod.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install graphviz"):
        tf.render.render(model["y"], path=str(tmp_path / "g.svg"))
    path = tf.render.render(model["y"], path=str(tmp_path / "g.dot"))  # DOT needs no program
    assert pathlib.Path(path).read_text().startswith("digraph")
    with pytest.raises(ValueError, match="format"):
        tf.render.render(model["y"], path=str(tmp_path / "g.gif"))


def test_rendering_a_function_draws_its_latest_trace():
    w = tf.Variable([0.5, -1.0], name="w")

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(x * w))
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    with pytest.raises(ValueError, match="has not been traced yet: call it once"):
        tf.render.to_text(step)
    step(tf.constant([1.0, 2.0]))
    text = tf.render.to_text(step)
    forward, gradients = text.split("gradients (")
    assert forward.startswith("forward (10 ops):")
    assert "[x]" in forward.splitlines()[1] and forward.splitlines()[1].lstrip().startswith("x ")
    assert "AssignVariableOp(mul_1:0)" in forward and "[y, stateful]" in forward
    assert "[y, output Sum:0]" in forward
    assert gradients.startswith("8 ops):") and "(grad of Square)" in gradients
    assert tf.render.to_text(step.get_concrete_function(tf.constant([1.0, 2.0]))) == text
    assert "cluster_gradients" in tf.render.to_dot(step)
