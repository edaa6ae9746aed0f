"""``tf.image``'s geometric functions: flips (fixed and random), rotations, transposes,
crops and pads, as TF's ``image_ops_impl`` builds them from array ops, with its checks
and texts.

A check TF makes on Python values raises at once (TF's ``ValueError``); on tensors it is
an ``Assert`` the result depends on (eagerly it fails at once with TF's text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.control_flow.case import case
from symgrad.control_flow.cond import cond
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, get_default_graph, name_scope
from symgrad.core.op_registry import constant_value
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.array.reverse import reverse
from symgrad.ops.array.slicing import pad, slice
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.debug.assertion import Assert
from symgrad.ops.image.patches import extract_image_patches
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.rounding import round as round_
from symgrad.ops.random.seeded import random_uniform
from symgrad.ops.random.stateless import stateless_random_uniform
from symgrad.ops.state.variables import Variable


def is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


def check(cond_: Any, ex_type: type[Exception], msg: str) -> list[Any]:
    """TF's ``_assert``: raise now for a Python bool, else an ``Assert`` op (in a list)."""
    if is_tensor(cond_):
        op = Assert(cond_, [msg])
        return [] if op is None else [op]
    if not cond_:
        raise ex_type(msg)
    return []


def with_dependencies(deps: list[Any], t: Tensor) -> Tensor:
    """``t`` after ``deps`` (TF's ``control_flow_ops.with_dependencies``)."""
    if not deps:
        return t
    with get_default_graph().control_dependencies(deps):
        return identity(t)


def _with_rank(shape: TensorShape, rank: int, at_least: bool) -> TensorShape:
    if shape.rank is None:
        return TensorShape([None] * rank)
    if shape.rank < rank or (not at_least and shape.rank != rank):
        raise ValueError("rank")
    return shape


def check_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    """TF's ``_Check3DImage``."""
    try:
        shape = _with_rank(image.shape, 3, at_least=False)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError(f"'image' (shape {shape}) must be fully defined.")
    if any(d == 0 for d in shape.dims or ()):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    return []


def check_at_least_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    """TF's ``_CheckAtLeast3DImage`` (its run-time asserts on unknown dims are left out)."""
    try:
        shape = _with_rank(image.shape, 3, at_least=image.shape.rank is not None)
    except ValueError:
        raise ValueError(
            f"'image' (shape {image.shape}) must be at least three-dimensional."
        ) from None
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    inner = TensorShape(shape.dims[-3:]) if shape.dims is not None else shape
    if any(d == 0 for d in inner.dims or ()):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    return []


def image_dims(image: Tensor, rank: int) -> list[Any]:
    """TF's ``_ImageDimensions``: static dims as ints, unknown ones as scalar tensors."""
    if image.shape.is_fully_defined():
        return list(image.shape.as_list())
    dims = image.shape.dims or [None] * rank
    dynamic = array.shape(image)
    return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]


def _fix_flip_shape(image: Tensor, result: Tensor) -> Tensor:
    result.set_shape(image.shape if image.shape.rank is not None else [None, None, None])
    return result


def _by_rank(image: Tensor, rank3: Callable[[], Any], rank4: Callable[[], Any], text: str) -> Any:
    rank = image.shape.rank
    if rank is None:
        return cond(math.equal(array.rank(image), 3), rank3, rank4)
    if rank == 3:
        return rank3()
    if rank == 4:
        return rank4()
    raise ValueError(text % image.shape)


def _flip(image: Any, flip_index: int, scope_name: str) -> Tensor:
    with name_scope(None, scope_name):
        image = convert_to_tensor(image)
        check_at_least_3d(image, require_static=False)
        return _by_rank(  # type: ignore[no-any-return]
            image,
            lambda: _fix_flip_shape(image, reverse(image, [flip_index])),
            lambda: reverse(image, [flip_index + 1]),
            "'image' (shape %s)must have either 3 or 4 dimensions.",
        )


def flip_left_right(image: Any) -> Tensor:
    """``image`` mirrored along its width (``reverse`` on the width axis)."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: Any) -> Tensor:
    """``image`` mirrored along its height (``reverse`` on the height axis)."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image: Any, flip_index: int, draw: Callable[..., Tensor], scope: str) -> Tensor:
    """Flip with probability 1/2: one draw for a 3-D image, one per image of a batch."""
    with name_scope(None, scope):
        image = convert_to_tensor(image)
        check_at_least_3d(image, require_static=False)

        def rank3() -> Tensor:
            mirror = math.less(draw(shape=[], minval=0, maxval=1.0), 0.5)
            result = cond(mirror, lambda: reverse(image, [flip_index]), lambda: image)
            return _fix_flip_shape(image, result)

        def rank4() -> Tensor:
            batch = array.shape(image)[0]
            uniform = draw(shape=[batch], minval=0, maxval=1.0)
            flips = array.cast(round_(array.reshape(uniform, [batch, 1, 1, 1])), image.dtype)
            flipped = reverse(image, [flip_index + 1])
            return flips * flipped + (1 - flips) * image  # type: ignore[no-any-return]

        return _by_rank(  # type: ignore[no-any-return]
            image, rank3, rank4, "'image' (shape %s) must have either 3 or 4 dimensions."
        )


