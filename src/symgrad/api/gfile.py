"""``tf.io.gfile``: TF's file API on the local file system, with TF 2.21's behaviour.

Errors are TF's classes with TF's texts: an OS error becomes the ``tf.errors`` class TF
maps its errno to (``NotFoundError`` "path; No such file or directory",
``FailedPreconditionError`` "path; Is a directory", ``AlreadyExistsError`` "file already
exists" for ``copy``/``rename`` without ``overwrite`` ...).  ``GFile`` is TF's
``FileIO``: it opens lazily (a missing file fails at the first read, a file opened for
writing is created at the first write, so a ``w`` GFile closed unwritten leaves no
file), ``read(n)``/``seek``/``tell``/``size`` count bytes also in text mode (the bytes
read are then decoded as UTF-8), ``readline`` drops ``\\r`` as TF's reader does, ``w``
and ``r+`` truncate at the first write, ``write`` takes str or bytes in either mode, and
a closed GFile reopens (reading from the start, writing anew) when used again.  Paths may
be str, bytes or path-like, and ``file://`` URLs; other schemes (``gs://``) raise
``UnimplementedError`` as TF's does for a scheme it has no file system for.

>>> import symgrad as tf, tempfile, os
>>> d = tempfile.mkdtemp()
>>> with tf.io.gfile.GFile(os.path.join(d, "a.txt"), "w") as f:
...     f.write("one\\ntwo\\n")
>>> tf.io.gfile.GFile(os.path.join(d, "a.txt")).readlines()
['one\\n', 'two\\n']
>>> tf.io.gfile.rmtree(d)
"""

from __future__ import annotations

import errno as _errno
import os
import re
import shutil
from collections.abc import Iterator
from posixpath import join as urljoin
from typing import Any

from symgrad.api.gfile_io import GFile, local_path, os_error, path_str
from symgrad.core import errors

__all__ = [
    "GFile",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]


class FileStatistics:
    """What ``stat`` returns: ``length`` (bytes), ``mtime_nsec`` and ``is_directory``."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def exists(path: Any) -> bool:
    """Whether ``path`` (a file or a directory) exists."""
    return os.path.exists(local_path(path))


def isdir(path: Any) -> bool:
    try:
        return os.path.isdir(local_path(path))
    except errors.OpError:
        return False


def listdir(path: Any) -> list[str]:
    """The names in directory ``path`` in the file system's order (not sorted)."""
    if not isdir(path):
        raise errors.NotFoundError(f"Could not find directory {path_str(path)}")
    return os.listdir(local_path(path))


def mkdir(path: Any) -> None:
    """Creates directory ``path`` (its parent must exist; an existing path is no error)."""
    p = local_path(path)
    if not p:
        return
    try:
        os.mkdir(p)
    except FileExistsError:
        pass
    except OSError as e:
        raise os_error(e, path_str(path)) from None


def makedirs(path: Any) -> None:
    """Creates ``path`` and its missing parents; a part that is a file fails."""
    p = local_path(path)
    parts, head = [], p.rstrip("/")
    while head and not os.path.isdir(head):
        if os.path.exists(head):
            raise errors.FailedPreconditionError(f"{head} is not a directory")
        parts.append(head)
        head = os.path.dirname(head)
    for part in reversed(parts):
        try:
            os.mkdir(part)
        except FileExistsError:
            pass
        except OSError as e:
            raise os_error(e, part) from None


def remove(path: Any) -> None:
    """Deletes a file (a directory: ``FailedPreconditionError`` "Is a directory")."""
    try:
        os.remove(local_path(path))
    except OSError as e:
        raise os_error(e, path_str(path)) from None


def rmtree(path: Any) -> None:
    """Deletes ``path`` and all under it (a file too)."""
    p = local_path(path)
    if not os.path.lexists(p):
        raise errors.NotFoundError(f"{path_str(path)} not found")
    try:
        shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
    except OSError as e:
        raise os_error(e, e.filename or path_str(path)) from None


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Moves ``src`` to ``dst``; an existing ``dst`` needs ``overwrite`` (AlreadyExists)."""
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError("file already exists")
    try:
        os.rename(local_path(src), local_path(dst))
    except OSError as e:
        raise os_error(e, path_str(src)) from None


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies file ``src`` to ``dst``; an existing ``dst`` needs ``overwrite``."""
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError("file already exists")
    s, d = local_path(src), local_path(dst)
    try:
        os.stat(s)
        if os.path.isdir(s):  # TF opens the target, then fails to copy from a directory
            open(d, "wb").close()
            raise OSError(_errno.EINVAL, os.strerror(_errno.EINVAL), d)
        if os.path.exists(d) and os.path.samefile(s, d):
            return
        shutil.copyfile(s, d)
    except OSError as e:
        raise os_error(e, path_str(dst) if e.filename == d else path_str(src)) from None


