"""A catalogue of bad input across the whole API (issue 18, point 4).

Each row is one wrong call: the exception type it must raise, and a regex its message must
match (naming the op or argument, what was expected and what was given).  After every bad
call the test makes a correct one in the same mode, with the same graph, session and
variable, and asserts its numbers: a bad call leaves everything usable.

Where TensorFlow raises a different type for the same call, the row says so in a comment;
the types here are TensorFlow's where symgrad can match them (an eager shape error is
InvalidArgumentError, as in TF, which is a ValueError too: see tests/test_tf_parity.py).
A row marked ``xfail`` would name the module that must change (none is today).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    ResourceExhaustedError,
)

v1 = tf.compat.v1
ANY = r"[\s\S]*"  # any text, newlines included


class Env:
    """The graph, session and variable a bad call may touch, and the check after it."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        if mode == "graph":
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.p = v1.placeholder(tf.float32, [2], name="p")
                self.v = tf.Variable([1.0, 2.0], name="v")
                self.sess = tf.Session(graph=self.graph)
                self.sess.run(v1.global_variables_initializer())
        else:
            self.v = tf.Variable([1.0, 2.0], name="v")

    def check(self) -> None:
        """A correct computation right after: forward, gradient and the variable's value."""
        if self.mode == "graph":
            with self.graph.as_default():
                y = tf.reduce_sum(self.v * self.p)
                (g,) = tf.gradients(y, self.p)
                got = self.sess.run([y, g, self.v], {self.p: [3.0, 4.0]})
            self.sess.close()
        else:
            with tf.GradientTape() as t:
                y = tf.reduce_sum(self.v * tf.constant([3.0, 4.0]))
            got = [y.numpy(), t.gradient(y, self.v).numpy(), self.v.numpy()]
        assert got[0] == 11.0
        np.testing.assert_array_equal(got[1], [1.0, 2.0] if self.mode == "graph" else [3.0, 4.0])
        np.testing.assert_array_equal(got[2], [1.0, 2.0])


@dataclass
class Bad:
    id: str
    mode: str  # "eager" or "graph" (the call runs inside the Env's graph)
    call: Callable[[Env], Any]
    exc: type[BaseException] | tuple[type[BaseException], ...]
    match: str
    xfail: str = ""


ROWS: list[Bad] = []


def E(id: str, call: Callable[[Env], Any], exc: Any, match: str, xfail: str = "") -> None:
    # An eager op's name is unique among the ops alive at the time, so "add" may be "add_3".
    match = re.sub(r"op '([\w/]+)'", r"op '\1(_\\d+)?'", match)
    ROWS.append(Bad(id, "eager", call, exc, match, xfail))


def G(id: str, call: Callable[[Env], Any], exc: Any, match: str, xfail: str = "") -> None:
    ROWS.append(Bad(id, "graph", call, exc, match, xfail))


def ones(*shape: int, dtype: Any = tf.float32) -> tf.Tensor:
    return tf.ones(list(shape), dtype)


# --------------------------------------------------------------------------------------
# Strings, None and Python objects where tensors belong

E(
    "string_constant_in_math",
    lambda e: tf.constant("abc") + 1.0,
    TypeError,
    r"Cannot convert value 'abc' to a tensor: 'abc' is a string, and symgrad has no string dtype",
)
E(
    "object_constant",
    lambda e: tf.constant(object()),
    ValueError,
    r"Attempt to convert a value \(<object object at .*>\) with an unsupported type "
    r"\(<class 'object'>\) to a Tensor",
)
E(
    "ragged_list",
    lambda e: tf.constant([[1.0, 2.0], [3.0]]),
    ValueError,
    r"Can't convert non-rectangular Python sequence to Tensor \(value \[\[1.0, 2.0\], \[3.0\]\]\)",
)
E(
    "none_to_tensor",
    lambda e: tf.convert_to_tensor(None),
    ValueError,
    r"Attempt to convert a value \(None\) with an unsupported type \(<class 'NoneType'>\)",
)
E(
    "dict_constant",
    lambda e: tf.constant({"a": 1}),
    ValueError,
    r"Attempt to convert a value \(\{'a': 1\}\) with an unsupported type \(<class 'dict'>\)",
)
E(
    "set_constant",
    lambda e: tf.constant({1, 2}),
    ValueError,
    r"unsupported type \(<class 'set'>\) to a Tensor",
)
E(
    "function_constant",
    lambda e: tf.constant(len),
    ValueError,
    r"Attempt to convert a value \(<built-in function len>\) with an unsupported type "
    r"\(<class 'builtin_function_or_method'>\)",
)
E(
    "bytes_constant",
    lambda e: tf.constant(b"ab"),
    TypeError,
    r"Cannot convert value b'ab' to a tensor: b'ab' is a string",
)
E(
    "string_operand",
    lambda e: tf.add(tf.constant([1.0, 2.0]), "a"),
    TypeError,
    r"Cannot convert value 'a' to a tensor of dtype float32: 'a' is a string",
)
E(
    "object_in_list_operand",
    lambda e: tf.multiply(tf.constant([1.0, 2.0]), [object(), 1]),
    ValueError,
    r"Attempt to convert a value \(<object object at .*>\) with an unsupported type "
    r"\(<class 'object'>\) to a Tensor \(value \[<object object at .*>, 1\], "
    r"expected numbers of dtype float32\)",
)
E(
    "none_operand",
    lambda e: tf.multiply(tf.constant([1.0, 2.0]), None),
    ValueError,
    r"Attempt to convert a value \(None\)",
)
E(
    "none_to_identity",
    lambda e: tf.identity(None),
    ValueError,
    r"Attempt to convert a value \(None\)",
)
E(
    "string_to_stop_gradient",
    lambda e: tf.stop_gradient("a"),
    TypeError,
    r"Cannot convert value 'a' to a tensor: 'a' is a string",
)
E(
    "ragged_matmul_operand",
    lambda e: tf.matmul([[1.0, 2.0]], [[1.0], [2.0, 3.0]]),
    ValueError,
    r"Can't convert non-rectangular Python sequence to Tensor",
)
E(
    "float_tensor_as_int",
    lambda e: tf.convert_to_tensor(tf.constant([1.0, 2.0]), tf.int32),
    ValueError,
    r"Tensor conversion requested dtype int32 for Tensor with dtype float32",
)

# --------------------------------------------------------------------------------------
# Values that do not fit the dtype asked for

E(
    "fraction_to_int32",
    lambda e: tf.constant(1.5, tf.int32),
    TypeError,
    r"Cannot convert value 1.5 to a tensor of dtype int32",
)
E(
    "nan_to_int32",
    lambda e: tf.constant(float("nan"), tf.int32),
    TypeError,
    r"Cannot convert value nan to a tensor of dtype int32",
)
E(
    "complex_to_float32",
    lambda e: tf.constant(1j, tf.float32),
    TypeError,
    r"Cannot convert value 1j to a tensor of dtype float32",
)
E(
    "int_to_bool",
    lambda e: tf.constant(1, tf.bool),
    TypeError,
    r"Cannot convert value 1 to a tensor of dtype bool",
)
# TF wraps these silently (300 -> 44, -1 -> 255, 2**40 -> 0); symgrad refuses.
E(
    "int8_overflow",
    lambda e: tf.constant(300, tf.int8),
    TypeError,
    r"Cannot convert value 300 to a tensor of dtype int8: out of its range \[-128, 127\]",
)
E(
    "uint8_negative",
    lambda e: tf.constant(-1, tf.uint8),
    TypeError,
    r"Cannot convert value -1 to a tensor of dtype uint8: out of its range \[0, 255\]",
)
E(
    "int32_overflow",
    lambda e: tf.constant([2**40], tf.int32),
    TypeError,
    r"Cannot convert value \[1099511627776\] to a tensor of dtype int32: out of its range",
)
E(
    "int_beyond_64_bits",
    lambda e: tf.constant(2**70),
    ValueError,
    r"Can't convert Python sequence with out-of-range integer to Tensor .*1180591620717411303424 "
    r"does not fit in 64 bits",
)
E(
    "constant_shape_mismatch",
    lambda e: tf.constant([1.0, 2.0, 3.0], shape=[2, 2]),
    TypeError,
    r"Tensor \[1.0, 2.0, 3.0\] \(converted from \(3,\)\) has 3 elements, but got `shape` "
    r"\(2, 2\) with 4 elements",
)
E(
    "unknown_dtype_name",
    lambda e: tf.constant(1.0, dtype="floaty"),
    TypeError,
    r"Cannot convert 'floaty' to a dtype: expected one of \['bool', ",
)
E(
    "as_dtype_object",
    lambda e: tf.as_dtype(object),
    TypeError,
    r"Cannot convert <class 'object'> to a dtype: object is not supported \(supported: float16",
)
E(
    "cast_to_unknown_dtype",
    lambda e: tf.cast(ones(2), "floaty"),
    TypeError,
    r"Cannot convert 'floaty' to a dtype",
)
E(
    "range_fraction_as_int",
    lambda e: tf.range(0, 5, 0.5, dtype=tf.int32),
    TypeError,
    r"Cannot convert value 0.5 to a tensor of dtype int32",
)
E(
    "one_hot_depth_overflow",
    lambda e: tf.one_hot([1], 10**13),
    TypeError,
    r"one_hot argument `depth` must be an int32 scalar: Cannot convert value 10000000000000 to a "
    r"tensor of dtype int32: out of its range",
)

# --------------------------------------------------------------------------------------
# Elementwise ops: shapes and dtypes

