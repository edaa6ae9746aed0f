"""``map_fn``, ``scan``, ``foldl``, ``foldr``: short loops over ``while_loop`` and
``TensorArray``, as TensorFlow writes them.

Each unstacks ``elems`` (a tensor or a nest of tensors sharing their first dimension)
into TensorArrays, runs a ``while_loop`` whose body reads element ``i`` and writes the
result into output TensorArrays, and stacks them.  So eager mode runs a Python loop of
eager ops, a graph gets one ``While`` op, and gradients of every order are those of
``while_loop`` and of the list ops; nothing here differentiates anything itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.control_flow.tensor_array import TensorArray
from symgrad.control_flow.tensor_array_loop import learn_element_shapes, reserve_like
from symgrad.control_flow.while_loop import while_loop
from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.graph import Tensor
from symgrad.ops.array import shape
from symgrad.ops.core import convert_to_tensor
from symgrad.runtime.function import TensorSpec


def _elements(elems: Any) -> tuple[list[Tensor], Tensor, int | None]:
    """``elems`` flattened, its number of elements (a tensor) and its static value."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(
            f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}"
        )
    n_static = None
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        d = e.shape.dims[0] if e.shape.rank is not None else None  # type: ignore[index]
        if d is not None and n_static is not None and d != n_static:
            raise ValueError(f"Dimensions {n_static} and {d} are not compatible")
        n_static = d if d is not None else n_static
    n = convert_to_tensor(n_static, dt.int32) if n_static is not None else shape.shape(flat[0])[0]
    return flat, n, n_static


def _unstacked(flat: list[Tensor], n: Tensor) -> list[TensorArray]:
    return [TensorArray(e.dtype, size=n, infer_shape=True).unstack(e) for e in flat]


def _stacked(tas: list[TensorArray], n_static: int | None) -> list[Tensor]:
    out = [ta.stack() for ta in tas]
    for t in out:
        if t.shape.rank is not None and n_static is not None and not t.has_value():
            t.set_shape([n_static, *t.shape.dims[1:]])  # type: ignore[index]
    return out


def _same_structure(expected: Any, got: Any) -> None:
    try:
        nest.pack_sequence_as(expected, nest.flatten(got))
    except ValueError:
        ok = False
    else:
        ok = nest.is_nested(expected) == nest.is_nested(got)
    if not ok or _nesting(expected) != _nesting(got):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {expected}\n\nSecond structure: {got}"
        )


