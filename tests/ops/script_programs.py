"""Programs with tf.numpy_function, tf.compat.v1.py_func and tf.py_function that run
unchanged on TensorFlow and on symgrad (``tf`` is either); TF 2.21's results are
recorded in ``script_expected.py``, which tests/ops/test_script_ops.py and
tests/autodiff/test_py_function.py compare with symgrad's.

Record them again with TensorFlow's Python (writes tests/ops/script_expected.py)::

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/ops/script_programs.py
    ruff format tests/ops/script_expected.py

A result is made plain by ``plain``: a tensor or array as ``("array", dtype, values)``
(float32 values printed to the shortest text that reads back the same), an error as
``("error", class name, text)`` with the text reduced to what both libraries write: TF's
device prefix and graph-execution frame dropped, ``pyfunc_<n>`` tokens numbered from the
program's first, a traceback kept as its first and last lines.
"""

from __future__ import annotations

import pprint
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

try:
    from ulp import assert_ulp
except ImportError:  # run as a script with TensorFlow to record: no comparing then
    assert_ulp = None

# -- making results plain


def plain(x: Any) -> Any:
    if isinstance(x, tuple) and x and isinstance(x[0], str) and x[0] in ("array", "error"):
        return x  # plain already
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [plain(v) for v in x]
    if x is None or isinstance(x, bool | int | float | str):
        return x
    if isinstance(x, bytes):
        return x.decode()
    if hasattr(x, "as_numpy_dtype"):  # a DType
        return f"dtype {x.name}"
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    values = a.tolist()
    if a.dtype == np.float32:
        values = _shortest(values)
    return ("array", a.dtype.name, values)


def _shortest(x: Any) -> Any:
    if isinstance(x, list):
        return [_shortest(v) for v in x]
    return float(str(np.float32(x)))


def error_text(e: BaseException) -> str:
    """The error's text as both libraries write it (see the module docstring)."""
    text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", str(e))
    if text.startswith("Graph execution error:"):
        if "\nNode: " in text:  # a Session's
            text = text.split("\nNode: ", 1)[1].split("\n", 1)[1]
        else:  # a function's: the frames where the op was made, then the kernel's text
            chunks = text.split("\n\n")[2:]
            while chunks and chunks[0].startswith("  File "):
                chunks.pop(0)
            text = "\n\n".join(chunks)
        text = text.split("\n\t [[")[0]
    if "\nTraceback (most recent call last):" in text:
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        text = f"{lines[0]} ... {lines[-1]}"
    return text.replace("<symgrad.", "<tf.")


_TOKEN = re.compile(r"pyfunc_(\d+)")


class Tokens:
    """Renumbers ``pyfunc_<n>`` from the program's first token (the process counts on)."""

    def __init__(self, tf: Any) -> None:
        with tf.Graph().as_default():
            op = tf.numpy_function(lambda: np.float32(0), [], tf.float32).op
        self.first = int(_TOKEN.search(op.get_attr("token").decode()).group(1)) + 1

    def __call__(self, text: str) -> str:
        return _TOKEN.sub(lambda m: f"pyfunc_{int(m.group(1)) - self.first}", text)


def attempt(fn: Any, tokens: Any = None) -> Any:
    try:
        return plain(fn())
    except Exception as e:
        text = error_text(e)
        return ("error", type(e).__name__, tokens(text) if tokens else text)


def kind(fn: Any) -> Any:
    """Only the error's class (where the texts inside differ: an inner op's message)."""
    try:
        return plain(fn())
    except Exception as e:
        return ("error", type(e).__name__)