def _stateful(seed: Any) -> Callable[..., Tensor]:
    return lambda **kw: random_uniform(seed=seed, **kw)


def _stateless(seed: Any) -> Callable[..., Tensor]:
    return lambda **kw: stateless_random_uniform(seed=seed, **kw)


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """``image`` (each image of a batch) mirrored left-right with probability 1/2."""
    return _random_flip(image, 1, _stateful(seed), "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """``image`` (each image of a batch) mirrored upside down with probability 1/2."""
    return _random_flip(image, 0, _stateful(seed), "random_flip_up_down")


def stateless_random_flip_left_right(image: Any, seed: Any) -> Tensor:
    """As ``random_flip_left_right``, its draws fixed by the shape [2] ``seed``."""
    return _random_flip(image, 1, _stateless(seed), "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image: Any, seed: Any) -> Tensor:
    """As ``random_flip_up_down``, its draws fixed by the shape [2] ``seed``."""
    return _random_flip(image, 0, _stateless(seed), "stateless_random_flip_up_down")


def _rotations(image: Tensor, k: Tensor, axes: tuple[int, int], perm: list[int]) -> Tensor:
    h, w = axes
    return case(  # type: ignore[no-any-return]
        [
            (math.equal(k, 1), lambda: array.transpose(reverse(image, [w]), perm)),
            (math.equal(k, 2), lambda: reverse(image, [h, w])),
            (math.equal(k, 3), lambda: reverse(array.transpose(image, perm), [w])),
        ],
        default=lambda: image,
        exclusive=True,
    )


def rot90(image: Any, k: Any = 1, name: str | None = None) -> Tensor:
    """``image`` rotated counter-clockwise by ``k`` quarter turns."""
    with name_scope(name, "rot90"):
        image = convert_to_tensor(image)
        check_at_least_3d(image, require_static=False)
        k = convert_to_tensor(k, dtype=dt.int32)
        if k.shape.rank is not None and k.shape.rank != 0:
            raise ValueError(f"Shape {k.shape} must have rank 0")
        k = math.floormod(k, 4)

        def rank3() -> Tensor:
            out = _rotations(image, k, (0, 1), [1, 0, 2])
            out.set_shape([None, None, image.shape.dims[2] if image.shape.dims else None])
            return out

        def rank4() -> Tensor:
            out = _rotations(image, k, (1, 2), [0, 2, 1, 3])
            dims = out.shape.dims
            out.set_shape([dims[0], None, None, dims[3]] if dims else [None] * 4)
            return out

        return _by_rank(  # type: ignore[no-any-return]
            image, rank3, rank4, "'image' (shape %s) must have either 3 or 4 dimensions."
        )


def transpose(image: Any, name: str | None = None) -> Tensor:
    """``image`` with its height and width axes swapped."""
    with name_scope(name, "transpose"):
        image = convert_to_tensor(image)
        check_at_least_3d(image, require_static=False)
        return _by_rank(  # type: ignore[no-any-return]
            image,
            lambda: array.transpose(image, [1, 0, 2], name=name),
            lambda: array.transpose(image, [0, 2, 1, 3], name=name),
            "'image' (shape %s) must have either 3 or 4 dimensions.",
        )


def central_crop(image: Any, central_fraction: Any) -> Tensor:
    """The central ``central_fraction`` of each side of ``image`` (0 < fraction <= 1)."""
    with name_scope(None, "central_crop"):
        image = convert_to_tensor(image)
        fraction = _static(central_fraction)
        if fraction is None:
            raise NotImplementedError("tf.image.central_crop: a tensor central_fraction")
        if fraction <= 0.0 or fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if fraction == 1.0:
            return image
        check_at_least_3d(image, require_static=False)
        rank = image.shape.rank
        if rank not in (3, 4):
            raise ValueError(
                f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}."
            )
        at = 0 if rank == 3 else 1
        h, w = image.shape.dims[at], image.shape.dims[at + 1]  # type: ignore[index]
        if h is None or w is None:
            raise NotImplementedError("tf.image.central_crop: an image of unknown height or width")
        top = int((float(h) - float(h) * fraction) / 2)
        left = int((float(w) - float(w) * fraction) / 2)
        begin, size = [top, left, 0], [h - top * 2, w - left * 2, -1]
        if rank == 4:
            begin, size = [0, *begin], [-1, *size]
        return slice(image, begin, size)


def _static(value: Any) -> Any:
    if is_tensor(value):
        v = constant_value(convert_to_tensor(value))
        return None if v is None else v.item()
    return value


def _batched(image: Tensor) -> tuple[Tensor, bool]:
    """A 3-D image as a batch of one (TF's ``is_batch`` dance)."""
    rank = image.shape.rank
    if rank == 3:
        return array.expand_dims(image, 0), False
    if rank is None:
        image = array.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if rank != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def _unbatched(image: Tensor, is_batch: bool) -> Tensor:
    return image if is_batch else array.squeeze(image, axis=[0])


def _static_or_none(dims: list[Any]) -> list[Any]:
    return [None if is_tensor(d) else d for d in dims]


def pad_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    """``image`` placed at (offset_height, offset_width) in zeros of the target size."""
    with name_scope(None, "pad_to_bounding_box"):
        image, is_batch = _batched(convert_to_tensor(image))
        batch, height, width, depth = image_dims(image, rank=4)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        deps = check_at_least_3d(image, require_static=False)
        deps += check(offset_height >= 0, ValueError, "offset_height must be >= 0")
        deps += check(offset_width >= 0, ValueError, "offset_width must be >= 0")
        deps += check(after_width >= 0, ValueError, "width must be <= target - offset")
        deps += check(after_height >= 0, ValueError, "height must be <= target - offset")
        image = with_dependencies(deps, image)
        parts = [0, 0, offset_height, after_height, offset_width, after_width, 0, 0]
        paddings = array.reshape(stack(parts), [4, 2])
        padded = pad(image, paddings)
        padded.set_shape(_static_or_none([batch, target_height, target_width, depth]))
        return _unbatched(padded, is_batch)


def crop_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    """The ``target_height`` x ``target_width`` box of ``image`` at the given offsets."""
    with name_scope(None, "crop_to_bounding_box"):
        image, is_batch = _batched(convert_to_tensor(image))
        deps = check_at_least_3d(image, require_static=False)
        batch, height, width, depth = image_dims(image, rank=4)
        deps += check(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        deps += check(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        deps += check(target_width > 0, ValueError, "target_width must be > 0.")
        deps += check(target_height > 0, ValueError, "target_height must be > 0.")
        deps += check(
            width >= (target_width + offset_width), ValueError, "width must be >= target + offset."
        )
        deps += check(
            height >= (target_height + offset_height),
            ValueError,
            "height must be >= target + offset.",
        )
        image = with_dependencies(deps, image)
        shape = array.shape(image)
        cropped = slice(
            image,
            stack([0, offset_height, offset_width, 0]),
            stack([shape[0], target_height, target_width, shape[3]]),
        )
        cropped.set_shape(_static_or_none([batch, target_height, target_width, depth]))
        return _unbatched(cropped, is_batch)


def _max(x: Any, y: Any) -> Any:
    return math.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return math.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def resize_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> Tensor:
    """``image`` centrally cropped and/or zero-padded to the target size."""
    with name_scope(None, "resize_image_with_crop_or_pad"):
        image, is_batch = _batched(convert_to_tensor(image))
        deps = check_at_least_3d(image, require_static=False)
        deps += check(target_width > 0, ValueError, "target_width must be > 0.")
        deps += check(target_height > 0, ValueError, "target_height must be > 0.")
        image = with_dependencies(deps, image)
        if is_tensor(target_height):
            target_height = with_dependencies(deps, target_height)
        if is_tensor(target_width):
            target_width = with_dependencies(deps, target_width)
        _, height, width, _ = image_dims(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(
            image,
            offset_crop_height,
            offset_crop_width,
            _min(target_height, height),
            _min(target_width, width),
        )
        resized = pad_to_bounding_box(
            cropped, offset_pad_height, offset_pad_width, target_height, target_width
        )
        if resized.shape.rank is None:
            raise ValueError("resized contains no shape.")
        return _unbatched(resized, is_batch)


def extract_patches(
    images: Any, sizes: Any, strides: Any, rates: Any, padding: str, name: str | None = None
) -> Tensor:
    """Each ``sizes`` window of ``images`` (dilated by ``rates``, every ``strides``) as a
    depth vector ``(row, column, channel)`` (op type ``ExtractImagePatches``)."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


def extract_image_patches_v1(
    images: Any,
    ksizes: Any = None,
    strides: Any = None,
    rates: Any = None,
    padding: Any = None,
    name: str | None = None,
    sizes: Any = None,
) -> Tensor:
    """TF1's name and signature of ``extract_patches`` (``ksizes``, or ``sizes``)."""
    if sizes is not None and ksizes is not None:
        raise ValueError("Cannot specify both 'sizes' and 'ksizes'")
    return extract_image_patches(
        images, ksizes if sizes is None else sizes, strides, rates, padding, name=name
    )
