"""tf.keras.optimizers (Keras 3 as TF 2.21 ships it): TensorFlow's variables and optimizer
variables after several steps of the programs in tf_keras_optimizers.py."""

import sys

import numpy as np
import pytest
import tf_keras_optimizers
from compare import assert_matches
from ulp import assert_ulp

import symgrad as tf
from symgrad.core.eager import EagerTensor

LITERALS = {
    "sgd": (
        [[0.47, -0.98, 1.95], [1.51, 0.21, -0.69]],
        [-0.20000002, -0.049999993, 0.22500002],
        (5, 0.1),
    ),
    "sgd_momentum": (
        [[0.32838503, -0.8855901, 1.7139751], [1.557205, 0.021179987, -0.40677002]],
        [-0.534062, 0.11703101, 0.14148451],
        (
            5,
            0.1,
            [[-0.014264999, 0.009509998, -0.023774993], [0.004754999, -0.019019997, 0.028529998]],
            [-0.262882, 0.131441, -0.0657205],
        ),
    ),
    "sgd_nesterov": (
        [[0.44519556, -0.96346366, 1.9086592], [1.5182681, 0.17692739, -0.6403911]],
        [-0.2334637, -0.033268154, 0.2166341],
        (
            5,
            0.05,
            [
                [0.0029415009, -0.0019610003, 0.0049025016],
                [-0.0009805001, 0.0039220005, -0.0058830017],
            ],
            [-0.101961, 0.0509805, -0.02549025],
        ),
    ),
    "sgd_weight_decay": (
        [[0.46768475, -0.97512984, 1.9403197], [1.502455, 0.20899218, -0.686617]],
        [-0.20009932, -0.049201842, 0.22360297],
        (5, 0.1),
    ),
    "adam": (
        [[0.4643195, -0.9643197, 1.9643193], [1.5356798, 0.21431942, -0.71431935]],
        [0.051492393, -0.15149271, 0.25149336],
        (
            5,
            0.01,
            [[0.014264999, -0.009509999, 0.023774996], [-0.0047549997, 0.019019999, -0.028529998]],
            [
                [0.00016153266, 7.179229e-05, 0.00044870185],
                [1.7948072e-05, 0.00028716915, 0.00064613065],
            ],
            [0.262882, -0.131441, 0.0657205],
            [0.0021980014, 0.00054950034, 0.00013737509],
        ),
    ),
    "adam_amsgrad": (
        [[0.17600259, -0.67755735, 1.6747478], [1.8178669, -0.07478041, -0.42443275]],
        [-0.38547793, 0.28237563, -0.17635241],
        (
            5,
            0.1,
            [
                [0.0050879978, -0.003391998, 0.0084799975],
                [-0.001695999, 0.006783996, -0.0101759955],
            ],
            [[0.012122461, 0.0053877607, 0.033673503], [0.0013469402, 0.021551043, 0.048489843]],
            [0.46214402, -0.23107201, 0.115536004],
            [0.2010484, 0.0502621, 0.012565525],
            [[0.012122461, 0.0053877607, 0.033673503], [0.0013469402, 0.021551043, 0.048489843]],
            [0.2010484, 0.0502621, 0.012565525],
        ),
    ),
    "adamw": (
        [[0.46422315, -0.9641234, 1.963923], [1.5353761, 0.2142731, -0.714173]],
        [0.051476303, -0.15145662, 0.2514373],
        (
            5,
            0.01,
            [[0.014264999, -0.009509999, 0.023774996], [-0.0047549997, 0.019019999, -0.028529998]],
            [
                [0.00016153266, 7.179229e-05, 0.00044870185],
                [1.7948072e-05, 0.00028716915, 0.00064613065],
            ],
            [0.262882, -0.131441, 0.0657205],
            [0.0021980014, 0.00054950034, 0.00013737509],
        ),
    ),
    "adamw_hyper": (
        [[0.1277204, -0.60321707, 1.5542042], [1.7742534, -0.110027894, -0.36546642]],
        [-0.3803034, 0.28520134, -0.1900962],
        (
            5,
            0.1,
            [[0.014264999, -0.009509999, 0.023774996], [-0.0047549997, 0.019019999, -0.028529998]],
            [
                [0.00016153266, 7.179229e-05, 0.00044870185],
                [1.7948072e-05, 0.00028716915, 0.00064613065],
            ],
            [0.262882, -0.131441, 0.0657205],
            [0.0021980014, 0.00054950034, 0.00013737509],
        ),
    ),
    "rmsprop": (
        [[0.46802527, -0.96802545, 1.9680251], [1.5319734, 0.2180252, -0.7180252]],
        [-0.032277554, -0.06772395, 0.1677301],
        (
            5,
            0.01,
            [[0.01212246, 0.00538776, 0.0336735], [0.00134694, 0.02155104, 0.04848984]],
            [0.2010484, 0.0502621, 0.012565525],
        ),
    ),
    "rmsprop_centered": (
        [[0.4151957, -0.9151964, 1.9151952], [1.5848001, 0.1651955, -0.6651953]],
        [-0.14534971, 0.045346163, 0.054667965],
        (
            5,
            0.01,
            [[0.01212246, 0.00538776, 0.0336735], [0.00134694, 0.02155104, 0.04848984]],
            [0.2010484, 0.0502621, 0.012565525],
            [[-0.013674485, 0.013674419, -0.013674516], [0.013674062, -0.013674507, 0.013674524]],
            [0.055125386, -0.055125177, 0.055124342],
            [[0.014264999, -0.009509998, 0.023774993], [-0.004754999, 0.019019997, -0.028529998]],
            [0.262882, -0.131441, 0.0657205],
        ),
    ),
    "adagrad": (
        [[0.42807335, -0.9448916, 1.9105469], [1.5304966, 0.16736004, -0.6560949]],
        [-0.2364395, 0.06829103, 0.114635535],
        (
            5,
            0.1,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
        ),
    ),
    "adagrad_init": (
        [[0.21276796, -0.79228675, 1.6091062], [1.609524, -0.097197786, -0.32749873]],
        [-1.4240532, 0.9363649, -0.4232093],
        (5, 0.5, [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]], [2.4, 0.75, 0.3375]),
    ),
    "exponential_staircase": (
        [[0.41187504, -0.94125, 1.8531251], [1.529375, 0.13249998, -0.5737501]],
        [-0.15125002, -0.07437499, 0.23718753],
        (
            5,
            [
                [0.0011250004, -0.0007499999, 0.001875001],
                [-0.00037499995, 0.0014999998, -0.0022500008],
            ],
            [-0.058750004, 0.029375002, -0.014687501],
        ),
    ),
    "exponential": (
        [[0.4660512, -0.9660514, 1.9660512], [1.5339481, 0.21605118, -0.7160511]],
        [0.054703332, -0.15470365, 0.25470424],
        (
            5,
            [[0.014264999, -0.009509999, 0.023774996], [-0.0047549997, 0.019019999, -0.028529998]],
            [
                [0.00016153266, 7.179229e-05, 0.00044870185],
                [1.7948072e-05, 0.00028716915, 0.00064613065],
            ],
            [0.262882, -0.131441, 0.0657205],
            [0.0021980014, 0.00054950034, 0.00013737509],
        ),
    ),
    "piecewise": (
        [[0.4538, -0.9692, 1.9230001], [1.5154, 0.18839999, -0.6576]],
        [-0.040000007, -0.13000001, 0.26500005],
        (5,),
    ),
    "clipnorm": (
        [[0.48427573, -0.98951715, 1.9737929], [1.5052414, 0.2290343, -0.71855146]],
        [-0.09093073, -0.10453465, 0.25226733],
        (5, 0.1),
    ),
    "global_clipnorm": (
        [[0.46192595, -0.9619262, 1.9619257], [1.5380727, 0.21192577, -0.7119256]],
        [0.0519694, -0.15196995, 0.2519711],
        (
            5,
            0.01,
            [[0.01247432, -0.008316211, 0.020790532], [-0.0041581057, 0.016632423, -0.02494864]],
            [
                [4.6034682e-05, 2.0459858e-05, 0.00012787411],
                [5.1149646e-06, 8.183943e-05, 0.00018413873],
            ],
            [0.13813338, -0.06906669, 0.034533344],
            [0.0005958406, 0.00014896016, 3.724004e-05],
        ),
    ),
    "clipvalue": (
        [[0.46802527, -0.96802545, 1.9652989], [1.5319734, 0.21660727, -0.7148972]],
        [-0.013910608, -0.07529283, 0.1677301],
        (
            5,
            0.01,
            [[0.01212246, 0.00538776, 0.023175899], [0.00134694, 0.016958341, 0.0239283]],
            [0.0335754, 0.0279621, 0.012565525],
        ),
    ),
    "adam_float64": (
        [
            [0.4643194880029908, -0.9643196543776406, 1.964319354795601],
            [1.5356798463502195, 0.21431940473629238, -0.7143193215742558],
        ],
        [0.05149233063769183, -0.1514926473417091, 0.2514932866905426],
        (
            5,
            0.01,
            [
                [0.014265000566840172, -0.009510000040829183, 0.023774999663531783],
                [-0.004755000020414592, 0.019020000081658366, -0.028530001133680344],
            ],
            [
                [0.00016153265324515126, 7.17922885506764e-05, 0.0004487017937890819],
                [1.79480721376691e-05, 0.0002871691542027056, 0.000646130612980605],
            ],
            [0.26288200363412495, -0.13144100181706247, 0.06572050090853124],
            [0.002198001133228906, 0.0005495002833072265, 0.00013737507082680662],
        ),
    ),
    "rmsprop_centered_float64": (
        [
            [0.41519571067508804, -0.9151963710174765, 1.9151953715582195],
            [1.5848000601735794, 0.16519547874574866, -0.665195314104178],
        ],
        [-0.14534969242104673, 0.04534615553301639, 0.05466799146018792],
        (
            5,
            0.01,
            [
                [0.012122460963406582, 0.005387760314812666, 0.03367350128763916],
                [0.0013469400787031664, 0.021551041259250663, 0.04848984385362633],
            ],
            [0.20104840445986988, 0.05026210111496747, 0.012565525278741867],
            [
                [-0.013674482535445053, 0.013674416581775279, -0.013674516668775793],
                [0.013674059422152614, -0.013674505875856575, 0.0136745222220461],
            ],
            [0.055125384455642856, -0.0551251763018321, 0.055124343810636904],
            [
                [0.014265000566840165, -0.009510000040829183, 0.02377499966353179],
                [-0.004755000020414592, 0.019020000081658366, -0.02853000113368033],
            ],
            [0.26288200363412495, -0.13144100181706247, 0.06572050090853124],
        ),
    ),
    "in_a_function": (
        [[0.46422315, -0.9641234, 1.963923], [1.5353761, 0.2142731, -0.714173]],
        [0.051476303, -0.15145662, 0.2514373],
        (
            5,
            0.01,
            [[0.014264999, -0.009509999, 0.023774996], [-0.0047549997, 0.019019999, -0.028529998]],
            [
                [0.00016153266, 7.179229e-05, 0.00044870185],
                [1.7948072e-05, 0.00028716915, 0.00064613065],
            ],
            [0.262882, -0.131441, 0.0657205],
            [0.0021980014, 0.00054950034, 0.00013737509],
        ),
    ),
    "none_gradients": (
        [[0.49000016, -0.99000025, 1.9900001], [1.5099996, 0.24000014, -0.7400001]],
        2.0,
        1,
        6,
        True,
    ),
    "schedule_values": (
        (
            0.1,
            0.09864848,
            0.09731523,
            0.096,
            0.09470254,
            0.09342262,
            0.09216,
            0.08727786,
            0.025647251,
        ),
        (0.5, 0.5, 0.05, 0.05, 0.0050000004, 0.0050000004, 0.0005, 5.0000003e-06, 0.0),
        (1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.125, 0.125, 0.125),
        {
            "initial_learning_rate": 0.1,
            "decay_steps": 3,
            "decay_rate": 0.96,
            "staircase": False,
            "name": "ExponentialDecay",
        },
        {"boundaries": [2, 5], "values": [1.0, 0.5, 0.125], "name": "PiecewiseConstant"},
    ),
    "adamax": (
        [
            [0.35857632756233215, -0.8585764169692993, 1.8585762977600098],
            [1.6414235830307007, 0.10857632756233215, -0.6085764169692993],
        ],
        [-0.08764788508415222, -0.012352164834737778, 0.11235225945711136],
        (
            5,
            0.05000000074505806,
            [
                [0.014264998957514763, -0.009509999305009842, 0.023774996399879456],
                [-0.004754999652504921, 0.019019998610019684, -0.028529997915029526],
            ],
            [
                [0.29880183935165405, 0.19920121133327484, 0.4980030357837677],
                [0.09960060566663742, 0.3984024226665497, 0.5976036787033081],
            ],
            [0.2628819942474365, -0.13144099712371826, 0.06572049856185913],
            [1.0, 0.5, 0.25],
        ),
    ),
    "adamax_hyper": (
        [
            [0.22225037217140198, -0.7227391004562378, 1.721858024597168],
            [1.775804877281189, -0.027994627133011818, -0.47175997495651245],
        ],
        [-0.2865120470523834, 0.18555280566215515, -0.08365394175052643],
        (
            5,
            0.10000000149011612,
            [
                [0.005087997764348984, -0.0033919978886842728, 0.008479997515678406],
                [-0.0016959989443421364, 0.0067839957773685455, -0.010175995528697968],
            ],
            [
                [0.24435186386108398, 0.16290123760700226, 0.40725311636924744],
                [0.08145061880350113, 0.3258024752140045, 0.48870372772216797],
            ],
            [0.46214401721954346, -0.23107200860977173, 0.11553600430488586],
            [1.0, 0.5, 0.25],
        ),
    ),
    "cosine": (
        [
            [0.4085865914821625, -0.9085870385169983, 1.9085861444473267],
            [1.591411828994751, 0.15858638286590576, -0.6585861444473267],
        ],
        [-0.0249616801738739, -0.075038842856884, 0.1750398874282837],
        (
            5,
            [
                [0.014264998957514763, -0.009509999305009842, 0.023774996399879456],
                [-0.004754999652504921, 0.019019998610019684, -0.028529997915029526],
            ],
            [
                [0.00016153266187757254, 7.179228850873187e-05, 0.0004487018450163305],
                [1.7948072127182968e-05, 0.0002871691540349275, 0.0006461306475102901],
            ],
            [0.2628819942474365, -0.13144099712371826, 0.06572049856185913],
            [0.0021980013698339462, 0.0005495003424584866, 0.00013737508561462164],
        ),
    ),
    "polynomial": (
        [
            [0.42739999294281006, -0.9516000747680664, 1.879000186920166],
            [1.5241999626159668, 0.15319998562335968, -0.6047999858856201],
        ],
        [-0.029250003397464752, -0.1353749930858612, 0.26768752932548523],
        (
            5,
            [
                [0.0006000001449137926, -0.0004000002518296242, 0.0010000001639127731],
                [-0.0002000001259148121, 0.0008000005036592484, -0.0012000002898275852],
            ],
            [-0.03074999898672104, 0.01537499949336052, -0.00768749974668026],
        ),
    ),
    "nadam": (
        [
            [0.42796653509140015, -0.9279665350914001, 1.9279663562774658],
            [1.572033405303955, 0.17796649038791656, -0.6779665350914001],
        ],
        [-0.14047090709209442, 0.040470849722623825, 0.05952931568026543],
        (
            5,
            0.05000000074505806,
            [
                [0.014265000820159912, -0.009510002098977566, 0.023775000125169754],
                [-0.004755001049488783, 0.01902000419795513, -0.028530001640319824],
            ],
            [
                [0.00016153056640177965, 7.179136446211487e-05, 0.0004486960533540696],
                [1.7947841115528718e-05, 0.0002871654578484595, 0.0006461222656071186],
            ],
            [0.2628820538520813, -0.13144102692604065, 0.06572051346302032],
            [0.0021979729644954205, 0.0005494932411238551, 0.00013737331028096378],
            0.031461525708436966,
        ),
    ),
    "nadam_hyper": (
        [
            [0.3443463444709778, -0.844590961933136, 1.8441503047943115],
            [1.6546794176101685, 0.09422381222248077, -0.5941011309623718],
        ],
        [-0.4385834336280823, 0.33712100982666016, -0.23422491550445557],
        (
            5,
            0.10000000149011612,
            [
                [0.005088001489639282, -0.0033920034766197205, 0.008480004966259003],
                [-0.0016960017383098602, 0.006784006953239441, -0.010176002979278564],
            ],
            [
                [0.007007677108049393, 0.0031145233660936356, 0.019465770572423935],
                [0.0007786308415234089, 0.012458093464374542, 0.02803070843219757],
            ],
            [0.46214398741722107, -0.23107199370861053, 0.11553599685430527],
            [0.1051330417394638, 0.02628326043486595, 0.006570815108716488],
            0.01745891571044922,
        ),
    ),
    "errors": (
        "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or "
        "a callable (that takes in the current iteration value and returns the corresponding "
        "learning rate value). Received instead: learning_rate=1",
        "`momentum` must be a float between [0, 1].",
        "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
        "clipnorm=1.0, clipvalue=1.0, global_clipnorm=None",
        "Argument `weight_decay` must be a float. Received: weight_decay=None",
        "Argument(s) not recognized: {'foo': 1}",
        "Argument `decay_steps` must be > 0. Received: decay_steps=0",
        True,
    ),
}


