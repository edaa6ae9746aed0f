"""TF 2.21's results for tests/ops/script_programs.py (written by it: do not edit)."""

EXPECTED = {
    "np_eager": {
        "single": ("array", "float32", [2.0, 4.0]),
        "f64_for_f32": ("array", "float64", [1.0, 2.0]),
        "list_of_one": ("array", "float32", [1.0, 2.0]),
        "two": [("array", "float32", [1.0, 2.0]), ("array", "float32", [2.0, 3.0])],
        "count_not_checked": [("array", "float32", [1.0, 2.0]), ("array", "float32", [1.0, 2.0])],
        "none": None,
        "python_float": ("array", "float64", 2.0),
        "python_int": ("array", "int64", 6),
        "scalar_return": ("array", "float32", 3.0),
        "py_func": ("array", "float32", [2.0, 4.0]),
        "py_func_stateless": ("array", "float32", [2.0, 4.0]),
        "mutating": ("array", "float32", [0.0, 2.0]),
        "x_after": ("array", "float32", [1.0, 2.0]),
        "decorated": ("array", "float64", [2.175201177597046, 4.6268603801727295]),
        "decorated_name": "decorated",
        "seen": [
            ["ndarray", "float32", [2], "array([1., 2.], dtype=float32)"],
            ["ndarray", "float64", [], "array(1.)"],
            ["ndarray", "int64", [], "array(3)"],
            ["ndarray", "float32", [2], "array([1., 2.], dtype=float32)"],
            ["ndarray", "float32", [2], "array([1., 2.], dtype=float32)"],
        ],
    },
    "np_eager_errors": [
        (
            "error",
            "TypeError",
            "Missing required argument: 'Tout'\n"
            "  If using tf.numpy_function as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            "  `@tf.numpy_function(Tout=tout)`",
        ),
        (
            "error",
            "TypeError",
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            "  function), unless you use `tf.numpy_function` as a "
            "decorator(`func=None`).",
        ),
        (
            "error",
            "TypeError",
            "Don't set the `inp` argument when using tf.numpy_function as a decorator "
            "(`func=None`).",
        ),
        ("error", "TypeError", "'int' object is not callable"),
        ("error", "ZeroDivisionError", "division by zero"),
        ("error", "TypeError", "unhashable type: 'numpy.ndarray'"),
    ],
    "np_in_function": {
        "first": ("array", "float32", [8.0, 14.0]),
        "second": ("array", "float32", [20.0, 26.0]),
        "decorated inside": ("array", "float32", 1.1752012),
        "calls": [
            ["np", [1.0, 2.0]],
            ["v1", [1.0, 2.0]],
            ["unused", [1.0, 2.0]],
            ["np", [3.0, 4.0]],
            ["v1", [3.0, 4.0]],
            ["unused", [3.0, 4.0]],
            ["decorated", "array(1., dtype=float32)"],
        ],
        "stateless": [
            ["stateless const", 1.0],
            ["stateless", [1.0, 2.0]],
            ["stateless", [3.0, 4.0]],
        ],
        "traced": [["PyFunc", None, "PyFunc", "PyFuncStateless", "PyFuncStateless"]],
    },
    "np_in_control_flow": {
        "first": ("array", "float32", 4.0),
        "second": ("array", "float32", 4.5),
        "calls": [
            ["body", 0.0],
            ["body", 1.0],
            ["body", 2.0],
            ["true", 3.0],
            ["body", 1.5],
            ["body", 2.5],
            ["false", 3.5],
        ],
    },
    "np_function_errors": {
        "double for float": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_0 is double, but expects float",
        ),
        "python float": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_1 is double, but expects float",
        ),
        "python int": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_2 is int64, but expects float",
        ),
        "int64 for int32": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_3 is int64, but expects int32",
        ),
        "float for int32": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_4 is float, but expects int32",
        ),
        "bool for float": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_5 is bool, but expects float",
        ),
        "half": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_6 is half, but expects int32",
        ),
        "uint16": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_7 is uint16, but expects int32",
        ),
        "int8": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_8 is int8, but expects int32",
        ),
        "uint64": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_9 is uint64, but expects int32",
        ),
        "complex64": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_10 is complex64, but expects int32",
        ),
        "complex128": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_11 is complex128, but expects int32",
        ),
        "string": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_12 is string, but expects float",
        ),
        "bytes": (
            "error",
            "InvalidArgumentError",
            "0-th value returned by pyfunc_13 is string, but expects float",
        ),
        "two for one": (
            "error",
            "InvalidArgumentError",
            "pyfunc_14 returns 2 values, but expects to see 1 values.",
        ),
        "three for two": (
            "error",
            "InvalidArgumentError",
            "pyfunc_15 returns 3 values, but expects to see 2 values.",
        ),
        "one for two": (
            "error",
            "InvalidArgumentError",
            "pyfunc_16 returns 1 values, but expects to see 2 values.",
        ),
        "single for two": (
            "error",
            "InvalidArgumentError",
            "pyfunc_17 returns 1 values, but expects to see 2 values.",
        ),
        "list of scalars": (
            "error",
            "InvalidArgumentError",
            "pyfunc_18 returns 2 values, but expects to see 1 values.",
        ),
        "none for one": (
            "error",
            "InvalidArgumentError",
            "pyfunc_19 returns 0 values, but expects to see 1 values.",
        ),
        "none in a list": ("error", "InternalError", "Unsupported object type NoneType"),
        "dict": ("error", "InternalError", "Unsupported object type dict"),
        "datetime": ("error", "InternalError", "Unsupported numpy type: NPY_DATETIME"),
        "object ints": ("error", "InternalError", "Unsupported object type int"),
        "ValueError": ("error", "InvalidArgumentError", "ValueError: v ... ValueError: v"),
        "TypeError": ("error", "InvalidArgumentError", "TypeError: t ... TypeError: t"),
        "StopIteration": ("error", "OutOfRangeError", "StopIteration: ... StopIteration"),
        "MemoryError": ("error", "ResourceExhaustedError", "MemoryError: m ... MemoryError: m"),
        "NotImplementedError": (
            "error",
            "UnimplementedError",
            "NotImplementedError: n ... NotImplementedError: n",
        ),
        "IndexError": ("error", "UnknownError", "IndexError: i ... IndexError: i"),
        "KeyError": ("error", "UnknownError", "KeyError: 'k' ... KeyError: 'k'"),
        "RuntimeError": ("error", "UnknownError", "RuntimeError: r ... RuntimeError: r"),
        "ZeroDivisionError": (
            "error",
            "UnknownError",
            "ZeroDivisionError: division by zero ... ZeroDivisionError: division by zero",
        ),
        "tuple of one": ("array", "float32", [1.0, 2.0]),
        "nested list": ("array", "float32", [[1.0, 2.0]]),
        "a tensor": ("array", "float32", [1.0, 2.0]),
        "bool": ("array", "bool", [False, True]),
    },
    "np_session": {
        "types": ["PyFunc", "PyFuncStateless", "PyFunc", "Operation", "PyFunc"],
        "names": ["PyFunc", "PyFuncStateless", "PyFunc_1", "myname:0", "PyFunc_3:0", "PyFunc_4:1"],
        "list": ["list", 1, "list", "int32"],
        "shapes": [None, None, None],
        "attrs": [
            "pyfunc_0",
            ["dtype float32"],
            ["dtype float32", "dtype int32"],
            ["dtype float32"],
        ],
        "gradients": [None, None, None],
        "run": [
            ("array", "float32", [1.0, 4.0, 9.0]),
            ("array", "float32", [2.0, 3.0, 4.0]),
            ("array", "float32", [0.0, 1.0, 2.0]),
            [("array", "float32", [1.0, 2.0, 3.0])],
        ],
        "again": ("array", "float32", [16.0, 25.0, 36.0]),
        "no outputs": None,
        "error": (
            "error",
            "InvalidArgumentError",
            "1-th value returned by pyfunc_6 is float, but expects int32",
        ),
        "calls": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    },
    "np_stateless_folding": {
        "first": [("array", "float32", 1.0), ("array", "float32", 1.0)],
        "calls": ["stateless", "stateful", "stateful", "stateless"],
    },
    "np_dataset": {
        "spec": [None, "dtype float32"],
        "values": [
            ("array", "float32", 0.0),
            ("array", "float32", 1.5),
            ("array", "float32", 3.0),
            ("array", "float32", 4.5),
        ],
        "calls": [0, 1, 2, 3],
        "pairs spec": ["dtype int64", "dtype float32"],
        "pairs": [
            [("array", "int64", 0), ("array", "float32", 0.0)],
            [("array", "int64", 1), ("array", "float32", 1.0)],
            [("array", "int64", 2), ("array", "float32", 2.0)],
        ],
        "stateless": [("array", "float32", 4.0), ("array", "float32", 8.0)],
    },
    "np_gradients": [
        None,
        ("array", "float32", [1.0, 1.0, 1.0]),
        None,
        ("array", "float32", [1.0, 1.0, 1.0]),
        None,
    ],
    "py_eager": {
        "single": ("array", "float32", [2.0, 4.0]),
        "list_of_one": [("array", "float32", [1.0, 2.0])],
        "tuple_tout": [("array", "float32", [1.0, 2.0]), ("array", "float32", [2.0, 3.0])],
        "spec_tout": ("array", "float32", [3.0, 6.0]),
        "string_tout": ("array", "float32", [1.0, 2.0]),
        "none": [],
        "numpy_f64_to_f32": ("array", "float32", [1.0, 2.0]),
        "int_to_float": ("array", "float32", 3.0),
        "longer_cut": ("array", "float32", [1.0, 2.0]),
        "list_cut": ("array", "float32", 1.0),
        "python_inputs": ("array", "float32", 6.0),
        "variable_input": ("array", "float32", 2.5),
        "decorated": [("array", "float32", [1.0, 4.0]), ("array", "float32", [1.5, 3.0])],
        "decorated_name": "decorated",
        "seen": [["EagerTensor", True, "float32"]],
    },
    "py_eager_errors": {
        "tensor of another dtype": (
            "error",
            "InvalidArgumentError",
            "ValueError: Tensor conversion requested dtype "
            "float32 for Tensor with dtype float64: "
            "<tf.Tensor: shape=(2,), dtype=float64, "
            "numpy=array([1., 2.])> ... [Op:EagerPyFunc] "
            "name:",
        ),
        "bool tensor": (
            "error",
            "InvalidArgumentError",
            "ValueError: Tensor conversion requested dtype float32 for "
            "Tensor with dtype bool: <tf.Tensor: shape=(2,), dtype=bool, "
            "numpy=array([False,  True])> ... [Op:EagerPyFunc] name:",
        ),
        "one for two": (
            "error",
            "InvalidArgumentError",
            "pyfunc_2 returns 1 values, but expects to see 2 values. [Op:EagerPyFunc] name: ",
        ),
        "single for two": (
            "error",
            "InvalidArgumentError",
            "pyfunc_3 returns 1 values, but expects to see 2 values. [Op:EagerPyFunc] name: nm",
        ),
        "none for one": (
            "error",
            "InvalidArgumentError",
            "pyfunc_4 returns 0 values, but expects to see 1 values. [Op:EagerPyFunc] name: ",
        ),
        "none in a list": ("error", "InvalidArgumentError"),
        "raises": (
            "error",
            "UnknownError",
            "ZeroDivisionError: division by zero ... [Op:EagerPyFunc] name:",
        ),
        "a variable": (
            "error",
            "UnknownError",
            "RuntimeError: Attempting to return a variable from an eagerly "
            "executed py_func. Only numeric data structures like Tensors "
            "or NumPy arrays should be returned; to return the value of a "
            "variable, make sure to obtain the Tensor backing it by "
            "calling `.read_value()` on the variable in question: "
            "<tf.Variable 'returned_from_py:0' shape=() dtype=float32, numpy=1.0> ... "
            "[Op:EagerPyFunc] name:",
        ),
        "one tensor as inp": (
            "error",
            "InvalidArgumentError",
            "TypeError: "
            "py_eager_errors.<locals>.<lambda>.<locals>.<lambda>() "
            "takes 1 positional argument but 2 were given ... "
            "[Op:EagerPyFunc] name:",
        ),
        "an inner op fails": ("error", "UnknownError"),
        "not callable": (
            "error",
            "ValueError",
            "Expected func to be callable. Received func=3 of type <class 'int'>.",
        ),
        "no Tout": (
            "error",
            "TypeError",
            "Missing required argument: 'Tout'\n"
            "  If using tf.py_function as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            "  `@tf.py_function(Tout=tout)`",
        ),
        "no inp": (
            "error",
            "TypeError",
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            "  function), unless you use `tf.py_function` as a "
            "decorator(`func=None`).",
        ),
        "decorator with inp": (
            "error",
            "TypeError",
            "Don't set the `inp` argument when using tf.py_function as a decorator (`func=None`).",
        ),
    },
    "py_in_function": {
        "first": ("array", "float32", [3.0, 6.0]),
        "second": ("array", "float32", [6.0, 12.0]),
        "calls": [
            ["EagerTensor", True, [1.0, 2.0]],
            "unused",
            ["EagerTensor", True, [2.0, 4.0]],
            "unused",
        ],
        "traced": [["EagerPyFunc", None]],
        "wrong dtype": (
            "error",
            "InvalidArgumentError",
            "ValueError: Tensor conversion requested dtype float32 for "
            "Tensor with dtype float64: <tf.Tensor: shape=(2,), "
            "dtype=float64, numpy=array([1., 2.])> ... ValueError: Tensor "
            "conversion requested dtype float32 for Tensor with dtype "
            "float64: <tf.Tensor: shape=(2,), dtype=float64, "
            "numpy=array([1., 2.])>",
        ),
        "fewer": (
            "error",
            "InvalidArgumentError",
            "pyfunc_3 returns 1 values, but expects to see 2 values.",
        ),
        "raises": (
            "error",
            "UnknownError",
            "ZeroDivisionError: division by zero ... ZeroDivisionError: division by zero",
        ),
    },
    "py_session": {
        "op": ["EagerPyFunc", "EagerPyFunc", None, "Operation", "EagerPyFunc"],
        "attrs": ["pyfunc_0", False, ["dtype float32"], ["dtype float32"]],
        "gradient op": ["EagerPyFunc", "gradients/EagerPyFunc_grad/EagerPyFunc:0", [3]],
        "second order": [None],
        "run": [("array", "float32", [1.0, 4.0, 9.0]), [("array", "float32", [2.0, 4.0, 6.0])]],
        "gradient alone": [("array", "float32", [8.0, 10.0, 12.0])],
        "value alone": ("array", "float32", [1.0, 1.0, 1.0]),
        "no outputs": None,
        "calls": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [1.0, 1.0, 1.0]],
    },
    "py_dataset": {
        "spec": [None, "dtype float32"],
        "values": [("array", "float32", 3.0), ("array", "float32", 6.0)],
        "seen": [["EagerTensor", 1.0], ["EagerTensor", 2.0]],
    },
    "py_gradients": {
        "weighted": ("array", "float32", [2.0, 40.0, 600.0]),
        "output_gradients": ("array", "float32", [2.0, 2.0, 1.5]),
        "both outputs": [("array", "float32", 4.0), ("array", "float32", 8.0)],
        "second output": [("array", "float32", 1.0), ("array", "float32", 6.0)],
        "one watched": [("array", "float32", 3.0), None],
        "nested": ("array", "float32", [4.0, 8.0, 12.0]),
        "chained": ("array", "float32", [6.0, 6.0, 6.0]),
        "int output": ("array", "float32", [2.0, 2.0, 2.0]),
        "float64": ("array", "float64", 0.0770037537313969),
        "dtype change": ("array", "float64", 2.0),
    },
    "py_gradient_edges": {
        "unconnected": ("array", "float32", 0.0),
        "through numpy": ("array", "float32", 0.0),
        "variable input": ("array", "float32", 2.0),
        "variable read inside": None,
        "int input": (
            "error",
            "InvalidArgumentError",
            "TypeError: Cannot convert 0.0 to EagerTensor of dtype int32 "
            "... [Op:EagerPyFunc] name:",
        ),
        "persistent, first": ("array", "float32", [3.0, 12.0, 27.0]),
        "persistent, second": (
            "error",
            "UnknownError",
            "KeyError: b'pyfunc_9' ... [Op:EagerPyFunc] name:",
        ),
        "second order": [("array", "float32", [3.0, 12.0, 27.0]), None],
    },
    "py_gradients_in_function": {
        "through a call": [
            ("array", "float32", [3.0, 12.0, 27.0]),
            ("array", "float32", [12.0, 48.0, 108.0]),
        ],
        "tape inside": [
            ("array", "float32", [5.4365635, 22.167168, 80.34215]),
            ("array", "float32", [22.167168, 272.99075, 2824.0015]),
        ],
        "tf.gradients inside": [
            ("array", "float32", [3.0, 12.0, 27.0]),
            ("array", "float32", [12.0, 48.0, 108.0]),
        ],
        "second order": [("array", "float32", [3.0, 12.0, 27.0]), None],
    },
    "py_tf1_graph": {
        "types": ["EagerPyFunc", "PyFunc", "PyFunc"],
        "values": [
            ("array", "float32", [1.0, 4.0, 9.0]),
            ("array", "float32", [2.0, 3.0, 4.0]),
            ("array", "float32", [3.0, 4.0, 5.0]),
            [("array", "float32", [2.0, 4.0, 6.0])],
        ],
        "seen": [["EagerTensor", True]],
    },
}
