"""AutoGraph-lite: tensor control flow in ``function`` becomes ``cond`` / ``while_loop``.

Every expected number and error text was recorded by running the same program under
``import tensorflow as tf`` on TensorFlow 2.21 (CPU).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import symgrad as tf
from symgrad.autograph.converter import AutoGraphError


def _line(fn, text: str) -> int:
    """The file line number of the first line of ``fn``'s source containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _op_types(f, *args) -> set[str]:
    return {op.type for op in f.get_concrete_function(*args).graph.get_operations()}


# --------------------------------------------------------------------------------------
# if / while / for on tensors


def test_tensor_if_takes_both_branches_from_one_trace():
    @tf.function
    def absish(x):
        if x > 0:  # noqa: SIM108 (the statement is what is converted)
            y = x * 2.0
        else:
            y = -x
        return y

    assert float(absish(tf.constant(3.0))) == 6.0
    assert float(absish(tf.constant(-4.0))) == 4.0
    assert absish.experimental_get_tracing_count() == 1
    assert "StatelessIf" in _op_types(absish, tf.constant(1.0))


def test_elif_chain_and_conditional_expression():
    @tf.function
    def elif_chain(x):
        if x < -1.0:
            y = -1.0
        elif x < 1.0:
            y = x
        else:
            y = 1.0
        return y

    @tf.function
    def ifexp(x):
        return x * 2.0 if x > 0 else x - 1.0

    assert [float(elif_chain(tf.constant(a))) for a in (-3.0, 0.25, 7.0)] == [-1.0, 0.25, 1.0]
    assert [float(ifexp(tf.constant(a))) for a in (2.0, -2.0)] == [4.0, -3.0]


def test_and_or_not_on_tensors():
    @tf.function
    def boolops(x, y):
        if x > 0 and y > 0:
            r = 1
        elif not x > 0 or y < -5:
            r = 2
        else:
            r = 3
        return r

    got = [
        int(boolops(tf.constant(a), tf.constant(b))) for a, b in [(1, 1), (-1, 1), (1, -1), (1, -9)]
    ]
    assert got == [1, 2, 3, 2]


def test_while_on_a_tensor_condition_collatz():
    @tf.function
    def collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:  # noqa: SIM108 (the statement is what is converted)
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert int(collatz(tf.constant(27))) == 111
    assert int(collatz(tf.constant(6))) == 8
    assert collatz.experimental_get_tracing_count() == 1
    assert "StatelessWhile" in _op_types(collatz, tf.constant(1))


def test_for_over_tf_range_accumulates_and_breaks():
    @tf.function
    def acc(n):
        s = tf.constant(0.0)
        for i in tf.range(n):
            if s > 20.0:
                break
            s += tf.cast(i, tf.float32) * 1.5
        return s

    assert float(acc(tf.constant(10))) == 22.5
    assert float(acc(tf.constant(3))) == 4.5


def test_for_over_range_of_a_tensor_with_continue():
    @tf.function
    def acc(n):
        s = 0
        for i in range(n):
            if i % 3 == 0:
                continue
            s += i
        return s

    @tf.function
    def weighted(x):
        s = 0.0
        for i in range(tf.shape(x)[0]):
            s += x[i] * tf.cast(i, tf.float32)
        return s

    assert int(acc(tf.constant(10))) == 27
    assert float(weighted(tf.constant([1.0, 2.0, 3.0, 4.0]))) == 20.0


def test_tf_range_bounds_steps_and_the_last_index():
    @tf.function
    def range3(a, b):
        s = 0
        for i in tf.range(a, b, 3):
            s += i
        return s, i  # i first assigned in the loop: TF stages it (zero stand-in)

    @tf.function
    def rangeneg(a):
        s = 0
        i = 0
        for i in tf.range(a, 0, -2):
            s = s * 2 + i
        return s, i

    assert [int(t) for t in range3(tf.constant(2), tf.constant(12))] == [26, 11]
    assert [int(t) for t in rangeneg(tf.constant(9))] == [227, 1]


