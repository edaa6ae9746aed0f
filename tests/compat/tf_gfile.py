"""tf.io.gfile and tf.compat.v1.gfile programs that run unchanged on TensorFlow and on
symgrad, in a fresh directory; each step's outcome is its value or its error's class and
text (the directory written as <root>).

Run with TensorFlow's interpreter to (re)make the literals of test_gfile.py::

    PYTHONPATH=src <tf-python> tests/compat/tf_gfile.py
"""

from __future__ import annotations

import os
import pathlib
import pprint
import sys
import tempfile
from collections.abc import Callable
from typing import Any


def _outcome(f: Callable[[], Any], root: str) -> Any:
    try:
        value = f()
    except Exception as e:
        return ("raises", type(e).__name__, str(e).replace(root, "<root>"))
    if isinstance(value, str):
        return value.replace(root, "<root>")
    if isinstance(value, list | tuple):
        return type(value)(_outcome(lambda v=v: v, root) for v in value)
    return value


def program(tf: Any, root: str) -> list[tuple[str, Any]]:
    """The steps, in order (each may depend on the files the previous ones made)."""
    g, v1 = tf.io.gfile, tf.compat.v1.gfile
    p = lambda *parts: os.path.join(root, *parts)  # noqa: E731
    steps: list[tuple[str, Callable[[], Any]]] = []

    def step(label: str) -> Callable[[Callable[[], Any]], None]:
        return lambda f: steps.append((label, f))

    def write(path: str, text: Any, mode: str = "w") -> Any:
        with g.GFile(path, mode) as f:
            return f.write(text)

    def read_with(path: str, mode: str, fn: Callable[[Any], Any]) -> Any:
        with g.GFile(path, mode) as f:
            return fn(f)

    step("exists missing")(lambda: g.exists(p("nope")))
    step("isdir missing")(lambda: g.isdir(p("nope")))
    step("read missing")(lambda: g.GFile(p("nope")).read())
    step("listdir missing")(lambda: g.listdir(p("nope")))
    step("stat missing")(lambda: g.stat(p("nope")))
    step("remove missing")(lambda: g.remove(p("nope")))
    step("rmtree missing")(lambda: g.rmtree(p("nope")))
    step("rename missing")(lambda: g.rename(p("nope"), p("n2")))
    step("copy missing")(lambda: g.copy(p("nope"), p("n2")))
    step("mkdir without parent")(lambda: g.mkdir(p("a", "b")))
    step("makedirs")(lambda: (g.makedirs(p("a", "b")), g.makedirs(p("a", "b")), g.isdir(p("a"))))
    step("mkdir existing")(lambda: g.mkdir(p("a")))
    step("write returns")(lambda: write(p("a", "f.txt"), "line1\nline2\r\nline3"))
    step("makedirs through a file")(lambda: g.makedirs(p("a", "f.txt", "x")))
    step("listdir of a file")(lambda: g.listdir(p("a", "f.txt")))
    step("size read(n) tell readline readlines")(
        lambda: read_with(
            p("a", "f.txt"),
            "r",
            lambda f: (f.size(), f.read(3), f.tell(), f.readline(), f.readlines(), f.read()),
        )
    )
    step("iteration drops \\r")(lambda: read_with(p("a", "f.txt"), "r", list))
    step("binary")(lambda: read_with(p("a", "f.txt"), "rb", lambda f: (f.read(4), list(f))))
    step("seek")(
        lambda: read_with(
            p("a", "f.txt"),
            "r",
            lambda f: (f.seek(2), f.read(4), f.seek(1, 1), f.tell(), f.seek(-2, 2), f.read()),
        )
    )
    step("seek past the end")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.seek(100)))
    step("seek negative")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.seek(-1)))
    step("seek whence 5")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.seek(0, 5)))
    step("seek no offset")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.seek()))
    step("read -5")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.read(-5)))
    step("name mode seekable")(
        lambda: read_with(p("a", "f.txt"), "rb", lambda f: (f.name, f.mode, f.seekable()))
    )
    step("write in r mode")(lambda: read_with(p("a", "f.txt"), "r", lambda f: f.write("x")))
    step("read in w mode")(lambda: g.GFile(p("a", "w.txt"), "w").read())
    step("read in a mode")(lambda: g.GFile(p("a", "f.txt"), "a").readline())
    step("bad mode")(lambda: g.GFile(p("a", "f.txt"), "x"))
    step("bad mode rw")(lambda: g.GFile(p("a", "f.txt"), "rw"))
    step("w closed unwritten")(
        lambda: (g.GFile(p("a", "never.txt"), "w").close(), g.exists(p("a", "never.txt")))
    )
    step("bytes into w, str into wb")(
        lambda: (
            write(p("a", "g.txt"), b"bytes"),
            write(p("a", "g.bin"), "text", "wb"),
            g.GFile(p("a", "g.txt")).read(),
            g.GFile(p("a", "g.bin"), "rb").read(),
        )
    )
    step("write an int")(lambda: write(p("a", "i.txt"), 5))
    step("append and tell")(
        lambda: read_with(p("a", "g.txt"), "a", lambda f: (f.tell(), f.write("+more"), f.tell()))
    )
    step("after append")(lambda: g.GFile(p("a", "g.txt")).read())
    step("r+ truncates at the first write")(
        lambda: (
            read_with(p("a", "g.txt"), "r+", lambda f: (f.read(2), f.write("XY"))),
            g.GFile(p("a", "g.txt")).read(),
        )
    )
    step("w+ reads what was flushed")(
        lambda: read_with(
            p("a", "wp.txt"), "w+", lambda f: (f.write("hello\n"), f.flush(), f.read())
        )
    )
    step("reuse after close")(lambda: _reuse(g, p("a", "wp.txt")))
    step("utf-8 counted in bytes")(
        lambda: (
            write(p("u.txt"), "h\u00e9llo"),
            g.GFile(p("u.txt")).size(),
            g.GFile(p("u.txt")).read(3),
        )
    )
    step("half a utf-8 character")(lambda: g.GFile(p("u.txt")).read(2))
    step("file:// and paths")(
        lambda: (
            g.exists("file://" + p("u.txt")),
            g.isdir("file://" + root),
            sorted(g.listdir("file://" + root)),
            g.exists(pathlib.Path(p("u.txt"))),
            g.exists(p("u.txt").encode()),
            g.GFile(pathlib.Path(p("u.txt")), "rb").read(1),
        )
    )
    step("exists None")(lambda: g.exists(None))
    step("other scheme")(lambda: g.exists("foo://bucket/x"))
    step("other scheme listdir")(lambda: g.listdir("foo://bucket/x"))
    step("other scheme isdir")(lambda: g.isdir("foo://bucket/x"))
    step("stat")(lambda: (g.stat(p("u.txt")).length, g.stat(p("a")).is_directory))
    step("stat mtime")(lambda: type(g.stat(p("u.txt")).mtime_nsec).__name__)
    step("rename onto an existing file")(lambda: g.rename(p("u.txt"), p("a", "f.txt")))
    step("rename with overwrite")(
        lambda: (g.rename(p("u.txt"), p("a", "f.txt"), overwrite=True), g.exists(p("u.txt")))
    )
    step("rename a file onto a directory")(
        lambda: g.rename(p("a", "f.txt"), p("a", "b"), overwrite=True)
    )
    step("rename into a missing directory")(lambda: g.rename(p("a", "f.txt"), p("no", "f")))
    step("copy onto an existing file")(lambda: g.copy(p("a", "f.txt"), p("a", "g.txt")))
    step("copy with overwrite")(
        lambda: (g.copy(p("a", "f.txt"), p("a", "g.txt"), True), g.GFile(p("a", "g.txt")).read())
    )
    step("copy into a missing directory")(lambda: g.copy(p("a", "f.txt"), p("no", "f")))
    step("copy a directory")(lambda: g.copy(p("a", "b"), p("a", "c")))
    step("remove a directory")(lambda: g.remove(p("a", "b")))
    step("write into a missing directory")(lambda: write(p("no", "q.txt"), "x"))
    step("read a directory")(lambda: g.GFile(p("a")).read())
    step("glob")(
        lambda: (
            sorted(g.glob(p("*"))),
            sorted(g.glob(p("a", "*.txt"))),
            sorted(g.glob(p("*", "*.bin"))),
            sorted(g.glob(p("a", "[fg].txt"))),
            sorted(g.glob(p("a", "[!f].txt"))),
            sorted(g.glob(p("a", "?.txt"))),
            g.glob(p("a", "f.txt")),
            g.glob(p("a", "zz.txt")),
            g.glob(p("zz", "*")),
            g.glob(p("a") + "/"),
            sorted(g.glob([p("a", "f.txt"), p("a", "*.bin")])),
            g.glob(""),
            sorted(g.glob("file://" + p("a", "*.bin"))),
        )
    )
    step("hidden files match *")(
        lambda: (write(p("a", ".hidden"), "h"), sorted(g.glob(p("a", "*hidden"))))
    )
    step("walk")(lambda: _walk(g.walk(root)))
    step("walk bottom-up")(lambda: _walk(g.walk(root, topdown=False)))
    step("walk missing")(lambda: list(g.walk(p("nope"))))
    step("Walk in_order=False")(lambda: _walk(v1.Walk(root, in_order=False)))
    step("join")(lambda: (g.join("a", "b", "/c", "d"), g.join("gs://x", "y"), g.join("a")))
    step("rmtree a file")(lambda: (g.rmtree(p("a", "g.bin")), g.exists(p("a", "g.bin"))))
    step("v1 names")(
        lambda: (
            v1.Exists(root),
            v1.IsDirectory(p("a")),
            sorted(v1.ListDirectory(p("a"))),
            v1.MakeDirs(p("m", "n")),
            v1.MkDir(p("m", "o")),
            sorted(v1.Glob(p("m", "*"))),
            v1.Copy(p("a", "f.txt"), p("m", "f")),
            v1.Rename(p("m", "f"), p("m", "f2")),
            v1.Stat(p("m", "f2")).length,
            v1.Remove(p("m", "f2")),
            v1.GFile is g.GFile,
            v1.Open is g.GFile,
            v1.FastGFile is g.GFile,
            v1.FastGFile(p("a", "f.txt")).read(1),
            v1.DeleteRecursively(p("m")),
            v1.Exists(p("m")),
        )
    )
    step("rmtree")(lambda: (g.rmtree(root), g.exists(root)))
    return [(label, _outcome(f, root)) for label, f in steps]


def _reuse(g: Any, path: str) -> Any:
    f = g.GFile(path)
    first = f.read(3)
    f.close()
    again = f.read()
    w = g.GFile(path, "w")
    w.write("one")
    w.close()
    w.write("two")
    w.close()
    return first, again, g.GFile(path).read()


def _walk(it: Any) -> list[Any]:
    return [(top, sorted(dirs), sorted(files)) for top, dirs, files in it]


if __name__ == "__main__":
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "root")
        os.mkdir(root)
        out = program(tf, root)
    sys.stdout.write("LITERALS = " + pprint.pformat(out, width=100) + "\n")
