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
    "ftrl": (
        ("accum", "linear"),
        ("w/Ftrl:0", "b/Ftrl:0", "w/Ftrl_1:0", "b/Ftrl_1:0"),
        ("b/Ftrl:0", "b/Ftrl_1:0", "w/Ftrl:0", "w/Ftrl_1:0"),
        (
            [[0.06533522, -0.099737346, 0.8415019], [0.10030266, 0.012316635, -0.3064055]],
            [-0.32095492, 0.2589836, -0.1816834],
            5,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
            [[-0.33442447, 0.41363955, -6.240745], [-0.34455094, -0.07671988, 2.6500094]],
            [4.8675222, -2.0879927, 0.8854153],
        ),
    ),
    "ftrl_l1_l2": (
        ("accum", "linear"),
        ("w/acc:0", "b/acc:0", "w/lin:0", "b/lin:0"),
        ("b/acc:0", "b/lin:0", "w/acc:0", "w/lin:0"),
        (
            [[0.0, 0.0, 0.19949985], [0.0, -0.017932292, 0.0]],
            [-1.1832684, 0.7979718, -0.40347755],
            5,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
            [[0.18500388, -0.08412404, -0.6358061], [-0.14630413, 0.3259264, -0.07144192]],
            [4.1256847, -1.7462853, 0.7739568],
        ),
    ),
    "ftrl_v2": (
        ("accum", "linear"),
        ("w/Ftrl:0", "b/Ftrl:0", "w/Ftrl_1:0", "b/Ftrl_1:0"),
        ("b/Ftrl:0", "b/Ftrl_1:0", "w/Ftrl:0", "w/Ftrl_1:0"),
        (
            [[-0.012493963, 0.0052368906, 0.31515738], [0.0, -0.03579204, -0.086380556]],
            [-0.41627207, 0.29350623, -0.17612234],
            5,
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [2.4, 0.75, 0.3375],
            [[0.10519409, -0.07089177, -1.8026413], [-0.031035192, 0.22720769, 0.5880692]],
            [4.2771063, -1.7838385, 0.80834043],
        ),
    ),
    "adadelta": (
        ("accum", "accum_update"),
        ("w/Adadelta:0", "b/Adadelta:0", "w/Adadelta_1:0", "b/Adadelta_1:0"),
        ("b/Adadelta:0", "b/Adadelta_1:0", "w/Adadelta:0", "w/Adadelta_1:0"),
        (
            [[0.49956292, -0.99956304, 1.999563], [1.500437, 0.24956295, -0.74956304]],
            [0.096590266, -0.19659027, 0.2965904],
            5,
            [[0.007007677, 0.0031145231, 0.019465769], [0.0007786308, 0.0124580925, 0.028030708]],
            [0.10513304, 0.02628326, 0.006570815],
            [
                [2.01094e-08, 2.0109333e-08, 2.0109434e-08],
                [2.0108974e-08, 2.0109425e-08, 2.0109443e-08],
            ],
            [1.1492913e-07, 1.14927985e-07, 1.1492334e-07],
        ),
    ),
    "adadelta_hyper": (
        ("accum", "accum_update"),
        ("w/Adadelta:0", "b/Adadelta:0", "w/Adadelta_1:0", "b/Adadelta_1:0"),
        ("b/Adadelta:0", "b/Adadelta_1:0", "w/Adadelta:0", "w/Adadelta_1:0"),
        (
            [[0.4898618, -0.98988336, 1.9898506], [1.5100002, 0.23985423, -0.73984885]],
            [0.014009627, -0.11507266, 0.21881694],
            5,
            [[0.01820736, 0.00809216, 0.050576], [0.00202304, 0.03236864, 0.07282944]],
            [0.36814082, 0.092035204, 0.023008801],
            [
                [0.00016133855, 0.00015974285, 0.00016216721],
                [0.0001516167, 0.00016190408, 0.0001623104],
            ],
            [0.000961811, 0.0009396697, 0.00086379587],
        ),
    ),
    "proximal_gd": (
        (),
        (),
        (),
        ([[0.47, -0.98, 1.95], [1.51, 0.21, -0.69]], [-0.20000002, -0.049999993, 0.22500002], 5),
    ),
    "proximal_gd_l1_l2": (
        (),
        (),
        (),
        (
            [[0.19115143, -0.6526972, 1.5323874], [1.131604, 0.0, -0.39154312]],
            [-0.0872779, 0.0, 0.0],
            5,
        ),
    ),
    "proximal_adagrad": (
        ("accumulator",),
        ("w/ProximalAdagrad:0", "b/ProximalAdagrad:0"),
        ("b/ProximalAdagrad:0", "w/ProximalAdagrad:0"),
        (
            [[0.42807335, -0.94489163, 1.9105469], [1.5304966, 0.16736002, -0.65609497]],
            [-0.23643953, 0.068291076, 0.1146355],
            5,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
        ),
    ),
    "proximal_adagrad_l1_l2": (
        ("accumulator",),
        ("w/ProximalAdagrad:0", "b/ProximalAdagrad:0"),
        ("b/ProximalAdagrad:0", "w/ProximalAdagrad:0"),
        (
            [[0.03627217, -0.30448925, 1.0558574], [0.61111873, 0.055367343, -0.22614896]],
            [-0.5893237, 0.31973726, -0.116737396],
            5,
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [2.4, 0.75, 0.3375],
        ),
    ),
    "adagrad_da": (
        ("gradient_accumulator", "gradient_squared_accumulator"),
        ("w/AdagradDA:0", "b/AdagradDA:0", "w/AdagradDA_1:0", "b/AdagradDA_1:0"),
        ("b/AdagradDA:0", "b/AdagradDA_1:0", "w/AdagradDA:0", "w/AdagradDA_1:0"),
        (
            [[-0.05860985, 0.04822428, -0.06741999], [0.029111125, -0.06421613, 0.06937459]],
            [-0.19781415, 0.18605211, -0.15389676],
            5,
            [[0.3, -0.19999999, 0.5], [-0.099999994, 0.39999998, -0.6]],
            [3.0, -1.5, 0.75],
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [2.3000002, 0.65000004, 0.2375],
        ),
    ),
    "adagrad_da_l1_l2": (
        ("gradient_accumulator", "gradient_squared_accumulator"),
        ("w/AdagradDA:0", "b/AdagradDA:0", "w/AdagradDA_1:0", "b/AdagradDA_1:0"),
        ("b/AdagradDA:0", "b/AdagradDA_1:0", "w/AdagradDA:0", "w/AdagradDA_1:0"),
        (
            [[-0.01425183, 0.0, -0.05517389], [0.0, -0.037567146, 0.068569034]],
            [-0.33349636, 0.25879237, -0.14685419],
            5,
            [[0.3, -0.19999999, 0.5], [-0.099999994, 0.39999998, -0.6]],
            [3.0, -1.5, 0.75],
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [2.4, 0.75, 0.3375],
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
    "ftrl_l1_l2_float64": (
        ("accum", "linear"),
        ("w/acc:0", "b/acc:0", "w/lin:0", "b/lin:0"),
        ("b/acc:0", "b/lin:0", "w/acc:0", "w/lin:0"),
        (
            [[0.0, 0.0, 0.19949983072470123], [0.0, -0.017932306579002934, 0.0]],
            [-1.1832684116684986, 0.7979718176088835, -0.40347758341557666],
            5,
            [
                [0.2620000128746035, 0.17200000393390663, 0.5500000149011615],
                [0.11800000098347666, 0.3880000157356265, 0.7480000514984141],
            ],
            [2.300000053644181, 0.6500000134110453, 0.23750000335276134],
            [
                [0.18500388689870217, -0.08412405447311755, -0.6358060512281937],
                [-0.14630414189408303, 0.325926414322009, -0.07144195862155639],
            ],
            [4.125684532660701, -1.7462852849828125, 0.7739568354115274],
        ),
    ),
    "ftrl_v2_float64": (
        ("accum", "linear"),
        ("w/Ftrl:0", "b/Ftrl:0", "w/Ftrl_1:0", "b/Ftrl_1:0"),
        ("b/Ftrl:0", "b/Ftrl_1:0", "w/Ftrl:0", "w/Ftrl_1:0"),
        (
            [
                [-0.012493965467865612, 0.005236899102740658, 0.31515740486777044],
                [0.0, -0.0357920262707809, -0.08638059420661469],
            ],
            [-0.4162720832153803, 0.29350619545987955, -0.1761223657500071],
            5,
            [
                [0.36200001287460354, 0.2720000039339066, 0.6500000149011613],
                [0.21800000098347666, 0.4880000157356265, 0.8480000514984141],
            ],
            [2.400000053644181, 0.7500000134110453, 0.3375000033527613],
            [
                [0.1051940941343642, -0.07089180060891376, -1.8026413716541638],
                [-0.031035081231504218, 0.22720764341571154, 0.588069412817745],
            ],
            [4.277106439991009, -1.783838481712196, 0.8083404801475633],
        ),
    ),
    "adadelta_float64": (
        ("accum", "accum_update"),
        ("w/Adadelta:0", "b/Adadelta:0", "w/Adadelta_1:0", "b/Adadelta_1:0"),
        ("b/Adadelta:0", "b/Adadelta_1:0", "w/Adadelta:0", "w/Adadelta_1:0"),
        (
            [
                [0.4995629473494671, -0.999562947920049, 1.9995629470575462],
                [1.5004370490003809, 0.2495629471501463, -0.7495629470072872],
            ],
            [0.09659026417608307, -0.19659028359632907, 0.29659036425348173],
            5,
            [
                [0.007007677610197735, 0.0031145233105976306, 0.019465770284291375],
                [0.0007786308276494077, 0.012458093242390523, 0.02803071044079094],
            ],
            [0.10513303888651498, 0.026283259721628746, 0.0065708149304071865],
            [
                [2.0109399541780914e-08, 2.010933374824547e-08, 2.0109434128948945e-08],
                [2.0108975603941758e-08, 2.0109423286218843e-08, 2.0109439336588966e-08],
            ],
            [1.1492915343513433e-07, 1.1492798786450659e-07, 1.1492332590714446e-07],
        ),
    ),
    "adagrad_da_l1_l2_float64": (
        ("gradient_accumulator", "gradient_squared_accumulator"),
        ("w/AdagradDA:0", "b/AdagradDA:0", "w/AdagradDA_1:0", "b/AdagradDA_1:0"),
        ("b/AdagradDA:0", "b/AdagradDA_1:0", "w/AdagradDA:0", "w/AdagradDA_1:0"),
        (
            [
                [-0.01425183063022633, 0.0, -0.055173887914496435],
                [0.0, -0.03756715324429959, 0.06856902534996959],
            ],
            [-0.3334963807998934, 0.25879237098335056, -0.14685420217449735],
            5,
            [
                [0.30000001192092896, -0.20000000298023224, 0.5],
                [-0.10000000149011612, 0.4000000059604645, -0.6000000238418579],
            ],
            [3.0000000447034836, -1.5000000223517418, 0.7500000111758709],
            [
                [0.36200001287460354, 0.2720000039339066, 0.6500000149011613],
                [0.21800000098347666, 0.4880000157356265, 0.8480000514984141],
            ],
            [2.400000053644181, 0.7500000134110453, 0.3375000033527613],
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


# Updates made of correctly rounded operations only (+ - * / sqrt rsqrt, casts): their
# numbers depend only on the order of the operations, which these exact checks test (a
# different order is an ulp or so off).  Ftrl's pow (ftrl_v2) depends on the libm.
EXACT = set(
    """ftrl ftrl_l1_l2 ftrl_l1_l2_float64 adadelta adadelta_hyper adadelta_float64 proximal_gd
    proximal_gd_l1_l2 proximal_adagrad proximal_adagrad_l1_l2 adagrad_da adagrad_da_l1_l2
    adagrad_da_l1_l2_float64""".split()
)


@pytest.mark.parametrize("program", tf_optimizers_v1.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    name = program.__name__
    assert_matches(program(tf), LITERALS[name], ulps=0 if name in EXACT else 32)


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


def test_constructor_errors_are_tfs():
    """TF 2.21's checks and texts (Ftrl formats the value with %f, the others with %s)."""
    train = tf.compat.v1.train
    for kwargs, text in [
        ({"initial_accumulator_value": -1}, "initial_accumulator_value -1.000000"),
        ({"learning_rate_power": 0.5}, "learning_rate_power 0.500000 needs to be negative"),
        ({"l1_regularization_strength": -0.5}, "l1_regularization_strength -0.500000"),
        ({"l2_regularization_strength": -2.0}, "l2_regularization_strength -2.000000"),
        (
            {"l2_shrinkage_regularization_strength": -0.25},
            "l2_shrinkage_regularization_strength -0.250000",
        ),
    ]:
        with pytest.raises(ValueError) as e:
            train.FtrlOptimizer(0.1, **kwargs)
        assert str(e.value).startswith(text), str(e.value)
        assert str(e.value).endswith(" or zero")
    train.FtrlOptimizer(0.1, learning_rate_power=0.0, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match=r"^initial_accumulator_value must be positive: 0.0$"):
        train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(
        ValueError, match=r"^initial_gradient_squared_accumulator_value must be positive: -1$"
    ):
        train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=-1)
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        train.AdadeltaOptimizer(name="")


def test_uncast_hyperparameters_and_the_global_steps_dtype_are_tfs_type_errors(fresh_graph):
    """TF passes ProximalGradientDescent's and ProximalAdagrad's float32 rates to a dense
    float64 update uncast, and AdagradDA's step must be int64: a TypeError when the op is
    built, an InvalidArgumentError eagerly (TF's texts)."""
    train = tf.compat.v1.train
    w = tf.Variable(np.ones((3, 2)))
    g = tf.ones((3, 2), tf.float64)
    eager = [
        (
            train.ProximalGradientDescentOptimizer(0.1),
            "cannot compute ResourceApplyProximalGradientDescent as input #4(zero-based) was "
            "expected to be a float tensor but is a double tensor "
            "[Op:ResourceApplyProximalGradientDescent] name: ",
        ),
        (
            train.ProximalAdagradOptimizer(0.1),
            "cannot compute ResourceApplyProximalAdagrad as input #5(zero-based) was expected "
            "to be a float tensor but is a double tensor [Op:ResourceApplyProximalAdagrad] name: ",
        ),
        (
            train.AdagradDAOptimizer(0.1, tf.Variable(0)),
            "cannot compute ResourceApplyAdagradDA as input #7(zero-based) was expected to be a "
            "int64 tensor but is a int32 tensor [Op:ResourceApplyAdagradDA] name: ",
        ),
    ]
    for opt, text in eager:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            opt.apply_gradients([(g, w)])
        assert str(e.value) == text
    with tf.Graph().as_default():
        w = tf.Variable(np.ones((3, 2)))
        g = tf.ones((3, 2), tf.float64)
        graph = [
            (
                train.ProximalGradientDescentOptimizer(0.1),
                "Input 'delta' of 'ResourceApplyProximalGradientDescent' Op has type float64 "
                "that does not match type float32 of argument 'alpha'.",
            ),
            (
                train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=np.float64(0.1)),
                "Input 'l1' of 'ResourceApplyProximalAdagrad' Op has type float64 that does not "
                "match type float32 of argument 'lr'.",
            ),
            (
                train.AdagradDAOptimizer(0.1, tf.Variable(0)),
                "Input 'global_step' of 'ResourceApplyAdagradDA' Op has type int32 that does "
                "not match expected type of int64.",
            ),
        ]
        for opt, text in graph:
            with pytest.raises(TypeError) as e:
                opt.apply_gradients([(g, w)])
            assert str(e.value) == text
        # float64 rates are what TF wants there; the sparse update casts them itself.
        rate = tf.constant(0.1, tf.float64)
        train.ProximalGradientDescentOptimizer(rate, rate, rate).apply_gradients([(g, w)])
        rows = tf.IndexedSlices(tf.ones((1, 2), tf.float64), tf.constant([1]))
        train.ProximalAdagradOptimizer(0.1).apply_gradients([(rows, w)])


@pytest.mark.parametrize(
    "key, l1, make",
    [
        ("proximal_gd_l1_l2", 0.5, lambda t, l1: t.ProximalGradientDescentOptimizer(0.1, l1, 0.2)),
        (
            "proximal_adagrad_l1_l2",
            0.1,
            lambda t, l1: t.ProximalAdagradOptimizer(0.3, 0.2, l1, 0.2),
        ),
        (
            "adagrad_da_l1_l2",
            0.05,
            lambda t, l1: t.AdagradDAOptimizer(0.2, t.get_global_step(), 0.2, l1, 0.1),
        ),
    ],
)
def test_an_l1_known_only_when_run_gives_the_numbers_of_a_constant_one(monkeypatch, key, l1, make):
    """The kernels test l1 > 0 once per run; for an l1 that is no constant the test is a
    where over the two formulas, with the same numbers (TF's, recorded with a Python l1)."""
    fed = lambda t: make(t, tf.compat.v1.placeholder_with_default(l1, []))  # noqa: E731
    monkeypatch.setitem(tf_optimizers_v1.OPTIMIZERS, "fed", fed)
    got = tf_optimizers_v1.session_steps(tf, "fed")
    assert_matches(got[3], LITERALS[key][3], ulps=0)


def test_adagrad_da_reads_the_global_step_at_each_apply(fresh_graph):
    """t = global_step + 1, read when apply_gradients is called: eagerly and in a function
    alike (minimize's global_step then adds one)."""

    def run(wrap):
        w, step = tf.Variable(W0), tf.Variable(0, dtype=tf.int64)
        opt = tf.compat.v1.train.AdagradDAOptimizer(0.1, step, l2_regularization_strength=0.5)
        apply = wrap(lambda g: opt.apply_gradients([(g, w)], global_step=step))
        for k in range(3):
            apply(tf.constant(tf_optimizers_v1.grads(k)[0]))
        return w.numpy(), int(step.numpy())

    eager, traced = run(lambda f: f), run(tf.function)
    np.testing.assert_array_equal(traced[0], eager[0])
    assert eager[1] == traced[1] == 3


NEW = [
    k
    for k in tf_optimizers_v1.OPTIMIZERS
    if k.startswith(("ftrl", "adadelta", "prox", "adagrad_da"))
]


@pytest.mark.parametrize("key", NEW)
@pytest.mark.parametrize("wrap", [lambda f: f, tf.function], ids=["eager", "function"])
def test_eagerly_and_in_a_function_the_updates_are_the_graphs(fresh_graph, key, wrap):
    w, b = tf.Variable(W0, name="w"), tf.Variable(B0, name="b")
    step = tf.compat.v1.train.get_or_create_global_step()
    opt = tf_optimizers_v1.OPTIMIZERS[key](tf.compat.v1.train)
    apply = wrap(lambda gw, gb: opt.apply_gradients([(gw, w), (gb, b)], global_step=step))
    for k in range(tf_optimizers_v1.STEPS):
        apply(*map(tf.constant, tf_optimizers_v1.grads(k)))
    want = LITERALS[key][3]
    got = (w, b, step) + tuple(opt.get_slot(v, n) for n in opt.get_slot_names() for v in (w, b))
    assert_matches(tuple(v.numpy() for v in got), want, ulps=0 if key in EXACT else 32)