def test_for_over_the_rows_of_a_tensor():
    @tf.function
    def rows(m):
        tot = tf.zeros([3])
        for r in m:
            tot = tot * 0.5 + r
        return tot

    @tf.function
    def rows_break(m):
        s = tf.zeros([2])
        for r in m:
            if tf.reduce_sum(r) > 10.0:
                break
            s += r
        return s

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def dyn_rows(m):
        acc = tf.constant([0.0, 1.0])
        for r in m:
            acc = acc * r + 1.0
        return acc

    m = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    np.testing.assert_array_equal(rows(m).numpy(), [9.25, 11.0, 12.75])
    m2 = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.5, 0.5]])
    np.testing.assert_array_equal(rows_break(m2).numpy(), [4.0, 6.0])
    m3 = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, 0.25]])
    np.testing.assert_array_equal(dyn_rows(m3).numpy(), [3.0, 4.25])


def test_nested_loops_with_continue():
    @tf.function
    def nested(n):
        total = 0
        for i in tf.range(n):
            j = 0
            while j < i:
                if (i + j) % 3 == 0:
                    j += 1
                    continue
                total += i * j
                j += 1
        return total

    @tf.function
    def cont_while(n):
        i = 0
        s = 0
        while i < n:
            i += 1
            if i % 2 == 0:
                continue
            s += i
        return s

    assert int(nested(tf.constant(6))) == 50
    assert int(cont_while(tf.constant(10))) == 25


def test_early_return_from_a_tensor_if_and_a_python_loop():
    @tf.function
    def early(x):
        if x > 0:
            return x * 2.0
        return -x

    @tf.function
    def pyret(x):
        for i in range(5):
            if i == 2:
                return x + i
        return x

    assert [float(early(tf.constant(a))) for a in (7.0, -3.0)] == [14.0, 3.0]
    assert float(pyret(tf.constant(1.0))) == 3.0


def test_a_training_loop_in_a_function_with_the_loss_first_set_under_a_tape():
    """A ``with`` statement's ``as`` name is set before its body, so the tape made in each
    iteration is not a loop variable; the loss, first assigned under it and returned
    after the loop, enters it as a stand-in.  Numbers from TF 2.21."""

    class Linear(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.full((3, 1), 0.1))
            self.b = tf.Variable(np.zeros(1))

        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    model, opt = Linear(), tf.keras.optimizers.SGD(0.1)
    x = tf.constant(np.linspace(-1.0, 1.0, 12).reshape(4, 3))
    y = tf.constant(np.arange(4.0).reshape(4, 1))

    @tf.function
    def train(steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, [model.w, model.b])
            opt.apply_gradients(zip(grads, [model.w, model.b]))
        return loss

    np.testing.assert_allclose(float(train(tf.constant(20))), 0.00030757890174497657, rtol=1e-9)
    np.testing.assert_allclose(
        model.w.numpy().ravel(), [0.3541342725126576, 0.6078349522638056, 0.8615356320149535]
    )
    np.testing.assert_allclose(model.b.numpy(), [1.395353738631314])


def test_loop_variable_first_assigned_in_the_body():
    @tf.function
    def undef_loop(x):
        while x > 0:
            w = x
            x = x - 1.0
        return w

    @tf.function
    def undef_list(x):
        while x > 0:
            w = [x, x * 2.0]
            x = x - 1.0
        return w

    @tf.function
    def undef_branch(x):
        while x > 0:
            if x > 2.0:
                w = x
            x = x - 1.0
        return w

    assert float(undef_loop(tf.constant(3.0))) == 1.0
    assert [float(t) for t in undef_list(tf.constant(3.0))] == [1.0, 2.0]
    with pytest.raises(ValueError) as e:  # staging the body fails, so TF's error stays
        undef_branch(tf.constant(3.0))
    lines = str(e.value).splitlines()
    assert lines[:2] == [
        "'w' must be defined before the loop",
        "Note: AutoGraph tried to define it automatically, but ran into a ValueError: 'w' "
        "must also be initialized in the else branch",
    ]
    assert f"line {_line(undef_branch, 'while x > 0')}" in lines[2]


def test_side_effects_in_converted_loops_and_branches():
    v = tf.Variable(0.0)

    @tf.function
    def side(n):
        for i in tf.range(n):
            v.assign_add(tf.cast(i, tf.float32))
        return v.read_value()

    @tf.function
    def side_if(x):
        if x > 0:
            v.assign(x)

    assert float(side(tf.constant(4))) == 6.0
    assert side_if(tf.constant(5.0)) is None
    assert float(v.numpy()) == 5.0
    side_if(tf.constant(-1.0))
    assert float(v.numpy()) == 5.0


# --------------------------------------------------------------------------------------
# Gradients through converted control flow