E(
    "add_shapes",
    lambda e: tf.add(ones(2), ones(3)),
    ValueError,
    r"AddV2 op 'Add' .*Incompatible shapes for broadcasting: \(2,\) and \(3,\)",
)
G(
    "add_shapes_graph",
    lambda e: tf.add(ones(2), ones(3)),
    ValueError,
    r"AddV2 op 'Add' .*Incompatible shapes for broadcasting: \(2,\) and \(3,\)",
)
G(
    "mul_placeholder_shapes",
    lambda e: e.p * ones(3, 1, 4),
    ValueError,
    r"Mul op 'mul' .*Incompatible shapes for broadcasting: \(2,\) and \(3, 1, 4\)",
)
E(
    "mul_dtypes",
    lambda e: tf.multiply(ones(2), ones(2, dtype=tf.float64)),
    TypeError,
    r"Mul op 'Mul' .*input 'y' has dtype float64 that does not match dtype float32 of input 'x'",
)
G(
    "sub_dtypes_graph",
    lambda e: tf.subtract(ones(2), ones(2, dtype=tf.int32)),
    TypeError,
    r"Sub op 'Sub' .*input 'y' has dtype int32 that does not match dtype float32 of input 'x'",
)
E(
    "add_bool",
    lambda e: tf.add(tf.constant([True]), tf.constant([False])),
    TypeError,
    r"AddV2 op 'Add' .*input 'x' has dtype bool, expected one of: float16, float32",
)
E(
    "sin_int",
    lambda e: tf.sin(tf.constant([1, 2])),
    TypeError,
    r"Sin op 'Sin' .*input 'x' has dtype int32, expected one of: float16, float32, float64, "
    r"complex64, complex128",
)
G(
    "exp_int_graph",
    lambda e: tf.exp(tf.constant([1, 2])),
    TypeError,
    r"Exp op 'Exp' .*input 'x' has dtype int32, expected one of: float16",
)
E(
    "relu_complex",
    lambda e: tf.nn.relu(tf.constant([1 + 1j])),
    TypeError,
    r"Relu op 'Relu' .*input 'features' has dtype complex128, expected one of: float16",
)
E(
    "logical_and_float",
    lambda e: tf.logical_and(tf.constant([1.0]), tf.constant([0.0])),
    TypeError,
    r"LogicalAnd op 'LogicalAnd' .*input 'x' has dtype float32, expected one of: bool",
)
E(
    "logical_not_int",
    lambda e: tf.logical_not(tf.constant([1])),
    TypeError,
    r"LogicalNot op 'LogicalNot' .*input 'x' has dtype int32, expected one of: bool",
)
E(
    "maximum_complex",
    lambda e: tf.maximum(tf.constant([1j]), tf.constant([2j])),
    TypeError,
    r"Maximum op 'Maximum' .*input 'x' has dtype complex128, expected one of: float16",
)
E(
    "floormod_complex",
    lambda e: tf.floormod(tf.constant([1j]), tf.constant([2j])),
    TypeError,
    r"FloorMod op 'FloorMod' .*input 'x' has dtype complex128, expected one of",
)
E(
    "floordiv_int_by_zero",
    lambda e: tf.floordiv(tf.constant([7]), tf.constant([0])),
    InvalidArgumentError,
    r"FloorDiv op 'floordiv' .*failed: .*Integer division by zero",
)
E(
    "floormod_int_by_zero",
    lambda e: tf.floormod(tf.constant([7]), tf.constant([0])),
    InvalidArgumentError,
    r"FloorMod op 'FloorMod' .*failed: .*Integer division by zero",
)
E(
    "pow_int_negative_exponent",
    lambda e: tf.pow(tf.constant([2]), tf.constant([-1])),
    InvalidArgumentError,
    r"Pow op 'Pow' .*failed: .*Integers to negative integer powers are not allowed",
)
E(
    "where_condition_float",
    lambda e: tf.where(tf.constant([1.0, 0.0]), ones(2), ones(2)),
    TypeError,
    r"SelectV2 op 'SelectV2' .*input 'condition' has dtype float32, expected one of: "
    r"bool",
)
E(
    "where_branch_dtypes",
    lambda e: tf.where(tf.constant([True]), ones(1), ones(1, dtype=tf.int32)),
    TypeError,
    r"SelectV2 op .*input 'y' has dtype int32 that does not match dtype float32 of "
    r"input 'x'",
)
E(
    "where_shapes",
    lambda e: tf.where(tf.constant([True, False]), ones(3), ones(3)),
    ValueError,
    r"SelectV2 op .*Incompatible shapes for broadcasting: \(2,\) and \(3,\)",
)
E(
    "where_only_x",
    lambda e: tf.where(tf.constant([True]), ones(1)),
    ValueError,
    r"x and y must both be given, or neither",
)
E(
    "add_n_shapes",
    lambda e: tf.add_n([ones(2), ones(3)]),
    ValueError,
    r"AddN op 'AddN' .*all inputs must have the same shape, got \(2,\) and \(3,\)",
)
E(
    "add_n_dtypes",
    lambda e: tf.add_n([ones(2), ones(2, dtype=tf.float64)]),
    TypeError,
    r"AddN op .*input 'inputs\[1\]' has dtype float64 that does not match dtype float32",
)
E(
    "add_n_empty",
    lambda e: tf.add_n([]),
    ValueError,
    r"inputs must be a non-empty list of tensors of the same shape",
)

# --------------------------------------------------------------------------------------
# matmul

E(
    "matmul_inner",
    lambda e: tf.matmul(ones(2, 3), ones(4, 5)),
    ValueError,
    r"MatMul op 'MatMul' .*Matrix size-incompatible: In\[0\]: \[2, 3\], In\[1\]: \[4, 5\] "
    r"\(transpose_a=False, transpose_b=False\): inner dimensions 3 and 4 differ",
)
G(
    "matmul_inner_graph",
    lambda e: tf.matmul(v1.placeholder(tf.float32, [None, 3]), ones(4, 5)),
    ValueError,
    r"MatMul op 'MatMul' .*In\[0\]: \[None, 3\], In\[1\]: \[4, 5\].*inner dimensions "
    r"3 and 4 differ",
)
E(
    "matmul_transposed_inner",
    lambda e: tf.matmul(ones(2, 3), ones(4, 3), transpose_a=True),
    ValueError,
    r"MatMul op .*\(transpose_a=True, transpose_b=False\): inner dimensions 2 and 4 "
    r"differ",
)
E(
    "matmul_rank1",
    lambda e: tf.matmul(ones(3), ones(3)),
    ValueError,
    r"BatchMatMulV2 op .*input 'x' must have rank >= 2, got shape \(3,\)",
)
E(
    "matmul_dtypes",
    lambda e: tf.matmul(ones(2, 2), ones(2, 2, dtype=tf.float64)),
    TypeError,
    r"MatMul op .*input 'b' has dtype float64 that does not match dtype float32 of input 'a'",
)
E(
    "matmul_batch",
    lambda e: tf.matmul(ones(2, 2, 3), ones(3, 3, 4)),
    ValueError,
    r"BatchMatMulV2 op .*batch dimensions \[2\] and \[3\] cannot be broadcast",
)
E(
    "matmul_empty_inner",
    lambda e: tf.matmul(tf.zeros([0, 3]), tf.zeros([2, 4])),
    ValueError,
    r"MatMul op .*In\[0\]: \[0, 3\], In\[1\]: \[2, 4\].*inner dimensions 3 and 2 differ",
)

# --------------------------------------------------------------------------------------
# reshape, transpose, squeeze, expand_dims

E(
    "reshape_count",
    lambda e: tf.reshape(ones(6), [4, 2]),
    ValueError,
    r"Reshape op 'Reshape' .*Cannot reshape a tensor with 6 elements to shape \[4, 2\] "
    r"\(8 elements\)",
)
G(
    "reshape_count_graph",
    lambda e: tf.reshape(e.p, [3]),
    ValueError,
    r"Reshape op .*Cannot reshape a tensor with 2 elements to shape \[3\] \(3 elements\)",
)
E(
    "reshape_two_unknowns",
    lambda e: tf.reshape(ones(6), [-1, -1]),
    ValueError,
    r"Reshape op .*only one dimension of the new shape may be -1, got \[-1, -1\]",
)
E(
    "reshape_negative_size",
    lambda e: tf.reshape(ones(6), [-2, 3]),
    ValueError,
    r"Reshape op .*Size 0 must be non-negative, not -2 \(new shape \[-2, 3\]\)",
)
E(
    "reshape_indivisible",
    lambda e: tf.reshape(ones(7), [-1, 2]),
    ValueError,
    r"Reshape op .*Cannot reshape a tensor with 7 elements to shape \[-1, 2\]",
)
E(
    "reshape_shape_rank2",
    lambda e: tf.reshape(ones(6), [[2, 3]]),
    ValueError,
    r"Reshape op .*sizes input must be 1-D, not \(1, 2\) \(argument `shape` of reshape\)",
)
E(
    "reshape_shape_fraction",
    lambda e: tf.reshape(ones(6), [2.5, 2]),
    TypeError,
    r"shape must be int32 or int64, got float32 \(\[2.5, 2\]\)",
)
E(
    "reshape_shape_float_tensor",
    lambda e: tf.reshape(ones(6), tf.constant([2.0, 3.0])),
    TypeError,
    r"shape must be int32 or int64, got float32",
)
E(
    "reshape_huge_shape",
    lambda e: tf.reshape(ones(2), [2**62, 4]),
    ValueError,
    r"Reshape op .*Cannot reshape a tensor with 2 elements to shape \[4611686018427387904, 4\] "
    r"\(18446744073709551616 elements\)",
)
E(
    "transpose_perm_length",
    lambda e: tf.transpose(ones(2, 3), [0]),
    ValueError,
    r"Transpose op .*perm \[0\] is not a permutation of 0..1 for a tensor of shape \(2, 3\)",
)
E(
    "transpose_perm_duplicate",
    lambda e: tf.transpose(ones(2, 3), [0, 0]),
    ValueError,
    r"Transpose op .*perm \[0, 0\] is not a permutation of 0..1",
)
G(
    "transpose_perm_range_graph",
    lambda e: tf.transpose(ones(2, 3), [0, 2]),
    ValueError,
    r"Transpose op .*perm \[0, 2\] is not a permutation of 0..1 for a tensor of shape \(2, 3\)",
)
E(
    "transpose_perm_float",
    lambda e: tf.transpose(ones(2, 3), tf.constant([1.0, 0.0])),
    TypeError,
    r"perm must be int32 or int64, got float32",
)
E(
    "squeeze_not_one",
    lambda e: tf.squeeze(ones(2, 3), axis=0),
    ValueError,
    r"Squeeze op .*Can not squeeze dim\[0\], expected a dimension of 1, got 2 \(input shape "
    r"\(2, 3\)\)",
)
E(
    "squeeze_axis_range",
    lambda e: tf.squeeze(ones(1, 3), axis=4),
    ValueError,
    r"Squeeze op .*axis 4 is out of range for a tensor of rank 2 \(expected -2 <= axis < 2\)",
)
E(
    "squeeze_axis_float",
    lambda e: tf.squeeze(ones(1, 2), axis=0.0),
    TypeError,
    r"squeeze argument `axis` must be an int or a list of ints, got 0.0",
)
E(
    "expand_dims_axis",
    lambda e: tf.expand_dims(ones(2), 3),
    ValueError,
    r"ExpandDims op .*Tried to expand dim index 3 for tensor with 1 dimensions\.$",  # TF's
)
E(
    "expand_dims_axis_fraction",
    lambda e: tf.expand_dims(ones(2), 0.5),
    TypeError,
    r"axis must be int32 or int64, got float32 \(0.5\)",
)

