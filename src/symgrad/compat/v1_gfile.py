"""``tf.compat.v1.gfile``: TF1's names of the ``tf.io.gfile`` functions (``Exists``,
``MakeDirs``, ``ListDirectory`` ...), with TF1's argument names; the behaviour is
:mod:`symgrad.api.gfile`'s.  ``Walk(top, in_order=True)`` is ``walk(top, topdown)``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from symgrad.api import gfile as _g
from symgrad.api.gfile_io import FastGFile, GFile

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
]

Open = GFile


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    _g.copy(oldpath, newpath, overwrite)


def DeleteRecursively(dirname: Any) -> None:
    _g.rmtree(dirname)


def Exists(filename: Any) -> bool:
    return _g.exists(filename)


def Glob(filename: Any) -> list[str]:
    return _g.glob(filename)


def IsDirectory(dirname: Any) -> bool:
    return _g.isdir(dirname)


def ListDirectory(dirname: Any) -> list[str]:
    return _g.listdir(dirname)


def MakeDirs(dirname: Any) -> None:
    _g.makedirs(dirname)


def MkDir(dirname: Any) -> None:
    _g.mkdir(dirname)


def Remove(filename: Any) -> None:
    _g.remove(filename)


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    _g.rename(oldname, newname, overwrite)


def Stat(filename: Any) -> _g.FileStatistics:
    return _g.stat(filename)


def Walk(top: Any, in_order: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:
    return _g.walk(top, in_order)
