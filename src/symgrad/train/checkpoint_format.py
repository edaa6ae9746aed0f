"""symgrad's checkpoint files: a versioned JSON index plus the values as NPZ.

A checkpoint with prefix ``run/ckpt-3`` is two files, named as TensorFlow names its own:

* ``run/ckpt-3.index``: JSON, ``{"format": "symgrad.checkpoint", "version": 1, "entries":
  [{"key": "model/w", "dtype": "float32", "shape": [2, 3]}, ...], "entries_sha256": ...,
  "data_sha256": ...}`` (SHA-256 of the entries as compact sorted JSON, and of the data file);
* ``run/ckpt-3.data-00000-of-00001``: a zip of ``.npy`` files, ``<i>.npy`` for entry ``i``
  (what ``np.savez`` writes).

The files hold numbers and names only; nothing in them is ever executed.  Reading checks
everything before trusting it: the JSON's structure, types and sizes; both checksums (so a
damaged byte anywhere is an error, not a changed number); the entries' dtypes
(numbers and bools only) and shapes; each member's size in the zip before it is
decompressed (so a small file cannot expand to gigabytes); each array read with
``np.load(..., allow_pickle=False)`` must have the dtype and shape its entry declares.  Any
failure raises ``CheckpointFormatError`` (a ValueError) naming the file and the problem.

The data file is written first and the index last, each to a temporary name then renamed,
so an index that exists belongs to a complete checkpoint.  The ``checkpoint`` state file of a
directory (which checkpoints exist, the latest first) uses TensorFlow's text format.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import zipfile
from typing import Any

import numpy as np

from symgrad.core.errors import NotFoundError

FORMAT = "symgrad.checkpoint"
VERSION = 1
DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"
STATE_FILE = "checkpoint"
_MAX_INDEX_BYTES = 64 << 20
_MAX_ENTRIES = 1 << 20
_MAX_KEY = 4096
_MAX_RANK = 64
_NPY_HEADER = 4096  # room for an .npy header beyond the array's bytes
_DTYPES = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    }
)


class CheckpointFormatError(ValueError):
    """A checkpoint file is damaged, truncated, not symgrad's, or not trustworthy."""


def _fail(path: str, problem: str) -> CheckpointFormatError:
    return CheckpointFormatError(f"Cannot read checkpoint file {path!r}: {problem}")


# -------------------------------------------------------------------------------------
# Writing


def write(prefix: str, entries: dict[str, np.ndarray]) -> str:
    """Write ``entries`` (key -> array) as the checkpoint ``prefix``; returns ``prefix``."""
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    index: list[dict[str, Any]] = []
    arrays: dict[str, np.ndarray] = {}
    for i, (key, value) in enumerate(entries.items()):
        arr = np.asarray(value)
        arr = arr if arr.flags.c_contiguous else arr.copy(order="C")
        if arr.dtype.name not in _DTYPES:
            raise TypeError(f"checkpoint entry {key!r}: cannot save dtype {arr.dtype}")
        index.append({"key": key, "dtype": arr.dtype.name, "shape": list(arr.shape)})
        arrays[str(i)] = arr
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    data = buffer.getvalue()
    _atomic(prefix + DATA_SUFFIX, lambda f: f.write(data))
    text = json.dumps(
        {
            "format": FORMAT,
            "version": VERSION,
            "entries": index,
            "entries_sha256": _entries_hash(index),
            "data_sha256": hashlib.sha256(data).hexdigest(),
        },
        indent=1,
    )
    _atomic(prefix + INDEX_SUFFIX, lambda f: f.write(text.encode()))
    return prefix