def test_gradient_through_a_converted_for_loop():
    @tf.function
    def power(x, n):
        y = tf.ones_like(x)
        for _ in tf.range(n):
            y = y * x + tf.sin(y)
        return y

    x = tf.constant([0.5, 1.5])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(power(x, tf.constant(4)))
    np.testing.assert_allclose(float(y), 9.332949, rtol=1e-6)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.460772, 21.772808], rtol=1e-5)


def test_gradient_through_a_converted_if_and_while():
    @tf.function
    def gif(x):
        if tf.reduce_sum(x) > 0:  # noqa: SIM108 (the statement is what is converted)
            y = x * x
        else:
            y = tf.sin(x)
        return tf.reduce_sum(y)

    @tf.function
    def loopgrad(x, n):
        i = 0
        while i < n:
            x = x * tf.cos(x) + 1.0
            i += 1
        return x

    expected = [(5.0, [2.0, 4.0]), (-1.7507684, [0.5403023, -0.41614684])]
    for v, (want_y, want_g) in zip(([1.0, 2.0], [-1.0, -2.0]), expected, strict=True):
        x = tf.constant(v)
        with tf.GradientTape() as t:
            t.watch(x)
            y = gif(x)
        np.testing.assert_allclose(float(y), want_y, rtol=1e-6)
        np.testing.assert_allclose(t.gradient(y, x).numpy(), want_g, rtol=1e-6)
    w = tf.Variable([0.3, 0.7])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(loopgrad(w, tf.constant(3)))
    np.testing.assert_allclose(float(y), 2.8043602, rtol=1e-6)
    np.testing.assert_allclose(t.gradient(y, w).numpy(), [0.92854226, 0.19905856], rtol=1e-5)


# --------------------------------------------------------------------------------------
# Python conditions stay Python; autograph=False; what gets converted


def test_python_conditions_run_at_trace_time(capsys):
    @tf.function
    def pyc(x, flag):
        print("tracing", flag)
        if flag:  # noqa: SIM108 (the statement is what is converted)
            x = x + 1.0
        else:
            x = x - 1.0
        k = 0
        while k < 3:
            x = x * 2.0
            k += 1
        return x

    assert float(pyc(tf.constant(1.0), True)) == 16.0
    assert float(pyc(tf.constant(1.0), False)) == 0.0
    assert pyc.experimental_get_tracing_count() == 2
    assert capsys.readouterr().out == "tracing True\ntracing False\n"
    types = _op_types(pyc, tf.constant(1.0), True)
    assert not types & {"If", "StatelessIf", "While", "StatelessWhile"}  # all unrolled


def test_print_stays_python_print_and_both_branches_trace(capsys):
    @tf.function
    def printer(x):
        print("py print")
        if x > 0:
            print("true branch")
            x = x + 1.0
        else:
            print("false branch")
        return x

    assert float(printer(tf.constant(1.0))) == 2.0
    assert capsys.readouterr().out == "py print\ntrue branch\nfalse branch\n"


def test_autograph_false_leaves_a_tensor_if_to_fail():
    @tf.function(autograph=False)
    def noag(x):
        if x > 0:
            return x
        return -x

    # TF: OperatorNotAllowedInGraphError (a TypeError): "Using a symbolic `tf.Tensor` as a
    # Python `bool` is not allowed. ..." -- symgrad's Tensor.__bool__ words it its own way.
    with pytest.raises(TypeError, match="as a Python bool is not allowed"):
        noag(tf.constant(1.0))


def test_called_functions_methods_and_inner_defs_are_converted():
    def helper(x):
        if x > 1.0:
            x = x / 2.0
        return x

    class Scaler:
        def __init__(self, k):
            self.k = k

        def apply(self, x):
            while x < self.k:
                x = x * 2.0
            return x

    sc = Scaler(10.0)

    @tf.function
    def nested(x):
        return helper(x) + 1.0

    @tf.function
    def use_method(x):
        return sc.apply(x)

    @tf.function
    def inner_def(x):
        def clampish(y):
            if y > 1.0:
                y = 1.0 + tf.math.log(y)
            return y

        return clampish(x) + clampish(x * 3.0)

    assert [float(nested(tf.constant(a))) for a in (4.0, 0.5)] == [3.0, 1.5]
    got = [use_method(tf.constant(a)).numpy() for a in (3.0, 0.7)]
    assert got == [np.float32(12.0), np.float32(11.2)]
    np.testing.assert_allclose(float(inner_def(tf.constant(0.5))), 1.9054651, rtol=1e-6)