def assert_same(got: Any, want: Any, where: str) -> None:
    """``got`` (made plain) is ``want``: the same structure (a tuple and a list alike),
    texts and dtypes equal, float values within 4 ulps (sin, sinh: NumPy's and Eigen's
    SIMD code may round the last bit apart), other values equal."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{where}: {got!r}"
        for k in want:
            assert_same(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, list | tuple) and list(want[:1]) == ["array"]:
        assert isinstance(got, list | tuple) and list(got[:2]) == list(want[:2]), (
            f"{where}: {got!r}"
        )
        a, e = np.asarray(got[2], want[1]), np.asarray(want[2], want[1])
        assert a.shape == e.shape, f"{where}: {got!r} != {want!r}"
        if a.dtype.kind == "f":
            assert_ulp(a, e, 4, err_msg=where)
        else:
            np.testing.assert_array_equal(a, e, err_msg=where)
    elif isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


# -- numpy_function and py_func


def np_eager(tf: Any) -> Any:
    x = tf.constant([1.0, 2.0])
    seen = []

    def f(a: Any) -> Any:
        seen.append((type(a).__name__, a.dtype.name, list(a.shape), repr(a)))
        return a * 2

    def mutate(a: Any) -> Any:
        a[0] = 0.0
        return a

    @tf.numpy_function(Tout=tf.float32)
    def decorated(a: Any, b: Any) -> Any:
        return np.sinh(a) + b

    return {
        "single": tf.numpy_function(f, [x], tf.float32),
        "f64_for_f32": tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32),
        "list_of_one": tf.numpy_function(lambda a: [a], [x], [tf.float32]),
        "two": tf.numpy_function(lambda a: (a, a + 1), [x], [tf.float32, tf.float32]),
        "count_not_checked": tf.numpy_function(lambda a: (a, a), [x], tf.float32),
        "none": tf.numpy_function(lambda a: None, [x], []),
        "python_float": tf.numpy_function(f, [1.0], tf.float32),
        "python_int": tf.numpy_function(f, [3], tf.int32),
        "scalar_return": tf.numpy_function(lambda a: 3.0, [x], tf.float32),
        "py_func": tf.compat.v1.py_func(f, [x], tf.float32),
        "py_func_stateless": tf.compat.v1.py_func(f, [x], tf.float32, stateful=False),
        "mutating": tf.numpy_function(mutate, [x], tf.float32),
        "x_after": x,
        "decorated": decorated(x, 1.0),
        "decorated_name": decorated.__name__,
        "seen": seen,
    }


def np_eager_errors(tf: Any) -> Any:
    x = tf.constant([1.0])
    return [
        attempt(lambda: tf.numpy_function(lambda a: a, [x])),
        attempt(lambda: tf.numpy_function(lambda a: a, Tout=tf.float32)),
        attempt(lambda: tf.numpy_function(Tout=tf.float32, inp=[x])),
        attempt(lambda: tf.numpy_function(3, [x], tf.float32)),
        attempt(lambda: tf.numpy_function(lambda a: 1 / 0, [x], tf.float32)),
        attempt(lambda: tf.compat.v1.py_func(lambda a: {}[a], [x], tf.float32)),
    ]


def np_in_function(tf: Any) -> Any:
    """Stateful calls run in program order on every call; the stateless ones (kept apart:
    their order among the others is the scheduler's) when read, a constant one once."""
    calls: list[Any] = []
    stateless: list[Any] = []
    traced: list[Any] = []

    def side(tag: str) -> Any:
        def f(a: Any) -> Any:
            (stateless if tag.startswith("stateless") else calls).append((tag, a.tolist()))
            return a * 2

        return f

    @tf.function
    def f(x: Any) -> Any:
        a = tf.numpy_function(side("np"), [x], tf.float32)
        b = tf.compat.v1.py_func(side("v1"), [x], tf.float32)
        tf.numpy_function(side("unused"), [x], tf.float32)
        tf.numpy_function(side("stateless unused"), [x], tf.float32, stateful=False)
        c = tf.numpy_function(side("stateless const"), [tf.constant(1.0)], tf.float32, False)
        d = tf.numpy_function(side("stateless"), [x], tf.float32, stateful=False)
        traced.append([a.op.type, a.shape.rank, b.op.type, c.op.type, d.op.type])
        return a + b + c + d

    @tf.numpy_function(Tout=tf.float32)
    def decorated(a: Any) -> Any:
        calls.append(("decorated", repr(a)))
        return np.sinh(a)

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def h(v: Any) -> Any:
        return tf.numpy_function(decorated, [v], tf.float32)

    return {
        "first": f(tf.constant([1.0, 2.0])),
        "second": f(tf.constant([3.0, 4.0])),
        "decorated inside": h(tf.constant(1.0)),
        "calls": calls,
        "stateless": stateless,
        "traced": traced,
    }


def np_in_control_flow(tf: Any) -> Any:
    """In a loop body the op runs once per iteration; in a branch, when it is taken."""
    calls: list[Any] = []

    def note(tag: str) -> Any:
        return lambda a: (calls.append((tag, a.tolist())), a + 1)[1]

    @tf.function
    def f(x: Any, flag: Any) -> Any:
        body = note("body")
        x = tf.while_loop(
            lambda v: v < 3.0,
            lambda v: tf.reshape(tf.numpy_function(body, [v], tf.float32), []),
            [x],
        )[0]
        return tf.cond(
            flag,
            lambda: tf.numpy_function(note("true"), [x], tf.float32),
            lambda: tf.numpy_function(note("false"), [x], tf.float32, stateful=False),
        )

    first = f(tf.constant(0.0), tf.constant(True))
    second = f(tf.constant(1.5), tf.constant(False))
    return {"first": first, "second": second, "calls": calls}


def _in_function(tf: Any, fn: Any, tout: Any, inp: Any = None) -> Any:
    @tf.function
    def g(x: Any) -> Any:
        return tf.numpy_function(fn, [x] if inp is None else inp, tout)

    return g(tf.constant([1.0, 2.0]))


def _raise(e: BaseException) -> Any:
    def f(*_: Any) -> Any:
        raise e

    return f


def np_function_errors(tf: Any) -> Any:
    tokens = Tokens(tf)
    f32, i32 = tf.float32, tf.int32
    cases = {
        "double for float": (lambda a: a.astype(np.float64), f32),
        "python float": (lambda a: 3.0, f32),
        "python int": (lambda a: 3, f32),
        "int64 for int32": (lambda a: np.int64(3), i32),
        "float for int32": (lambda a: a, i32),
        "bool for float": (lambda a: a > 1, f32),
        "half": (lambda a: a.astype(np.float16), i32),
        "uint16": (lambda a: a.astype(np.uint16), i32),
        "int8": (lambda a: a.astype(np.int8), i32),
        "uint64": (lambda a: a.astype(np.uint64), i32),
        "complex64": (lambda a: a.astype(np.complex64), i32),
        "complex128": (lambda a: a.astype(np.complex128), i32),
        "string": (lambda a: "abc", f32),
        "bytes": (lambda a: b"abc", f32),
        "two for one": (lambda a: (a, a), f32),
        "three for two": (lambda a: (a, a, a), [f32, f32]),
        "one for two": (lambda a: [a], [f32, f32]),
        "single for two": (lambda a: a, [f32, f32]),
        "list of scalars": (lambda a: [1.0, 2.0], f32),
        "none for one": (lambda a: None, f32),
        "none in a list": (lambda a: [a, None], [f32, f32]),
        "dict": (lambda a: {"a": a}, f32),
        "datetime": (lambda a: np.array(["2020-01-01"], dtype="datetime64[D]"), f32),
        "object ints": (lambda a: np.array([1, 2], dtype=object), tf.int64),
        "ValueError": (_raise(ValueError("v")), f32),
        "TypeError": (_raise(TypeError("t")), f32),
        "StopIteration": (_raise(StopIteration()), f32),
        "MemoryError": (_raise(MemoryError("m")), f32),
        "NotImplementedError": (_raise(NotImplementedError("n")), f32),
        "IndexError": (_raise(IndexError("i")), f32),
        "KeyError": (_raise(KeyError("k")), f32),
        "RuntimeError": (_raise(RuntimeError("r")), f32),
        "ZeroDivisionError": (lambda a: 1 / 0, f32),
        "tuple of one": (lambda a: (a,), f32),
        "nested list": (lambda a: [[a]], f32),
        "a tensor": (lambda a: tf.constant(a), f32),
        "bool": (lambda a: a > 1, tf.bool),
    }
    return {
        name: attempt(lambda fn=fn, tout=tout: _in_function(tf, fn, tout), tokens)
        for name, (fn, tout) in cases.items()
    }


def np_session(tf: Any) -> Any:
    tokens = Tokens(tf)
    out: dict[str, Any] = {}
    calls: list[Any] = []
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.float32, [3])
        y = tf.numpy_function(lambda a: (calls.append(a.tolist()), a * a)[1], [p], tf.float32)
        s = tf.numpy_function(lambda a: a + 1, [p], tf.float32, stateful=False)
        v1 = tf.compat.v1.py_func(lambda a: a - 1, [p], tf.float32)
        named = tf.numpy_function(lambda a: a, [p], tf.float32, name="myname")
        none = tf.numpy_function(lambda a: None, [p], [])
        lst = tf.numpy_function(lambda a: [a], [p], [tf.float32])
        two = tf.numpy_function(lambda a: [a, a], [p], (tf.float32, tf.int32))
        out["types"] = [y.op.type, s.op.type, v1.op.type, type(none).__name__, none.type]
        out["names"] = [y.op.name, s.op.name, v1.op.name, named.name, lst[0].name, two[1].name]
        out["list"] = [type(lst).__name__, len(lst), type(two).__name__, two[1].dtype.name]
        out["shapes"] = [y.shape.rank, s.shape.rank, two[0].shape.rank]
        out["attrs"] = [
            tokens(y.op.get_attr("token").decode()),
            y.op.get_attr("Tout"),
            two[0].op.get_attr("Tout"),
            y.op.get_attr("Tin"),
        ]
        out["gradients"] = tf.gradients(y, p) + tf.gradients(s, p) + tf.gradients(v1, p)
        with tf.compat.v1.Session() as sess:
            out["run"] = sess.run([y, s, v1, lst], {p: [1.0, 2.0, 3.0]})
            out["again"] = sess.run(y, {p: [4.0, 5.0, 6.0]})
            out["no outputs"] = sess.run(none, {p: [1.0, 2.0, 3.0]})
            out["error"] = attempt(lambda: sess.run(two, {p: [1.0, 2.0, 3.0]}), tokens)
    out["calls"] = calls
    return out


