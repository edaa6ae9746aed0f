"""TF1 optimizers (tf.compat.v1.train): TensorFlow 2.21's variables, slots and names after
several steps of the programs in tf_optimizers_v1.py."""

import numpy as np
import pytest
import tf_optimizers_v1
from compare import assert_matches

import symgrad as tf

LITERALS = {
    "gd": (
        (),
        (),
        (),
        ([[0.47, -0.98, 1.95], [1.51, 0.21, -0.69]], [-0.20000002, -0.049999993, 0.22500002], 5),
    ),
    "momentum": (
        ("momentum",),
        ("w/Momentum:0", "b/Momentum:0"),
        ("b/Momentum:0", "w/Momentum:0"),
        (
            [[0.32838503, -0.8855901, 1.7139751], [1.557205, 0.021179993, -0.40677002]],
            [-0.534062, 0.11703099, 0.14148453],
            5,
            [[0.14264998, -0.09509997, 0.23774987], [-0.047549985, 0.19019994, -0.28529996]],
            [2.62882, -1.31441, 0.657205],
        ),
    ),
    "nesterov": (
        ("momentum",),
        ("w/Momentum:0", "b/Momentum:0"),
        ("b/Momentum:0", "w/Momentum:0"),
        (
            [[0.44519556, -0.96346366, 1.9086592], [1.5182681, 0.17692739, -0.6403911]],
            [-0.2334637, -0.033268154, 0.2166341],
            5,
            [[-0.058830015, 0.039220013, -0.09805001], [0.019610006, -0.078440025, 0.11766003]],
            [2.0392199, -1.0196099, 0.50980496],
        ),
    ),
    "adam": (
        ("m", "v"),
        ("w/Adam:0", "b/Adam:0", "w/Adam_1:0", "b/Adam_1:0"),
        ("b/Adam:0", "b/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"),
        (
            [[0.46431905, -0.9643191, 1.964319], [1.535681, 0.21431905, -0.71431905]],
            [0.05149188, -0.1514919, 0.251492],
            5,
            [[0.014265001, -0.009510002, 0.023775], [-0.004755001, 0.019020004, -0.028530002]],
            [0.26288205, -0.13144103, 0.06572051],
            [
                [0.00016153057, 7.1791364e-05, 0.00044869605],
                [1.7947841e-05, 0.00028716546, 0.00064612227],
            ],
            [0.002197973, 0.00054949324, 0.00013737331],
        ),
    ),
    "adam_hyper": (
        ("m", "v"),
        ("w/Adam:0", "b/Adam:0", "w/Adam_1:0", "b/Adam_1:0"),
        ("b/Adam:0", "b/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"),
        (
            [[0.16982271, -0.67143613, 1.6685205], [1.8238173, -0.08099, -0.4181933]],
            [-0.38547784, 0.28237557, -0.17635232],
            5,
            [
                [0.0050880015, -0.0033920035, 0.008480005],
                [-0.0016960017, 0.006784007, -0.010176003],
            ],
            [0.462144, -0.231072, 0.115536],
            [[0.012122462, 0.005387761, 0.033673506], [0.0013469403, 0.021551045, 0.048489846]],
            [0.20104845, 0.050262112, 0.012565528],
        ),
    ),
    "adagrad": (
        ("accumulator",),
        ("w/Adagrad:0", "b/Adagrad:0"),
        ("b/Adagrad:0", "w/Adagrad:0"),
        (
            [[0.42807335, -0.94489163, 1.9105469], [1.5304966, 0.16736002, -0.65609497]],
            [-0.23643953, 0.0682911, 0.1146355],
            5,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
        ),
    ),
    "adagrad_init": (
        ("accumulator",),
        ("w/Adagrad:0", "b/Adagrad:0"),
        ("b/Adagrad:0", "w/Adagrad:0"),
        (
            [[0.21224856, -0.79183984, 1.6086452], [1.6097876, -0.09770763, -0.32709795]],
            [-1.4252858, 0.93787473, -0.4245922],
            5,
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [2.4, 0.75, 0.3375],
        ),
    ),
    "rmsprop": (
        ("momentum", "rms"),
        ("w/RMSProp_1:0", "b/RMSProp_1:0", "w/RMSProp:0", "b/RMSProp:0"),
        ("b/RMSProp:0", "b/RMSProp_1:0", "w/RMSProp:0", "w/RMSProp_1:0"),
        (
            [[0.49722353, -0.998147, 1.9953893], [1.500927, 0.24630387, -0.74448186]],
            [0.06635625, -0.18216695, 0.29093462],
            5,
            [
                [-0.0023187476, 0.0015545428, -0.0037972755],
                [0.0007799204, -0.0030677572, 0.004503591],
            ],
            [0.01123994, -0.006246331, 0.0032192995],
            [[0.60261244, 0.5958777, 0.6241634], [0.59183687, 0.61204106, 0.6389798]],
            [0.7915384, 0.640752, 0.6030554],
        ),
    ),
    "rmsprop_centered": (
        ("mg", "momentum", "rms"),
        (
            "w/RMSProp_1:0",
            "b/RMSProp_1:0",
            "w/RMSProp_2:0",
            "b/RMSProp_2:0",
            "w/RMSProp:0",
            "b/RMSProp:0",
        ),
        (
            "b/RMSProp:0",
            "b/RMSProp_1:0",
            "b/RMSProp_2:0",
            "w/RMSProp:0",
            "w/RMSProp_1:0",
            "w/RMSProp_2:0",
        ),
        (
            [[0.49237216, -0.9949054, 1.9873618], [1.5025501, 0.23985575, -0.73489565]],
            [0.049950592, -0.17406645, 0.28690726],
            5,
            [[0.014265001, -0.009510002, 0.023775], [-0.004755001, 0.019020004, -0.028530002]],
            [0.26288205, -0.13144103, 0.06572051],
            [
                [-0.0020670984, 0.0013862959, -0.0033816057],
                [0.0006956511, -0.0027335505, 0.0040077777],
            ],
            [0.018819906, -0.009980065, 0.0050709816],
            [[0.60261244, 0.5958777, 0.6241634], [0.59183687, 0.61204106, 0.6389798]],
            [0.7915384, 0.640752, 0.6030554],
        ),
    ),
    "rmsprop_hyper": (
        ("momentum", "rms"),
        ("w/RMSProp_1:0", "b/RMSProp_1:0", "w/RMSProp:0", "b/RMSProp:0"),
        ("b/RMSProp:0", "b/RMSProp_1:0", "w/RMSProp:0", "w/RMSProp_1:0"),
        (
            [[0.47624952, -0.98421174, 1.9601698], [1.5078785, 0.21823043, -0.70210165]],
            [-0.26856074, 0.012692101, 0.18825483],
            5,
            [[-0.030561756, 0.02067822, -0.048714142], [0.010433552, -0.039941873, 0.056813903]],
            [0.1197952, -0.07708607, 0.042156126],
            [[0.34588736, 0.3357722, 0.37825602], [0.32970306, 0.36004868, 0.40050945]],
            [0.69582087, 0.41971523, 0.35068884],
        ),
    ),
    "adam_float64": (
        ("m", "v"),
        ("w/Adam:0", "b/Adam:0", "w/Adam_1:0", "b/Adam_1:0"),
        ("b/Adam:0", "b/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0"),
        (
            [
                [0.4643190649320948, -0.9643190815228002, 1.9643190515529618],
                [1.5356808685475845, 0.21431905655793987, -0.7143190482888432],
            ],
            [0.0514918758763899, -0.1514919088891292, 0.25149198087487556],
            5,
            [
                [0.014265000724911037, -0.009510000146209709, 0.023774999926983058],
                [-0.004755000073104854, 0.019020000292419417, -0.028530001449822075],
            ],
            [0.2628820581199217, -0.13144102905996086, 0.06572051452998043],
            [
                [0.0001615305795850778, 7.179136692399992e-05, 0.0004486960336224777],
                [1.794784173099998e-05, 0.0002871654676959997, 0.0006461223183403112],
            ],
            [0.002197972860557403, 0.0005494932151393507, 0.00013737330378483769],
        ),
    ),
    "rmsprop_float64": (
        ("momentum", "rms"),
        ("w/RMSProp_1:0", "b/RMSProp_1:0", "w/RMSProp:0", "b/RMSProp:0"),
        ("b/RMSProp:0", "b/RMSProp_1:0", "w/RMSProp:0", "w/RMSProp_1:0"),
        (
            [
                [0.497223559358862, -0.998147023249279, 1.9953894033717614],
                [1.5009270827748902, 0.24630386427481898, -0.744481780113539],
            ],
            [0.06635624627308553, -0.18216695795538904, 0.29093463548808207],
            5,
            [
                [-0.002318747646329869, 0.0015545428348204065, -0.003797275461950223],
                [0.0007799203498929685, -0.003067757333818071, 0.004503591104415768],
            ],
            [0.011239940291085406, -0.006246331052743297, 0.003219299452047378],
            [
                [0.6026123848029655, 0.595877683013944, 0.6241634287765662],
                [0.5918368620935779, 0.6120409666954082, 0.6389797738514943],
            ],
            [0.7915383699044388, 0.6407520338162016, 0.6030554497941424],
        ),
    ),
    "eager_minimize": (
        [[0.45000005, -0.95, 1.95], [1.45, 0.29999995, -0.70000005]],
        [0.050000075, -0.15000004, 0.25000003],
        [[0.4008715, -0.9001102, 1.9000516], [1.4000479, 0.34851736, -0.65148264]],
        [0.0033913031, -0.10087147, 0.20044157],
        [[0.35369807, -0.85041517, 1.8501914], [1.3501775, 0.39335495, -0.60664505]],
        [-0.03358995, -0.05369805, 0.15177137],
        [[0.07957431, -0.40462214, 0.78401047], [0.8382098, -0.05259655, -0.052596536]],
        None,
    ),
    "graph_minimize": (
        True,
        [[-1.609375, -1.625, 1.0625], [0.578125, -0.53125, -1.125]],
        [[1.097902, -0.45448944, 1.5664707], [1.2734214, 0.40497044, -0.34458154]],
        4,
        ((0.1, 0.1), (0.1, 0.09654894), (0.05, 0.09321698), (0.05, 0.089999996)),
        True,
    ),
}


