"""Sliding windows, shared by convolution and pooling: geometry, attrs, im2col and col2im.

Kernels work channels-last (``[N, *spatial, C]``): a channels-first tensor (``NCHW``) is
moved to that layout and back, as TF's CPU kernels would (TF's own CPU kernels refuse
``NCHW``; its GPU kernels give the transposed answer, which is what symgrad computes).

* ``Window`` holds one op's parsed attrs (strides, dilations, padding over the spatial
  axes), parsed once per distinct attrs (``window``) and checked at the user's call;
* ``Window.geometry`` gives the output sizes and paddings for input sizes (TF's
  ``GetWindowedOutputSize``: SAME puts the odd padding after);
* ``patches`` is im2col without a copy: a strided view ``[N, *out, *k, C]`` of the padded
  input, which ``tensordot``/``matmul`` contract with the filter in one BLAS call;
* ``col2im`` sums such patches back into the input, with one strided add per filter tap
  (``kh·kw`` adds, never a loop over pixels).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from symgrad.core.op_registry import ShapeError, constant_value
from symgrad.core.shapes import TensorShape

FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
PADDINGS = ("SAME", "VALID", "EXPLICIT")


@dataclass(frozen=True)
class Window:
    """The spatial part of a window op's attrs, in spatial-axis order."""

    n: int  # spatial rank
    channels_first: bool
    ksize: tuple[int, ...]  # pooling windows (a filter's comes from its shape)
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    padding: str
    explicit: tuple[tuple[int, int], ...]

    def spatial(self, dims: Sequence[Any]) -> list[Any]:
        """The spatial sizes of a full shape in this op's data format."""
        return list(dims[2:] if self.channels_first else dims[1:-1])

    def channels(self, dims: Sequence[Any]) -> Any:
        return dims[1] if self.channels_first else dims[-1]

    def full(self, n: Any, spatial: Sequence[Any], c: Any) -> list[Any]:
        """A full shape in this op's data format."""
        return [n, c, *spatial] if self.channels_first else [n, *spatial, c]

    def geometry(self, size: Sequence[int], k: Sequence[int]) -> Geometry:
        return _geometry(
            tuple(size), tuple(k), self.strides, self.dilations, self.padding, self.explicit
        )

    def out_dims(self, size: Sequence[Any], k: Sequence[Any]) -> list[Any]:
        """Static output sizes: None where an input or filter size is unknown."""
        out: list[int | None] = []
        for i, (a, b) in enumerate(zip(size, k)):
            if a is None or b is None:
                out.append(None)
                continue
            pads = self.explicit[i] if self.padding == "EXPLICIT" else (0, 0)
            out.append(_out_size(a, b, self.strides[i], self.dilations[i], self.padding, pads)[0])
        return out

    def to_last(self, x: np.ndarray) -> np.ndarray:
        return np.moveaxis(x, 1, -1) if self.channels_first else x

    def from_last(self, y: np.ndarray) -> np.ndarray:
        return np.moveaxis(y, -1, 1) if self.channels_first else y


@dataclass(frozen=True)
class Geometry:
    out: tuple[int, ...]
    pads: tuple[tuple[int, int], ...]
    k: tuple[int, ...]


def _out_size(
    size: int, k: int, s: int, d: int, padding: str, pads: tuple[int, int]
) -> tuple[int, int, int]:
    """(output size, padding before, padding after) along one spatial axis."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = pads
    out = (size + before + after - eff + s) // s
    if out < 0:
        raise ShapeError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {eff}, stride: {s}]"
        )
    return out, before, after


@functools.lru_cache(maxsize=512)
def _geometry(
    size: tuple[int, ...],
    k: tuple[int, ...],
    strides: tuple[int, ...],
    dilations: tuple[int, ...],
    padding: str,
    explicit: tuple[tuple[int, int], ...],
) -> Geometry:
    outs, pads = [], []
    for i in range(len(size)):
        p = explicit[i] if padding == "EXPLICIT" else (0, 0)
        o, b, a = _out_size(size[i], k[i], strides[i], dilations[i], padding, p)
        outs.append(o)
        pads.append((b, a))
    return Geometry(tuple(outs), tuple(pads), k)


def _ints(value: Any, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"attr '{what}' must be a list of ints, got {value!r}") from None


@functools.lru_cache(maxsize=256)
def _parse(
    n: int,
    data_format: str,
    strides: tuple[int, ...],
    dilations: tuple[int, ...],
    padding: str,
    explicit: tuple[int, ...],
    ksize: tuple[int, ...],
) -> Window:
    if data_format not in FORMATS[n]:
        raise ShapeError(
            f"Invalid data format '{data_format}': expected one of {', '.join(FORMATS[n])}"
        )
    first = data_format.startswith("NC")
    if padding not in PADDINGS:
        raise ShapeError(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of "
            'allowed values: "SAME", "VALID", "EXPLICIT"'
        )
    sp = slice(2, None) if first else slice(1, -1)
    outer = (0, 1) if first else (0, -1)
    for what, vals in (("strides", strides), ("dilations", dilations), ("ksize", ksize)):
        if len(vals) != n + 2:
            raise ShapeError(
                f"Sliding window {what} field must specify {n + 2} dimensions, got {list(vals)}"
            )
        if any(v < 1 for v in vals):
            raise ShapeError(
                f"Sliding window {what} must be positive. The specified or "
                f"inferred {what} is: {','.join(map(str, vals))}"
            )
        if any(vals[i] != 1 for i in outer):
            raise ShapeError(
                f"Current implementation does not yet support {what} in the "
                "batch and depth dimensions."
            )
    pairs: tuple[tuple[int, int], ...] = ()
    if padding == "EXPLICIT":
        if len(explicit) != 2 * (n + 2):
            raise ShapeError(
                f"explicit_paddings attribute must contain {2 * (n + 2)} values, "
                f"but got: {len(explicit)}"
            )
        full = [(explicit[2 * i], explicit[2 * i + 1]) for i in range(n + 2)]
        if any(full[i] != (0, 0) for i in outer) or any(v < 0 for v in explicit):
            raise ShapeError(
                "Nonzero explicit padding in the batch or depth dimensions is not supported"
                if any(full[i] != (0, 0) for i in outer)
                else "All elements of explicit_paddings must be nonnegative"
            )
        pairs = tuple(full[sp])
    return Window(n, first, ksize[sp], strides[sp], dilations[sp], padding, pairs)


def window(
    n: int,
    *,
    strides: Any,
    padding: str,
    data_format: str | None = None,
    dilations: Any = None,
    explicit_paddings: Any = (),
    ksize: Any = None,
    **_: Any,
) -> Window:
    """An op's attrs as a ``Window`` (cached: plans and eager calls parse each once; a
    repeat of the same attrs is one dict lookup, as a plan's kernels ask on every run)."""
    try:
        key: Any = (n, data_format, padding, tuple(strides), dilations, explicit_paddings, ksize)
        key = (*key[:4], *(None if v is None else tuple(v) for v in key[4:]))
        known = _WINDOWS.get(key)
    except TypeError:  # not sequences: the parse below says what is wrong
        key = known = None
    if known is not None:
        return known
    made = _window(n, strides, padding, data_format, dilations, explicit_paddings, ksize)
    if key is not None and len(_WINDOWS) < 1024:
        _WINDOWS[key] = made
    return made