def np_stateless_folding(tf: Any) -> Any:
    """A stateless call of constants runs once per plan (TF's grappler folds it)."""
    calls: list[Any] = []
    with tf.Graph().as_default():
        one = tf.constant(1.0)
        k = tf.numpy_function(lambda a: (calls.append("stateless"), a)[1], [one], tf.float32, False)
        k2 = tf.numpy_function(lambda a: (calls.append("stateful"), a)[1], [one], tf.float32)
        with tf.compat.v1.Session() as sess:
            first = sess.run([k, k2])
            sess.run([k, k2])
            sess.run(k)
    return {"first": first, "calls": calls}


def np_dataset(tf: Any) -> Any:
    calls: list[Any] = []

    def scale(k: Any) -> Any:
        calls.append(int(k))
        return np.float32(k) * 1.5

    ds = tf.data.Dataset.range(4).map(lambda i: tf.numpy_function(scale, [i], tf.float32))
    pairs = tf.data.Dataset.range(3).map(
        lambda i: tf.numpy_function(lambda k: (k, np.float32(k)), [i], [tf.int64, tf.float32])
    )
    stateless = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(
        lambda v: tf.numpy_function(lambda a: a * 4, [v], tf.float32, stateful=False)
    )
    return {
        "spec": [ds.element_spec.shape.rank, ds.element_spec.dtype],
        "values": list(ds.as_numpy_iterator()),
        "calls": calls,
        "pairs spec": [s.dtype for s in pairs.element_spec],
        "pairs": list(pairs.as_numpy_iterator()),
        "stateless": list(stateless.as_numpy_iterator()),
    }


