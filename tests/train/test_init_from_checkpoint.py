"""tf.compat.v1.train.init_from_checkpoint over symgrad's checkpoint files: the
assignment-map forms and errors TF 2.21 gives for the same program (run with
disable_eager_execution; its printed results are the literals)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

v1 = tf.compat.v1


@pytest.fixture
def ckpt(tmp_path):
    with tf.Graph().as_default():
        with v1.variable_scope("old"):
            v1.get_variable("a", initializer=np.array([1.0, 2.0], np.float32))
            v1.get_variable("b", initializer=np.array([[3.0]], np.float32))
        v1.get_variable("c", initializer=np.int32(7))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            v1.train.Saver().save(s, str(tmp_path / "m"), global_step=4)
    return tmp_path


def _fresh(target, amap):
    with tf.Graph().as_default():
        with v1.variable_scope("new"):
            na = v1.get_variable("a", initializer=np.zeros(2, np.float32))
            nb = v1.get_variable("b", initializer=np.zeros((1, 1), np.float32))
        nc = v1.get_variable("c", initializer=np.int32(0))
        v1.train.init_from_checkpoint(str(target), amap(na) if callable(amap) else amap)
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            return [x.tolist() for x in s.run([na, nb, nc])]


@pytest.mark.parametrize(
    "amap,expected",
    [
        ({"old/": "new/"}, [[1.0, 2.0], [[3.0]], 0]),  # a scope onto a scope
        ({"old/a": "new/a", "c": "c"}, [[1.0, 2.0], [[0.0]], 7]),  # exact names
        (lambda na: {"old/b": "new/b", "old/a": na}, [[1.0, 2.0], [[3.0]], 0]),  # a variable
        ([("old/", "new/")], [[1.0, 2.0], [[3.0]], 0]),  # pairs, not a dict
    ],
)
def test_assignment_map_forms(ckpt, amap, expected):
    assert _fresh(ckpt, amap) == expected
    assert _fresh(ckpt / "m-4", amap) == expected  # a file prefix as well as a directory


def test_all_variables_with_slash(tmp_path):
    with tf.Graph().as_default():
        v1.get_variable("x", initializer=np.float32(2.5))
        with v1.variable_scope("s"):
            v1.get_variable("y", initializer=np.array([1, 2], np.int64))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            v1.train.Saver().save(s, str(tmp_path / "all"))
    with tf.Graph().as_default():
        x = v1.get_variable("x", initializer=np.float32(0))
        with v1.variable_scope("s"):
            y = v1.get_variable("y", initializer=np.array([0, 0], np.int64))
        v1.train.init_from_checkpoint(str(tmp_path), {"/": "/"})
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            assert s.run(x) == 2.5 and s.run(y).tolist() == [1, 2]


def test_errors_as_tf(ckpt):
    d = str(ckpt)
    # (TF lists the checkpoint's map in its reader's order, symgrad in its file's.)
    cases = [
        (
            {"old/a": "new/b"},
            "Shape of variable new/b:0 ((1, 1)) doesn't match with shape of "
            "tensor old/a ([2]) from checkpoint reader.",
        ),
        ({"missing": "new/a"}, f"Tensor missing is not found in {d} checkpoint {{"),
        ({"old/": "new/a"}, f"Tensor old/ is not found in {d} checkpoint {{"),
        (
            {"old": "new/"},
            "Assignment map with scope only name new should map to scope only "
            "old. Should be 'scope/': 'other_scope/'.",
        ),
    ]
    for amap, message in cases:
        with pytest.raises(ValueError) as info:
            _fresh(ckpt, amap)
        assert str(info.value).startswith(message), str(info.value)
    # "/" for all: every variable under its own name, TF's text (its slice drops a letter).
    with pytest.raises(ValueError) as info:
        _fresh(ckpt, {"/": "/"})
    assert str(info.value) == f"Tensor new/a (ew/a in /) is not found in {d} checkpoint"
    # A name that is no variable's is taken as a scope (TF's text, with its two spaces).
    with pytest.raises(ValueError) as info:
        _fresh(ckpt, {"c": "c", "old/b": "nope"})
    assert str(info.value) == (
        "Assignment map with scope only name  should map to scope only old/b. Should be "
        "'scope/': 'other_scope/'."
    )
    # A scope with no get_variable variables in it maps nothing (TF: all zeros).
    assert _fresh(ckpt, {"old/": "nope/"}) == [[0.0, 0.0], [[0.0]], 0]


def test_reader_values(ckpt):
    r = v1.train.NewCheckpointReader(str(ckpt / "m-4"))
    assert r.get_tensor("old/b").tolist() == [[3.0]]
    c = r.get_tensor("c")
    assert type(c) is np.int32 and c == 7


def test_values_are_read_at_the_call(tmp_path):
    """docs/training.md: TF reads the checkpoint when the initializer runs; symgrad when
    init_from_checkpoint is called."""
    with tf.Graph().as_default():
        a = v1.get_variable("a", initializer=np.float32(1.0))
        with v1.Session() as s:
            s.run(a.initializer)
            saver = v1.train.Saver()
            saver.save(s, str(tmp_path / "k"))
            with tf.Graph().as_default():
                b = v1.get_variable("a", initializer=np.float32(0.0))
                v1.train.init_from_checkpoint(str(tmp_path / "k"), {"a": "a"})
                s.run(a.assign(5.0))
                saver.save(s, str(tmp_path / "k"))
                with v1.Session() as s2:
                    s2.run(b.initializer)
                    assert s2.run(b) == 1.0