def test_to_graph_and_do_not_convert():
    def plain(x):
        if x > 0:
            x = x * 3.0
        return x

    @tf.autograph.experimental.do_not_convert
    def dnc(x):
        if x > 0:
            x = x * 3.0
        return x

    assert float(tf.function(tf.autograph.to_graph(plain))(tf.constant(2.0))) == 6.0
    with pytest.raises(TypeError, match="as a Python bool is not allowed"):
        tf.function(lambda x: dnc(x))(tf.constant(2.0))


# --------------------------------------------------------------------------------------
# Errors: TF's text, then the line and what to write instead


def test_variable_defined_in_one_branch_and_used_after():
    @tf.function
    def onebranch(x):
        if x > 0:
            z = x * 2.0
        return z

    @tf.function
    def onebranch_local(x):
        if x > 0:
            z = x * 2.0
            x = z + 1.0
        return x

    with pytest.raises(ValueError, match="'z' must also be initialized in the else branch") as e:
        onebranch(tf.constant(1.0))
    assert f"line {_line(onebranch, 'if x > 0')}" in str(e.value)
    assert "before the if statement" in str(e.value)
    assert float(onebranch_local(tf.constant(1.0))) == 3.0  # z is local to the branch


def test_return_on_one_side_of_a_tensor_if():
    @tf.function
    def retnone(x):
        if x > 0:
            return x

    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        retnone(tf.constant(1.0))


@pytest.mark.parametrize("loop", ["while", "for"])
def test_return_inside_a_tensor_loop(loop):
    @tf.function
    def early_while(x):
        while x > 0:
            if x > 5.0:
                return x
            x = x - 1.0
        return x * 10.0

    @tf.function
    def early_for(x):
        for _ in tf.range(10):
            if x > 5.0:
                return x
            x = x + 1.0
        return x

    f, text = (early_while, "while x > 0") if loop == "while" else (early_for, "for _ in")
    with pytest.raises(
        NotImplementedError, match="a return statement cannot be placed inside this TensorFlow loop"
    ) as e:
        f(tf.constant(7.0))
    assert f"line {_line(f, text)}" in str(e.value)
    assert "return it after the loop" in str(e.value)


def test_tensor_break_in_a_python_loop():
    @tf.function
    def whiletrue(x):
        while True:
            if tf.equal(x, 0.0):
                break
            x -= 1.0
        return x

    @tf.function
    def pyfor(x):
        for _ in range(3):
            if x > 0:
                break
            x = x + 1.0
        return x

    with pytest.raises(NotImplementedError, match="started as non-Tensor, then changed to Tensor"):
        whiletrue(tf.constant(3.0))
    with pytest.raises(
        NotImplementedError,
        match="break and return statements which depend on a TF condition are not supported "
        "in Python for loops",
    ) as e:
        pyfor(tf.constant(1.0))
    assert f"line {_line(pyfor, 'for _ in range(3)')}" in str(e.value)


def test_loop_variable_changes_dtype_or_shape():
    @tf.function
    def dtype_loop(x):
        y = tf.constant(0)
        while x > 0:
            y = tf.cast(x, tf.float32)
            x = x - 1
        return y

    @tf.function
    def shape_loop(x):
        y = tf.zeros([1])
        while x > 0:
            y = tf.concat([y, [1.0]], 0)
            x = x - 1
        return y

    @tf.function
    def dtype_cond(x):
        if x > 0:  # noqa: SIM108 (the statement is what is converted)
            y = tf.constant(1)
        else:
            y = tf.constant(1.0)
        return y

    with pytest.raises(
        TypeError,
        match="'y' has dtype int32 before the loop, but dtype float32 after one iteration",
    ):
        dtype_loop(tf.constant(3))
    with pytest.raises(
        ValueError, match=r"'y' has shape \(1,\) before the loop, but shape \(2,\) after one"
    ):
        shape_loop(tf.constant(3))
    with pytest.raises(
        TypeError, match="'y' has dtype int32 in the main branch, but dtype float32 in the else"
    ):
        dtype_cond(tf.constant(3.0))


def test_set_loop_options_shape_invariants_and_maximum_iterations():
    @tf.function
    def grow(n):
        y = tf.zeros([1])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(y, tf.TensorShape([None]))]
            )
            y = tf.concat([y, tf.reshape(tf.cast(i, tf.float32), [1])], 0)
        return y

    @tf.function
    def capped(x):
        while x > 0:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            x -= 1
        return x

    np.testing.assert_array_equal(grow(tf.constant(4)).numpy(), [0.0, 0.0, 1.0, 2.0, 3.0])
    assert int(capped(tf.constant(10))) == 7