def np_gradients(tf: Any) -> Any:
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.numpy_function(lambda a: a**2, [x], tf.float32)
        z = y + x
        w = tf.compat.v1.py_func(lambda a: a**2, [x], tf.float32, stateful=False)

    @tf.function
    def f(v: Any) -> Any:
        with tf.GradientTape() as t2:
            t2.watch(v)
            u = tf.numpy_function(lambda a: a * 3, [v], tf.float32)
            s = tf.numpy_function(lambda a: a * 3, [v], tf.float32, stateful=False) + v
            del u
        return t2.gradient(s, v)

    @tf.function
    def g(v: Any) -> Any:
        with tf.GradientTape() as t3:
            t3.watch(v)
            u = tf.numpy_function(lambda a: a * 3, [v], tf.float32)
        return t3.gradient(u, v)

    return [tape.gradient(y, x), tape.gradient(z, x), tape.gradient(w, x), f(x), g(x)]


NP_PROGRAMS = [
    np_eager,
    np_eager_errors,
    np_in_function,
    np_in_control_flow,
    np_function_errors,
    np_session,
    np_stateless_folding,
    np_dataset,
    np_gradients,
]

# -- py_function


def py_eager(tf: Any) -> Any:
    x = tf.constant([1.0, 2.0])
    seen = []

    def f(a: Any) -> Any:
        seen.append((type(a).__name__, tf.executing_eagerly(), a.dtype.name))
        return a * 2

    @tf.py_function(Tout=tf.float32)
    def decorated(a: Any, m: Any) -> Any:
        return a * a if tf.reduce_all(tf.abs(a) <= m) else m * a

    return {
        "single": tf.py_function(f, [x], tf.float32),
        "list_of_one": tf.py_function(lambda a: [a], [x], [tf.float32]),
        "tuple_tout": tf.py_function(lambda a: (a, a + 1), [x], (tf.float32, tf.float32)),
        "spec_tout": tf.py_function(lambda a: a * 3, [x], tf.TensorSpec([2], tf.float32)),
        "string_tout": tf.py_function(lambda a: a, [x], "float32"),
        "none": tf.py_function(lambda a: None, [x], []),
        "numpy_f64_to_f32": tf.py_function(lambda a: a.numpy().astype(np.float64), [x], tf.float32),
        "int_to_float": tf.py_function(lambda a: 3, [x], tf.float32),
        "longer_cut": tf.py_function(lambda a: (a, a * 3), [x], tf.float32),
        "list_cut": tf.py_function(lambda a: [1, 2], [x], tf.float32),
        "python_inputs": tf.py_function(
            lambda a, b: a * tf.cast(b, tf.float32), [2.0, 3], tf.float32
        ),
        "variable_input": tf.py_function(lambda a: a + 1, [tf.Variable(1.5)], tf.float32),
        "decorated": [decorated(x, 2.0), decorated(x, 1.5)],
        "decorated_name": decorated.__name__,
        "seen": seen,
    }