# --------------------------------------------------------------------------------------
# Reductions and scans

E(
    "sum_axis",
    lambda e: tf.reduce_sum(ones(2, 3), axis=2),
    ValueError,
    r"Sum op 'Sum' .*Invalid reduction dimension 2 for input with 2 dimensions \(shape \(2, 3\)\)",
)
G(
    "sum_axis_graph",
    lambda e: tf.reduce_sum(e.p, axis=1),
    ValueError,
    r"Sum op .*Invalid reduction dimension 1 for input with 1 dimensions \(shape \(2,\)\)",
)
E(
    "sum_axis_negative",
    lambda e: tf.reduce_sum(ones(2, 3), axis=-3),
    ValueError,
    r"Sum op .*Invalid reduction dimension -3 for input with 2 dimensions",
)
E(
    "mean_axis_list",
    lambda e: tf.reduce_mean(ones(2, 3), axis=[0, 5]),
    ValueError,
    r"Mean op .*Invalid reduction dimension 5 for input with 2 dimensions",
)
G(
    "max_axis_graph",
    lambda e: tf.reduce_max(ones(2, 3), axis=[3]),
    ValueError,
    r"Max op .*Invalid reduction dimension 3 for input with 2 dimensions",
)
E(
    "sum_axis_float_tensor",
    lambda e: tf.reduce_sum(ones(2, 3), axis=tf.constant(1.0)),
    TypeError,
    r"Sum op .*input 'axis' has dtype float32, expected one of: int32, int64",
)
E(
    "mean_bool",
    lambda e: tf.reduce_mean(tf.constant([True])),
    TypeError,
    r"Mean op .*input 'input' has dtype bool, expected one of: float16",
)
E(
    "reduce_all_float",
    lambda e: tf.reduce_all(ones(2)),
    TypeError,
    r"All op .*input 'input' has dtype float32, expected one of: bool",
)
E(
    "sum_strings",
    lambda e: tf.reduce_sum(["a", "b"]),
    TypeError,
    r"Cannot convert value \['a', 'b'\] to a tensor: 'a' is a string",
)
E(
    "argmax_axis",
    lambda e: tf.argmax(ones(2, 3), axis=2),
    ValueError,
    r"ArgMax op .*Expected dimension in the range \[-2, 2\), but got 2",
)
E(
    "argmax_output_type",
    lambda e: tf.argmax(ones(2), output_type=tf.float32),
    TypeError,
    r"ArgMax op .*output_type must be int32 or int64, got float32",
)
E(
    "argmax_empty",
    lambda e: tf.argmax(tf.zeros([0])),
    InvalidArgumentError,
    r"ArgMax op .*Reduction axis 0 is empty in shape \[0\]",
)
E(
    "argmin_empty_axis",
    lambda e: tf.argmin(tf.zeros([2, 0]), axis=1),
    InvalidArgumentError,
    r"ArgMin op .*Reduction axis 1 is empty in shape \[2, 0\]",
)
G(
    "argmax_empty_at_run",
    lambda e: e.sess.run(
        tf.argmax(v1.placeholder(tf.float32, [None])), {"Placeholder:0": np.zeros(0)}
    ),
    InvalidArgumentError,
    r"ArgMax op .*Reduction axis 0 is empty in shape \[0\]",
)
E(
    "cumsum_axis",
    lambda e: tf.cumsum(ones(2, 3), axis=2),
    ValueError,
    r"Cumsum op .*axis 2 is out of range for a tensor of rank 2 \(expected -2 <= axis < 2\)",
)
E(
    "cumsum_axis_fraction",
    lambda e: tf.cumsum(ones(2), axis=0.5),
    TypeError,
    r"Cannot convert value 0.5 to a tensor of dtype int32",
)

# --------------------------------------------------------------------------------------
# concat, stack, unstack, split

E(
    "concat_shapes",
    lambda e: tf.concat([ones(2, 3), ones(2, 4)], axis=0),
    ValueError,
    r"ConcatV2 op 'concat' .*Dimension 1 in both shapes must be equal: shape\[0\] = \(2, 3\) vs. "
    r"shape\[1\] = \(2, 4\) \(concatenating along axis 0\)",
)
G(
    "concat_shapes_graph",
    lambda e: tf.concat([e.p, ones(2, 1)], axis=0),
    ValueError,
    r"ConcatV2 op .*all values must have the same rank, got shapes \(2,\), \(2, 1\)",
)
E(
    "concat_axis",
    lambda e: tf.concat([ones(2, 3), ones(2, 3)], axis=2),
    ValueError,
    r"ConcatV2 op .*axis 2 is out of range for a tensor of rank 2",
)
E(
    "concat_dtypes",
    lambda e: tf.concat([ones(2), ones(2, dtype=tf.int32)], axis=0),
    TypeError,
    r"ConcatV2 op .*input 'values\[1\]' has dtype int32 that does not match dtype float32 of "
    r"input 'values\[0\]'",
)
E(
    "concat_axis_float",
    lambda e: tf.concat([ones(2), ones(2)], tf.constant(0.0)),
    TypeError,
    r"axis must be int32 or int64, got float32",
)
E("concat_nothing", lambda e: tf.concat([], axis=0), ValueError, r"concat needs at least one value")
E(
    "stack_shapes",
    lambda e: tf.stack([ones(2), ones(3)]),
    ValueError,
    r"Pack op 'stack' .*Shapes of all inputs must match: values\[0\].shape = \(2,\) != "
    r"values\[1\].shape = \(3,\)",
)
E(
    "stack_axis",
    lambda e: tf.stack([ones(2), ones(2)], axis=3),
    ValueError,
    r"Pack op .*axis 3 is out of range for a tensor of rank 2",
)
E(
    "stack_dtypes",
    lambda e: tf.stack([ones(2), ones(2, dtype=tf.int32)]),
    TypeError,
    r"Pack op .*input 'values\[1\]' has dtype int32 that does not match dtype float32",
)
E(
    "unstack_axis",
    lambda e: tf.unstack(ones(2, 3), axis=2),
    ValueError,
    r"Argument `axis` = 2 not in range \[-2, 2\) \(unstack of a tensor of shape \(2, 3\)\)",
)
E(
    "unstack_num",
    lambda e: tf.unstack(ones(2, 3), num=3),
    ValueError,
    r"Unpack op .*Dimension 0 of value \(shape \(2, 3\)\) has size 2, but num = 3",
)
G(
    "unstack_unknown_size",
    lambda e: tf.unstack(v1.placeholder(tf.float32, [None, 2])),
    ValueError,
    r"Cannot infer argument `num` from shape \(None, 2\)",
)
E(
    "split_uneven",
    lambda e: tf.split(ones(5), 2),
    ValueError,
    r"Split op .*Number of ways to split should evenly divide the split dimension, but got "
    r"split_dim 0 \(size = 5\) and num_split 2",
)
E(
    "split_sizes_sum",
    lambda e: tf.split(ones(5), [2, 2]),
    ValueError,
    r"SplitV op .*size_splits \[2, 2\] must add up to 5, the size of the split dimension",
)
E(
    "split_two_unknown_sizes",
    lambda e: tf.split(ones(5), [-1, -1]),
    ValueError,
    r"SplitV op .*size_splits may hold at most one -1 and no other negative value, got "
    r"\[-1, -1\]",
)
E(
    "split_axis",
    lambda e: tf.split(ones(4), 2, axis=1),
    ValueError,
    r"Split op .*axis 1 is out of range for a tensor of rank 1",
)
E(
    "split_zero_ways",
    lambda e: tf.split(ones(4), 0),
    ValueError,
    r"num_or_size_splits must be >= 1, got 0",
)

# --------------------------------------------------------------------------------------
# gather, scatter, segment sums, one_hot

E(
    "gather_out_of_range",
    lambda e: tf.gather(ones(3), [5]),
    InvalidArgumentError,
    r"GatherV2 op .*indices\[0\] = 5 is not in \[0, 3\)",
)
G(
    "gather_out_of_range_at_run",
    lambda e: e.sess.run(tf.gather(e.p, [7]), {e.p: [1.0, 2.0]}),
    InvalidArgumentError,
    r"GatherV2 op .*indices\[0\] = 7 is not in \[0, 2\)",
)
E(
    "gather_negative",
    lambda e: tf.gather(ones(3), [-1]),
    InvalidArgumentError,
    r"GatherV2 op .*indices\[0\] = -1 is not in \[0, 3\)",
)
E(
    "gather_from_empty",
    lambda e: tf.gather(tf.zeros([0]), [0]),
    InvalidArgumentError,
    r"GatherV2 op .*indices\[0\] = 0 is not in \[0, 0\)",
)
E(
    "gather_axis",
    lambda e: tf.gather(ones(3), [0], axis=1),
    ValueError,
    r"GatherV2 op .*axis 1 is out of range for a tensor of rank 1",
)
E(
    "gather_float_indices",
    lambda e: tf.gather(ones(3), tf.constant([1.0])),
    TypeError,
    r"indices must be int32 or int64, got float32",
)
E(
    "gather_nd_out_of_range",
    lambda e: tf.gather_nd(ones(2, 2), [[0, 5]]),
    InvalidArgumentError,
    r"GatherNd op .*indices\[0\] = \[0, 5\] does not index into param shape \[2, 2\]",
)
E(
    "gather_nd_depth",
    lambda e: tf.gather_nd(ones(2, 2), [[0, 0, 0]]),
    ValueError,
    r"GatherNd op .*index innermost dimension length must be <= params rank; saw: 3 vs. 2",
)
E(
    "scatter_nd_out_of_range",
    lambda e: tf.scatter_nd([[5]], [1.0], [3]),
    InvalidArgumentError,
    r"ScatterNd op .*indices\[0\] = \[5\] does not index into param shape \[3\]",
)
E(
    "scatter_nd_updates_shape",
    lambda e: tf.scatter_nd([[1]], [1.0, 2.0], [3]),
    ValueError,
    r"ScatterNd op .*updates must have shape indices.shape\[:-1\] \+ shape\[1:\] = \[1\], but "
    r"got \(2,\)",
)
E(
    "scatter_nd_negative_shape",
    lambda e: tf.scatter_nd([[0]], [1.0], [-3]),
    ValueError,
    r"ScatterNd op .*Dimension -3 must be >= 0",
)
E(
    "segment_sum_id_out_of_range",
    lambda e: tf.unsorted_segment_sum(ones(3), [0, 1, 7], 2),
    InvalidArgumentError,
    r"UnsortedSegmentSum op .*7 is out of range \[0, 2\) \(segment_ids\)",
)
E(
    "segment_sum_ids_shape",
    lambda e: tf.unsorted_segment_sum(ones(3), [0, 1], 2),
    ValueError,
    r"UnsortedSegmentSum op .*segment_ids.shape = \(2,\) must be a prefix of data.shape = "
    r"\(3,\)",
)
E(
    "segment_sum_negative_count",
    lambda e: tf.unsorted_segment_sum(ones(2), [0, 1], -1),
    ValueError,
    r"UnsortedSegmentSum op .*Input num_segments == -1 must not be negative",
)
E(
    "one_hot_negative_depth",
    lambda e: tf.one_hot([1], -3),
    ValueError,
    r"OneHot op .*depth must be non-negative, got -3",
)
E(
    "one_hot_axis",
    lambda e: tf.one_hot([1], 3, axis=5),
    ValueError,
    r"OneHot op .*Expected axis to be -1 or between \[0, 1\]. But received: 5",
)