_WINDOWS: dict[Any, Window] = {}


def _window(
    n: int,
    strides: Any,
    padding: str,
    data_format: str | None,
    dilations: Any,
    explicit_paddings: Any,
    ksize: Any,
) -> Window:
    fmt = data_format or FORMATS[n][0]
    ones = (1,) * (n + 2)
    return _parse(
        n,
        fmt,
        _ints(strides, "strides"),
        ones if dilations is None else _ints(dilations, "dilations"),
        padding,
        _ints(explicit_paddings, "explicit_paddings"),
        ones if ksize is None else _ints(ksize, "ksize"),
    )


# --------------------------------------------------------------------------------------
# im2col and col2im (channels-last arrays)


def pad(x: np.ndarray, geo: Geometry, value: Any = 0) -> np.ndarray:
    """x with the geometry's spatial padding (a filled array and one slice assignment:
    ``np.pad``'s general machinery took ~10× longer on the CNN step's small images)."""
    if not any(b or a for b, a in geo.pads):
        return x
    shape = (x.shape[0], *(s + b + a for s, (b, a) in zip(x.shape[1:-1], geo.pads)), x.shape[-1])
    out = np.full(shape, value, x.dtype)
    inner = tuple(slice(b, b + s) for s, (b, _) in zip(x.shape[1:-1], geo.pads))
    out[(slice(None), *inner)] = x
    return out


def patches(xp: np.ndarray, geo: Geometry, w: Window) -> np.ndarray:
    """The windows of a padded input as a read-only view ``[N, *out, *k, C]``."""
    st = xp.strides
    sp = st[1:-1]
    shape = (xp.shape[0], *geo.out, *geo.k, xp.shape[-1])
    strides = (
        st[0],
        *(a * s for a, s in zip(sp, w.strides)),
        *(a * d for a, d in zip(sp, w.dilations)),
        st[-1],
    )
    return as_strided(xp, shape, strides, writeable=False)


@functools.lru_cache(maxsize=256)
def taps(geo: Geometry, w: Window) -> tuple[tuple[tuple[int, ...], tuple[Any, ...]], ...]:
    """Each filter tap and the strided slice of the padded input that it reads (made once
    per geometry: a plan's kernels ask on every run)."""
    out = []
    for tap in np.ndindex(*geo.k):
        out.append(
            (
                tap,
                (
                    slice(None),
                    *(
                        slice(t * d, t * d + (o - 1) * s + 1, s)
                        for t, d, o, s in zip(tap, w.dilations, geo.out, w.strides)
                    ),
                ),
            )
        )
    return tuple(out)


def col2im(cols: np.ndarray, padded: Sequence[int], geo: Geometry, w: Window) -> np.ndarray:
    """The adjoint of ``patches``: sums ``[N, *out, *k, C]`` windows into the padded input."""
    xp = np.zeros(tuple(padded), cols.dtype)
    if 0 in geo.out:
        return xp
    lead = (slice(None),) * (1 + len(geo.k))
    for tap, where in taps(geo, w):
        xp[where] += cols[lead + tap]
    return xp


def crop(xp: np.ndarray, geo: Geometry, size: Sequence[int]) -> np.ndarray:
    if not any(b or a for b, a in geo.pads):
        return xp
    return xp[(slice(None), *(slice(b, b + s) for (b, _), s in zip(geo.pads, size)))]


def padded_shape(n: int, size: Sequence[int], c: int, geo: Geometry) -> tuple[int, ...]:
    return (n, *(s + b + a for s, (b, a) in zip(size, geo.pads)), c)


def static_sizes(t: Any) -> list[int] | None:
    """A shape input's values (``input_sizes``, ``filter_sizes``) if known now."""
    v = constant_value(t)
    return None if v is None else [int(i) for i in np.ravel(v)]


def dims_of(s: TensorShape, rank: int) -> list[Any]:
    return [None] * rank if s.dims is None else list(s.dims)