def stat(path: Any) -> FileStatistics:
    try:
        st = os.stat(local_path(path))
    except OSError as e:
        raise os_error(e, path_str(path)) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(local_path(path)))


def join(path: Any, *paths: Any) -> str:
    """``os.path.join``, or ``posixpath.join`` for a path with a scheme (``gs://b/x``)."""
    p = path_str(path)
    if "://" in p[1:]:
        return urljoin(path, *paths)
    return os.path.join(path, *paths)


def walk(
    top: Any, topdown: bool = True, onerror: Any = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(dirname, subdirs, files)`` for each directory from ``top`` (nothing for a
    missing ``top``; ``onerror`` gets its NotFoundError, then TF's generator fails)."""
    top = path_str(top)
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if not onerror:
            return
        onerror(err)
        raise UnboundLocalError(
            "cannot access local variable 'listing' where it is not associated with a value"
        ) from None
    subdirs: list[str] = []
    files: list[str] = []
    for item in listing:
        (subdirs if isdir(_child(top, item)) else files).append(item)
    if topdown:
        yield top, subdirs, files
    for subdir in subdirs:
        yield from walk(_child(top, subdir), topdown, onerror=onerror)
    if not topdown:
        yield top, subdirs, files


def _child(parent: str, item: str) -> str:
    return "".join([join(parent, ""), item]) if item[0] == os.sep else join(parent, item)


def get_registered_schemes() -> list[str]:
    """The schemes paths may have: the local file system's ('' and 'file')."""
    return ["", "file"]


def glob(pattern: Any) -> list[str]:
    """The paths matching ``pattern`` (or any of a list of patterns), TF's way: ``*``
    and ``?`` stop at ``/`` but match dot files, ``[!a]``/``[^a]`` and ``\\c`` escapes;
    directory by directory in the file system's order; a path without wildcards is
    returned when it exists."""
    if isinstance(pattern, str | bytes):
        return _glob(path_str(pattern))
    return [m for p in pattern for m in _glob(path_str(p))]


_WILD = re.compile(r"[*?\[\\]")


def _glob(pattern: str) -> list[str]:
    if not pattern:
        return []
    scheme = "file://" if pattern.startswith("file://") else ""
    p = local_path(pattern)
    first = _WILD.search(p)
    if first is None:
        return [pattern] if os.path.exists(p) else []
    top = os.path.dirname(p[: first.start()])
    if not top:
        top, p = ".", os.path.join(".", p)
    is_dir = p.endswith("/")
    levels = [] if is_dir else [p]
    d = os.path.dirname(p)
    while len(d) > len(top):
        levels.append(d)
        d = os.path.dirname(d)
    levels = [top, *reversed(levels)]
    found: list[str] = []
    frontier = [top]
    for depth in range(1, len(levels)):
        rx, last = _translate(levels[depth]), depth == len(levels) - 1
        nxt: list[str] = []
        for current in frontier:
            for child in os.listdir(current) if os.path.isdir(current) else []:
                path = os.path.join(current, child)
                if not rx.fullmatch(path) or ((not last or is_dir) and not os.path.isdir(path)):
                    continue
                (found if last else nxt).append(path)
        frontier = nxt
    return [scheme + f for f in found]


def _translate(pattern: str) -> re.Pattern[str]:
    """fnmatch(3) with FNM_PATHNAME as a regular expression."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i < len(pattern):
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            j = i + 1 if pattern[i : i + 1] in ("!", "^") else i
            k = pattern.find("]", j + 1 if pattern[j : j + 1] == "]" else j)
            if k < 0:  # no closing bracket: a literal "["
                out.append(re.escape(c))
                continue
            neg, body = j > i, pattern[j:k]
            body = body.replace("\\", "\\\\").replace("[", "\\[")
            out.append("[" + ("^" if neg else "") + body + "]")
            i = k + 1
        else:
            out.append(re.escape(c))
    return re.compile("".join(out))
