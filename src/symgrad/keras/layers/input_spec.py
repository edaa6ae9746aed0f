"""Keras 3's ``InputSpec``: what a layer accepts (rank, dtype, sizes of some axes), checked
when the layer is called, before and after it builds, so a wrong input is reported with
the layer's name and the shape it got, not by the first op it reaches."""

from __future__ import annotations

from typing import Any

from symgrad.core import nest
from symgrad.keras import backend


class InputSpec:
    """A layer's input: ``ndim``, ``min_ndim``/``max_ndim``, ``dtype``, ``axes`` (a dict of
    axis → size) and ``shape`` (None for any size), each None when free."""

    def __init__(
        self,
        dtype: Any = None,
        shape: Any = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, Any] | None = None,
        allow_last_axis_squeeze: bool = False,
        name: str | None = None,
        optional: bool = False,
    ) -> None:
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            self.axes = {int(k): v for k, v in (axes or {}).items()}
        except (ValueError, TypeError) as e:
            raise TypeError(
                f"Argument `axes` must be a dict with integer keys. Received: axes={axes}"
            ) from e
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            top = (self.ndim if self.ndim is not None else self.max_ndim) - 1  # type: ignore[operator]
            if max(self.axes) > top:
                raise ValueError(
                    f"Axis {max(self.axes)} is greater than the maximum allowed value: {top}"
                )

    def __repr__(self) -> str:
        fields = ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "axes")
        shown = [f"{f}={getattr(self, f)}" for f in fields if getattr(self, f)]
        return f"InputSpec({', '.join(shown)})"

    def get_config(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
            "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes,
        }  # fmt: skip


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Raise Keras's ValueError where ``inputs`` do not meet ``input_spec``."""
    if not input_spec:
        return
    if type(input_spec) is InputSpec and hasattr(inputs, "shape"):  # one tensor, one spec
        _check(0, inputs, input_spec, layer_name)
        return
    specs = nest.flatten(input_spec)
    flat = nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(flat)} input tensors. Inputs received: {inputs}"
        )
    for i, (x, spec) in enumerate(zip(flat, specs)):
        if spec is not None and not (x is None and spec.optional):
            _check(i, x, spec, layer_name)


def _check(i: int, x: Any, spec: InputSpec, layer_name: str) -> None:
    """Input ``i`` against its spec, with Keras's texts."""
    if not hasattr(x, "shape"):
        raise ValueError(
            f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input "
            f"for layer '{layer_name}'."
        )
    shape = _shape(x)
    if shape is None:  # unknown rank: nothing to check
        return
    where = _Where(i, spec, layer_name)  # (the text is made only for an error)
    ndim = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise ValueError(
            f"{where}: expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}"
        )
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{where}: expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(
            f"{where}: expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape "
            f"received: {shape}"
        )
    if spec.dtype is not None:
        dtype = backend.standardize_dtype(x.dtype)
        if dtype != spec.dtype:
            raise ValueError(f"{where}: expected dtype={spec.dtype}, found dtype={dtype}")
    for axis, value in spec.axes.items():
        if value is not None and shape[axis] not in (value, None):
            raise ValueError(
                f"{where}: expected axis {axis} of input shape to have value {value}, but "
                f"received input with shape {shape}"
            )
    if spec.shape is not None:
        for want, got in zip(spec.shape, shape):
            if want is not None and got is not None and want != got:
                raise ValueError(f"{where}: expected shape={spec.shape}, found shape={shape}")


class _Where:
    """Keras's "Input <i> with name '<name>' of layer '<layer>' is incompatible with the
    layer", formatted only when an error message is."""

    def __init__(self, i: int, spec: InputSpec, layer_name: str) -> None:
        self.i, self.spec, self.layer_name = i, spec, layer_name

    def __format__(self, format_spec: str) -> str:
        return (
            f"Input {self.i} with name '{self.spec.name}' of layer '{self.layer_name}' is "
            "incompatible with the layer"
        )


def _shape(x: Any) -> tuple[Any, ...] | None:
    shape = x.shape
    if hasattr(shape, "rank"):  # a TensorShape
        return None if shape.rank is None else tuple(shape.as_list())
    return tuple(None if d is None else int(d) for d in shape)