# TF 2.21's Nadam inside tf.function gives its eager run's numbers, bit for bit.
LITERALS["nadam_in_a_function"] = LITERALS["nadam"]


@pytest.mark.parametrize("program", tf_keras_optimizers.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    assert_matches(program(tf), LITERALS[program.__name__])


# -------------------------------------------------------------------------------------
# symgrad's own checks: Keras 2's minimize, names, settings, what tf.keras does not have


def test_minimize_equals_apply_gradients():
    """Keras 3 has no minimize; symgrad keeps Keras 2's, which is apply_gradients of the
    tape's gradients (a loss function, or a tensor with its tape)."""
    target = tf.constant(tf_keras_optimizers.W0 * 2)

    def run(use_minimize, tensor_loss=False):
        w = tf.Variable(tf_keras_optimizers.W0)
        opt = tf.keras.optimizers.Adam(0.1)
        for _ in range(3):
            loss_fn = lambda: tf.reduce_sum(tf.square(w - target))  # noqa: E731
            if use_minimize and tensor_loss:
                with tf.GradientTape() as tape:
                    loss = loss_fn()
                opt.minimize(loss, [w], tape=tape)
            elif use_minimize:
                opt.minimize(loss_fn, [w])
            else:
                with tf.GradientTape() as tape:
                    loss = loss_fn()
                opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return w.numpy()

    np.testing.assert_array_equal(run(True), run(False))
    np.testing.assert_array_equal(run(True, tensor_loss=True), run(False))
    with pytest.raises(ValueError, match="`tape` is required"):
        tf.keras.optimizers.SGD(0.1).minimize(tf.constant(1.0), [tf.Variable(1.0)])


def test_iterations_waits_for_the_updates_in_a_graph_only():
    """In a graph the step counter's increment has every update as a control input, so
    running it runs them (TF1's ``sess.run(opt.iterations.op)``-style programs).  Eagerly,
    TF's control_dependencies does nothing: the updates have run, and their ops are not
    built (an eager update is a light tensor until its op is asked for).  The values are
    exact in binary: w - 0.5·g."""
    from symgrad.core.eager_tensor import EagerTensor

    def values(ws, read):
        return [read(w).tolist() for w in ws]

    with tf.Graph().as_default():
        ws = [tf.Variable([1.0, 2.0]), tf.Variable(3.0)]
        grads = [tf.constant([0.5, -1.0]), tf.constant(2.0)]
        tf.keras.optimizers.SGD(0.5).apply_gradients(zip(grads, ws))
        increment = ws[0].graph.get_operation_by_name("AssignAdd")  # iterations += 1
        assert [op.name for op in increment.control_inputs] == ["AssignSub", "AssignSub_1"]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(increment)
            assert values(ws, sess.run) == [[0.75, 2.5], 2.0]

    ws = [tf.Variable([1.0, 2.0]), tf.Variable(3.0)]
    grads = [tf.constant([0.5, -1.0]), tf.constant(2.0)]
    opt = tf.keras.optimizers.SGD(0.5)
    made, original = [], tf.Variable.assign_sub

    def spy(self, delta, *args, **kwargs):
        made.append(original(self, delta, *args, **kwargs))
        return made[-1]

    tf.Variable.assign_sub = spy
    try:
        opt.apply_gradients(zip(grads, ws))
    finally:
        tf.Variable.assign_sub = original
    assert int(opt.iterations) == 1 and values(ws, lambda w: w.numpy()) == [[0.75, 2.5], 2.0]
    assert [type(u._parent_op) is EagerTensor and u._parent_op._op is None for u in made] == [
        True,
        True,
    ]


def test_variable_paths_and_names():
    tf.reset_default_graph()
    try:
        w = tf.Variable(tf_keras_optimizers.B0, name="dense/kernel")
        opt = tf.keras.optimizers.Adam(0.1, name="opt")
        opt.apply_gradients([(tf.constant(tf_keras_optimizers.B0), w)])
        assert [v.path for v in opt.variables] == [
            "opt/iteration",
            "opt/learning_rate",
            "opt/dense_kernel_0_momentum",
            "opt/dense_kernel_0_velocity",
        ]
        assert opt.iterations.dtype == tf.int64 and opt.iterations.numpy() == 1
    finally:
        tf.reset_default_graph()


def test_learning_rate_settings():
    opt = tf.keras.optimizers.SGD(0.1)
    opt.learning_rate = 0.5
    assert opt.learning_rate.numpy() == np.float32(0.5)
    sched = tf.keras.optimizers.SGD(tf.keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5))
    with pytest.raises(TypeError, match="not settable"):
        sched.learning_rate = 0.3
    assert tf.keras.optimizers.get("adam").beta_1 == 0.9
    config = tf.keras.optimizers.Adam(0.25, beta_2=0.99).get_config()
    assert tf.keras.optimizers.Adam.from_config(config).beta_2 == 0.99