def test_a_generator_names_its_yield():
    @tf.function
    def gen(x):
        yield x

    with pytest.raises(AutoGraphError, match="generators are not supported") as e:
        gen(tf.constant(1.0))
    assert f"line {_line(gen, 'yield x')}" in str(e.value)
    assert "do_not_convert" in str(e.value)


_CALLS = 0


def test_closures_globals_defaults_and_super_survive_conversion():
    class Base:
        def f(self, x):
            return x + 1.0

    class Child(Base):
        @tf.function
        def f(self, x):
            if x > 0:  # super() moves into the branch's local function
                x = super().f(x)
            return x

    count = 0

    @tf.function
    def g(x):
        global _CALLS
        nonlocal count
        _CALLS += 1
        count += 1
        with tf.name_scope("s"):
            try:
                if x > 0:
                    x = x * 3.0
            except KeyError:
                pass
        ys = [x * k if k > 1 else x for k in range(3)]
        return tf.add_n(ys)

    @tf.function
    def h(x, n: int = 2):
        def inner(y: float) -> float:
            return y if n > 1 else -y

        out = x
        for _ in tf.range(n):
            out = out + inner(x)
        return out

    # TF 2.21 gives these numbers for g and h; its converted super() fails ('super' object
    # has no attribute 'f'), where Python's method gives 2.0 and -1.0.
    assert [float(Child().f(tf.constant(a))) for a in (1.0, -1.0)] == [2.0, -1.0]
    assert float(g(tf.constant(1.0))) == 12.0
    assert (_CALLS, count) == (1, 1)
    assert [float(h(tf.constant(1.0))), float(h(tf.constant(1.0), tf.constant(3)))] == [3.0, 4.0]


def _gen_helper(n):
    for k in range(n):
        yield k + 1


def test_callees_that_cannot_be_converted_run_as_written(caplog):
    @tf.function
    def usegen(x):
        for k in _gen_helper(3):  # a Python generator: TF warns and runs it as-is
            x = x * 2.0 + k
        return x

    ns: dict = {}
    exec("def nosrc(x):\n    return x * 3.0\n", ns)  # no source to read: run as-is

    @tf.function
    def callnosrc(x):
        if x > 0:
            x = ns["nosrc"](x)
        return x

    assert float(usegen(tf.constant(1.0))) == 19.0
    assert "could not transform" in caplog.text and "generators" in caplog.text
    assert [float(callnosrc(tf.constant(a))) for a in (2.0, -2.0)] == [6.0, -2.0]


def test_conversion_is_cached_per_function():
    def f(x):
        if x > 0:
            x = -x
        return x

    first, second = tf.autograph.to_graph(f), tf.autograph.to_graph(f)
    assert first is not f and first.__code__ is second.__code__
    assert first.__name__ == "f" and tf.autograph.to_graph(first) is first
    g = tf.function(f)
    assert float(g(tf.constant(2.0))) == -2.0
    assert float(g(tf.constant(2.0, tf.float64))) == -2.0  # a second trace, same conversion
    assert g._converted is not None and g._converted.__code__ is first.__code__


def _flatten(xs):  # recursive: its converted copy must call itself, not fail to find itself
    if isinstance(xs, list | tuple):
        return [z for y in xs for z in _flatten(y)]
    return [xs]


def test_a_recursive_function_called_from_converted_code():
    @tf.function
    def f(x):
        total = tf.add_n(_flatten([x, [x * 2.0, (x * 3.0,)]]))
        if total > 0.0:  # tensor control flow, so the function is converted
            total = total * 10.0
        return total

    assert float(f(tf.constant(1.0))) == 60.0
    assert float(f(tf.constant(-1.0))) == -6.0


def test_functions_without_source_from_one_factory_run_as_written():
    """Functions made by exec have no source to convert: they run as written.  All the
    functions one factory makes share a code object; the second one used to crash."""
    namespace = {"tf": tf}
    exec("def make(k):\n    def f(x):\n        return x * k\n    return f\n", namespace)
    for k in (2.0, 3.0, 4.0):
        assert float(tf.function(namespace["make"](k))(tf.constant(1.5))) == 1.5 * k
