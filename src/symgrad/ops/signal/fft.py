"""FFT, IFFT, RFFT, IRFFT (and their 2D and 3D forms) over the innermost 1, 2 or 3 axes.

Kernels run NumPy's pocketfft in double precision and round to the op's dtype (TF runs its
FFTs in the op's precision, so complex64 results agree to a few ulps, not bit for bit).
RFFT crops or zero-pads its input to ``fft_length``; IRFFT reads the first
``fft_length[-1] // 2 + 1`` entries of the last axis (ignoring the imaginary parts the
Hermitian symmetry fixes), as TF's kernels.  The gradients are TF 2.21's (fft_ops.py): the
complex ones scale the opposite transform by the size; RFFT's adds back the terms its
Hermitian symmetry dropped and IRFFT's doubles them; the 3D real transforms have none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import COMPLEX, Case, complex_randn, ints, randn
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.array import shape as shapes
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import pad
from symgrad.ops.cast_select import cast
from symgrad.ops.core import check_dtype, convert_to_tensor, tf_has_no_gradient
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math.complex import conj, real
from symgrad.ops.math.elementwise import exp, floormod, reciprocal
from symgrad.ops.reduction.reduce import reduce_prod

_REAL = {dt.complex64: dt.float32, dt.complex128: dt.float64}
_COMPLEX = {dt.float32: dt.complex64, dt.float64: dt.complex128}
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _check_rank(op_type: str, x: Tensor, rank: int) -> None:
    if x.shape.rank is not None and x.shape.rank < rank:
        raise ShapeError(f"Input must have rank of at least {rank} but got: {x.shape}")


def _inner(rank: int) -> tuple[int, ...]:
    return tuple(range(-rank, 0))


def _complex_op(op_type: str, rank: int, fn: Callable[..., np.ndarray]) -> Any:
    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        check_dtype(op_type, inputs[0], (dt.complex64, dt.complex128), "input")
        _check_rank(op_type, inputs[0], rank)
        return inputs[0].shape, inputs[0].dtype

    def kernel(x: np.ndarray, **_: Any) -> np.ndarray:
        y = fn(x.astype(np.complex128), axes=_inner(rank)) if x.size else x.copy()
        return np.asarray(y, x.dtype)

    def batch(c: Call) -> list[Tensor]:
        return c.apply(c.xs)  # the batch axis is outer: the transform leaves it alone

    ref = lambda x: fn(x, axes=_inner(rank))  # noqa: E731
    shape = [(3, 5), (2, 3, 5), (2, 3, 4, 5)][rank - 1]
    return register_op(
        op_type,
        infer,
        kernel,
        batch=batch,
        cases=[Case([complex_randn(*shape)], ref, dtypes=COMPLEX, rtol=1e-4, atol=1e-5)],
    )


def _length(t: Tensor, rank: int, op_type: str) -> list[int] | None:
    value = constant_value(t)
    if value is None:
        return None
    if np.shape(value) != (rank,):
        raise ShapeError(f"fft_length must have shape [{rank}]")
    return [int(v) for v in np.ravel(value)]


def _real_op(op_type: str, rank: int, inverse: bool) -> Any:
    fn = np.fft.irfftn if inverse else np.fft.rfftn
    src = (dt.complex64, dt.complex128) if inverse else (dt.float32, dt.float64)

    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        x, n = inputs
        check_dtype(op_type, x, src, "input")
        check_dtype(op_type, n, (dt.int32,), "fft_length")
        _check_rank(op_type, x, rank)
        out = _REAL[x.dtype] if inverse else _COMPLEX[x.dtype]
        lengths = _length(n, rank, op_type)
        if x.shape.dims is None:
            return TensorShape(None), out
        inner: list[int | None] = [None] * rank if lengths is None else list(lengths)
        if lengths is not None and not inverse:
            inner[-1] = lengths[-1] // 2 + 1
        return TensorShape([*x.shape.dims[:-rank], *inner]), out

    def kernel(x: np.ndarray, n: np.ndarray, **_: Any) -> np.ndarray:
        s = [int(v) for v in n]
        if len(s) != rank:
            raise ShapeError(f"fft_length must have shape [{rank}]")
        out = _REAL[dt.as_dtype(x.dtype)] if inverse else _COMPLEX[dt.as_dtype(x.dtype)]
        shape = (*x.shape[:-rank], *s[:-1], s[-1] // 2 + 1 if not inverse else s[-1])
        if 0 in shape or x.size == 0:
            return np.zeros(shape, out.np)
        wide = np.complex128 if inverse else np.float64
        return np.asarray(fn(x.astype(wide), s=s, axes=_inner(rank)), out.np)

    def batch(c: Call) -> list[Tensor]:
        c.only_batched(0)
        return c.apply(c.xs)

    shape = [(3, 6), (2, 4, 6), (2, 3, 4, 6)][rank - 1]
    lengths = list(shape[-rank:])
    gen = complex_randn(*shape[:-1], 4) if inverse else randn(*shape)
    ref = lambda x, s: fn(x, s=lengths, axes=_inner(rank))  # noqa: E731
    order = 2 if rank < 3 else 0
    return register_op(
        op_type,
        infer,
        kernel,
        batch=batch,
        cases=[
            Case(
                [gen, ints(lengths)],
                ref,
                dtypes=COMPLEX if inverse else (np.float32, np.float64),
                diff=[0],
                order=order,
                rtol=1e-4,
                atol=1e-5,
                note="" if order else "TF registers no gradient for the 3D real transforms",
            )
        ],
    )


FFT_OPS = {}
for _rank in (1, 2, 3):
    _s = _SUFFIX[_rank]
    FFT_OPS[f"FFT{_s}"] = _complex_op(f"FFT{_s}", _rank, np.fft.fftn)
    FFT_OPS[f"IFFT{_s}"] = _complex_op(f"IFFT{_s}", _rank, np.fft.ifftn)
    FFT_OPS[f"RFFT{_s}"] = _real_op(f"RFFT{_s}", _rank, inverse=False)
    FFT_OPS[f"IRFFT{_s}"] = _real_op(f"IRFFT{_s}", _rank, inverse=True)


def _fft_size(t: Tensor, rank: int) -> Tensor:
    """The number of entries in ``t``'s innermost ``rank`` axes (TF's _fft_size_for_grad)."""
    return reduce_prod(shapes.shape(t)[-rank:])


def _complex_grad(rank: int, inverse: bool) -> Callable[..., Tensor]:
    other = f"{'FFT' if inverse else 'IFFT'}{_SUFFIX[rank]}"

    def grad_fn(op: Any, grad: Tensor) -> Tensor:
        """FFT: dx = ifft(g) · N;  IFFT: dx = fft(g) / N."""
        size = _fft_size(grad, rank)
        if inverse:
            scale = cast(reciprocal(cast(size, _REAL[grad.dtype])), grad.dtype)
        else:
            scale = cast(size, grad.dtype)
        return apply_op1(other, [grad]) * scale

    return grad_fn


for _rank in (1, 2, 3):
    _s = _SUFFIX[_rank]
    FFT_OPS[f"FFT{_s}"].gradient(_complex_grad(_rank, inverse=False))
    FFT_OPS[f"IFFT{_s}"].gradient(_complex_grad(_rank, inverse=True))


def _ymask(length: Any, d: dt.DType) -> Tensor:
    """[1, -1, 1, -1, ...] of ``length`` entries."""
    return cast(1 - 2 * floormod(array.range(length), 2), d)


def _mask_matrix(length: Any, d: dt.DType) -> Tensor:
    """exp(-2πi·a·b / length) for a, b in [0, length): the DFT matrix."""
    a = array.tile(shapes.expand_dims(array.range(length), 0), joining.stack([length, 1]))
    b = shapes.transpose(a, [1, 0])
    return exp(-2j * np.pi * cast(a * b, d) / cast(length, d))


def _ones(count: Any) -> Any:
    """``count`` ones: a list where ``count`` is known now, else an int32 Fill."""
    if isinstance(count, int):
        return [1] * count
    return array.ones(joining.stack([count]), dt.int32)


def _rank_of(t: Tensor) -> Any:
    return t.shape.rank if t.shape.rank is not None else shapes.rank(t)


def _shape_of(t: Tensor) -> Any:
    """``t``'s shape: a list of ints where it is known now (so a vectorised jacobian sees
    constants), else a Shape op (TF's rule always builds the op; the values agree)."""
    dims = t.shape.dims
    if dims is not None and all(d is not None for d in dims):
        return [int(d) for d in dims]  # type: ignore[arg-type]
    return shapes.shape(t)


def _tile_for_broadcasting(matrix: Tensor, t: Tensor) -> Tensor:
    ones, outer = _ones(_rank_of(t) - 2), _shape_of(t)[:-2]
    if isinstance(ones, list) and isinstance(outer, list):
        return array.tile(shapes.reshape(matrix, [*ones, *_shape_of(matrix)]), [*outer, 1, 1])
    expanded = shapes.reshape(matrix, joining.concat([ones, shapes.shape(matrix)], 0))
    return array.tile(expanded, joining.concat([shapes.shape(t)[:-2], [1, 1]], 0))


def _rfft_grad(rank: int) -> Callable[..., tuple[Tensor, None]]:
    irfft = f"IRFFT{_SUFFIX[rank]}"

    def grad_fn(op: Any, grad: Tensor) -> tuple[Tensor, None]:
        """dx = (irfft(g)·N + Re(terms the Hermitian symmetry dropped)) / 2 (TF's rule)."""
        n, d = op.inputs[1], grad.dtype
        input_shape = _shape_of(op.inputs[0])
        is_even = cast(1 - floormod(n[-1], 2), d)
        y0, ym = grad[..., 0:1], grad[..., -1:]
        if rank == 1:
            extra = y0 + is_even * ym * _ymask(input_shape[-1], d)
        else:
            tiled = _tile_for_broadcasting(_mask_matrix(input_shape[-2], d), y0)
            inner = input_shape[-1]
            ones = _ones(_rank_of(grad) - 1)
            if isinstance(ones, list) and isinstance(inner, int):
                reps: Any = [*ones, inner]
            else:
                reps = joining.concat([ones, joining.stack([inner])], 0)
            ym_term = array.tile(matmul(tiled, conj(ym)), reps) * _ymask(inner, d)
            extra = matmul(tiled, conj(y0)) + is_even * ym_term
        size = cast(_fft_size(op.inputs[0], rank), _REAL[d])
        return 0.5 * (apply_op1(irfft, [grad, n]) * size + real(extra)), None

    return grad_fn


def _irfft_mask(n: Tensor, x: Tensor, d: dt.DType) -> Tensor:
    """[1, 2, ..., 2] (odd length) or [1, 2, ..., 2, 1] (even) over x's last axis."""
    lengths, last = constant_value(n), (x.shape.dims or [None])[-1]
    if lengths is not None and last is not None:
        odd = int(np.ravel(lengths)[-1]) % 2
        mask = np.array([1.0] + [2.0] * (int(last) - 2 + odd) + [1.0] * (1 - odd), d.np)
        return convert_to_tensor(mask, d)
    is_odd = floormod(n[-1], 2)
    size = shapes.shape(x)[-1]
    return joining.concat(
        [
            array.ones([1], d),
            2.0 * array.ones(joining.stack([size - 2 + is_odd]), d),
            array.ones(joining.stack([1 - is_odd]), d),
        ],
        0,
    )


def _irfft_grad(rank: int) -> Callable[..., tuple[Tensor, None]]:
    rfft = f"RFFT{_SUFFIX[rank]}"

    def grad_fn(op: Any, grad: Tensor) -> tuple[Tensor, None]:
        """dx = rfft(g) · [1, 2, ..., 2, (1)] / N: the dropped half counted twice (TF's)."""
        n, d = op.inputs[1], grad.dtype
        mask = _irfft_mask(n, op.inputs[0], d)
        rsize = reciprocal(cast(_fft_size(grad, rank), d))
        return apply_op1(rfft, [grad, n]) * cast(rsize * mask, _COMPLEX[d]), None

    return grad_fn


for _rank in (1, 2):
    FFT_OPS[f"RFFT{_SUFFIX[_rank]}"].gradient(_rfft_grad(_rank))
    FFT_OPS[f"IRFFT{_SUFFIX[_rank]}"].gradient(_irfft_grad(_rank))
# TF registers no rule for RFFT3D and IRFFT3D: a gradient through them is a LookupError.
tf_has_no_gradient("RFFT3D")
tf_has_no_gradient("IRFFT3D")


# --------------------------------------------------------------------------------------
# The public functions (tf.signal.fft ... irfft3d), under TF's names and signatures.


def _complex_fn(op_type: str) -> Callable[..., Tensor]:
    def fn(input: Any, name: str | None = None) -> Tensor:
        return apply_op1(op_type, [convert_to_tensor(input, dtype_hint=dt.complex64)], name=name)

    fn.__name__ = fn.__qualname__ = op_type.lower()
    fn.__doc__ = f"The {op_type} of ``input``'s innermost axes (op type ``{op_type}``)."
    return fn


fft, ifft = _complex_fn("FFT"), _complex_fn("IFFT")
fft2d, ifft2d = _complex_fn("FFT2D"), _complex_fn("IFFT2D")
fft3d, ifft3d = _complex_fn("FFT3D"), _complex_fn("IFFT3D")


def _static_dims(x: Tensor, rank: int) -> list[int] | None:
    dims = x.shape.dims
    if dims is None or len(dims) < rank or any(d is None for d in dims[-rank:]):
        return None
    return [int(d) for d in dims[-rank:]]  # type: ignore[arg-type]


def _pad_to(x: Tensor, lengths: list[int] | None, inverse: bool) -> Tensor:
    """``x`` zero-padded to ``fft_length`` on its inner axes (TF's _maybe_pad_for_rfft)."""
    dims = _static_dims(x, len(lengths)) if lengths else None
    if lengths is None or dims is None or 0 in (x.shape.dims or []):
        return x
    want = [*lengths[:-1], lengths[-1] // 2 + 1 if inverse else lengths[-1]]
    pads = [[0, max(w - d, 0)] for w, d in zip(want, dims)]
    if not any(p for _, p in pads):
        return x
    return pad(x, [[0, 0]] * (len(x.shape.dims or []) - len(lengths)) + pads)


def _real_fn(rank: int, inverse: bool) -> Callable[..., Tensor]:
    op_type = f"{'IRFFT' if inverse else 'RFFT'}{_SUFFIX[rank]}"
    default = op_type.lower()

    def fn(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        with name_scope(name, default) as scope:
            x = convert_to_tensor(input_tensor, dtype_hint=dt.complex64 if inverse else dt.float32)
            kinds = (dt.complex64, dt.complex128) if inverse else (dt.float32, dt.float64)
            if x.dtype not in kinds:
                want = "tf.complex64 or tf.complex128" if inverse else "tf.float32 or tf.float64"
                raise ValueError(
                    f"{op_type[:-2] if rank > 1 else op_type} requires {want} inputs, got: {x}"
                )
            if x.shape.rank is not None and x.shape.rank < rank:
                raise ValueError(f"Shape {x.shape} must have rank at least {rank}")
            if fft_length is None:
                dims = _static_dims(x, rank)
                if dims is not None and inverse:
                    dims[-1] = max(0, 2 * (dims[-1] - 1))
                n = convert_to_tensor(dims, dt.int32) if dims is not None else None
                if n is None:
                    raise ValueError(f"{default}: the input's inner shape must be known")
            else:
                n = convert_to_tensor(fft_length, dt.int32)
            static = constant_value(n)
            lengths = None if static is None else [int(v) for v in np.ravel(static)]
            x = _pad_to(x, lengths, inverse)
            return apply_op1(op_type, [x, n], name=scope)

    fn.__name__ = fn.__qualname__ = default
    fn.__doc__ = f"The {op_type} of ``input_tensor``'s innermost axes, ``fft_length`` long."
    return fn


rfft, irfft = _real_fn(1, False), _real_fn(1, True)
rfft2d, irfft2d = _real_fn(2, False), _real_fn(2, True)
rfft3d, irfft3d = _real_fn(3, False), _real_fn(3, True)