@pytest.mark.parametrize("program", tf_optimizers_v1.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    assert_matches(program(tf), LITERALS[program.__name__])


# -------------------------------------------------------------------------------------
# The same updates at top level, inside a function, and the errors TF gives

W0, B0 = tf_optimizers_v1.W0, tf_optimizers_v1.B0


@pytest.fixture
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_top_level_tf1_program_matches_the_graph_one(fresh_graph):
    """A TF1 program at top level (placeholders, Session): the Adam numbers of a Graph."""
    v1 = tf.compat.v1
    w, b = tf.Variable(W0, name="w"), tf.Variable(B0, name="b")
    gw, gb = v1.placeholder(tf.float32, W0.shape), v1.placeholder(tf.float32, B0.shape)
    opt = v1.train.AdamOptimizer(0.01)
    train = opt.apply_gradients([(gw, w), (gb, b)])
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for k in range(tf_optimizers_v1.STEPS):
            a, c = tf_optimizers_v1.grads(k)
            sess.run(train, {gw: a, gb: c})
        got = sess.run([w, b])
    assert_matches(tuple(got), LITERALS["adam"][3][:2])


def test_inside_a_function_as_eagerly(fresh_graph):
    def run(wrap):
        w = tf.Variable(W0)
        opt = tf.compat.v1.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True)

        def step(g):
            opt.apply_gradients([(g, w)])

        step = wrap(step)
        for k in range(3):
            step(tf.constant(tf_optimizers_v1.grads(k)[0]))
        return w.numpy(), opt.get_slot(w, "mg").numpy()

    eager, traced = run(lambda f: f), run(tf.function)
    np.testing.assert_array_equal(traced[0], eager[0])
    np.testing.assert_array_equal(traced[1], eager[1])


