"""``tf.control_dependencies`` in TF1 programs (tf_control_deps.py), TensorFlow 2.21's
numbers.  Variables made inside: their initializers run nothing else, as TensorFlow's,
whose ``init_scope`` clears the dependencies (before, the batch-norm idiom's slots waited
on the update ops, and ``global_variables_initializer()`` asked for the placeholders).
An outer op named inside a branch, loop body or function runs once, before the op that
runs it (before, never in an untaken branch, and once per iteration in a loop).  A
gradient of a loop or branch recomputes values only (before, it ran the body's
assignments and prints again: the counter below read 9 where TF's reads 4)."""

import sys

import pytest
import tf_control_deps
from compare import assert_matches

import symgrad as tf

LITERALS = {
    "batch_norm_idiom": (
        ([0.0, 0.0], 0),
        (
            [[0.64444685, -0.8501332], [1.3504506, 0.39830342], [-0.60034347, 1.8502654]],
            [-0.087442696, 0.2646598],
            3,
            [[0.60316, -0.8938256], [1.3940053, 0.35529566], [-0.6439446, 1.8939005]],
        ),
    ),
    "variable_made_under_a_dependency": (0, 5.0, [1.0, 1.0]),
    "outer_op_named_inside": ((2.0, 2.0), ([3], 15.0), (6.0, 101.0), (5.0, 7.0), (5.0, 14.0)),
    "effects_run_once_with_a_gradient": (
        ((16.0, 4.0, (36.0,)), 104.0),
        ((81.0, 3.0, (109.0,)), 108.0),
    ),
}


@pytest.mark.parametrize("program", tf_control_deps.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    assert_matches(program(tf), LITERALS[program.__name__])


def test_an_initializer_asked_for_inside_a_dependency_has_none():
    """``v.initializer`` is made when first asked for; asked for inside a dependency it
    still runs alone (the group that ``global_variables_initializer`` makes there keeps
    the dependency, as TF's)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        counter = tf.Variable(0)
        v = tf.Variable([1.0, 2.0])
        bump = counter.assign_add(1)
        with tf.control_dependencies([bump]):
            alone = v.initializer
            everything = v1.global_variables_initializer()
        assert alone.control_inputs == ()
        with v1.Session() as sess:
            sess.run(counter.initializer)
            sess.run(alone)
            assert sess.run(counter) == 0
            sess.run(everything)
            assert sess.run(counter) == 1


def test_a_branchs_print_runs_once_with_its_gradient(capfd):
    """TF 2.21 prints ``in branch 3`` once for the run below (before: twice, the
    gradient's recomputation printing again)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [])

        def taken():
            with tf.control_dependencies([tf.print("in branch", x, output_stream=sys.stderr)]):
                return x * x

        z = tf.cond(x > 0, taken, lambda: x)
        (dz,) = tf.gradients(z, x)
        with v1.Session() as sess:
            assert sess.run([z, dz], {x: 3.0}) == [9.0, 6.0]
    out = capfd.readouterr()
    assert out.out + out.err == "in branch 3\n", out