# --------------------------------------------------------------------------------------
# Indexing and slicing

E(
    "index_out_of_range",
    lambda e: ones(3)[5],
    ValueError,
    r"StridedSlice op .*slice index 5 of dimension 0 out of bounds",
)
G(
    "index_out_of_range_graph",
    lambda e: e.p[2],
    ValueError,
    r"StridedSlice op .*slice index 2 of dimension 0 out of bounds",
)
E(
    "index_too_many",
    lambda e: ones(3)[0, 0],
    ValueError,
    r"StridedSlice op .*Index out of range using input dim 1; input has only 1 dims",
)
E(
    "index_float",
    lambda e: ones(3)[1.5],
    TypeError,
    r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar "
    r"tf.int32/tf.int64 tensors are valid indices, got 1.5",
)
E("index_string", lambda e: ones(3)["a"], TypeError, r"are valid indices, got 'a'")
E("index_list", lambda e: ones(3)[[0, 1]], TypeError, r"are valid indices, got \[0, 1\]")
E(
    "index_float_tensor",
    lambda e: ones(3)[tf.constant(1.0)],
    TypeError,
    r"are valid indices, got <symgrad.Tensor: shape=\(\), dtype=float32",
)
E(
    "index_two_ellipses",
    lambda e: ones(3, 3)[..., ...],
    ValueError,
    r"StridedSlice op .*Multiple ellipses in slice spec not allowed",
)
E(
    "index_zero_step",
    lambda e: ones(3)[::0],
    ValueError,
    r"StridedSlice op .*strides\[0\] must be non-zero",
)
E(
    "index_into_empty",
    lambda e: tf.zeros([0])[0],
    ValueError,
    r"StridedSlice op .*slice index 0 of dimension 0 out of bounds",
)
E(
    "strided_slice_lengths",
    lambda e: tf.strided_slice(ones(3), [0, 0], [1], [1]),
    ValueError,
    r"StridedSlice op .*begin, end and strides must have the same length, got 2, 1 and 1",
)
E(
    "slice_size",
    lambda e: tf.slice(ones(2, 2), [0, 0], [1, 3]),
    ValueError,
    r"Slice op .*Expected size\[1\] in \[0, 2\], but got 3 "
    r"\(input shape \(2, 2\), begin\[1\] = 0\)",
)
E(
    "slice_begin_length",
    lambda e: tf.slice(ones(2, 2), [0], [1, 1]),
    ValueError,
    r"Slice op .*Expected begin to be a vector of length 2 \(the rank of input, shape \(2, 2\)\), "
    r"but got length 1",
)
E(
    "slice_negative_begin",
    lambda e: tf.slice(ones(2, 2), [-1, 0], [1, 1]),
    ValueError,
    r"Slice op .*Expected begin\[0\] in \[0, 2\], but got -1",
)
E(
    "slice_float_begin",
    lambda e: tf.slice(ones(2), [0.5], [1]),
    TypeError,
    r"begin must be int32 or int64, got float32 \(\[0.5\]\)",
)
E(
    "pad_shape",
    lambda e: tf.pad(ones(2, 2), [[1, 1]]),
    ValueError,
    r"Pad op .*paddings must have shape \[2, 2\] \(a \[before, after\] pair for each dimension of "
    r"input, shape \(2, 2\)\), but got shape \[1, 2\]",
)
E(
    "pad_negative",
    lambda e: tf.pad(ones(2, 2), [[1, -1], [0, 0]]),
    ValueError,
    r"Pad op .*paddings must be non-negative, got \[\[1, -1\], \[0, 0\]\]",
)
E(
    "pad_mode",
    lambda e: tf.pad(ones(2, 2), [[1, 1], [0, 0]], mode="FOO"),
    ValueError,
    r"Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or "
    r"\"SYMMETRIC\". Received `mode` = FOO",
)
E(
    "pad_float_paddings",
    lambda e: tf.pad(ones(2), [[0.5, 1]]),
    TypeError,
    r"paddings must be int32 or int64, got float32 \(\[\[0.5, 1\]\]\)",
)

# --------------------------------------------------------------------------------------
# Creating tensors: tile, fill, zeros, range, broadcast_to, one_hot, random

E(
    "tile_multiples_length",
    lambda e: tf.tile(ones(2, 2), [2]),
    ValueError,
    r"Tile op .*multiples must be a vector of 2 non-negative ints, one per dimension of input "
    r"\(shape \(2, 2\)\), got \[2\]",
)
E(
    "tile_negative",
    lambda e: tf.tile(ones(2), [-1]),
    ValueError,
    r"Tile op .*multiples must be a vector of 1 non-negative ints.*got \[-1\]",
)
E(
    "tile_float_multiples",
    lambda e: tf.tile(ones(2), tf.constant([2.0])),
    TypeError,
    r"multiples must be int32 or int64, got float32",
)
E(
    "fill_negative",
    lambda e: tf.fill([-1], 1.0),
    ValueError,
    r"Fill op .*dims must be non-negative, got \[-1\]",
)
E(
    "fill_value_not_scalar",
    lambda e: tf.fill([2], [1.0, 2.0]),
    ValueError,
    r"Fill op .*value must be a scalar, got shape \(2,\)",
)
E(
    "zeros_negative",
    lambda e: tf.zeros([-1, 2]),
    ValueError,
    r"Dimension -1 must be >= 0 \(zeros: argument `shape` = \[-1, 2\]\)",
)
E(
    "ones_negative",
    lambda e: tf.ones([3, -2]),
    ValueError,
    r"Dimension -2 must be >= 0 \(ones: argument `shape` = \[3, -2\]\)",
)
E(
    "zeros_fraction_shape",
    lambda e: tf.zeros([2.5]),
    TypeError,
    r"Dimension value must be integer or None or have an __index__ method, got value '2.5'",
)
E("range_zero_delta", lambda e: tf.range(0, 5, 0), ValueError, r"Range op .*Requires delta != 0: 0")
E(
    "range_wrong_direction",
    lambda e: tf.range(5, 0, 1),
    ValueError,
    r"Range op .*Requires start <= limit when delta > 0: 5/0",
)
E(
    "broadcast_to_shapes",
    lambda e: tf.broadcast_to(ones(3), [2, 2]),
    ValueError,
    r"BroadcastTo op .*Unable to broadcast tensor of shape \(3,\) to tensor of shape \(2, 2\)",
)
G(
    "broadcast_to_shapes_graph",
    lambda e: tf.broadcast_to(e.p, [2, 3]),
    ValueError,
    r"BroadcastTo op .*Unable to broadcast tensor of shape \(2,\) to tensor of shape \(2, 3\)",
)
E(
    "random_normal_negative_shape",
    lambda e: tf.random.normal([-1]),
    ValueError,
    r"RandomStandardNormal op .*Dimension -1 must be >= 0",
)
E(
    "random_normal_int_dtype",
    lambda e: tf.random.normal([2], dtype=tf.int32),
    TypeError,
    r"RandomStandardNormal op .*dtype must be one of float16, float32, float64, got int32",
)
E(
    "random_uniform_empty_range",
    lambda e: tf.random.uniform([2], 5, 5, dtype=tf.int32),
    InvalidArgumentError,
    r"Need minval < maxval, got 5 >= 5",
)

# --------------------------------------------------------------------------------------
# Huge shapes: an error naming the op (or the call), never a bare MemoryError

E(
    "tile_huge",
    lambda e: tf.tile(ones(1000), [10**9]),
    InvalidArgumentError,
    r"Tile op 'Tile' .*failed: MemoryError: Unable to allocate 3.64 TiB",
)
E(
    "zeros_huge",
    lambda e: tf.zeros([10**6, 10**6]),
    InvalidArgumentError,
    r"Fill op 'zeros' .*failed: MemoryError: Unable to allocate 3.64 TiB",
)
E(
    "fill_beyond_any_memory",
    lambda e: tf.fill([2**40, 2**40], 1.0),
    InvalidArgumentError,
    r"Fill op 'Fill' .*failed: ValueError: array is too big",
)
E(
    "broadcast_to_huge",
    lambda e: tf.broadcast_to(ones(1), [10**6, 10**6]),
    InvalidArgumentError,
    r"BroadcastTo op .*failed: MemoryError",
)
E(
    "range_huge",
    lambda e: tf.range(10**13),
    InvalidArgumentError,
    r"Range op 'range' .*failed: MemoryError: Unable to allocate 72.8 TiB",
)
E(
    "random_huge",
    lambda e: tf.random.normal([10**6, 10**6]),
    InvalidArgumentError,
    r"RandomStandardNormal op .*failed: MemoryError",
)
E(
    "matmul_huge_output",
    lambda e: tf.matmul(ones(10**6, 1), ones(1, 10**6)),
    InvalidArgumentError,
    r"MatMul op 'MatMul' .*failed: MemoryError",
)
E(
    "constant_huge",
    lambda e: tf.constant(0.0, shape=[10**6, 10**6]),
    ResourceExhaustedError,
    r"OOM when allocating tensor with shape\[1000000, 1000000\] and type float32 for constant "
    r"'Const'",
)
G(
    "tile_huge_at_run",
    lambda e: e.sess.run(tf.tile(e.p, [10**12]), {e.p: [1.0, 2.0]}),
    InvalidArgumentError,
    r"Tile op 'Tile' .*failed: MemoryError",
)
G(
    "gradient_of_huge_tile_at_run",
    lambda e: e.sess.run(tf.gradients(tf.tile(e.p, [10**12]), e.p), {e.p: [1.0, 2.0]}),
    InvalidArgumentError,
    r"Fill op 'gradients/ones_like' .*failed: MemoryError",
)