def test_errors(fresh_graph):
    v1 = tf.compat.v1
    w = tf.Variable(1.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        v1.train.GradientDescentOptimizer(0.1).apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided"):
        v1.train.GradientDescentOptimizer(0.1).apply_gradients([])
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        v1.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="Invalid type"):
        v1.train.GradientDescentOptimizer(0.1).compute_gradients(tf.cast(w, tf.int32), var_list=[w])

    class NotAGradient:
        values, indices, dense_shape = tf.constant([1.0]), tf.constant([0]), tf.constant([1])

    with pytest.raises(TypeError, match="Gradient must be convertible to a Tensor or Indexed"):
        v1.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(NotAGradient(), tf.Variable([1.0]))])


def test_global_step_is_one_per_graph(fresh_graph):
    v1 = tf.compat.v1
    step = v1.train.get_or_create_global_step()
    assert step is v1.train.get_or_create_global_step() is v1.train.get_global_step()
    assert (step.name, step.dtype, step.trainable) == ("global_step:0", tf.int64, False)
    with pytest.raises(ValueError, match='"global_step" already exists'):
        v1.train.create_global_step()


def test_decays_are_functions_in_eager_code(fresh_graph):
    step = tf.Variable(0, dtype=tf.int64)
    lr = tf.compat.v1.train.exponential_decay(0.1, step, 3, 0.9)
    pc = tf.compat.v1.train.piecewise_constant(step, [1, 3], [1.0, 0.5, 0.25])
    seen = []
    for _ in range(5):
        seen.append((float(lr()), float(pc())))
        step.assign_add(1)
    assert [p for _, p in seen] == [1.0, 1.0, 0.5, 0.5, 0.25]
    np.testing.assert_array_equal(
        np.float32([r for r, _ in seen[:4]]), np.float32(LITERALS["graph_minimize"][4])[:, 1]
    )


def test_the_train_op_is_named_as_the_optimizer(fresh_graph):
    """TF 2.21: ``minimize`` returns the group named as the optimizer ("Adam", "Adam_1"
    for a second one, or the name given), not "Adam/Adam"; with a global step, its
    increment takes that name."""
    v1 = tf.compat.v1
    v = tf.Variable(1.0)
    loss = v * v
    names = [
        v1.train.GradientDescentOptimizer(0.1).minimize(loss).name,
        v1.train.AdamOptimizer().minimize(loss).name,
        v1.train.MomentumOptimizer(0.1, 0.9).minimize(loss).name,
        v1.train.AdamOptimizer()
        .minimize(loss, global_step=v1.train.get_or_create_global_step())
        .name,
        v1.train.AdamOptimizer().minimize(loss, name="train").name,
    ]
    assert names == ["GradientDescent", "Adam", "Momentum", "Adam_1", "train"]