def test_missing_keras_names_say_so():
    with pytest.raises(
        AttributeError, match="does not have the TensorFlow API tf.keras.applications"
    ):
        tf.keras.applications  # noqa: B018
    with pytest.raises(AttributeError, match="not tf.keras.optimizers.Lamb"):
        tf.keras.optimizers.Lamb  # noqa: B018
    listed = "CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay, "
    with pytest.raises(AttributeError, match=listed):
        tf.keras.optimizers.schedules.StepDecay  # noqa: B018


def _rates(schedule, steps):
    return np.array([schedule(k).numpy() for k in steps], np.float32)


def test_polynomial_and_cosine_decay_are_tfs():
    """TF 2.21's rates (Keras 3's float32 arithmetic, through cos and pow: within 4 ulps,
    and near 0 within 1e-8),
    and through SGD and ``function``."""
    s = tf.keras.optimizers.schedules
    assert_ulp(_rates(s.PolynomialDecay(0.1, 10, 0.01, power=0.5), [0, 3, 7, 10, 15]), [
        0.10000000149011612, 0.08529940247535706, 0.059295035898685455,
        0.009999999776482582, 0.009999999776482582,
    ])  # fmt: skip
    assert_ulp(_rates(s.PolynomialDecay(0.1, 10), [0, 5, 12]), [
        0.10000000149011612, 0.050050001591444016, 9.999999747378752e-05,
    ])  # fmt: skip
    cycle = s.PolynomialDecay(0.1, 10, 0.01, power=2.0, cycle=True)
    assert_ulp(_rates(cycle, [0, 3, 10, 11, 25]), [
        0.10000000149011612, 0.054099999368190765, 0.009999999776482582,
        0.028224999085068703, 0.012500000186264515,
    ])  # fmt: skip
    assert_ulp(
        _rates(s.CosineDecay(0.1, 10), [0, 1, 5, 9, 10, 20]),
        [
            0.10000000149011612,
            0.0975528284907341,
            0.04999999701976776,
            0.0024471760261803865,
            0.0,
            0.0,
        ],
        atol=1e-8,
    )  # fmt: skip  (cos(π) + 1: 0, or an ulp of 1 away)
    assert_ulp(_rates(s.CosineDecay(0.3, 7, alpha=0.2), [0, 2, 6, 7]), [
        0.30000001192092896, 0.25481876730918884, 0.07188373804092407, 0.06000000238418579,
    ])  # fmt: skip
    warm = s.CosineDecay(0.0, 10, warmup_target=0.1, warmup_steps=4)
    assert_ulp(_rates(warm, [0, 1, 3, 4, 5, 13, 20]), [
        0.0, 0.02500000037252903, 0.07500000298023224, 0.10000000149011612,
        0.0975528284907341, 0.0024471760261803865, 0.0,
    ], atol=1e-8)  # fmt: skip
    assert_ulp(_rates(tf.function(warm), [tf.constant(2), tf.constant(6)]), [
        0.05000000074505806, 0.09045084565877914,
    ])  # fmt: skip
    opt = tf.keras.optimizers.SGD(s.CosineDecay(0.5, 4))
    v = tf.Variable(1.0)
    for _ in range(3):
        opt.apply_gradients([(tf.constant(1.0), v)])
    assert_ulp(v.numpy(), -0.1767766922712326)
    config = s.serialize(warm)
    assert config["class_name"] == "CosineDecay"
    assert_ulp(_rates(s.deserialize(config), [3]), [0.07500000298023224])
    with pytest.raises(ValueError, match="Argument `decay_steps` must be > 0"):
        s.PolynomialDecay(0.1, 0)


