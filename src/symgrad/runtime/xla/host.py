"""Lowerings that run on the host inside the compiled function (``jax.pure_callback`` /
``jax.experimental.io_callback``), and helpers for compile-time constant inputs.

A host lowering calls the op's own NumPy kernel, so its numbers are the NumPy path's bit
for bit.  It is used where XLA has no counterpart with TF's exact result (stateful random
ops, which draw from symgrad's per-op Philox streams in order; eigen- and singular
vectors, whose signs LAPACK and XLA choose differently; ``Print``); it needs the op's
output shapes to be static.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.core.op_registry import OPS, KernelError, run_kernel
from symgrad.runtime.xla.engine import XlaLimitError, is_const

# (op, exception) of host kernels that raised, for the call boundary to report.
FAILED: list[tuple[Any, BaseException | None]] = []


def static(op: Any, value: Any, what: str) -> np.ndarray:
    """``value`` as a NumPy array; TF's error where it is not a compile-time constant."""
    if is_const(value):
        return np.asarray(value)
    raise XlaLimitError(
        f"XLA compilation requires that operator arguments that represent shapes or "
        f"dimensions be evaluated to concrete values at compile time: input '{what}' of "
        f"{op.describe()} is computed at run time",
        op,
    )


def _specs(op: Any) -> list[jax.ShapeDtypeStruct]:
    specs = []
    for t in op.outputs:
        dims = t.shape.dims
        if dims is None or None in dims:
            raise XlaLimitError(
                f"{op.describe()} runs on the host under XLA and needs a static output "
                f"shape; its output {t.name} has shape {t.shape}",
                op,
            )
        specs.append(jax.ShapeDtypeStruct(tuple(dims), t.dtype.np))
    return specs