# --------------------------------------------------------------------------------------
# nn

E(
    "softmax_int",
    lambda e: tf.nn.softmax(tf.constant([1, 2])),
    TypeError,
    r"Softmax op .*input 'features' has dtype int32, expected one of: float16, float32, float64",
)
E(
    "softmax_scalar",
    lambda e: tf.nn.softmax(tf.constant(1.0)),
    ValueError,
    r"Softmax op .*logits must have >= 1 dimension, got \(\)",
)
E(
    "softmax_cross_entropy_shapes",
    lambda e: tf.nn.softmax_cross_entropy_with_logits(labels=ones(2, 3), logits=ones(2, 4)),
    ValueError,
    r"logits and labels must be broadcastable: logits_size=\[2,4\] "
    r"labels_size=\[2,3\]",
)
E(
    "sparse_xent_float_labels",
    lambda e: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([1.0]), logits=ones(1, 3)
    ),
    TypeError,
    r"SparseSoftmaxCrossEntropyWithLogits op .*input 'labels' has dtype float32, "
    r"expected one of: int32, int64",
)
E(
    "sparse_xent_label_out_of_range",
    lambda e: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([5]), logits=ones(1, 3)
    ),
    InvalidArgumentError,
    r"Received a label value of 5 which is outside the valid range of "
    r"\[0, 3\)",
)
E(
    "sparse_xent_label_rank",
    lambda e: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([[1]]), logits=ones(1, 3)
    ),
    ValueError,
    r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
    r"labels.shape=\(1, 1\) of rank 2 and logits.shape=\(1, 3\) of rank 2",
)
E(
    "sparse_xent_no_classes",
    lambda e: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0]), logits=tf.zeros([1, 0])
    ),
    InvalidArgumentError,
    r"Received a label value of 0 which is outside the valid range of "
    r"\[0, 0\)",
)

# --------------------------------------------------------------------------------------
# Placeholders, feeds and fetches


def _int_placeholder_run(e: Env, value: Any) -> Any:
    x = v1.placeholder(tf.int32, [2], name="ix")
    return e.sess.run(x + 1, {x: value})


G(
    "placeholder_negative_size",
    lambda e: v1.placeholder(tf.float32, [-5, 3]),
    ValueError,
    r"Error converting shape to a TensorShape: Dimension -5 must be >= 0 \(placeholder argument "
    r"`shape` = \[-5, 3\]\)",
)
G(
    "placeholder_fraction_size",
    lambda e: v1.placeholder(tf.float32, [2.5]),
    TypeError,
    r"Error converting shape to a TensorShape: Dimension value must be integer or None or have "
    r"an __index__ method, got value '2.5' with type '<class 'float'>'",
)
G(
    "placeholder_unknown_dtype",
    lambda e: v1.placeholder("floaty", [2]),
    TypeError,
    r"Cannot convert 'floaty' to a dtype: expected one of",
)
G(
    "feed_shape",
    lambda e: e.sess.run(e.p * 2.0, {e.p: [1.0, 2.0, 3.0]}),
    ValueError,
    r"Cannot feed value of shape \(3,\) for Tensor p:0, which has shape \(2,\)",
)
G(
    "feed_missing",
    lambda e: e.sess.run(e.p * 2.0),
    InvalidArgumentError,
    r"You must feed a value for placeholder tensor 'p' with dtype float and shape \[2\]",
)
G(
    "feed_strings",
    lambda e: e.sess.run(e.p * 2.0, {e.p: ["a", "b"]}),
    TypeError,
    r"Cannot convert the value fed to p:0 \['a', 'b'\] to a tensor of dtype float32: 'a' is a "
    r"string",
)
G(
    "feed_object",
    lambda e: e.sess.run(e.p * 2.0, {e.p: object()}),
    ValueError,
    r"Attempt to convert a value \(<object object at .*>\) with an unsupported type "
    r"\(<class 'object'>\) to a Tensor \(the value fed to p:0, expected numbers of dtype float32\)",
)
G(
    "feed_ragged",
    lambda e: e.sess.run(e.p * 2.0, {e.p: [[1.0], [2.0, 3.0]]}),
    ValueError,
    r"Can't convert non-rectangular Python sequence to Tensor \(the value fed to p:0",
)
G(
    "feed_none",
    lambda e: e.sess.run(e.p * 2.0, {e.p: None}),
    ValueError,
    r"Attempt to convert a value \(None\) .*\(the value fed to p:0, expected numbers of dtype "
    r"float32\)",
)
G(
    "feed_symbolic_tensor",
    lambda e: e.sess.run(e.p * 2.0, {e.p: e.p + 1.0}),
    TypeError,
    r"The value of a feed cannot be a symbolic Tensor \(add:0\)",
)
G(
    "feed_nan_into_int",
    lambda e: _int_placeholder_run(e, [np.nan, 1.0]),
    TypeError,
    r"Cannot convert the value fed to ix:0 \[nan, 1.0\] to a tensor of dtype int32",
)
G(
    "feed_fraction_into_int",
    lambda e: _int_placeholder_run(e, [1.5, 1.0]),
    TypeError,
    r"Cannot convert the value fed to ix:0 \[1.5, 1.0\] to a tensor of dtype int32",
)
G(
    "feed_overflow_into_int",
    lambda e: _int_placeholder_run(e, [2**40, 1]),
    TypeError,
    r"Cannot convert the value fed to ix:0 \[1099511627776, 1\] to a tensor of dtype int32: out "
    r"of its range",
)
G(
    "feed_key_unknown_name",
    lambda e: e.sess.run(e.p * 2.0, {"nope:0": [1.0, 2.0]}),
    KeyError,
    r"The name 'nope:0' refers to a Tensor which does not exist. The operation, 'nope', does not "
    r"exist in the graph",
)
G(
    "feed_key_int",
    lambda e: e.sess.run(e.p * 2.0, {3: [1.0, 2.0]}),
    TypeError,
    r"Cannot feed 3: feed_dict keys must be Tensors \(such as placeholders\) or tensor names like "
    r"'x:0', got int",
)
G(
    "feed_key_op_name",
    lambda e: e.sess.run(e.p * 2.0, {"p": [1.0, 2.0]}),
    TypeError,
    r"Cannot feed 'p': feed_dict keys must be Tensors .*got str",
)
G(
    "feed_other_graph",
    lambda e: e.sess.run(e.p * 2.0, {e.p: [1.0, 2.0], _other_ph(): 1.0}),
    ValueError,
    r"Cannot feed Placeholder:0: it is not an element of this session's graph",
)
G(
    "fetch_none",
    lambda e: e.sess.run(None),
    TypeError,
    r"Argument `fetch` = None has invalid type \"NoneType\". Cannot be None",
)
G(
    "fetch_int",
    lambda e: e.sess.run(3),
    TypeError,
    r"Fetch argument 3 has invalid type 'int': must be a Tensor, Operation, Variable or a name "
    r"string",
)
G(
    "fetch_object",
    lambda e: e.sess.run(object()),
    TypeError,
    r"Fetch argument <object object at .*> has invalid type 'object'",
)
G(
    "fetch_unknown_name",
    lambda e: e.sess.run("nope:0"),
    ValueError,
    r"Fetch argument 'nope:0' cannot be interpreted as a Tensor or Operation",
)
G(
    "fetch_other_graph",
    lambda e: e.sess.run(_other_const()),
    ValueError,
    r"Fetch <symgrad.Tensor 'Const:0' shape=\(\) dtype=float32> is not an element of this "
    r"session's graph",
)
G(
    "fetch_unconnected_gradient",
    lambda e: e.sess.run(tf.gradients(tf.constant(1.0) * 2.0, e.p)),
    TypeError,
    r"Argument `fetch` = None has invalid type \"NoneType\". Cannot be None. If it is a gradient, "
    r"the target does not depend on that source: symgrad.why_none\(ys, xs\) says why",
)
G(
    "closed_session",
    lambda e: _closed_session_run(),
    RuntimeError,
    r"Attempted to use a closed Session.",
)
G(
    "uninitialized_variable",
    lambda e: _uninitialized_run(e),
    FailedPreconditionError,
    r"Could not read variable 'w:0': it is uninitialized. Run global_variables_initializer\(\)",
)
G(
    "check_numerics_on_nan_feed",
    lambda e: _check_numerics_run(e),
    InvalidArgumentError,
    r"Detected Infinity or NaN in output 0 of graph op \"Log\" " + ANY + r"op: 'Log' \(type "
    r"Log, created at " + ANY + r"input 0 \(p:0\): \[-1.,  1.\]",
)


def _other_ph() -> tf.Tensor:
    with tf.Graph().as_default():
        return v1.placeholder(tf.float32, [])


def _other_const() -> tf.Tensor:
    with tf.Graph().as_default():
        return tf.constant(1.0)


def _closed_session_run() -> Any:
    s = tf.Session()
    s.close()
    return s.run(tf.constant(1.0))


def _uninitialized_run(e: Env) -> Any:
    w = tf.Variable(1.0, name="w")
    return e.sess.run(w * 2.0)


def _check_numerics_run(e: Env) -> Any:
    tf.enable_check_numerics()
    try:
        return e.sess.run(tf.log(e.p), {e.p: [-1.0, 1.0]})
    finally:
        tf.disable_check_numerics()


# --------------------------------------------------------------------------------------
# gradients(): grad_ys, unconnected values, arguments


