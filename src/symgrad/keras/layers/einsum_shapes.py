"""The kernel and bias shapes of an ``EinsumDense`` equation, as Keras 3's
``_analyze_einsum_string`` finds them: equations without ellipses, with ``...`` leading the
input and output (``"...b,bc->...c"``), or trailing them (``"ab...,bc->ac..."``)."""

from __future__ import annotations

import re
from typing import Any


def einsum_shapes(
    equation: str, input_shape: Any, output_shape: Any, bias_axes: Any
) -> tuple[list[Any], Any, list[Any], tuple[list[int], list[int]]]:
    """(kernel shape, bias shape or None, full output shape, (kernel input axes, kernel
    output axes)) for ``equation`` on ``input_shape``."""
    replaced = re.sub(r"\.\.\.", "0", equation)
    for pattern, left in (
        ("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
        ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
        ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False),
    ):
        match = re.match(pattern, replaced)
        if match:
            specs = match.group(1), match.group(2), match.group(3)
            return _analyze(specs, bias_axes, list(input_shape), output_shape, left)
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form "
        "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
    )


def _analyze(
    specs: tuple[str, str, str], bias_axes: Any, input_shape: list[Any], output_shape: Any,
    left_elided: bool,
) -> Any:  # fmt: skip
    input_spec, weight_spec, output_spec = specs
    elided = len(input_shape) - len(input_spec)
    out = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            out.insert(1, input_shape[i])  # the elided dimensions follow the batch
    elif elided > 0:
        out.extend(input_shape[len(input_shape) - elided :])
    if left_elided:
        in_map = {d: (i + elided) - len(input_shape) for i, d in enumerate(input_spec)}
        out_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        in_map = {d: i for i, d in enumerate(input_spec)}
        out_map = {d: i for i, d in enumerate(output_spec)}
    for d in input_spec:
        if (
            d in out_map
            and out[out_map[d]] is not None
            and out[out_map[d]] != input_shape[in_map[d]]
        ):
            raise ValueError(
                f"Input shape and output shape do not match at shared dimension '{d}'. Input "
                f"shape is {input_shape[in_map[d]]}, and output shape is {out[out_map[d]]}."
            )
    for d in output_spec:
        if d not in input_spec and d not in weight_spec:
            raise ValueError(
                f"Dimension '{d}' was specified in the output '{output_spec}' but has no "
                f"corresponding dim in the input spec '{input_spec}' or weight spec "
                f"'{output_spec}'"
            )
    kernel: list[Any] = []
    in_axes: list[int] = []
    out_axes: list[int] = []
    for i, d in enumerate(weight_spec):  # a dimension named in the output is an output axis
        if d in out_map:
            kernel.append(out[out_map[d]])
            out_axes.append(i)
        elif d in in_map:
            kernel.append(input_shape[in_map[d]])
            in_axes.append(i)
        else:
            raise ValueError(
                f"Weight dimension '{d}' did not have a match in either the input spec "
                f"'{input_spec}' or the output spec '{output_spec}'. For this layer, the "
                "weight must be fully specified."
            )
    return kernel, _bias(bias_axes, output_spec, out, elided, left_elided), out, (in_axes, out_axes)


def _bias(bias_axes: Any, output_spec: str, out: list[Any], elided: int, left: bool) -> Any:
    if bias_axes is None:
        return None
    shift = elided if left else 0
    sizes = {c: out[i + shift] for i, c in enumerate(output_spec)}
    for c in bias_axes:
        if c not in output_spec:
            raise ValueError(
                f"Bias dimension '{c}' was requested, but is not part of the output spec "
                f"'{output_spec}'"
            )
    first = min(output_spec.find(c) for c in bias_axes)
    shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
    if not left:
        shape.extend([1] * elided)
    return shape
