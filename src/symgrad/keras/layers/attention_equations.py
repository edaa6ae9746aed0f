"""Keras 3's MultiHeadAttention einsum equations for inputs of any rank: the projections
(``_build_proj_equation``) and the attention over ``attention_axes``
(``_build_attention_equation``), letter for letter as Keras writes them."""

from __future__ import annotations

import string
from typing import Any


def _letter(i: int) -> str:
    return string.ascii_lowercase[i]


def proj_equation(free_dims: int, bound_dims: int, output_dims: int) -> tuple[str, str, int]:
    """(equation, bias axes, output rank) of a projection keeping ``free_dims`` axes,
    contracting ``bound_dims`` and adding ``output_dims``."""
    inputs = kernel = output = bias = ""
    for i in range(free_dims):
        inputs += _letter(i)
        output += _letter(i)
    for i in range(free_dims, free_dims + bound_dims):
        inputs += _letter(i)
        kernel += _letter(i)
    for i in range(free_dims + bound_dims, free_dims + bound_dims + output_dims):
        kernel += _letter(i)
        output += _letter(i)
        bias += _letter(i)
    return f"{inputs},{kernel}->{output}", bias, len(output)


def output_shape(rank: int, known_last_dims: Any) -> list[Any]:
    return [None] * (rank - len(known_last_dims)) + list(known_last_dims)


def attention_equation(rank: int, attn_axes: tuple[int, ...]) -> tuple[str, str, int]:
    """(dot-product equation (key, query), combine equation (scores, value), scores rank)."""
    target = "".join(_letter(i) for i in range(rank))
    batch_dims = tuple(i for i in range(rank) if i not in (*attn_axes, rank - 1))
    offset, source = rank, ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _letter(offset)
            offset += 1
    product = "".join(
        [target[i] for i in batch_dims]
        + [target[i] for i in attn_axes]
        + [source[i] for i in attn_axes]
    )
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)