def _grad(e: Env, **kwargs: Any) -> Any:
    x = tf.constant([1.0, 2.0], name="x")
    y = tf.multiply(x, x, name="y")
    return tf.gradients(kwargs.pop("ys", y), kwargs.pop("xs", x), **kwargs)


G(
    "grad_ys_count",
    lambda e: _grad(e, grad_ys=[ones(2), ones(2)]),
    ValueError,
    r"Length mismatch. Passed 2 grad_ys for 1 ys",
)
G(
    "grad_ys_flat_list",
    lambda e: _grad(e, grad_ys=[1.0, 2.0, 3.0]),
    ValueError,
    r"Length mismatch. Passed 3 grad_ys for 1 ys",
)
G(
    "grad_ys_shape",
    lambda e: _grad(e, grad_ys=ones(3)),
    ValueError,
    r"grad_ys\[0\] has shape \(3,\) but ys\[0\] \(y:0\) has shape \(2,\); they must match "
    r"\(no broadcasting\)",
)
G(
    "grad_ys_scalar_for_vector",
    lambda e: _grad(e, grad_ys=tf.constant(1.0)),
    ValueError,
    r"grad_ys\[0\] has shape \(\) but ys\[0\] \(y:0\) has shape \(2,\)",
)
G(
    "grad_ys_bool",
    lambda e: _grad(e, grad_ys=tf.constant([True, False])),
    TypeError,
    r"Gradient type bool generated for real or integer-valued tensor Tensor\(\"y:0\", "
    r"shape=\(2,\), dtype=float32\) with type float32 must be real or integer",
)
G(
    "grad_ys_float64",
    lambda e: _grad(e, grad_ys=ones(2, dtype=tf.float64)),
    TypeError,
    r"grad_ys\[0\] has dtype float64 but ys\[0\] \(y:0\) has dtype float32; they must match",
)
G(
    "grad_ys_strings",
    lambda e: _grad(e, grad_ys=[["a", "b"]]),
    TypeError,
    r"Cannot convert value \['a', 'b'\] to a tensor of dtype float32: 'a' is a string",
)
G(
    "grad_ys_complex_target_unset",
    lambda e: tf.gradients(tf.constant([1j]) * 2.0j, tf.constant([1j])),
    TypeError,
    r"Gradients of complex tensors \(mul:0\) must set grad_ys \(y.dtype = complex128\)",
)
G(
    "grad_unconnected_value",
    lambda e: _grad(e, unconnected_gradients="foo"),
    ValueError,
    r"Unknown value for unconnected_gradients: 'foo'; expected 'none', 'zero'",
)
G(
    "grad_aggregation_method",
    lambda e: _grad(e, aggregation_method=7),
    ValueError,
    r"Invalid `aggregation_method` specified 7. Accepted values are \[0, 1, 2\].",
)
G(
    "grad_ys_none",
    lambda e: _grad(e, ys=None),
    ValueError,
    r"gradients\(\): argument ys\[0\] must be a Tensor or Variable, got None: Attempt to convert",
)
G(
    "grad_xs_none",
    lambda e: _grad(e, xs=[None]),
    ValueError,
    r"gradients\(\): argument xs\[0\] must be a Tensor or Variable, got None",
)
G(
    "grad_xs_string",
    lambda e: _grad(e, xs=["a"]),
    TypeError,
    r"gradients\(\): argument xs\[0\] must be a Tensor or Variable, got 'a'",
)
G(
    "grad_xs_other_graph",
    lambda e: _grad(e, xs=[_other_const()]),
    ValueError,
    r"Tensor\(\"Const:0\", shape=\(\), dtype=float32\) must be from the same graph as "
    r"Tensor\(\"y:0\", shape=\(2,\), dtype=float32\) .*xs\[0\] belongs to another graph",
)
G(
    "grad_stop_gradients_other_graph",
    lambda e: _grad(e, stop_gradients=[_other_const()]),
    ValueError,
    r"must be from the same graph as Tensor\(\"y:0\".*stop_gradients\[0\] belongs "
    r"to another graph",
)
G(
    "grad_grad_ys_other_graph",
    lambda e: _grad(e, grad_ys=[_other_const()]),
    ValueError,
    r"must be from the same graph as Tensor\(\"y:0\".*grad_ys\[0\] belongs to another graph",
)
G(
    "grad_ys_two_graphs",
    lambda e: tf.gradients([e.p * 2.0, _other_const()], e.p),
    ValueError,
    r"Tensor\(\"Const:0\".*must be from the same graph as Tensor\(\"mul:0\".*ys\[1\] belongs to "
    r"another graph",
)
G(
    "grad_through_prevent_gradient",
    lambda e: tf.gradients(tf.prevent_gradient(e.p, "no way"), e.p),
    LookupError,
    r"Gradient explicitly disabled. Reason: no way",
)
E(
    "unconnected_gradient_used_in_math",
    lambda e: tf.add(tf.gradients(tf.constant(2.0), e.v)[0], 1.0),
    ValueError,
    r"Attempt to convert a value \(None\) .*If this None is a gradient, the target "
    r"does not depend on that source: symgrad.why_none\(ys, xs\) says why",
)

# --------------------------------------------------------------------------------------
# The gradient registry and gradient functions


@tf.RegisterGradient("CatalogBadCount")
def _bad_count(op: Any, g: Any) -> Any:
    return [g, g]


@tf.RegisterGradient("CatalogBadShape")
def _bad_shape(op: Any, g: Any) -> Any:
    return tf.ones([5])


@tf.RegisterGradient("CatalogBadDtype")
def _bad_dtype(op: Any, g: Any) -> Any:
    return tf.cast(g, tf.float64)


@tf.RegisterGradient("CatalogNotTensor")
def _not_tensor(op: Any, g: Any) -> Any:
    return "oops"


@tf.RegisterGradient("CatalogRaises")
def _raises(op: Any, g: Any) -> Any:
    raise RuntimeError("the user's rule failed")


_no_grad_op = tf.custom_op("CatalogNoGrad", lambda x: x * 2.0, shape_fn=lambda s: s)
_failing_op = tf.custom_op("CatalogFailing", lambda x: x[[5]], shape_fn=lambda s: s)


def _overridden(e: Env, rule: str) -> Any:
    x = tf.constant([2.0, 3.0, 4.0])
    with tf.get_default_graph().gradient_override_map({"Square": rule}):
        y = tf.square(x, name="sq")
    return tf.gradients(y, x)


G("register_non_string", lambda e: tf.RegisterGradient(3), TypeError, r"op_type must be a string")
G(
    "register_twice",
    lambda e: tf.RegisterGradient("MatMul")(lambda op, g: g),
    KeyError,
    r"Registering two gradient with name 'MatMul'! \(Previous registration was in _matmul_grad ",
)
G(
    "no_gradient_twice",
    lambda e: tf.no_gradient("MatMul"),
    KeyError,
    r"Registering two gradient with name 'MatMul'!",
)
G(
    "lookup_unregistered",
    lambda e: tf.gradient_registry.lookup("Placeholder"),
    LookupError,
    r"gradient registry has no entry for: Placeholder",
)
G(
    "register_op_twice",
    lambda e: tf.register_op("MatMul", lambda i: i, lambda x: x),
    KeyError,
    r"An op of type 'MatMul' is already registered",
)
G(
    "register_op_non_string",
    lambda e: tf.register_op(3, lambda i: i, lambda x: x),
    TypeError,
    r"op_type must be a non-empty string, got 3",
)
G(
    "override_map_not_dict",
    lambda e: tf.get_default_graph().gradient_override_map([("Square", "X")]).__enter__(),
    TypeError,
    r"op_type_map must be a dictionary mapping strings to strings",
)
G(
    "override_map_non_string",
    lambda e: tf.get_default_graph().gradient_override_map({"Square": 3}).__enter__(),
    TypeError,
    r"op_type_map must be a dictionary mapping strings to strings",
)
G(
    "override_to_unregistered",
    lambda e: _overridden(e, "CatalogNowhere"),
    LookupError,
    r"No gradient defined for operation ?'sq' \(op type: \w+\)",
)  # TF names Square: parity test
G(
    "gradient_of_op_without_rule",
    lambda e: tf.gradients(_no_grad_op(e.p), e.p),
    LookupError,
    r"No gradient defined for operation 'CatalogNoGrad' \(op type: CatalogNoGrad\), created at "
    r".*declare it with `NoGradient\(\"CatalogNoGrad\"\)`",
)
G(
    "rule_returns_too_many",
    lambda e: _overridden(e, "CatalogBadCount"),
    ValueError,
    r"Num gradients 2 generated for op 'sq' \(type Square, created at .*\) do not match num "
    r"inputs 1: the gradient function registered for 'CatalogBadCount' must return one gradient",
)
G(
    "rule_returns_wrong_shape",
    lambda e: _overridden(e, "CatalogBadShape"),
    ValueError,
    r"Incompatible shapes between op input and calculated input gradient. Forward operation: sq "
    r"\(type Square, .*Input index: 0. Original input shape: \(3,\). Calculated input gradient "
    r"shape: \(5,\)",
)
G(
    "rule_returns_wrong_dtype",
    lambda e: _overridden(e, "CatalogBadDtype"),
    TypeError,
    r"The gradient function for 'CatalogBadDtype' returned a float64 gradient for input 0 "
    r"\(float32\) of op 'sq'",
)
G(
    "rule_returns_a_string",
    lambda e: _overridden(e, "CatalogNotTensor"),
    TypeError,
    r"The gradient function for 'CatalogNotTensor' returned 'oops' for input 0 of op 'sq' "
    r"\(type Square, .*\), which is not a tensor: Cannot convert value 'oops'",
)
G("rule_raises", lambda e: _overridden(e, "CatalogRaises"), RuntimeError, r"the user's rule failed")
E(
    "custom_op_kernel_fails",
    lambda e: _failing_op(ones(3)),
    InvalidArgumentError,
    r"CatalogFailing op 'CatalogFailing' .*failed: IndexError: index 5 is out of bounds",
)

# --------------------------------------------------------------------------------------
# GradientTape misuse


def _taped(persistent: bool = False) -> tuple[Any, tf.Tensor, tf.Tensor]:
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = x * x
    return t, x, y


def _tape_twice(jacobian: bool = False) -> Any:
    t, x, y = _taped()
    (t.jacobian if jacobian else t.gradient)(y, x)
    return (t.jacobian if jacobian else t.gradient)(y, x)


def _watch(value: Any) -> None:
    with tf.GradientTape() as t:
        t.watch(value)


