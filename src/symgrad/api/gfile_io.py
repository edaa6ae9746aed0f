"""``tf.io.gfile.GFile`` (TF's ``FileIO``) and the path and error helpers of
:mod:`symgrad.api.gfile`."""

from __future__ import annotations

import errno
import os
import re
from typing import IO, Any

from symgrad.core import errors

# TF's errno -> error class (tsl's ErrnoToCode); others are OpError (TF's UnknownError).
_ERRNO: dict[int, type[errors.OpError]] = {}
for _cls, _names in [
    (
        errors.InvalidArgumentError,
        "EINVAL ENAMETOOLONG E2BIG EDESTADDRREQ EDOM EFAULT EILSEQ "
        "ENOPROTOOPT ENOSTR ENOTSOCK ENOTTY EPROTOTYPE ESPIPE",
    ),
    (errors.NotFoundError, "ENODEV ENOENT ENXIO ESRCH"),
    (errors.AlreadyExistsError, "EEXIST EADDRNOTAVAIL EALREADY"),
    (errors.PermissionDeniedError, "EPERM EACCES EROFS"),
    (
        errors.FailedPreconditionError,
        "ENOTEMPTY EISDIR ENOTDIR EADDRINUSE EBADF EBUSY ECHILD "
        "EISCONN ENOTBLK ENOTCONN EPIPE ESHUTDOWN ETXTBSY",
    ),
    (
        errors.ResourceExhaustedError,
        "ENOSPC EDQUOT EMFILE EMLINK ENFILE ENOBUFS ENODATA ENOMEM ENOSR EUSERS",
    ),
    (errors.OutOfRangeError, "EFBIG EOVERFLOW ERANGE"),
    (
        errors.UnimplementedError,
        "ENOSYS ENOTSUP EAFNOSUPPORT EPFNOSUPPORT EPROTONOSUPPORT ESOCKTNOSUPPORT EXDEV",
    ),
]:
    _ERRNO.update({getattr(errno, n): _cls for n in _names.split() if hasattr(errno, n)})

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def os_error(e: OSError, context: str) -> errors.OpError:
    """TF's error for an OS error: ``"<context>; <strerror>"`` of the errno's class."""
    cls = _ERRNO.get(e.errno or 0, errors.OpError)
    return cls(f"{context}; {os.strerror(e.errno) if e.errno else e}")


def path_str(path: Any) -> str:
    """A path as str (TF's ``path_to_str`` and ``as_str_any``)."""
    path = os.fspath(path) if isinstance(path, os.PathLike) else path
    if isinstance(path, bytes):
        return path.decode("utf-8")
    if isinstance(path, str):
        return path
    raise TypeError(f"Expected binary or unicode string, got {path!r}")


def local_path(path: Any) -> str:
    """The local file system path of ``path`` (a ``file://`` URL's path; another scheme
    raises TF's UnimplementedError)."""
    p = path_str(path)
    m = _SCHEME.match(p)
    if m is None:
        return p
    if m.group(1) == "file":
        return p[len("file://") :]
    raise errors.UnimplementedError(
        f"File system scheme '{m.group(1)}' not implemented (file: '{p}')"
    )


def as_bytes(value: Any) -> bytes:
    if isinstance(value, bytearray | bytes):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


class FileIO:
    """A file on the local file system, as TF's ``FileIO`` (see :mod:`symgrad.api.gfile`):
    modes ``r w a r+ w+ a+`` with an optional ``b``."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        self._name, self._mode = name, mode
        self._reader: IO[bytes] | None = None
        self._writer: IO[bytes] | None = None
        self._binary = "b" in mode
        m = mode.replace("b", "")
        if m not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self._readable = m in ("r", "r+", "a+", "w+")
        self._writable = m in ("a", "w", "r+", "a+", "w+")
        self._append = "a" in m

    @property
    def name(self) -> Any:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    def _open(self, how: str) -> IO[bytes]:
        try:
            return open(local_path(self._name), how)
        except OSError as e:
            raise os_error(e, path_str(self._name)) from None

    def _read_file(self) -> IO[bytes]:
        if self._reader is None:
            if not self._readable:
                raise errors.PermissionDeniedError("File isn't open for reading")
            self._reader = self._open("rb")
        return self._reader

    def _write_file(self) -> IO[bytes]:
        if self._writer is None:
            if not self._writable:
                raise errors.PermissionDeniedError("File isn't open for writing")
            self._writer = self._open("ab" if self._append else "wb")
        return self._writer

    def _value(self, data: bytes) -> Any:
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's size in bytes."""
        from symgrad.api.gfile import stat

        return stat(self._name).length

    def write(self, file_content: Any) -> None:
        """Appends ``file_content`` (str or bytes) at the end."""
        self._write_file().write(as_bytes(file_content))

    def read(self, n: int = -1) -> Any:
        """``n`` bytes (all the rest for -1), decoded in text mode."""
        f = self._read_file()
        if n == -1:
            n = self.size() - self.tell()
        if n < 0:
            raise errors.InvalidArgumentError(f"Can't read a negative number of bytes: {n}")
        return self._value(f.read(n))

    def seek(self, offset: Any = None, whence: int = 0, position: Any = None) -> None:
        """Moves the read position (``whence`` 0, 1, 2: from start, here, end)."""
        f = self._read_file()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        offset = position if position is not None else offset
        if whence == 1:
            offset += self.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2."
            )
        if offset < 0:
            raise errors.InvalidArgumentError(f"Seeking to a negative position: {offset}")
        if offset > self.size():
            raise errors.OutOfRangeError("reached end of file")
        f.seek(offset)

    def readline(self) -> Any:
        """The next line with its ``\\n`` ('' at the end); ``\\r`` dropped, as TF's."""
        return self._value(self._read_file().readline().replace(b"\r", b""))

    def readlines(self) -> list[Any]:
        lines = []
        while line := self.readline():
            lines.append(line)
        return lines

    def tell(self) -> int:
        if self._readable:
            return self._read_file().tell()
        return self._write_file().tell()

    def __enter__(self) -> FileIO:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __iter__(self) -> FileIO:
        return self

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    def next(self) -> Any:
        return self.__next__()

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Closes the file; using it again reopens it (from the start, or anew)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def seekable(self) -> bool:
        return True

    def __del__(self) -> None:
        # TF's files close with their GFile, silently (Python's would warn, unclosed).
        if getattr(self, "_reader", None) or getattr(self, "_writer", None):
            self.close()


class GFile(FileIO):
    """``tf.io.gfile.GFile`` (also ``tf.compat.v1.gfile.GFile`` and ``Open``)."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        super().__init__(name, mode)


class FastGFile(FileIO):
    """``tf.compat.v1.gfile.FastGFile``: TF1's other name of a GFile (its own class)."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        super().__init__(name, mode)