def _nesting(s: Any) -> Any:
    if isinstance(s, dict):
        return ("dict", tuple((k, _nesting(s[k])) for k in sorted(s)))
    if isinstance(s, list | tuple):
        return ("seq", tuple(_nesting(c) for c in s))
    return "."


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """``fn`` applied to each element of ``elems`` (along axis 0), results stacked.

    >>> import symgrad as tf
    >>> print(tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0])).numpy().tolist())
    [1.0, 4.0, 9.0]
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable. Got {fn}")
    signature = dtype if fn_output_signature is None else fn_output_signature
    flat, n, n_static = _elements(elems)
    if signature is None:
        signature = nest.map_structure(lambda e: e.dtype, elems)
    specs = [
        s if isinstance(s, TensorSpec) else TensorSpec(None, s) for s in nest.flatten(signature)
    ]
    elem_tas = _unstacked(flat, n)
    out_tas = [
        TensorArray(s.dtype, size=n, infer_shape=infer_shape, element_shape=s.shape) for s in specs
    ]

    def apply(i: Any) -> list[Tensor]:
        y = fn(nest.pack_sequence_as(elems, [ta.read(i) for ta in elem_tas]))
        _same_structure(signature, y)
        return nest.flatten(y)

    def body(i: Tensor, tas: list[TensorArray]) -> Any:
        return i + 1, [ta.write(i, v) for ta, v in zip(tas, apply(i), strict=True)]

    start = 0
    if not learn_element_shapes(body, (0, out_tas)):
        # an output shape known only at run time: the first element is mapped before the
        # loop, whose buffers then have that shape (so elems may not be empty here)
        out_tas = [reserve_like(ta, v).write(0, v) for ta, v in zip(out_tas, apply(0), strict=True)]
        start = 1
    _, out_tas = while_loop(
        lambda i, _: i < n,
        body,
        (start, out_tas),
        parallel_iterations=parallel_iterations or 10,
        back_prop=back_prop,
        swap_memory=swap_memory,
        maximum_iterations=n,
        name=name or "map",
    )
    return nest.pack_sequence_as(signature, _stacked(out_tas, n_static))


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """The accumulators ``a_i = fn(a_{i-1}, elems[i])`` stacked; without ``initializer``
    ``a_0 = elems[0]`` (``elems[-1]`` with ``reverse``, which runs from the end).

    >>> import symgrad as tf
    >>> print(tf.scan(lambda a, x: a + x, tf.constant([1.0, 2.0, 3.0])).numpy().tolist())
    [1.0, 3.0, 6.0]
    """
    flat, n, n_static = _elements(elems)
    elem_tas = _unstacked(flat, n)
    first = n - 1 if reverse else 0
    if initializer is None:
        structure, a = elems, [ta.read(first) for ta in elem_tas]
    else:
        structure, a = initializer, [convert_to_tensor(v) for v in nest.flatten(initializer)]
    tas = [
        reserve_like(
            TensorArray(v.dtype, size=n, infer_shape=infer_shape, element_shape=v.shape), v
        )
        for v in a
    ]
    if initializer is None:
        tas = [ta.write(first, v) for ta, v in zip(tas, a, strict=True)]
    step = -1 if reverse else 1
    start = (n - 1 if reverse else 0) + (step if initializer is None else 0)

    def body(i: Tensor, acc: list[Tensor], tas: list[TensorArray]) -> Any:
        x = nest.pack_sequence_as(elems, [ta.read(i) for ta in elem_tas])
        out = fn(nest.pack_sequence_as(structure, acc), x)
        _same_structure(structure, out)
        new = [convert_to_tensor(v) for v in nest.flatten(out)]
        return i + step, new, [ta.write(i, v) for ta, v in zip(tas, new, strict=True)]

    _, _, tas = while_loop(
        (lambda i, *_: i >= 0) if reverse else (lambda i, *_: i < n),
        body,
        (start, a, tas),
        parallel_iterations=parallel_iterations,
        back_prop=back_prop,
        swap_memory=swap_memory,
        maximum_iterations=n,
        name=name or "scan",
    )
    return nest.pack_sequence_as(structure, _stacked(tas, n_static))


def _fold(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any,
    reverse: bool,
    back_prop: bool,
    parallel_iterations: int,
    name: str,
) -> Any:
    flat, n, _ = _elements(elems)
    elem_tas = _unstacked(flat, n)
    if initializer is None:
        structure = elems
        a: Any = [ta.read(n - 1 if reverse else 0) for ta in elem_tas]
        start = n - 1 if reverse else 1
    else:
        structure, a = initializer, [convert_to_tensor(v) for v in nest.flatten(initializer)]
        start = n if reverse else 0

    def body(i: Tensor, acc: list[Tensor]) -> Any:
        j = i - 1 if reverse else i
        x = nest.pack_sequence_as(elems, [ta.read(j) for ta in elem_tas])
        out = fn(nest.pack_sequence_as(structure, acc), x)
        _same_structure(structure, out)
        return (j if reverse else i + 1), [convert_to_tensor(v) for v in nest.flatten(out)]

    _, acc = while_loop(
        (lambda i, _: i > 0) if reverse else (lambda i, _: i < n),
        body,
        (start, a),
        parallel_iterations=parallel_iterations,
        back_prop=back_prop,
        maximum_iterations=n,
        name=name,
    )
    return nest.pack_sequence_as(structure, acc)


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``; without
    ``initializer`` the fold starts from ``elems[0]``.

    >>> import symgrad as tf
    >>> print(float(tf.foldl(lambda a, x: a * 10.0 + x, tf.constant([1.0, 2.0, 3.0]))))
    123.0
    """
    return _fold(fn, elems, initializer, False, back_prop, parallel_iterations, name or "foldl")


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """``foldl`` from the last element to the first.

    >>> import symgrad as tf
    >>> print(float(tf.foldr(lambda a, x: a * 10.0 + x, tf.constant([1.0, 2.0, 3.0]))))
    321.0
    """
    return _fold(fn, elems, initializer, True, back_prop, parallel_iterations, name or "foldr")