def py_eager_errors(tf: Any) -> Any:
    tokens = Tokens(tf)
    x = tf.constant([1.0, 2.0])
    return {
        "tensor of another dtype": attempt(
            lambda: tf.py_function(lambda a: tf.cast(a, tf.float64), [x], tf.float32), tokens
        ),
        "bool tensor": attempt(lambda: tf.py_function(lambda a: a > 1, [x], tf.float32), tokens),
        "one for two": attempt(
            lambda: tf.py_function(lambda a: [a], [x], [tf.float32, tf.float32]), tokens
        ),
        "single for two": attempt(
            lambda: tf.py_function(lambda a: a, [x], [tf.float32, tf.float32], name="nm"), tokens
        ),
        "none for one": attempt(lambda: tf.py_function(lambda a: None, [x], tf.float32), tokens),
        "none in a list": kind(  # (symgrad's conversion text adds a why_none hint)
            lambda: tf.py_function(lambda a: [a, None], [x], [tf.float32, tf.float32])
        ),
        "raises": attempt(lambda: tf.py_function(lambda a: 1 / 0, [x], tf.float32), tokens),
        "a variable": attempt(
            lambda: tf.py_function(
                lambda a: tf.Variable(1.0, name="returned_from_py"), [x], tf.float32
            ),
            tokens,
        ),
        "one tensor as inp": attempt(lambda: tf.py_function(lambda a: a, x, tf.float32), tokens),
        "an inner op fails": kind(lambda: tf.py_function(lambda a, b: a + b, [1.0, 2], tf.float32)),
        "not callable": attempt(lambda: tf.py_function(3, [x], tf.float32)),
        "no Tout": attempt(lambda: tf.py_function(lambda a: a, [x])),
        "no inp": attempt(lambda: tf.py_function(lambda a: a, Tout=tf.float32)),
        "decorator with inp": attempt(lambda: tf.py_function(inp=[x], Tout=tf.float32)),
    }


def py_in_function(tf: Any) -> Any:
    tokens = Tokens(tf)
    calls: list[Any] = []
    traced: list[Any] = []

    def f(a: Any) -> Any:
        calls.append((type(a).__name__, tf.executing_eagerly(), a.numpy().tolist()))
        return a * 3

    @tf.function
    def g(x: Any) -> Any:
        y = tf.py_function(f, [x], tf.float32)
        tf.py_function(lambda a: calls.append("unused") or a, [x], tf.float32)
        traced.append([y.op.type, y.shape.rank])
        return y

    @tf.function
    def bad(x: Any) -> Any:
        return tf.py_function(lambda a: tf.cast(a, tf.float64), [x], tf.float32)

    @tf.function
    def fewer(x: Any) -> Any:
        return tf.py_function(lambda a: [a], [x], [tf.float32, tf.float32])

    @tf.function
    def raises(x: Any) -> Any:
        return tf.py_function(lambda a: 1 / 0, [x], tf.float32)

    x = tf.constant([1.0, 2.0])
    return {
        "first": g(x),
        "second": g(x * 2),
        "calls": calls,
        "traced": traced,
        "wrong dtype": attempt(lambda: bad(x), tokens),
        "fewer": attempt(lambda: fewer(x), tokens),
        "raises": attempt(lambda: raises(x), tokens),
    }