def _entries_hash(entries: Any) -> str:
    text = json.dumps(entries, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _atomic(path: str, fill: Any) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            fill(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def remove(prefix: str) -> None:
    """Delete a checkpoint's files (missing ones are fine)."""
    for suffix in (INDEX_SUFFIX, DATA_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            os.remove(prefix + suffix)


# -------------------------------------------------------------------------------------
# Reading, trusting nothing


def exists(prefix: str) -> bool:
    return os.path.isfile(prefix + INDEX_SUFFIX)


def read_index(prefix: str) -> list[tuple[str, str, tuple[int, ...]]]:
    """The checked entries (key, dtype name, shape) of checkpoint ``prefix``."""
    return _read_index(prefix)[0]


def _read_index(prefix: str) -> tuple[list[tuple[str, str, tuple[int, ...]]], str]:
    """The checked entries and the data file's expected SHA-256."""
    path = prefix + INDEX_SUFFIX
    if not os.path.isfile(path):
        raise NotFoundError(
            f"Failed to find any matching files for {prefix}: there is no "
            f"checkpoint index {path!r}. Please double-check the path."
        )
    with open(path, "rb") as f:
        raw = f.read(_MAX_INDEX_BYTES + 1)
    if len(raw) > _MAX_INDEX_BYTES:
        raise _fail(path, f"the index is larger than {_MAX_INDEX_BYTES} bytes")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _fail(
            path,
            f"the index is not valid JSON ({e}); the file is damaged, "
            "truncated, or not a symgrad checkpoint (TensorFlow's own checkpoints "
            "cannot be read)",
        ) from None
    return _checked_index(path, doc)


def _checked_index(path: str, doc: Any) -> tuple[list[tuple[str, str, tuple[int, ...]]], str]:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _fail(path, 'not a symgrad checkpoint index (no "format": "symgrad.checkpoint")')
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise _fail(path, f"bad format version {version!r}")
    if version > VERSION:
        raise _fail(
            path,
            f"format version {version} is newer than this symgrad reads "
            f"({VERSION}); upgrade symgrad",
        )
    if set(doc) != {"format", "version", "entries", "entries_sha256", "data_sha256"}:
        raise _fail(path, f"unexpected fields {sorted(map(str, doc))}")
    entries = doc["entries"]
    if not isinstance(entries, list) or len(entries) > _MAX_ENTRIES:
        raise _fail(path, '"entries" must be a list (of at most a million entries)')
    if doc["entries_sha256"] != _entries_hash(entries):
        raise _fail(path, "the entries do not match their checksum: the index is damaged")
    if not isinstance(doc["data_sha256"], str):
        raise _fail(path, "bad data checksum")
    out, keys = [], set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or set(e) != {"key", "dtype", "shape"}:
            raise _fail(path, f"entry {i} must have exactly key, dtype and shape")
        key, dtype, shape = e["key"], e["dtype"], e["shape"]
        if not isinstance(key, str) or not key or len(key) > _MAX_KEY or key in keys:
            raise _fail(path, f"entry {i} has a bad or repeated key")
        if dtype not in _DTYPES:
            raise _fail(path, f"entry {key!r} has an unsupported dtype {dtype!r}")
        if (
            not isinstance(shape, list)
            or len(shape) > _MAX_RANK
            or not all(type(d) is int and 0 <= d < 1 << 40 for d in shape)
        ):
            raise _fail(path, f"entry {key!r} has a bad shape {shape!r}")
        keys.add(key)
        out.append((key, dtype, tuple(shape)))
    return out, doc["data_sha256"]


def read(prefix: str) -> dict[str, np.ndarray]:
    """Every entry of checkpoint ``prefix`` as an array, checked against its index."""
    index, digest = _read_index(prefix)
    path = prefix + DATA_SUFFIX
    if not os.path.isfile(path):
        raise NotFoundError(f"The checkpoint {prefix!r} has an index but no data file {path!r}")
    limit = sum(math.prod(s) * np.dtype(d).itemsize + 2 * _NPY_HEADER for _, d, s in index)
    if os.path.getsize(path) > limit + _NPY_HEADER:
        raise _fail(path, "the data file is larger than the arrays its index lists")
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != digest:
        raise _fail(
            path,
            "the data does not match the index's checksum: the file is damaged, "
            "truncated, or from another checkpoint",
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = {info.filename: info for info in zf.infolist()}
            expected = {f"{i}.npy" for i in range(len(index))}
            if set(members) != expected:
                raise _fail(
                    path, f"it holds {len(members)} arrays where the index lists {len(index)}"
                )
            return {
                key: _member(zf, members[f"{i}.npy"], path, key, dtype, shape)
                for i, (key, dtype, shape) in enumerate(index)
            }
    except CheckpointFormatError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as e:
        raise _fail(
            path, f"the data file is damaged or truncated ({type(e).__name__}: {e})"
        ) from None


def _member(
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    path: str,
    key: str,
    dtype: str,
    shape: tuple[int, ...],
) -> np.ndarray:
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    if info.file_size > nbytes + _NPY_HEADER:
        raise _fail(
            path,
            f"entry {key!r} is {info.file_size} bytes where {dtype}{list(shape)} needs {nbytes}",
        )
    with zf.open(info) as f:
        raw = f.read(nbytes + _NPY_HEADER + 1)
    arr = np.load(io.BytesIO(raw), allow_pickle=False)
    if not isinstance(arr, np.ndarray) or arr.dtype != np.dtype(dtype) or arr.shape != shape:
        got = f"{getattr(arr, 'dtype', type(arr).__name__)}{list(getattr(arr, 'shape', ()))}"
        raise _fail(path, f"entry {key!r} holds {got} where the index says {dtype}{list(shape)}")
    return arr


# -------------------------------------------------------------------------------------
# The directory's state file (TensorFlow's text format)

_STATE_LINE = re.compile(
    r'^(model_checkpoint_path|all_model_checkpoint_paths): "((?:[^"\\]|'
    r'\\.)*)"$|^(all_model_checkpoint_timestamps|last_preserved_timestamp)'
    r": [-+0-9.eE]+$"
)


def write_state(
    directory: str, latest: str, all_paths: list[str], state_file: str = STATE_FILE
) -> None:
    """Record ``latest`` and ``all_paths`` (oldest first) in ``<directory>/checkpoint``,
    relative to the directory where they are inside it."""
    os.makedirs(directory or ".", exist_ok=True)

    def rel(p: str) -> str:
        r = os.path.relpath(p, directory or ".")
        return r if not r.startswith("..") else p

    lines = [f'model_checkpoint_path: "{_quote(rel(latest))}"']
    lines += [f'all_model_checkpoint_paths: "{_quote(rel(p))}"' for p in all_paths]
    text = "\n".join(lines) + "\n"
    _atomic(os.path.join(directory, state_file), lambda f: f.write(text.encode()))


def _quote(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def read_state(directory: str, state_file: str = STATE_FILE) -> tuple[str, list[str]] | None:
    """(latest, all paths) from ``<directory>/checkpoint``, joined to the directory; None
    when there is no state file.  A malformed one raises CheckpointFormatError."""
    path = os.path.join(directory, state_file)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        raw = f.read(_MAX_INDEX_BYTES + 1)
    if len(raw) > _MAX_INDEX_BYTES:
        raise _fail(path, f"the state file is larger than {_MAX_INDEX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(path, "the state file is not text") from None
    latest, paths = None, []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _STATE_LINE.match(line.strip())
        if m is None:
            raise _fail(path, f"unexpected line in the state file: {line[:80]!r}")
        if m.group(1):
            value = re.sub(r"\\(.)", r"\1", m.group(2))
            full = value if os.path.isabs(value) else os.path.join(directory, value)
            if m.group(1) == "model_checkpoint_path":
                latest = full
            else:
                paths.append(full)
    if latest is None:
        raise _fail(path, "the state file names no model_checkpoint_path")
    return latest, paths


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in ``checkpoint_dir`` (None if none)."""
    state = read_state(checkpoint_dir, latest_filename or STATE_FILE)
    if state is None or not exists(state[0]):
        return None
    return state[0]


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """(key, shape) of every value in a checkpoint (a prefix, or a directory's latest)."""
    prefix = _resolve(ckpt_dir_or_file)
    return sorted((key, list(shape)) for key, _, shape in read_index(prefix))


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    values = read(_resolve(ckpt_dir_or_file))
    if name not in values:
        raise NotFoundError(f"Key {name} not found in checkpoint")
    return values[name]


def _resolve(ckpt_dir_or_file: str) -> str:
    if os.path.isdir(ckpt_dir_or_file):
        latest = latest_checkpoint(ckpt_dir_or_file)
        if latest is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in given "
                f"directory {ckpt_dir_or_file}"
            )
        return latest
    return ckpt_dir_or_file
