"""Checkpoints beyond TF's literals: optimizer state restored into fresh objects (and
continuing identically), all-or-nothing restores, and a fuzzed loader that never trusts a
file (damaged, truncated or hostile files raise CheckpointFormatError and run no code)."""

import io
import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError, NotFoundError
from symgrad.train import CheckpointFormatError

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [tf.Variable(W), {"b": tf.Variable(np.float32([0.1, -0.2, 0.3]))}]

    def __call__(self, x):
        return tf.reduce_sum(tf.square(tf.matmul(x, self.layers[0]) + self.layers[1]["b"]))


X = tf.constant(np.float32([[1.0, -0.5], [0.25, 2.0]]))


def _train(net, opt, steps):
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = net(X)
        variables = net.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return [v.numpy() for v in net.trainable_variables]


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.keras.optimizers.Adam(0.05),
        lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.5),
        lambda: tf.compat.v1.train.AdamOptimizer(0.05),
    ],
    ids=["keras_adam", "keras_rmsprop", "v1_adam"],
)
def test_restored_training_continues_identically(tmp_path, make):
    """Slots restored before the fresh optimizer has made them wait, then are set."""
    net, opt = Net(), make()
    _train(net, opt, 3)
    path = tf.train.Checkpoint(model=net, optimizer=opt).save(str(tmp_path / "ckpt"))
    expected = _train(net, opt, 4)

    fresh_net, fresh_opt = Net(), make()
    status = tf.train.Checkpoint(model=fresh_net, optimizer=fresh_opt).restore(path)
    with pytest.raises(AssertionError, match="waiting for variables not made yet"):
        status.assert_consumed()
    got = _train(fresh_net, fresh_opt, 4)
    status.assert_consumed()
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_restore_is_all_or_nothing(tmp_path):
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([[3.0]])
    path = tf.train.Checkpoint(a=a, b=b).write(str(tmp_path / "ck"))
    a2, b2 = tf.Variable([9.0, 9.0]), tf.Variable([[9.0, 9.0]])
    with pytest.raises(ValueError, match=r"b: the checkpoint has shape \(1, 1\).*No variable"):
        tf.train.Checkpoint(a=a2, b=b2).restore(path)
    np.testing.assert_array_equal(a2.numpy(), [9.0, 9.0])  # a matched, yet is unchanged
    a3 = tf.Variable([9, 9])
    with pytest.raises(ValueError, match="has dtype int32"):
        tf.train.Checkpoint(a=a3).restore(path)
    np.testing.assert_array_equal(a3.numpy(), [9, 9])