def test_a_custom_optimizer_as_keras_documents_it():
    class PlainSGD(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1):
            super().__init__(learning_rate=learning_rate)

        def build(self, variables):
            super().build(variables)
            self.steps = self.add_optimizer_variables(variables, "steps")

        def update_step(self, gradient, variable, learning_rate):
            lr = tf.cast(learning_rate, variable.dtype)
            self.assign_add(self.steps[self._get_variable_index(variable)], gradient * 0 + 1)
            self.assign_sub(variable, gradient * lr)

    w = tf.Variable([1.0, 2.0])
    opt = PlainSGD(0.5)
    for _ in range(2):
        opt.apply_gradients([(tf.constant([1.0, -2.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.0, 4.0])
    np.testing.assert_array_equal(opt.steps[0].numpy(), [2.0, 2.0])
    assert opt.iterations.numpy() == 2


def _made_by_apply(monkeypatch, pinned, cls, *args, **options):
    """The light tensors one eager ``apply_gradients`` of ``cls(*args, **options)`` makes (after one
    warm-up step), as (name, type, inputs, traceback), with the variables' values; and
    whether ``_step`` pinned the user's line."""
    from symgrad.core import fast_path
    from symgrad.keras.optimizers import base

    tf.compat.v1.reset_default_graph()
    ws = [tf.Variable([[1.0, -2.0], [0.5, 3.0]]), tf.Variable([0.25, -1.0])]
    grads = [tf.constant([[0.1, 0.2], [-0.3, 0.4]]), tf.constant([1.0, -0.5])]
    opt = cls(*args, **options)
    opt.apply_gradients(zip(grads, ws))
    made = []

    def new(cls):
        made.append(EagerTensor.__new__(cls))
        return made[-1]

    own_step = base.Optimizer._own_step
    pins = []

    def pinned_step(self):
        pins.append(own_step(self))
        return pins[-1]

    monkeypatch.setattr(fast_path, "_new_tensor", new)
    monkeypatch.setattr(base.Optimizer, "_own_step", pinned_step)
    line = sys._getframe().f_lineno + 1
    opt.apply_gradients(zip(grads, ws))
    monkeypatch.undo()
    assert pins == [pinned]
    rows = [(t.name, t.op.type, [i.name for i in t.op.inputs], t.op.traceback) for t in made]
    assert {r[3] for r in rows} == {(__file__, line)}
    return rows, [w.numpy() for w in ws]


def test_an_eager_step_pins_the_users_line_with_the_same_ops(monkeypatch):
    """Where ``_step`` runs only the package's code, the user's line is found once for
    all its ops: the same names, inputs, tracebacks and values as where each op finds
    it (a user's subclass, whose step is not pinned)."""
    optimizers = tf.keras.optimizers
    for cls, options in (
        (optimizers.SGD, {}),
        (optimizers.SGD, {"momentum": 0.9}),
        (optimizers.Adam, {}),
    ):
        users = type("Users", (cls,), {"__module__": __name__})
        pinned, pinned_values = _made_by_apply(monkeypatch, True, cls, 0.1, **options)
        walked, walked_values = _made_by_apply(monkeypatch, False, users, 0.1, **options)
        assert pinned == walked and len(pinned) >= 7
        for a, b in zip(pinned_values, walked_values):
            np.testing.assert_array_equal(a, b)
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    _made_by_apply(monkeypatch, False, optimizers.SGD, schedule)
    tf.compat.v1.reset_default_graph()


def test_a_constraint_keeps_its_own_line_and_the_step_is_not_pinned(monkeypatch):
    """A variable's constraint is the user's code: its ops are made at its own line (the
    step is not pinned), the optimizer's at the line that called it."""
    from symgrad.core import fast_path

    tf.compat.v1.reset_default_graph()
    w = tf.Variable([1.0, -2.0])
    w.constraint = lambda x: tf.maximum(x, 0.0)  # a user's constraint
    constraint_line = sys._getframe().f_lineno - 1
    opt = tf.keras.optimizers.SGD(0.1)
    opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
    made = []

    def new(cls):
        made.append(EagerTensor.__new__(cls))
        return made[-1]

    monkeypatch.setattr(fast_path, "_new_tensor", new)
    line = sys._getframe().f_lineno + 1
    opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
    monkeypatch.undo()
    sites = {(t.op.type, t.op.traceback) for t in made}
    assert ("ReadVariableOp", (__file__, constraint_line)) in sites  # the constraint's read
    assert {("Mul", (__file__, line)), ("AssignVariableOp", (__file__, line))} <= sites
    assert {site for _, site in sites} == {(__file__, constraint_line), (__file__, line)}
    np.testing.assert_allclose(w.numpy(), [0.8, 0.0], rtol=1e-6)
    tf.compat.v1.reset_default_graph()