def py_session(tf: Any) -> Any:
    tokens = Tokens(tf)
    out: dict[str, Any] = {}
    calls: list[Any] = []
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.float32, [3])
        y = tf.py_function(lambda a: (calls.append(a.numpy().tolist()), a * a)[1], [p], tf.float32)
        none = tf.py_function(lambda a: None, [p], [])
        g = tf.gradients(y, p)
        out["op"] = [y.op.type, y.op.name, y.shape.rank, type(none).__name__, none.type]
        out["attrs"] = [
            tokens(y.op.get_attr("token").decode()),
            y.op.get_attr("is_async"),
            y.op.get_attr("Tout"),
            y.op.get_attr("Tin"),
        ]
        out["gradient op"] = [g[0].op.type, g[0].name, g[0].shape.as_list()]
        out["second order"] = tf.gradients(g, p)
        with tf.compat.v1.Session() as sess:
            out["run"] = sess.run([y, g], {p: [1.0, 2.0, 3.0]})
            out["gradient alone"] = sess.run(g, {p: [4.0, 5.0, 6.0]})
            out["value alone"] = sess.run(y, {p: [1.0, 1.0, 1.0]})
            out["no outputs"] = sess.run(none, {p: [1.0, 2.0, 3.0]})
    out["calls"] = calls
    return out


def py_dataset(tf: Any) -> Any:
    seen: list[Any] = []

    def triple(a: Any) -> Any:
        seen.append((type(a).__name__, a.numpy().tolist()))
        return a * 3

    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(
        lambda v: tf.py_function(triple, [v], tf.float32)
    )
    return {
        "spec": [ds.element_spec.shape.rank, ds.element_spec.dtype],
        "values": list(ds.as_numpy_iterator()),
        "seen": seen,
    }


def py_gradients(tf: Any) -> Any:
    x = tf.constant([1.0, 2.0, 3.0])
    xs, ys = tf.constant(2.0), tf.constant(3.0)
    out: dict[str, Any] = {}
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda a: a**2, [x], tf.float32)
        loss = tf.reduce_sum(y * [1.0, 10.0, 100.0])
    out["weighted"] = t.gradient(loss, x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda a: a**2, [x], tf.float32)
    out["output_gradients"] = t.gradient(y, x, output_gradients=tf.constant([1.0, 0.5, 0.25]))

    def pair(p: Any, q: Any) -> Any:
        return p * q, p + q * q

    for name, which in (("both outputs", slice(0, 2)), ("second output", slice(1, 2))):
        with tf.GradientTape() as t:
            t.watch([xs, ys])
            ab = tf.py_function(pair, [xs, ys], [tf.float32, tf.float32])
        out[name] = t.gradient(ab[which], [xs, ys])
    with tf.GradientTape() as t:
        t.watch(xs)
        a = tf.py_function(lambda p, q: p * q, [xs, ys], tf.float32)
    out["one watched"] = t.gradient(a, [xs, ys])
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.py_function(
            lambda a: tf.py_function(lambda b: b * b, [a], tf.float32) * 2, [x], tf.float32
        )
    out["nested"] = t.gradient(z, x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda a: a * 2, [x], tf.float32)
        z = tf.py_function(lambda a: a * 3, [y], tf.float32)
    out["chained"] = t.gradient(z, x)
    with tf.GradientTape() as t:
        t.watch(x)
        ys2 = tf.py_function(lambda a: [a * 2, tf.constant(1)], [x], [tf.float32, tf.int32])
    out["int output"] = t.gradient(ys2[0], x)
    x64 = tf.constant(2.0, tf.float64)
    with tf.GradientTape() as t:
        t.watch(x64)
        y = tf.py_function(lambda p: tf.sin(p) * p, [x64], tf.float64)
    out["float64"] = t.gradient(y, x64)
    with tf.GradientTape() as t:
        t.watch(x64)
        y = tf.py_function(lambda p: tf.cast(p, tf.float32) * 2, [x64], tf.float32)
    out["dtype change"] = t.gradient(y, x64)
    return out