def test_saver_refuses_another_shape_and_changes_nothing(tmp_path):
    """TF's Saver would reshape the variable; symgrad's refuses."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="w"), tf.Variable(3.0, name="b")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            path = v1.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        b, _ = tf.Variable(7.0, name="b"), tf.Variable([5.0, 5.0, 5.0], name="w")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            with pytest.raises(InvalidArgumentError, match="variable w has shape"):
                v1.train.Saver().restore(sess, path)
            assert sess.run(b) == 7.0
            with pytest.raises(NotFoundError, match="Key x not found"):
                v1.train.Saver([tf.Variable(1.0, name="x")]).restore(sess, path)


def test_checkpoint_in_a_graph_restores_through_a_session(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            path = tf.train.Checkpoint(v=v).write(str(tmp_path / "g"))
            sess.run(v.assign([0.0, 0.0]))
            tf.train.Checkpoint(v=v).restore(path).assert_consumed()
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


# -------------------------------------------------------------------------------------
# The loader, fuzzed


def _saved(tmp_path):
    v = {
        "a": tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4)),
        "b": tf.Variable(np.int64(5)),
        "c": tf.Variable([True, False]),
    }
    prefix = tf.train.Checkpoint(**v).write(str(tmp_path / "ck"))
    return prefix, v


def _restore_or_error(prefix, expected):
    """Restoring either fails with a checkpoint error or gives exactly the saved values."""
    fresh = {k: tf.Variable(np.zeros_like(x.numpy())) for k, x in expected.items()}
    try:
        tf.train.Checkpoint(**fresh).restore(prefix).assert_consumed()
    except (CheckpointFormatError, NotFoundError):
        return "error"
    for k, x in expected.items():
        np.testing.assert_array_equal(fresh[k].numpy(), x.numpy())
    return "same"


@pytest.mark.parametrize("suffix", [".index", ".data-00000-of-00001"])
def test_truncated_and_flipped_bytes(tmp_path, suffix):
    prefix, values = _saved(tmp_path)
    path = prefix + suffix
    original = Path(path).read_bytes()
    rng = np.random.default_rng(17)
    outcomes = []
    cuts = sorted(set(np.linspace(0, len(original) - 1, 40).astype(int)))
    for cut in cuts:
        Path(path).write_bytes(original[:cut])
        outcomes.append(_restore_or_error(prefix, values))
    assert set(outcomes) == {"error"}  # every truncation is caught
    for _ in range(150):
        damaged = bytearray(original)
        i = int(rng.integers(len(damaged)))
        damaged[i] ^= 1 << int(rng.integers(8))
        Path(path).write_bytes(bytes(damaged))
        outcomes.append(_restore_or_error(prefix, values))
    # A flipped byte is an error, except in the index's JSON whitespace where it may leave
    # the same document (the values then come back unchanged, never different).
    assert outcomes.count("error") > 0.9 * len(outcomes)


def _rewrite_index(prefix, edit):
    doc = json.loads(Path(prefix + ".index").read_text())
    edit(doc)
    if "entries" in doc and isinstance(doc["entries"], list):
        from symgrad.train.checkpoint_format import _entries_hash

        doc["entries_sha256"] = _entries_hash(doc["entries"])
    Path(prefix + ".index").write_text(json.dumps(doc))


def _data_with(prefix, members, fix_hash=True):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = buffer.getvalue()
    Path(prefix + ".data-00000-of-00001").write_bytes(data)
    if fix_hash:
        import hashlib

        _rewrite_index(prefix, lambda d: d.update(data_sha256=hashlib.sha256(data).hexdigest()))


class _Payload:
    def __reduce__(self):
        return (open, ("RAN_CODE_MARKER", "w"))


def _npy(array, allow_pickle=False):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


HOSTILE = {
    "object dtype in the index": lambda p: _rewrite_index(
        p, lambda d: d["entries"][0].update(dtype="object")
    ),
    "negative shape": lambda p: _rewrite_index(p, lambda d: d["entries"][0].update(shape=[-1])),
    "huge shape": lambda p: _rewrite_index(p, lambda d: d["entries"][0].update(shape=[1 << 50])),
    "shape of another size": lambda p: _rewrite_index(
        p, lambda d: d["entries"][0].update(shape=[4, 3])
    ),
    "repeated key": lambda p: _rewrite_index(
        p, lambda d: d["entries"][1].update(key=d["entries"][0]["key"])
    ),
    "newer version": lambda p: _rewrite_index(p, lambda d: d.update(version=99)),
    "not ours": lambda p: Path(p + ".index").write_text('{"hello": 1}'),
    "not JSON": lambda p: Path(p + ".index").write_bytes(b"\x08\x01\x12\x00binary"),
    "deep JSON": lambda p: Path(p + ".index").write_text("[" * 100000 + "]" * 100000),
    "extra field": lambda p: _rewrite_index(p, lambda d: d.update(code="__import__('os')")),
    "pickled object array": lambda p: _data_with(
        p,
        {
            "0.npy": _npy(np.array([_Payload()], dtype=object), allow_pickle=True),
            "1.npy": _npy(np.int64(5)),
            "2.npy": _npy(np.array([True, False])),
        },
    ),
    "pickle instead of npy": lambda p: _data_with(
        p,
        {
            "0.npy": pickle.dumps(_Payload()),
            "1.npy": _npy(np.int64(5)),
            "2.npy": _npy(np.array([True, False])),
        },
    ),
    "zip bomb": lambda p: _data_with(
        p,
        {
            "0.npy": _npy(np.zeros((3, 4), np.float32)) + b"\0" * (50 << 20),
            "1.npy": _npy(np.int64(5)),
            "2.npy": _npy(np.array([True, False])),
        },
    ),
    "missing member": lambda p: _data_with(p, {"0.npy": _npy(np.zeros((3, 4), np.float32))}),
    "wrong dtype member": lambda p: _data_with(
        p,
        {
            "0.npy": _npy(np.zeros((3, 4), np.float64)),
            "1.npy": _npy(np.int64(5)),
            "2.npy": _npy(np.array([True, False])),
        },
    ),
    "data from elsewhere": lambda p: _data_with(
        p,
        {
            "0.npy": _npy(np.ones((3, 4), np.float32)),
            "1.npy": _npy(np.int64(5)),
            "2.npy": _npy(np.array([True, False])),
        },
        fix_hash=False,
    ),
    "no data file": lambda p: os.remove(p + ".data-00000-of-00001"),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_files_are_refused_without_running_code(tmp_path, monkeypatch, attack):
    monkeypatch.chdir(tmp_path)
    prefix, values = _saved(tmp_path)
    HOSTILE[attack](prefix)
    assert _restore_or_error(prefix, values) == "error"
    assert not os.path.exists(tmp_path / "RAN_CODE_MARKER")


def test_errors_name_the_file_and_the_problem(tmp_path):
    prefix, _ = _saved(tmp_path)
    HOSTILE["newer version"](prefix)
    with pytest.raises(CheckpointFormatError, match=r"ck.index.*version 99 is newer"):
        tf.train.Checkpoint().restore(prefix)
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint().restore(str(tmp_path / "missing"))
    (tmp_path / "checkpoint").write_text("import os\n")
    with pytest.raises(CheckpointFormatError, match="unexpected line in the state file"):
        tf.train.latest_checkpoint(str(tmp_path))


def test_list_and_load_variables(tmp_path):
    prefix, _ = _saved(tmp_path)
    assert tf.train.list_variables(prefix) == [("a", [3, 4]), ("b", []), ("c", [2])]
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "c"), [True, False])