# A callback may run on a thread where JAX's 64-bit mode is off, which would narrow a
# float64 result; 64-bit results therefore cross as uint32 words, bitcast back in XLA.
def _wire(spec: jax.ShapeDtypeStruct) -> jax.ShapeDtypeStruct:
    d = np.dtype(spec.dtype)
    if d.itemsize < 8:
        return spec
    return jax.ShapeDtypeStruct((*spec.shape, d.itemsize // 4), np.uint32)


def _to_wire(a: np.ndarray) -> np.ndarray:
    if a.dtype.itemsize < 8:
        return a
    return np.ascontiguousarray(a).view(np.uint32).reshape(*a.shape, a.dtype.itemsize // 4)


def _from_wire(x: Any, spec: jax.ShapeDtypeStruct) -> Any:
    d = np.dtype(spec.dtype)
    if d.itemsize < 8:
        return x
    if d.kind == "c":
        part = np.float32 if d.itemsize == 8 else np.float64
        words = x.reshape(*spec.shape, 2, d.itemsize // 8)
        parts = jax.lax.bitcast_convert_type(words if part is np.float64 else words[..., 0], part)
        return jax.lax.complex(parts[..., 0], parts[..., 1])
    return jax.lax.bitcast_convert_type(x, d)


def _args_to_wire(xs: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The inputs as they cross (64-bit ones as uint32 words), and their dtypes."""
    wired, dtypes = [], []
    for x in xs:
        d = np.dtype(x.dtype)
        dtypes.append((d, tuple(np.shape(x))))
        if d.itemsize >= 8 and d.kind in "fiuc":
            if d.kind == "c":
                x = jnp.stack([jnp.real(x), jnp.imag(x)], -1)
            x = jax.lax.bitcast_convert_type(x, np.uint32)
        wired.append(x)
    return wired, dtypes


def _from_wire_arg(a: Any, spec: tuple[np.dtype, tuple[int, ...]]) -> np.ndarray:
    d, shape = spec
    a = np.asarray(a)
    if d.itemsize < 8 or d.kind not in "fiuc":
        return a
    return np.ascontiguousarray(a).reshape(-1).view(d).reshape(shape)


def _kernel_call(op: Any, arg_dtypes: list[Any]) -> Callable[..., Any]:
    kernel, attrs = OPS[op.type].kernel, op.attrs
    dtypes = [t.dtype for t in op.outputs]

    def call(*arrays: Any) -> Any:
        args = [_from_wire_arg(a, d) for a, d in zip(arrays, arg_dtypes, strict=True)]
        try:
            outs = run_kernel(kernel, args, attrs, dtypes)
        except Exception as e:  # the call boundary raises it as TF's error for this op
            FAILED.append((op, e.__cause__ if isinstance(e, KernelError) else e))
            raise
        return tuple(_to_wire(o) for o in outs)

    return call


def _unwired(outs: Any, specs: list[jax.ShapeDtypeStruct]) -> Any:
    outs = [_from_wire(o, s) for o, s in zip(outs, specs, strict=True)]
    return outs[0] if len(outs) == 1 else tuple(outs)


def host(ctx: Any, op: Any, *xs: Any) -> Any:
    """A pure op computed by its NumPy kernel on the host."""
    specs = _specs(op)
    wired, dtypes = _args_to_wire(xs)
    outs = jax.pure_callback(_kernel_call(op, dtypes), tuple(map(_wire, specs)), *wired)
    return _unwired(outs, specs)


def host_effect(ctx: Any, op: Any, *xs: Any) -> Any:
    """A stateful op (random draws, printing) run on the host, in program order."""
    from jax.experimental import io_callback

    specs = _specs(op)
    wired, dtypes = _args_to_wire(xs)
    call = _kernel_call(op, dtypes)
    if not specs:
        jax.debug.callback(lambda *a: call(*a) and None, *wired, ordered=True)
        return ()
    outs = io_callback(call, tuple(map(_wire, specs)), *wired, ordered=True)
    return _unwired(outs, specs)


HOST_REASONS = {
    "SelfAdjointEigV2": "eigenvectors' signs follow LAPACK (XLA's eigh picks others)",
    "Svd": "singular vectors' signs follow LAPACK (XLA's svd picks others)",
    "Qr": "LAPACK's Householder signs (XLA's qr may differ)",
    "MatrixSolveLs": "TF's Cholesky-based least squares with its l2_regularizer and fast "
    "paths, exactly as the NumPy kernel",
    "MatrixDiagV3": "k-ranges with alignment: the NumPy kernel's index plan",
    "MatrixDiagPartV3": "k-ranges with alignment: the NumPy kernel's index plan",
    "MatrixSetDiagV3": "k-ranges with alignment: the NumPy kernel's index plan",
    "FusedBatchNormV3": "TF's reserve outputs and running-variance correction, as the kernel",
    "FusedBatchNormGradV3": "pairs with FusedBatchNormV3's reserve outputs",
    "StatelessMultinomial": "the sampler's float64 CDF search, as the NumPy kernel",
    "DenseBincount": "TF's out-of-range and binary_output rules, as the NumPy kernel",
    "MaxPoolGradGrad": "TF's first-maximum tie rule, as the NumPy kernel",
    "MaxPool3DGradGrad": "TF's first-maximum tie rule, as the NumPy kernel",
    "CumulativeLogsumexp": "TF's exclusive/reverse scan with -inf starts, as the NumPy kernel",
    "SegmentMax": "sorted-segment count from the ids' last value, as the NumPy kernel",
    "SegmentMin": "sorted-segment count from the ids' last value, as the NumPy kernel",
    "SegmentMean": "sorted-segment count from the ids' last value, as the NumPy kernel",
    "SegmentProd": "sorted-segment count from the ids' last value, as the NumPy kernel",
    "SegmentSum": "sorted-segment count from the ids' last value, as the NumPy kernel",
    "MirrorPadGrad": "folds the padded borders back, as the NumPy kernel",
    "Multinomial": "draws from symgrad's per-op Philox stream, in program order",
    "RandomShuffle": "draws from symgrad's per-op Philox stream, in program order",
    "LogUniformCandidateSampler": "draws from symgrad's per-op Philox stream, in program order",
    "UniformCandidateSampler": "draws from symgrad's per-op Philox stream, in program order",
    "LRN": "TF's window sums in depth order, as the NumPy kernel",
    "CTCLossDense": "TF's forward and backward scans of logsumexps, as the NumPy kernel",
    "LRNGrad": "TF's CPU loop over the depth windows, as the NumPy kernel",
    "RandomStandardNormal": "draws from symgrad's per-op Philox stream, in program order",
    "RandomUniform": "draws from symgrad's per-op Philox stream, in program order",
    "RandomUniformInt": "draws from symgrad's per-op Philox stream, in program order",
    "TruncatedNormal": "draws from symgrad's per-op Philox stream, in program order",
    "RandomGamma": "draws from symgrad's per-op Philox stream, in program order",
    "RandomPoissonV2": "draws from symgrad's per-op Philox stream, in program order",
    "RandomGammaGrad": "Eigen's per-element series or continued fraction with its stopping "
    "rules, as the NumPy kernel",
    "StatelessRandomGammaV3": "TF's rejection sampler on Philox, as the NumPy kernel",
    "StatelessRandomPoisson": "TF's rejection sampler on Philox, as the NumPy kernel",
    "StatelessRandomNormalV2": "a run-time seed: Philox bits from the NumPy kernel "
    "(a constant seed is folded at compile time)",
    "StatelessRandomUniformV2": "a run-time seed: Philox bits from the NumPy kernel "
    "(a constant seed is folded at compile time)",
    "StatelessRandomUniformIntV2": "a run-time seed: Philox bits from the NumPy kernel "
    "(a constant seed is folded at compile time)",
    "StatelessRandomUniformFullIntV2": "a run-time seed: Philox bits from the NumPy kernel "
    "(a constant seed is folded at compile time)",
    "StatelessTruncatedNormalV2": "a run-time seed: Philox bits from the NumPy kernel "
    "(a constant seed is folded at compile time)",
    "StatelessRandomGetKeyCounter": "a run-time seed hashed by Philox in the NumPy kernel",
    "Print": "prints on the host (io_callback, in program order)",
    "PrintV2": "prints on the host (io_callback, in program order)",
}
EFFECTS = {
    "Multinomial",
    "RandomShuffle",
    "LogUniformCandidateSampler",
    "UniformCandidateSampler",
    "RandomStandardNormal",
    "RandomUniform",
    "RandomUniformInt",
    "TruncatedNormal",
    "RandomGamma",
    "RandomPoissonV2",
    "Print",
    "PrintV2",
}


def table() -> dict[str, Callable[..., Any]]:
    return {name: host_effect if name in EFFECTS else host for name in HOST_REASONS}
