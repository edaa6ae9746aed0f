"""The public convolutions of ``tf.nn``: conv1d/2d/3d, their transposes, depthwise, separable.

Each builds the ops TF's Python wrapper builds for the same call (``conv1d`` is an
``ExpandDims`` + ``Conv2D`` + ``Squeeze``; ``conv2d_transpose`` is a
``Conv2DBackpropInput``), with TF's argument handling: ``strides`` and ``dilations`` of
length 1, N or N+2 (``_sequence``), ``padding`` a string or a list of ``[before, after]``
pairs (``_padding``).  Two differences: a dilated ``depthwise_conv2d`` or
``separable_conv2d`` passes ``dilations`` to ``DepthwiseConv2dNative`` (TF's TPU path)
instead of wrapping it in ``SpaceToBatchND``/``BatchToSpaceND`` (TF's CPU path), with
the same values for stride 1; and ``conv3d`` also takes an int ``strides``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.nn.conv import (
    CONV2D,
    CONV3D,
    DEPTHWISE,
    Family,
    apply_filter,
    apply_forward,
    apply_input,
)


def _sequence(value: Any, n: int, channel_index: int, name: str) -> list[int]:
    """TF's ``_get_sequence``: an int or a list of 1, n or n+2 ints -> n+2 ints."""
    if value is None:
        return [1] * (n + 2)
    value = [value] if isinstance(value, int) else list(value)
    if len(value) == n + 2:
        return [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(
            f"{name} should be of length 1, {n} or {n + 2}. Received: "
            f"{name}={value} of length {len(value)}"
        )
    value = [int(v) for v in value]
    return [1, 1, *value] if channel_index == 1 else [1, *value, 1]


def _padding(padding: Any, rank: int) -> tuple[str, list[int]]:
    """TF's ``convert_padding``: a string, or per-axis [before, after] pairs (EXPLICIT)."""
    if padding == "EXPLICIT":
        raise ValueError(
            "'EXPLICIT' is not a valid value for `padding`. To use explicit "
            "padding, `padding` must be a list."
        )
    if not isinstance(padding, list | tuple):
        return str(padding), []
    flat: list[int] = []
    for i, pair in enumerate(padding):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(
                "When `padding` is a list, each element of `padding` must be a "
                f"list/tuple of size 2. Received: padding={padding} with element "
                f"at index {i} of {pair!r}"
            )
        flat.extend(int(p) for p in pair)
    if len(padding) != rank:
        raise ValueError(
            f"When padding is a list, it must be of size {rank}. Received: "
            f"padding={padding} of size {len(padding)}"
        )
    return "EXPLICIT", flat


def _attrs(
    fam: Family, fmt: str | None, strides: Any, padding: Any, dilations: Any
) -> dict[str, Any]:
    n = fam.n
    fmt = fmt or ("NHWC" if n == 2 else "NDHWC")
    ch = 1 if fmt.startswith("NC") else n + 1
    pad, explicit = _padding(padding, n + 2)
    attrs: dict[str, Any] = {
        "strides": _sequence(strides, n, ch, "strides"),
        "padding": pad,
        "data_format": fmt,
        "dilations": _sequence(dilations, n, ch, "dilations"),
    }
    if fam is CONV3D:
        if explicit:
            raise ValueError(f"conv3d does not take explicit padding, got padding={padding}")
    else:
        attrs["explicit_paddings"] = explicit
    if fam is CONV2D:
        attrs["use_cudnn_on_gpu"] = True
    return attrs


def _pick(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    """TF's ``deprecated_argument_lookup`` for the TF1 argument names (filter, value)."""
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return old if new is None else new


# --------------------------------------------------------------------------------------
# conv1d, conv2d, conv3d, convolution


def conv2d(
    input: Any,
    filters: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
    filter: Any = None,
    use_cudnn_on_gpu: bool = True,
) -> Tensor:
    """2-D convolution (op type ``Conv2D``); ``filter=`` is TF1's name for ``filters``.

    Inputs of rank above 4 have their outer axes folded into the batch and back.
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(_pick(filters, filter, "filters", "filter"), dtype_hint=x.dtype)
    attrs = _attrs(CONV2D, data_format, strides, padding, dilations)
    rank = x.shape.rank
    if rank is None or rank <= 4:
        return apply_forward(CONV2D, x, w, attrs, name)
    return _squeeze_batch_dims(x, lambda t: apply_forward(CONV2D, t, w, attrs), 3, name)


def _squeeze_batch_dims(x: Tensor, op: Any, inner: int, name: str | None) -> Tensor:
    """TF's ``squeeze_batch_dims``: fold the outer axes of x into one batch axis for ``op``."""
    with name_scope(name, "squeeze_batch_dims"):
        shape = array.shape(x)
        outer = shape[:-inner]
        y = op(array.reshape(x, array.joining.concat([[-1], shape[-inner:]], 0)))
        return array.reshape(y, array.joining.concat([outer, array.shape(y)[1:]], 0))


def conv1d(
    input: Any = None,
    filters: Any = None,
    stride: Any = None,
    padding: Any = None,
    data_format: str | None = "NWC",
    dilations: Any = None,
    name: str | None = None,
    value: Any = None,
    use_cudnn_on_gpu: Any = None,
) -> Tensor:
    """1-D convolution: ExpandDims, ``Conv2D`` over a height of 1, Squeeze (as TF)."""
    with name_scope(name, "conv1d"):
        x = convert_to_tensor(_pick(input, value, "input", "value"))
        w = convert_to_tensor(filters, dtype_hint=x.dtype)
        fmt, start, ch = _format_1d(data_format)
        attrs = _attrs(
            CONV2D,
            fmt,
            [1] + _sequence(stride, 1, ch, "stride"),
            padding,
            [1] + _sequence(dilations, 1, ch, "dilations"),
        )
        y = conv2d(
            array.expand_dims(x, start),
            array.expand_dims(w, 0),
            attrs["strides"],
            padding,
            fmt,
            attrs["dilations"],
        )
        return array.squeeze(y, [start])


def _format_1d(data_format: str | None) -> tuple[str, int, int]:
    """(2-D data format, axis of the inserted height, channel index) for a 1-D format."""
    if data_format in (None, "NWC", "NHWC"):
        return "NHWC", -3, 2
    if data_format in ("NCW", "NCHW"):
        return "NCHW", -2, 1
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")


def conv3d(
    input: Any,
    filters: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
    filter: Any = None,
) -> Tensor:
    """3-D convolution (op type ``Conv3D``)."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(_pick(filters, filter, "filters", "filter"), dtype_hint=x.dtype)
    return apply_forward(
        CONV3D, x, w, _attrs(CONV3D, data_format, strides, padding, dilations), name
    )


def convolution(
    input: Any,
    filters: Any = None,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
    filter: Any = None,
    dilation_rate: Any = None,
) -> Tensor:
    """An N-D convolution by the rank of ``input``: conv1d, conv2d or conv3d."""
    x = convert_to_tensor(input)
    w = _pick(filters, filter, "filters", "filter")
    dilations = _pick(dilations, dilation_rate, "dilations", "dilation_rate")
    n = (x.shape.rank or (len(data_format) if data_format else 0)) - 2
    if n == 1:
        return conv1d(x, w, strides, padding, data_format, dilations, name)
    if n == 2:
        return conv2d(x, w, strides, padding, data_format or "NHWC", dilations, name)
    if n == 3:
        return conv3d(x, w, strides, padding, data_format or "NDHWC", dilations, name)
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={x.shape}")


# --------------------------------------------------------------------------------------
# Transposed convolutions and the backprop ops under their TF1 names


def _output_shape(output_shape: Any) -> Any:
    if isinstance(output_shape, Tensor):
        return output_shape
    return [int(d) for d in output_shape]


def conv2d_transpose(
    input: Any = None,
    filters: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
    value: Any = None,
    filter: Any = None,
) -> Tensor:
    """The gradient of conv2d with respect to its input (op type ``Conv2DBackpropInput``)."""
    with name_scope(name, "conv2d_transpose"):
        g = convert_to_tensor(_pick(input, value, "input", "value"))
        w = convert_to_tensor(_pick(filters, filter, "filters", "filter"), dtype_hint=g.dtype)
        attrs = _attrs(CONV2D, data_format, strides, padding, dilations)
        return apply_input(CONV2D, _output_shape(output_shape), w, g, attrs)


def conv3d_transpose(
    input: Any = None,
    filters: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: Any = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
    value: Any = None,
    filter: Any = None,
) -> Tensor:
    """The gradient of conv3d with respect to its input (``Conv3DBackpropInputV2``)."""
    with name_scope(name, "conv3d_transpose"):
        g = convert_to_tensor(_pick(input, value, "input", "value"))
        w = convert_to_tensor(_pick(filters, filter, "filters", "filter"), dtype_hint=g.dtype)
        attrs = _attrs(CONV3D, data_format, strides, padding, dilations)
        return apply_input(CONV3D, _output_shape(output_shape), w, g, attrs)


def conv1d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of conv1d with respect to its input: a ``Conv2DBackpropInput``."""
    with name_scope(name, "conv1d_transpose"):
        g, w = convert_to_tensor(input), convert_to_tensor(filters)
        fmt, start, ch = _format_1d(data_format)
        start = 1 if ch == 2 else 2
        attrs = _attrs(
            CONV2D,
            fmt,
            [1] + _sequence(strides, 1, ch, "stride"),
            padding,
            [1] + _sequence(dilations, 1, ch, "dilations"),
        )
        shape = _output_shape(output_shape)
        shape = (
            shape[:start] + [1] + shape[start:]
            if isinstance(shape, list)
            else array.joining.concat([shape[:start], [1], shape[start:]], 0)
        )
        y = apply_input(CONV2D, shape, array.expand_dims(w, 0), array.expand_dims(g, start), attrs)
        return array.squeeze(y, [start])


def conv_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """conv1d/2d/3d_transpose by the length of ``output_shape``."""
    n = (int(output_shape.shape[0]) if isinstance(output_shape, Tensor) else len(output_shape)) - 2
    fns = {1: conv1d_transpose, 2: conv2d_transpose, 3: conv3d_transpose}
    if n not in fns:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: {output_shape}")
    fmt = data_format or {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    return fns[n](input, filters, output_shape, strides, padding, fmt, dilations, name)


def conv2d_backprop_input(
    input_sizes: Any,
    filter: Any = None,
    out_backprop: Any = None,
    strides: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    g = convert_to_tensor(out_backprop)
    w = convert_to_tensor(_pick(filters, filter, "filters", "filter"), dtype_hint=g.dtype)
    attrs = _attrs(CONV2D, data_format, strides, padding, dilations)
    return apply_input(CONV2D, _output_shape(input_sizes), w, g, attrs, name)


def conv2d_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    x = convert_to_tensor(input)
    attrs = _attrs(CONV2D, data_format, strides, padding, dilations)
    return apply_filter(
        CONV2D,
        x,
        _output_shape(filter_sizes),
        convert_to_tensor(out_backprop, dtype_hint=x.dtype),
        attrs,
        name,
    )


def conv3d_backprop_filter_v2(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: str,
    data_format: str = "NDHWC",
    dilations: Any = (1, 1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    x = convert_to_tensor(input)
    attrs = _attrs(CONV3D, data_format, strides, padding, dilations)
    return apply_filter(
        CONV3D,
        x,
        _output_shape(filter_sizes),
        convert_to_tensor(out_backprop, dtype_hint=x.dtype),
        attrs,
        name,
    )


# --------------------------------------------------------------------------------------
# Depthwise and separable


def _depthwise_attrs(
    strides: Any, padding: Any, data_format: str | None, dilations: Any
) -> dict[str, Any]:
    fmt = data_format or "NHWC"
    return _attrs(DEPTHWISE, fmt, strides, padding, dilations)


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
    rate: Any = None,
) -> Tensor:
    """Per-channel convolution (``DepthwiseConv2dNative``); out channels = C · multiplier."""
    with name_scope(name, "depthwise"):
        x = convert_to_tensor(input)
        w = convert_to_tensor(filter, dtype_hint=x.dtype)
        attrs = _depthwise_attrs(
            strides, padding, data_format, _pick(dilations, rate, "dilations", "rate")
        )
        return apply_forward(DEPTHWISE, x, w, attrs)


def depthwise_conv2d_native(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype_hint=x.dtype)
    return apply_forward(
        DEPTHWISE, x, w, _depthwise_attrs(strides, padding, data_format, dilations), name
    )


def depthwise_conv2d_backprop_input(
    input_sizes: Any,
    filter: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    g = convert_to_tensor(out_backprop)
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    return apply_input(
        DEPTHWISE,
        _output_shape(input_sizes),
        convert_to_tensor(filter, dtype_hint=g.dtype),
        g,
        attrs,
        name,
    )


def depthwise_conv2d_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    x = convert_to_tensor(input)
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    return apply_filter(
        DEPTHWISE,
        x,
        _output_shape(filter_sizes),
        convert_to_tensor(out_backprop, dtype_hint=x.dtype),
        attrs,
        name,
    )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
    rate: Any = None,
) -> Tensor:
    """A depthwise convolution, then a 1×1 ``Conv2D`` mixing the channels (as TF)."""
    with name_scope(name, "separable_conv2d"):
        x = convert_to_tensor(input)
        dw = convert_to_tensor(depthwise_filter, dtype_hint=x.dtype)
        pw = convert_to_tensor(pointwise_filter, dtype_hint=x.dtype)
        dims = pw.shape.dims
        if dims is not None and (len(dims) != 4 or any(d not in (None, 1) for d in dims[:2])):
            raise ValueError(f"pointwise_filter must be of shape [1, 1, in, out], got {pw.shape}")
        attrs = _depthwise_attrs(
            strides, padding, data_format, _pick(dilations, rate, "dilations", "rate")
        )
        depthwise = apply_forward(DEPTHWISE, x, dw, attrs, "depthwise")
        return conv2d(depthwise, pw, [1, 1, 1, 1], "VALID", data_format or "NHWC")


__all__: Sequence[str] = [
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "conv2d_transpose",
    "conv3d",
    "conv3d_backprop_filter_v2",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "depthwise_conv2d",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
    "depthwise_conv2d_native",
    "separable_conv2d",
]
