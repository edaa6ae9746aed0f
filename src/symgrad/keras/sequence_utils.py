"""``keras.utils.pad_sequences`` (also ``keras.preprocessing.sequence.pad_sequences``):
lists of sequences of different lengths as one NumPy array, padded and truncated as Keras
3 does it."""

from __future__ import annotations

from typing import Any

import numpy as np


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """A ``(len(sequences), maxlen, *sample_shape)`` array of ``dtype``: each sequence
    cut to its last (``truncating="pre"``) or first (``"post"``) ``maxlen`` steps and
    placed at the end (``padding="pre"``) or start (``"post"``) of a row of ``value``;
    ``maxlen`` defaults to the longest sequence.  The sample shape is the first non-empty
    sequence's steps' shape; every other sequence must have it."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = [], None
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError as e:
            raise ValueError(
                f"`sequences` must be a list of iterables. Found non-iterable: {s}"
            ) from e
        if sample_shape is None and len(s):
            sample_shape = np.asarray(s).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = int(np.max(lengths))
    text = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not text:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    out = np.full((len(sequences), maxlen, *sample_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating not in ("pre", "post"):
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {kept.shape[1:]} of sequence at position {i} is different "
                f"from expected shape {sample_shape}"
            )
        if padding == "post":
            out[i, : len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept) :] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out