def _reenter() -> None:
    t = tf.GradientTape()
    with t, t:
        pass


def _stop_recording(entered: bool) -> None:
    t = tf.GradientTape()
    if entered:
        with t:
            pass
    with t.stop_recording():
        pass


E(
    "tape_watch_float",
    lambda e: _watch(3.0),
    ValueError,
    r"Passed in object 3.0 of type 'float', not tf.Tensor or tf.Variable or ExtensionType",
)
E(
    "tape_watch_string",
    lambda e: _watch("a"),
    ValueError,
    r"Passed in object a of type 'str', not tf.Tensor",
)
E(
    "tape_watch_list_with_object",
    lambda e: _watch([tf.constant(1.0), object()]),
    ValueError,
    r"Passed in object <object object at .*> of type 'object', not tf.Tensor",
)
E(
    "tape_used_twice",
    lambda e: _tape_twice(),
    RuntimeError,
    r"A non-persistent GradientTape can only be used to compute one set of gradients "
    r"\(or jacobians\)",
)
E(
    "tape_jacobian_twice",
    lambda e: _tape_twice(jacobian=True),
    RuntimeError,
    r"A non-persistent GradientTape can only be used to compute one set of gradients",
)
E(
    "tape_never_entered",
    lambda e: tf.GradientTape().gradient(tf.constant(1.0), tf.constant(1.0)),
    RuntimeError,
    r"A non-persistent GradientTape can only be used",
)
E(
    "tape_target_none",
    lambda e: _taped()[0].gradient(None, tf.constant(1.0)),
    TypeError,
    r"Argument `target` should be a list or nested structure of Tensors, Variables or "
    r"CompositeTensors to be differentiated, but received None",
)
E(
    "tape_sources_none",
    lambda e: _taped()[0].gradient(tf.constant(1.0), None),
    ValueError,
    r"Sources must be Tensors or Variables, got None of type 'NoneType'",
)
E(
    "tape_source_float",
    lambda e: (lambda t, x, y: t.gradient(y, 3.0))(*_taped()),
    ValueError,
    r"Sources must be Tensors or Variables, got 3.0 of type 'float'",
)
E(
    "tape_reentered",
    lambda e: _reenter(),
    ValueError,
    r"Tape is still recording, This can happen if you try to re-enter an already-active tape",
)
E(
    "tape_stop_recording_never_entered",
    lambda e: _stop_recording(False),
    RuntimeError,
    r"Trying to stop recording a tape which is not recording",
)
E(
    "tape_stop_recording_after_exit",
    lambda e: _stop_recording(True),
    ValueError,
    r"Tape is not recording",
)
E(
    "tape_output_gradients_none",
    lambda e: (lambda t, x, y: t.gradient(y, x, output_gradients=[None]))(*_taped()),
    ValueError,
    r"Attempt to convert a value \(None\)",
)
E(
    "tape_output_gradients_shape",
    lambda e: (lambda t, x, y: t.gradient(y, x, output_gradients=ones(3)))(*_taped()),
    InvalidArgumentError,
    r"Incompatible shapes: output_gradients\[0\] has shape \(3,\) but "
    r"target 0 has shape \(2,\)",
)
E(
    "tape_unconnected_value",
    lambda e: (lambda t, x, y: t.gradient(y, x, unconnected_gradients="foo"))(*_taped()),
    ValueError,
    r"Unknown value for unconnected_gradients: 'foo'",
)
E(
    "tape_batch_jacobian_rank",
    lambda e: (lambda t, x, y: t.batch_jacobian(y, x))(*_taped()),
    ValueError,
    r"Shape \(2,\) must have rank at least 2",
)
E(
    "tape_batch_jacobian_batch_sizes",
    lambda e: _batch_jacobian_sizes(),
    ValueError,
    r"Need first dimension of target shape \(\(2, 2\)\) and source shape \(\(3, 3\)\) to match",
)


def _batch_jacobian_sizes() -> Any:
    x = ones(3, 3)
    with tf.GradientTape() as t:
        t.watch(x)
        y = ones(2, 2) * 1.0
    return t.batch_jacobian(y, x)


# --------------------------------------------------------------------------------------
# function: signatures, arguments, concrete functions


def _signed(*specs: Any) -> Any:
    return tf.function(lambda x: x * 2.0, input_signature=list(specs))


E(
    "function_call_wrong_shape",
    lambda e: _signed(tf.TensorSpec([2]))(ones(3)),
    TypeError,
    r"Binding inputs to tf.function failed due to `Can not cast TensorSpec\(shape=\(3,\), "
    r"dtype=tf.float32, name=None\) to TensorSpec\(shape=\(2,\), dtype=tf.float32, name=None\)`",
)
E(
    "function_call_wrong_dtype",
    lambda e: _signed(tf.TensorSpec([2]))(ones(2, dtype=tf.int32)),
    TypeError,
    r"Binding inputs to tf.function failed due to `Can not cast TensorSpec\(shape=\(2,\), "
    r"dtype=tf.int32, name=None\) to TensorSpec\(shape=\(2,\), dtype=tf.float32",
)
E(
    "function_call_too_many",
    lambda e: _signed(tf.TensorSpec([2]))(ones(2), ones(2)),
    TypeError,
    r"Binding inputs to tf.function failed due to `too many positional arguments`\. Received "
    r"args: \(<symgrad.Tensor: shape=\(2,\).*\) and kwargs: \{\} for signature: "
    r"\(x: TensorSpec\(shape=\(2,\), dtype=tf.float32, name=None\)\)\.",
)
E(
    "function_call_too_few",
    lambda e: tf.function(lambda x, y: x, input_signature=[tf.TensorSpec([2])] * 2)(ones(2)),
    TypeError,
    r"Binding inputs to tf.function failed due to `missing a required argument: 'y'`",
)
E(
    "function_call_missing_argument",
    lambda e: tf.function(lambda x, y: x + y)(ones(2)),
    TypeError,
    r"Binding inputs to tf.function failed due to `missing a required argument: 'y'`\. "
    r"Received args: \(<symgrad.Tensor: .*\) and kwargs: \{\} for signature: \(x, y\)\.",
)
E(
    "function_call_unknown_keyword",
    lambda e: tf.function(lambda x: x)(ones(2), z=1),
    TypeError,
    r"Binding inputs to tf.function failed due to `got an unexpected keyword argument 'z'`",
)
E(
    "function_signature_int",
    lambda e: tf.function(lambda x: x, input_signature=[3])(1.0),
    TypeError,
    r"input_signature must be a possibly nested sequence of TensorSpec objects, got "
    r"invalid args \[3\]",
)
E(
    "function_signature_none",
    lambda e: tf.function(lambda x: x, input_signature=[None])(ones(2)),
    TypeError,
    r"input_signature must be a possibly nested sequence of TensorSpec objects",
)
E(
    "function_signature_not_a_list",
    lambda e: tf.function(lambda x: x, input_signature=tf.TensorSpec([2]))(ones(2)),
    TypeError,
    r"input_signature must be either a tuple or a list, got .*TensorSpec",
)
E(
    "function_of_non_callable",
    lambda e: tf.function(3),
    TypeError,
    r"3 is not a callable object",
)
E(
    "function_returns_object",
    lambda e: tf.function(lambda x: object())(ones(2)),
    TypeError,
    r"must return zero or more Tensors",
)
E(
    "concrete_function_missing_argument",
    lambda e: tf.function(lambda x: x * 2.0).get_concrete_function(),
    TypeError,
    r"Binding inputs to tf.function failed due to `missing a required argument: 'x'`\. "
    r"Received args: \(\) and kwargs: \{\} for signature: \(x\)\.",
)
E(
    "concrete_function_wrong_dtype",
    lambda e: tf.function(lambda x: x * 2.0).get_concrete_function(tf.TensorSpec([2], tf.float32))(
        ones(2, dtype=tf.float64)
    ),
    ValueError,
    r"Tensor conversion requested dtype float32 for Tensor with dtype float64",
)
E(
    "tensor_spec_negative_size",
    lambda e: tf.TensorSpec([-3]),
    ValueError,
    r"Dimension -3 must be >= 0",
)
E(
    "tensor_spec_unknown_dtype",
    lambda e: tf.TensorSpec([2], "floaty"),
    TypeError,
    r"Cannot convert 'floaty' to a dtype",
)
E(
    "function_body_shape_error",
    lambda e: tf.function(lambda x: tf.matmul(x, x))(ones(2, 3)),
    ValueError,
    r"MatMul op 'MatMul' .*inner dimensions 3 and 2 differ",
)
E(
    "function_creates_variable_twice",
    lambda e: _variable_each_call(),
    ValueError,
    r"tf.function only supports singleton tf.Variables created on the first call",
)


def _variable_each_call() -> Any:
    made = []

    @tf.function
    def f(x: Any) -> Any:
        made.append(tf.Variable(1.0))
        return x

    f(ones(2))
    return f(ones(3))


# --------------------------------------------------------------------------------------
# Variables