def py_gradient_edges(tf: Any) -> Any:
    tokens = Tokens(tf)
    x = tf.constant([1.0, 2.0, 3.0])
    out: dict[str, Any] = {}
    for name, fn in (
        ("unconnected", lambda a: tf.constant([5.0, 5.0, 5.0])),
        ("through numpy", lambda a: a.numpy() * 2),
    ):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.py_function(fn, [x], tf.float32)
        out[name] = t.gradient(y, x)  # a scalar 0, as TF's: None made constant(0.0)
    v = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = tf.py_function(lambda a: a * 2, [v], tf.float32)
    out["variable input"] = t.gradient(y, v)
    with tf.GradientTape() as t:
        y = tf.py_function(lambda: v * 2, [], tf.float32)
    out["variable read inside"] = t.gradient(y, v)
    n = tf.constant(3)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda p, k: p * tf.cast(k, tf.float32), [x, n], tf.float32)
    out["int input"] = attempt(lambda: t.gradient(y, x), tokens)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.py_function(lambda a: a**3, [x], tf.float32)
    out["persistent, first"] = t.gradient(y, x)
    out["persistent, second"] = attempt(lambda: t.gradient(y, x), tokens)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.py_function(lambda a: a**3, [x], tf.float32)
        g = t1.gradient(y, x)
    out["second order"] = [g, t2.gradient(g, x)]
    return out


def py_gradients_in_function(tf: Any) -> Any:
    x = tf.constant([1.0, 2.0, 3.0])

    @tf.function
    def cube(v: Any) -> Any:
        return tf.py_function(lambda a: a**3, [v], tf.float32)

    def through_call(v: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(v)
            y = cube(v)
        return t.gradient(y, v)

    @tf.function
    def inside(v: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(v)
            y = tf.py_function(lambda a: tf.exp(a) * a, [v], tf.float32)
        return t.gradient(y, v)

    @tf.function
    def with_gradients(v: Any) -> Any:
        y = tf.py_function(lambda a: a**3, [v], tf.float32)
        return tf.gradients(y, v)[0]

    @tf.function
    def second(v: Any) -> Any:
        with tf.GradientTape() as t2:
            t2.watch(v)
            with tf.GradientTape() as t1:
                t1.watch(v)
                y = tf.py_function(lambda a: a**3, [v], tf.float32)
            g = t1.gradient(y, v)
        return g, t2.gradient(g, v)

    return {
        "through a call": [through_call(x), through_call(x * 2)],
        "tape inside": [inside(x), inside(x * 2)],
        "tf.gradients inside": [with_gradients(x), with_gradients(x * 2)],
        "second order": second(x),
    }


def py_tf1_graph(tf: Any) -> Any:
    """TF1: the top level a graph (disable_eager_execution); the function still runs
    eagerly.  Last: it changes the process's mode (the tests' fixture restores it)."""
    tf.compat.v1.disable_eager_execution()
    seen: list[Any] = []

    def f(a: Any) -> Any:
        seen.append((type(a).__name__, tf.executing_eagerly()))
        return a * a

    p = tf.compat.v1.placeholder(tf.float32, [3])
    y = tf.py_function(f, [p], tf.float32)
    z = tf.numpy_function(lambda a: a + 1, [p], tf.float32)
    w = tf.compat.v1.py_func(lambda a: a + 2, [p], tf.float32)
    g = tf.gradients(y, p)
    with tf.compat.v1.Session() as sess:
        values = sess.run([y, z, w, g], {p: [1.0, 2.0, 3.0]})
    return {"types": [y.op.type, z.op.type, w.op.type], "values": values, "seen": seen}


PY_PROGRAMS = [
    py_eager,
    py_eager_errors,
    py_in_function,
    py_session,
    py_dataset,
    py_gradients,
    py_gradient_edges,
    py_gradients_in_function,
    py_tf1_graph,  # last: it leaves the top level a TF1 graph
]


def main() -> None:
    import tensorflow as tf

    out = {p.__name__: plain(p(tf)) for p in NP_PROGRAMS + PY_PROGRAMS}
    text = pprint.pformat(out, width=100, sort_dicts=False)
    target = Path(__file__).with_name("script_expected.py")
    target.write_text(
        '"""TF 2.21\'s results for tests/ops/script_programs.py (written by it: do not edit)."""'
        f"\n\nEXPECTED = {text}\n"
    )
    print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
