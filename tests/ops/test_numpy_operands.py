"""Ops given no tensor, only NumPy arrays, lists and Python scalars: the first value's own
dtype is the others' (TF's ``args_to_matching_eager``).  Before, each converted alone, so
``tf.not_equal(np.array([1, 2]), 0)`` (an int64 and an int32) raised.  TensorFlow 2.21's
answers, from the same calls."""

import numpy as np
import pytest

import symgrad as tf

I64 = np.array([1, 2, 0])
F64 = np.array([1.5, 0.0])


def got(t):
    return t.dtype.name, t.numpy().tolist()


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: tf.not_equal(I64, 2), ("bool", [True, False, True])),
        (lambda: tf.math.less(2, I64), ("bool", [False, False, False])),
        (lambda: tf.add(I64, 2), ("int64", [3, 4, 2])),
        (lambda: tf.add(F64, 2), ("float64", [3.5, 2.0])),
        (lambda: tf.add(2, I64), ("int32", [3, 4, 2])),
        (lambda: tf.add(2.0, np.array([1, 2])), ("float32", [3.0, 4.0])),
        (lambda: tf.add(np.float32([1.5]), np.array([1.5])), ("float32", [3.0])),
        (lambda: tf.add(np.int32([1]), np.array([2])), ("int32", [3])),
        (lambda: tf.add([1, 2], np.array([1, 2])), ("int32", [2, 4])),
        (lambda: tf.add([1.5], 2), ("float32", [3.5])),
        (lambda: tf.maximum(I64, 2), ("int64", [2, 2, 2])),
        (lambda: tf.pow(F64, 2), ("float64", [2.25, 0.0])),
        (lambda: tf.math.truediv(I64, 2), ("float64", [0.5, 1.0, 0.0])),
        (lambda: tf.math.floordiv(I64, 2), ("int64", [0, 1, 0])),
        (lambda: tf.where(np.array([True, False]), np.array([1, 2]), 0), ("int64", [1, 0])),
        (lambda: tf.concat([np.array([1, 2]), [3]], 0), ("int64", [1, 2, 3])),
    ],
)
def test_the_first_values_dtype_is_the_others(call, expected) -> None:
    assert got(call()) == expected


def test_a_fraction_given_an_integer_dtype_is_an_error() -> None:
    """TF casts ``np.array([1.5])`` to the int32 of ``2`` and returns ``[3]``; symgrad
    refuses the silent truncation (docs/semantics.md, "Numbers")."""
    with pytest.raises(TypeError, match=r"Cannot convert value array\(\[1\.5\]\) to a tensor "):
        tf.add(2, np.array([1.5]))


def test_a_python_float_is_never_an_integer() -> None:
    """TF refuses ``1.0`` as an int32 (``Cannot convert [1.0] to EagerTensor of dtype
    int32``), so float indices, shapes and multiples are errors, and a hint falls back to
    float32.  symgrad took an integral Python float as an integer."""
    for call in (
        lambda: tf.constant([1.0], dtype=tf.int32),
        lambda: tf.convert_to_tensor([1.0], dtype=tf.int32),
    ):
        with pytest.raises(
            TypeError, match=r"Cannot convert value \[1\.0\] to a tensor of dtype int32"
        ):
            call()
    assert tf.convert_to_tensor(1.0, dtype_hint=tf.int32).dtype == tf.float32
    with pytest.raises(TypeError, match=r"indices must be int32 or int64, got float32"):
        tf.one_hot([1.0], 3)
    with pytest.raises(TypeError, match=r"indices must be int32 or int64, got float32"):
        tf.gather([1, 2], [1.0])
    with pytest.raises(TypeError, match=r"multiples must be int32 or int64, got float32"):
        tf.tile([1], [2.0])
    assert tf.constant(np.array([2.0]), dtype=tf.int32).numpy().tolist() == [2]  # NumPy's