E(
    "assign_shape",
    lambda e: e.v.assign([1.0, 2.0, 3.0]),
    ValueError,
    r"Cannot assign value to variable ' v.*:0': Shape mismatch.The variable shape \(2,\), and "
    r"the assigned value shape \(3,\) are incompatible",
)
G(
    "assign_shape_graph",
    lambda e: e.v.assign([1.0, 2.0, 3.0]),
    ValueError,
    r"Cannot assign value to variable ' v:0': Shape mismatch.The variable shape \(2,\), and the "
    r"assigned value shape \(3,\) are incompatible",
)
E(
    "assign_dtype",
    lambda e: e.v.assign(tf.constant([1, 2])),
    ValueError,
    r"Tensor conversion requested dtype float32 for Tensor with dtype int32",
)
E(
    "assign_string",
    lambda e: e.v.assign("a"),
    TypeError,
    r"Cannot convert value 'a' to a tensor of dtype float32: 'a' is a string",
)
E(
    "assign_add_shape",
    lambda e: e.v.assign_add([1.0, 2.0, 3.0]),
    ValueError,
    r"Cannot update variable with shape \[2\] using a Tensor with shape \[3\], shapes must be "
    r"equal. \(variable 'v.*:0'\)",
)
E(
    "assign_sub_dtype",
    lambda e: e.v.assign_sub(tf.constant([1.0, 2.0], tf.float64)),
    ValueError,
    r"Tensor conversion requested dtype float32 for Tensor with dtype float64",
)
E("variable_of_none", lambda e: tf.Variable(None), ValueError, r"initial_value must be specified")
E(
    "variable_of_string",
    lambda e: tf.Variable("a"),
    TypeError,
    r"Cannot convert initial_value 'a' to a tensor: 'a' is a string",
)
E(
    "variable_of_object",
    lambda e: tf.Variable(object()),
    ValueError,
    r"Attempt to convert a value \(<object object at .*>\) with an unsupported type",
)
E(
    "variable_fraction_as_int",
    lambda e: tf.Variable(1.5, dtype=tf.int32),
    TypeError,
    r"Cannot convert initial_value 1.5 to a tensor of dtype int32",
)
# (In a graph of its own: while it is accepted, the broken variable must not outlive the test.)
G(
    "variable_shape_argument",
    lambda e: tf.Variable([1.0, 2.0], shape=[3]),
    ValueError,
    r"initial value's shape \(\(2,\)\) is not compatible with the explicitly supplied `shape`",
)
E(
    "variable_plus_wrong_shape",
    lambda e: e.v + ones(3),
    ValueError,
    r"AddV2 op .*Incompatible shapes for broadcasting: \(2,\) and \(3,\)",
)
E(
    "variable_index_out_of_range",
    lambda e: e.v[5],
    ValueError,
    r"StridedSlice op .*slice index 5 of dimension 0 out of bounds",
)

# --------------------------------------------------------------------------------------
# custom_gradient


def _custom(f: Any, *args: Any) -> Any:
    xs = [tf.constant(a) for a in args]
    with tf.GradientTape() as t:
        t.watch(xs)
        z = tf.custom_gradient(f)(*xs)
    return t.gradient(z, xs)


E(
    "custom_gradient_too_few_gradients",
    lambda e: _custom(lambda x, y: (x * y, lambda g: g), 2.0, 3.0),
    ValueError,
    r"custom_gradient function expected to return 2 gradients but returned 1 instead",
)
E(
    "custom_gradient_no_pair",
    lambda e: _custom(lambda x: x * 2.0, 2.0),
    TypeError,
    r"@custom_gradient function .*<lambda> must return a pair \(y, grad_fn\) with a callable "
    r"grad_fn, but returned a Tensor",
)
E(
    "custom_gradient_grad_fn_not_callable",
    lambda e: _custom(lambda x: (x * 2.0, 3.0), 2.0),
    TypeError,
    r"must return a pair \(y, grad_fn\) with a callable grad_fn, but returned a tuple "
    r"of 2 items",
)
E(
    "custom_gradient_needs_variables_keyword",
    lambda e: _custom(lambda x: (x * e.v, lambda g: g), 2.0),
    TypeError,
    r"@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses "
    r"variables: \['v.*'\]",
)

# --------------------------------------------------------------------------------------
# Graphs, tensors and shapes used the wrong way

G(
    "scope_name_invalid",
    lambda e: tf.name_scope("bad name!").__enter__(),
    ValueError,
    r"'bad name!' is not a valid scope name",
)
G(
    "tensor_by_unknown_name",
    lambda e: tf.get_default_graph().get_tensor_by_name("nope:0"),
    KeyError,
    r"The name 'nope:0' refers to a Tensor which does not exist",
)
G(
    "operation_by_unknown_name",
    lambda e: tf.get_default_graph().get_operation_by_name("nope"),
    KeyError,
    r"The name 'nope' refers to an Operation not in the graph",
)
G(
    "tensor_by_operation_name",
    lambda e: tf.get_default_graph().get_tensor_by_name("p"),
    ValueError,
    r"The name 'p' looks like an Operation name, not a Tensor name",
)
G(
    "numpy_of_graph_tensor",
    lambda e: (e.p * 2.0).numpy(),
    ValueError,
    r"Tensor mul:0 is symbolic \(it depends on a placeholder or was built inside a graph\), so it "
    r"has no value yet",
)
G(
    "bool_of_graph_tensor",
    lambda e: bool(e.p[0] > 0.0),
    TypeError,
    r"Using a symbolic Tensor \(Greater:0\) as a Python bool is not allowed",
)
E(
    "bool_of_vector",
    lambda e: bool(tf.constant([1.0, 2.0]) > 0.0),
    ValueError,
    r"The truth value of an array with more than one element is ambiguous",
)
E(
    "iterate_scalar",
    lambda e: list(tf.constant(1.0)),
    TypeError,
    r"Cannot iterate over a scalar tensor\.",  # TF 2.21's text
)
E(
    "int_of_vector",
    lambda e: int(tf.constant([1, 2])),
    TypeError,
    r"int\(\) needs a tensor with one element, got shape \(2,\)",
)
E(
    "len_of_scalar",
    lambda e: len(tf.constant(1.0)),
    TypeError,
    r"len is not well defined for a tensor of shape \(\)",
)
E(
    "shape_string_size",
    lambda e: tf.TensorShape([2, "a"]),
    TypeError,
    r"Dimension value must be integer or None or have an __index__ method, got value ''a'' with "
    r"type '<class 'str'>'",
)
E("shape_negative_size", lambda e: tf.TensorShape([-4]), ValueError, r"Dimension -4 must be >= 0")
E(
    "shape_merge",
    lambda e: tf.TensorShape([2]).merge_with(tf.TensorShape([3])),
    ValueError,
    r"Shapes \(2,\) and \(3,\) are not compatible",
)
E(
    "shape_unknown_as_list",
    lambda e: tf.TensorShape(None).as_list(),
    ValueError,
    r"as_list\(\) is not defined on an unknown TensorShape",
)
G(
    "set_shape_incompatible",
    lambda e: e.p.set_shape([3]),
    ValueError,
    r"Shapes \(2,\) and \(3,\) are not compatible",
)
G(
    "control_dependency_on_int",
    lambda e: tf.control_dependencies([3]).__enter__(),
    TypeError,
    r"Control input must be an Operation or a Tensor, got 3",
)
G(
    "op_from_another_graph",
    lambda e: e.p + _other_const(),
    ValueError,
    r"AddV2: Tensor Const:0 must be from the same graph as the op being built",
)


# --------------------------------------------------------------------------------------
# The test


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(
            b, id=b.id, marks=[pytest.mark.xfail(strict=True, reason=b.xfail)] if b.xfail else []
        )
        for b in ROWS
    ],
)
def test_bad_input(bad: Bad) -> None:
    env = Env(bad.mode)
    if bad.mode == "graph":
        with env.graph.as_default(), pytest.raises(bad.exc, match=bad.match):
            bad.call(env)
    else:
        with pytest.raises(bad.exc, match=bad.match):
            bad.call(env)
    env.check()


def test_catalogue_size_and_ids() -> None:
    ids = [b.id for b in ROWS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert len(ids) >= 150
    for b in ROWS:
        re.compile(b.match)


# --------------------------------------------------------------------------------------
# Empty tensors are valid input: TensorFlow's values (recorded with TF 2.21)


def _tape_grad(x: tf.Tensor, f: Callable[[tf.Tensor], tf.Tensor]) -> Any:
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x)


EMPTY = [
    ("max", lambda: tf.reduce_max(tf.zeros([0])), np.float32(-np.inf)),
    ("min", lambda: tf.reduce_min(tf.zeros([0])), np.float32(np.inf)),
    ("mean", lambda: tf.reduce_mean(tf.zeros([0])), np.float32(np.nan)),
    ("max_int", lambda: tf.reduce_max(tf.zeros([0], tf.int32)), np.int32(-2147483648)),
    ("sum", lambda: tf.reduce_sum(tf.zeros([0, 3]), 0), np.zeros(3, np.float32)),
    ("prod", lambda: tf.reduce_prod(tf.zeros([0, 3]), 0), np.ones(3, np.float32)),
    (
        "matmul_empty_inner",
        lambda: tf.matmul(tf.zeros([2, 0]), tf.zeros([0, 3])),
        np.zeros((2, 3), np.float32),
    ),
    (
        "matmul_empty_rows",
        lambda: tf.matmul(tf.zeros([0, 3]), tf.ones([3, 2])),
        np.zeros((0, 2), np.float32),
    ),
    (
        "concat",
        lambda: tf.concat([tf.zeros([0, 3]), tf.ones([1, 3])], 0),
        np.ones((1, 3), np.float32),
    ),
    ("softmax", lambda: tf.nn.softmax(tf.zeros([0, 3])), np.zeros((0, 3), np.float32)),
    ("one_hot", lambda: tf.one_hot(tf.zeros([0], tf.int32), 3), np.zeros((0, 3), np.float32)),
    ("gather", lambda: tf.gather(tf.ones([3]), tf.zeros([0], tf.int32)), np.zeros(0, np.float32)),
    (
        "segment_sum",
        lambda: tf.unsorted_segment_sum(tf.zeros([0]), tf.zeros([0], tf.int32), 2),
        np.zeros(2, np.float32),
    ),
    ("reshape", lambda: tf.reshape(tf.zeros([0, 3]), [3, 0]), np.zeros((3, 0), np.float32)),
    ("empty_slice", lambda: tf.ones([3])[2:1], np.zeros(0, np.float32)),
    (
        "grad_of_sum",
        lambda: _tape_grad(tf.zeros([0, 3]), lambda x: tf.reduce_sum(tf.exp(x))),
        np.zeros((0, 3), np.float32),
    ),
    (
        "grad_through_empty_slice",
        lambda: _tape_grad(tf.ones([2]), lambda x: tf.reduce_sum(x[1:1])),
        np.zeros(2, np.float32),
    ),
    ("grad_of_max", lambda: _tape_grad(tf.zeros([0]), tf.reduce_max), np.zeros(0, np.float32)),
]


@pytest.mark.parametrize("f, expected", [pytest.param(f, v, id=n) for n, f, v in EMPTY])
def test_empty_tensors_give_tfs_values(f: Callable[[], tf.Tensor], expected: Any) -> None:
    got = f().numpy()
    assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def test_eager_shape_errors_are_tfs_invalid_argument_errors():
    """TF 2.21's eager classes (a ValueError here too, for graph-mode callers)."""
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.zeros([-1])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"^logits and labels must be broadcastable: logits_size=\[2,4\] labels_size=\[2,3\]$",
    ):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.ones([2, 3]), logits=tf.ones([2, 4]))
