"""tf.io.gfile and tf.compat.v1.gfile: TensorFlow 2.21's outcome of each step of
tf_gfile.py's program (values, or error classes and texts), in a fresh directory."""

import tf_gfile

import symgrad as tf

EXPECTED = [
    ("exists missing", False),
    ("isdir missing", False),
    ("read missing", ("raises", "NotFoundError", "<root>/nope; No such file or directory")),
    ("listdir missing", ("raises", "NotFoundError", "Could not find directory <root>/nope")),
    ("stat missing", ("raises", "NotFoundError", "<root>/nope; No such file or directory")),
    ("remove missing", ("raises", "NotFoundError", "<root>/nope; No such file or directory")),
    ("rmtree missing", ("raises", "NotFoundError", "<root>/nope not found")),
    ("rename missing", ("raises", "NotFoundError", "<root>/nope; No such file or directory")),
    ("copy missing", ("raises", "NotFoundError", "<root>/nope; No such file or directory")),
    ("mkdir without parent", ("raises", "NotFoundError", "<root>/a/b; No such file or directory")),
    ("makedirs", (None, None, True)),
    ("mkdir existing", None),
    ("write returns", None),
    (
        "makedirs through a file",
        ("raises", "FailedPreconditionError", "<root>/a/f.txt is not a directory"),
    ),
    ("listdir of a file", ("raises", "NotFoundError", "Could not find directory <root>/a/f.txt")),
    ("size read(n) tell readline readlines", (18, "lin", 3, "e1\n", ["line2\n", "line3"], "")),
    ("iteration drops \\r", ["line1\n", "line2\n", "line3"]),
    ("binary", (b"line", [b"1\n", b"line2\n", b"line3"])),
    ("seek", (None, "ne1\n", None, 7, None, "e3")),
    ("seek past the end", ("raises", "OutOfRangeError", "reached end of file")),
    ("seek negative", ("raises", "InvalidArgumentError", "Seeking to a negative position: -1")),
    (
        "seek whence 5",
        (
            "raises",
            "InvalidArgumentError",
            "Invalid whence argument: 5. Valid values are 0, 1, or 2.",
        ),
    ),
    ("seek no offset", ("raises", "TypeError", "seek(): offset argument required")),
    ("read -5", ("raises", "InvalidArgumentError", "Can't read a negative number of bytes: -5")),
    ("name mode seekable", ("<root>/a/f.txt", "rb", True)),
    ("write in r mode", ("raises", "PermissionDeniedError", "File isn't open for writing")),
    ("read in w mode", ("raises", "PermissionDeniedError", "File isn't open for reading")),
    ("read in a mode", ("raises", "PermissionDeniedError", "File isn't open for reading")),
    (
        "bad mode",
        ("raises", "InvalidArgumentError", "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"),
    ),
    (
        "bad mode rw",
        ("raises", "InvalidArgumentError", "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"),
    ),
    ("w closed unwritten", (None, False)),
    ("bytes into w, str into wb", (None, None, "bytes", b"text")),
    ("write an int", ("raises", "TypeError", "Expected binary or unicode string, got 5")),
    ("append and tell", (5, None, 10)),
    ("after append", "bytes+more"),
    ("r+ truncates at the first write", (("by", None), "XY")),
    ("w+ reads what was flushed", (None, None, "hello\n")),
    ("reuse after close", ("hel", "hello\n", "two")),
    ("utf-8 counted in bytes", (None, 6, "hé")),
    (
        "half a utf-8 character",
        (
            "raises",
            "UnicodeDecodeError",
            "'utf-8' codec can't decode byte 0xc3 in position 1: unexpected end of data",
        ),
    ),
    ("file:// and paths", (True, True, ["a", "u.txt"], True, True, b"h")),
    ("exists None", ("raises", "TypeError", "Expected binary or unicode string, got None")),
    (
        "other scheme",
        (
            "raises",
            "UnimplementedError",
            "File system scheme 'foo' not implemented (file: 'foo://bucket/x')",
        ),
    ),
    (
        "other scheme listdir",
        ("raises", "NotFoundError", "Could not find directory foo://bucket/x"),
    ),
    ("other scheme isdir", False),
    ("stat", (6, True)),
    ("stat mtime", "int"),
    ("rename onto an existing file", ("raises", "AlreadyExistsError", "file already exists")),
    ("rename with overwrite", (None, False)),
    (
        "rename a file onto a directory",
        ("raises", "FailedPreconditionError", "<root>/a/f.txt; Is a directory"),
    ),
    (
        "rename into a missing directory",
        ("raises", "NotFoundError", "<root>/a/f.txt; No such file or directory"),
    ),
    ("copy onto an existing file", ("raises", "AlreadyExistsError", "file already exists")),
    ("copy with overwrite", (None, "héllo")),
    (
        "copy into a missing directory",
        ("raises", "NotFoundError", "<root>/no/f; No such file or directory"),
    ),
    ("copy a directory", ("raises", "InvalidArgumentError", "<root>/a/c; Invalid argument")),
    ("remove a directory", ("raises", "FailedPreconditionError", "<root>/a/b; Is a directory")),
    (
        "write into a missing directory",
        ("raises", "NotFoundError", "<root>/no/q.txt; No such file or directory"),
    ),
    ("read a directory", ("raises", "FailedPreconditionError", "<root>/a; Is a directory")),
    (
        "glob",
        (
            ["<root>/a"],
            ["<root>/a/f.txt", "<root>/a/g.txt", "<root>/a/i.txt", "<root>/a/wp.txt"],
            ["<root>/a/g.bin"],
            ["<root>/a/f.txt", "<root>/a/g.txt"],
            ["<root>/a/g.txt", "<root>/a/i.txt"],
            ["<root>/a/f.txt", "<root>/a/g.txt", "<root>/a/i.txt"],
            ["<root>/a/f.txt"],
            [],
            [],
            ["<root>/a/"],
            ["<root>/a/f.txt", "<root>/a/g.bin"],
            [],
            ["file://<root>/a/g.bin"],
        ),
    ),
    ("hidden files match *", (None, ["<root>/a/.hidden"])),
    (
        "walk",
        [
            ("<root>", ["a"], []),
            ("<root>/a", ["b"], [".hidden", "c", "f.txt", "g.bin", "g.txt", "i.txt", "wp.txt"]),
            ("<root>/a/b", [], []),
        ],
    ),
    (
        "walk bottom-up",
        [
            ("<root>/a/b", [], []),
            ("<root>/a", ["b"], [".hidden", "c", "f.txt", "g.bin", "g.txt", "i.txt", "wp.txt"]),
            ("<root>", ["a"], []),
        ],
    ),
    ("walk missing", []),
    (
        "Walk in_order=False",
        [
            ("<root>/a/b", [], []),
            ("<root>/a", ["b"], [".hidden", "c", "f.txt", "g.bin", "g.txt", "i.txt", "wp.txt"]),
            ("<root>", ["a"], []),
        ],
    ),
    ("join", ("/c/d", "gs://x/y", "a")),
    ("rmtree a file", (None, False)),
    (
        "v1 names",
        (
            True,
            True,
            [".hidden", "b", "c", "f.txt", "g.txt", "i.txt", "wp.txt"],
            None,
            None,
            ["<root>/m/n", "<root>/m/o"],
            None,
            None,
            6,
            None,
            True,
            True,
            False,
            "h",
            None,
            False,
        ),
    ),
    ("rmtree", (None, False)),
]


def test_each_step_as_tensorflow(tmp_path):
    root = str(tmp_path / "root")
    tf.io.gfile.mkdir(root)
    got = tf_gfile.program(tf, root)
    assert [label for label, _ in got] == [label for label, _ in EXPECTED]
    for (label, outcome), (_, expected) in zip(got, EXPECTED):
        assert outcome == expected, label


def test_errors_are_tfs_classes(tmp_path):
    """The error classes are tf.errors' (an OpError with TF's text)."""
    try:
        tf.io.gfile.GFile(str(tmp_path / "nope")).read()
    except tf.errors.NotFoundError as e:
        assert isinstance(e, tf.errors.OpError)
        assert e.message == f"{tmp_path / 'nope'}; No such file or directory"
    else:
        raise AssertionError("no NotFoundError")
    assert tf.compat.v1.io.gfile.exists is tf.io.gfile.exists
    assert tf.io.gfile.get_registered_schemes() == ["", "file"]
