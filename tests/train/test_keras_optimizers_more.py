"""tf.keras.optimizers Adadelta, Ftrl, Lion, Adafactor and schedules.CosineDecayRestarts
(Keras 3 as TF 2.21 ships them): TensorFlow's variables, optimizer variables, rates,
configs and error texts for the programs in tf_keras_optimizers_more.py."""

import numpy as np
import pytest
import tf_keras_optimizers_more
from compare import assert_matches

import symgrad as tf

LITERALS = {
    "adadelta": (
        [[0.49999863, -0.99999857, 1.9999986], [1.5000014, 0.24999863, -0.74999857]],
        [0.09998922, -0.19998923, 0.29998922],
        (
            5,
            0.001,
            [[0.0070076757, 0.0031145224, 0.019465763], [0.0007786306, 0.01245809, 0.028030703]],
            [
                [2.010892e-07, 2.010826e-07, 2.0109262e-07],
                [2.0104682e-07, 2.0109157e-07, 2.0109321e-07],
            ],
            [0.10513301, 0.026283253, 0.0065708132],
            [1.1492567e-06, 1.1491401e-06, 1.1486742e-06],
        ),
    ),
    "adadelta_hyper": (
        [[0.43686157, -0.93820274, 1.9361645], [1.5553491, 0.1863856, -0.6860442]],
        [-0.4247005, 0.27705115, -0.08292282],
        (
            5,
            1.0,
            [[0.018207362, 0.008092161, 0.05057601], [0.0020230403, 0.032368645, 0.07282945]],
            [
                [0.0015047886, 0.0013751053, 0.0015805269],
                [0.0009314086, 0.0015557972, 0.0015942734],
            ],
            [0.36814082, 0.092035204, 0.023008801],
            [0.008994436, 0.0075352862, 0.005028531],
        ),
    ),
    "adadelta_clipvalue": (
        [[0.49930897, -0.99930894, 1.9993147], [1.500691, 0.24931175, -0.7493193]],
        [0.0959072, -0.19513485, 0.29461023],
        (
            5,
            0.5,
            [[0.0070076757, 0.0031145224, 0.012949716], [0.0007786306, 0.009607319, 0.013357267]],
            [
                [2.010892e-07, 2.010826e-07, 3.0905474e-07],
                [2.0104682e-07, 2.5839404e-07, 3.2300105e-07],
            ],
            [0.018323451, 0.014958253, 0.0065708132],
            [6.134356e-07, 8.9352505e-07, 1.1486742e-06],
        ),
    ),
    "ftrl": (
        [[0.06533522, -0.099737346, 0.8415019], [0.10030266, 0.012316635, -0.3064055]],
        [-0.32095492, 0.2589836, -0.1816834],
        (
            5,
            0.1,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [[-0.33442447, 0.41363955, -6.240745], [-0.34455094, -0.07671988, 2.6500094]],
            [2.3000002, 0.65000004, 0.2375],
            [4.8675222, -2.0879927, 0.8854153],
        ),
    ),
    "ftrl_hyper": (
        [[-0.02748623, 0.03387488, 0.3007507], [-0.028403355, -0.043882255, -0.09256859]],
        [-0.4269521, 0.32069194, -0.20438573],
        (
            5,
            0.2,
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [[0.12145892, -0.13228396, -1.6034858], [0.10433978, 0.21299776, 0.5705022]],
            [2.4, 0.75, 0.3375],
            [4.633131, -1.8341018, 0.8147798],
        ),
    ),
    "ftrl_l1": (
        [[0.0, 0.0, -0.049999997], [0.0, 0.0, 0.10000001]],
        [-1.3, 0.55, -0.175],
        (
            5,
            0.5,
            [[0.262, 0.172, 0.54999995], [0.118, 0.38799998, 0.748]],
            [[0.3, -0.19999999, 0.5], [-0.099999994, 0.39999998, -0.6]],
            [2.3000002, 0.65000004, 0.2375],
            [3.0, -1.5, 0.75],
        ),
    ),
    "lion": (
        [[0.49, -0.99, 1.99], [1.51, 0.24, -0.74]],
        [0.050000012, -0.14999998, 0.25000006],
        (
            5,
            0.01,
            [
                [0.0028223842, -0.0018815892, 0.004703974],
                [-0.0009407946, 0.0037631784, -0.0056447685],
            ],
            [0.02960296, -0.01480148, 0.00740074],
        ),
    ),
    "lion_weight_decay": (
        [[0.34011188, -0.82773626, 1.8029851], [1.6103853, 0.09629974, -0.58392406]],
        [-0.1499876, 0.052462712, 0.045062166],
        (
            5,
            0.05,
            [[0.01079147, -0.0071943128, 0.017985784], [-0.0035971564, 0.0143886255, -0.02158294]],
            [0.1403676, -0.0701838, 0.0350919],
        ),
    ),
    "lion_global_clipnorm": (
        [[0.48, -0.98, 1.98], [1.52, 0.23, -0.73]],
        [0.0, -0.100000024, 0.2],
        (
            5,
            0.02,
            [
                [0.0020518678, -0.0013679118, 0.0034197792],
                [-0.0006839559, 0.0027358236, -0.0041037356],
            ],
            [0.015881775, -0.0079408875, 0.0039704437],
        ),
    ),
    "adafactor": (
        [[0.49881527, -0.9994415, 1.9992007], [1.5003343, 0.24905424, -0.74918765]],
        [0.09892187, -0.19892187, 0.29892188],
        (
            5,
            0.001,
            [0.03754238, 0.05236174],
            [0.01481936, 0.029638724, 0.090398096],
            [[0.012376608, 0.02475322, 0.075497314], [0.017262112, 0.03452423, 0.105298884]],
            0,
            0,
            [0.5322454, 0.13306135, 0.033265337],
        ),
    ),
    "adafactor_hyper": (
        [[0.42834362, -0.9662208, 1.9516454], [1.5202249, 0.19279519, -0.7008669]],
        [0.05070874, -0.15070873, 0.25070876],
        (
            5,
            0.1,
            [0.030702427, 0.04282181],
            [0.01211938, 0.024238762, 0.073928215],
            [[0.010121679, 0.02024336, 0.061742242], [0.014117081, 0.028234163, 0.08611419]],
            0,
            0,
            [0.6961375, 0.17403437, 0.043508593],
        ),
    ),
    "adafactor_schedule": (
        [[-1.1505674, -0.2219151, 0.8861747], [1.9658711, -1.0676825, 0.3817545]],
        [-0.20646957, 0.106469564, -0.006469555],
        (
            5,
            [0.0023463988, 0.0032726089],
            [0.00092621, 0.0018524203, 0.005649881],
            [[0.000773538, 0.0015470763, 0.004718582], [0.001078882, 0.0021577643, 0.0065811803]],
            0,
            0,
            [0.033265337, 0.008316334, 0.0020790836],
        ),
    ),
    "restarts": (
        [[0.4280819, -0.9520546, 1.8801366], [1.5239726, 0.15410918, -0.6061638]],
        [-0.08232996, -0.10883503, 0.2544175],
        (
            5,
            [
                [0.0026318915, -0.0017545945, 0.004386486],
                [-0.00087729725, 0.003509189, -0.005263783],
            ],
            [-0.05107995, 0.025539976, -0.012769988],
        ),
    ),
    "restarts_equal": (
        [[0.49718875, -0.99718875, 1.9971888], [1.5028111, 0.24718873, -0.7471887]],
        [0.08620302, -0.18620376, 0.2862068],
        (
            5,
            [[0.0070076757, 0.0031145224, 0.019465763], [0.0007786306, 0.01245809, 0.028030703]],
            [
                [2.010892e-07, 2.010826e-07, 2.0109262e-07],
                [2.0104682e-07, 2.0109157e-07, 2.0109321e-07],
            ],
            [0.10513301, 0.026283253, 0.0065708132],
            [1.1492567e-06, 1.1491401e-06, 1.1486742e-06],
        ),
    ),
    "ftrl_hyper_float64": (
        [
            [-0.02748622065285364, 0.03387488341940249, 0.3007507240083411],
            [-0.028403317020176334, -0.043882252161911516, -0.09256862731744042],
        ],
        [-0.4269521334598878, 0.3206919190341576, -0.20438570974956902],
        (
            5,
            0.2,
            [
                [0.36200001585483577, 0.27200000691413884, 0.6500000178813936],
                [0.2180000039637089, 0.48800001871585874, 0.8480000544786463],
            ],
            [
                [0.12145887930349758, -0.1322839670741654, -1.6034860413336507],
                [0.10433964906154423, 0.21299775690275394, 0.5705024719154203],
            ],
            [2.400000056624413, 0.7500000163912774, 0.33750000633299354],
            [4.633131028780979, -1.8341016709387965, 0.8147797591822856],
        ),
    ),
    "adafactor_hyper_float64": (
        [
            [0.42834357824092095, -0.9662208385999624, 1.951645272560788],
            [1.5202249612731362, 0.19279516851164274, -0.7008669125746542],
        ],
        [0.05070874407353347, -0.1507087455636496, 0.25070875450434627],
        (
            5,
            0.1,
            [0.03070243035351432, 0.04282181114945753],
            [0.012119380520804825, 0.024238760986103065, 0.07392822074754989],
            [
                [0.010121680380822649, 0.02024336071528815, 0.061742249964432165],
                [0.014117080660787002, 0.02823416125691798, 0.08611419153066761],
            ],
            0,
            0,
            [0.6961374986451666, 0.17403437466129165, 0.04350859366532291],
        ),
    ),
    "adadelta_hyper_float64": (
        [
            [0.43686158629366745, -0.9382028009935433, 1.9361645559668317],
            [1.5553490447392004, 0.1863856080396047, -0.6860443351244885],
        ],
        [-0.42470045070600115, 0.2770511262129739, -0.08292282749003034],
        (
            5,
            1.0,
            [
                [0.018207361446990995, 0.008092160508956918, 0.050576002248764074],
                [0.0020230401272392294, 0.03236864203582767, 0.07282944578796398],
            ],
            [
                [0.0015047885255920594, 0.0013751052663855425, 0.001580526838989659],
                [0.0009314085052256596, 0.0015557972745237777, 0.0015942731500681664],
            ],
            [0.3681408072998047, 0.09203520182495117, 0.023008800456237793],
            [0.008994434676144508, 0.00753528533168212, 0.005028530910289498],
        ),
    ),
    "ftrl_hyper_in_a_function": (
        [[-0.02748623, 0.03387488, 0.3007507], [-0.028403355, -0.043882255, -0.09256859]],
        [-0.4269521, 0.32069194, -0.20438573],
        (
            5,
            0.2,
            [[0.36200005, 0.272, 0.65], [0.21800002, 0.48799998, 0.848]],
            [[0.12145892, -0.13228396, -1.6034858], [0.10433978, 0.21299776, 0.5705022]],
            [2.4, 0.75, 0.3375],
            [4.633131, -1.8341018, 0.8147798],
        ),
    ),
    "adafactor_in_a_function": (
        [[0.49881527, -0.9994415, 1.9992007], [1.5003343, 0.24905424, -0.74918765]],
        [0.09892187, -0.19892187, 0.29892188],
        (
            5,
            0.001,
            [0.03754238, 0.05236174],
            [0.01481936, 0.029638724, 0.090398096],
            [[0.012376608, 0.02475322, 0.075497314], [0.017262112, 0.03452423, 0.105298884]],
            0,
            0,
            [0.5322454, 0.13306135, 0.033265337],
        ),
    ),
    "lion_weight_decay_in_a_function": (
        [[0.34011188, -0.82773626, 1.8029851], [1.6103853, 0.09629974, -0.58392406]],
        [-0.1499876, 0.052462712, 0.045062166],
        (
            5,
            0.05,
            [[0.01079147, -0.0071943128, 0.017985784], [-0.0035971564, 0.0143886255, -0.02158294]],
            [0.1403676, -0.0701838, 0.0350919],
        ),
    ),
    "adafactor_ranks": (
        [
            [
                [1.9677932, -2.5647583, 0.35175756, -0.43480605],
                [-0.58609223, -0.3082395, -1.926246, -0.048203908],
                [-1.0286902, 3.3057609, 0.1252715, -0.49896955],
            ],
            [
                [-0.20867315, -0.6716659, -0.91798687, -0.34559548],
                [0.46769235, -0.17255433, 0.97966504, -0.17604652],
                [0.070246994, 1.5606717, 0.49891388, -0.44031194],
            ],
        ],
        0.7268352,
        (
            3,
            0.05,
            [[5.821606, 5.305205, 7.357815], [3.8935356, 6.583581, 6.576533]],
            [[9.403352, 6.1002254, 1.6660275, 7.476564], [8.364264, 4.192958, 4.131067, 6.049911]],
            [
                [
                    [8.8845625, 5.763672, 1.5741117, 7.064077],
                    [8.096464, 5.25241, 1.4344813, 6.4374633],
                    [11.229026, 7.2845926, 1.9894891, 8.928149],
                ],
                [
                    [5.7289596, 2.871895, 2.8295038, 4.1437836],
                    [9.6871, 4.8560886, 4.784409, 7.0067253],
                    [9.676729, 4.8508897, 4.779287, 6.9992237],
                ],
            ],
            0,
            0,
            1.3870239,
        ),
        ("int64", "float32", "float32", "float32", "float32", "int32", "int32", "float32"),
    ),
    "restart_rates": (
        (
            (
                1.0,
                0.75,
                0.24999997,
                1.0,
                0.9330127,
                0.75,
                0.49999997,
                0.25000006,
                1.0,
                0.9829629,
                0.6294096,
                0.49999997,
                1.0,
                0.9957224,
                0.6913417,
                1.0,
                0.9989295,
                0.9869385,
            ),
            (
                0.5,
                0.44142136,
                0.29999998,
                0.15857865,
                0.42000002,
                0.3731371,
                0.26,
                0.14686292,
                0.3185097,
                0.22800002,
                0.2024,
                0.12999228,
                0.21187696,
                0.165536,
                0.14194304,
                0.12932788,
                0.11717987,
                0.10151116,
            ),
            (
                0.1,
                0.0525,
                0.0525,
                0.040625002,
                0.016874999,
                0.02875,
                0.025971776,
                0.018937072,
                0.0057161497,
                0.016714955,
                0.00796875,
                0.0059767906,
                0.008256158,
                0.007340254,
                0.0075706327,
                0.006402535,
                0.0063496935,
                0.0053703263,
            ),
            (
                0.3,
                0.3,
                0.22500001,
                0.074999996,
                0.3,
                0.2909539,
                0.26490667,
                0.22500001,
                0.12395276,
                0.074999996,
                0.29898575,
                0.29595673,
                0.2395738,
                0.22500001,
                0.09058803,
                0.2971883,
                0.29595673,
                0.04706375,
            ),
        ),
        (0.1, 0.040625002, 0.015485889),
        {
            "module": "keras.optimizers.schedules",
            "class_name": "CosineDecayRestarts",
            "config": {
                "initial_learning_rate": 0.1,
                "first_decay_steps": 2,
                "t_mul": 1.5,
                "m_mul": 0.5,
                "alpha": 0.05,
                "name": "SGDRDecay",
            },
            "registered_name": None,
        },
        0.018937072,
        {
            "module": "keras.optimizers.schedules",
            "class_name": "CosineDecayRestarts",
            "config": {
                "initial_learning_rate": 0.3,
                "first_decay_steps": 1,
                "t_mul": 3.0,
                "m_mul": 1.0,
                "alpha": 0.0,
                "name": "SGDRDecay",
            },
            "registered_name": None,
        },
    ),
    "inverse_time_rates": (
        (0.5, 0.4054054, 0.3409091, 0.29411763, 0.23076925, 0.1744186, 0.12396694),
        (1.0, 1.0, 0.6666667, 0.6666667, 0.5, 0.33333334, 0.25),
    ),
    "configs": (
        (
            {
                "name": "a",
                "learning_rate": 0.0010000000474974513,
                "weight_decay": None,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "rho": 0.95,
                "epsilon": 1e-07,
            },
            True,
            (
                ("a/iteration", "int64", ()),
                ("a/learning_rate", "float32", ()),
                ("a/dense0_kernel_accumulated_grad", "float32", (2, 3)),
                ("a/dense0_kernel_accumulated_delta_var", "float32", (2, 3)),
                ("a/dense0_bias_accumulated_grad", "float32", (3,)),
                ("a/dense0_bias_accumulated_delta_var", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "ada",
                "learning_rate": 0.5,
                "weight_decay": None,
                "clipnorm": 1.0,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "rho": 0.9,
                "epsilon": 1e-06,
            },
            True,
            (
                ("ada/iteration", "int64", ()),
                ("ada/learning_rate", "float32", ()),
                ("ada/dense1_kernel_accumulated_grad", "float32", (2, 3)),
                ("ada/dense1_kernel_accumulated_delta_var", "float32", (2, 3)),
                ("ada/dense1_bias_accumulated_grad", "float32", (3,)),
                ("ada/dense1_bias_accumulated_delta_var", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "f",
                "learning_rate": 0.0010000000474974513,
                "weight_decay": None,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "learning_rate_power": -0.5,
                "initial_accumulator_value": 0.1,
                "l1_regularization_strength": 0.0,
                "l2_regularization_strength": 0.0,
                "l2_shrinkage_regularization_strength": 0.0,
                "beta": 0.0,
            },
            True,
            (
                ("f/iteration", "int64", ()),
                ("f/learning_rate", "float32", ()),
                ("f/dense2_kernel_accumulator", "float32", (2, 3)),
                ("f/dense2_kernel_linear", "float32", (2, 3)),
                ("f/dense2_bias_accumulator", "float32", (3,)),
                ("f/dense2_bias_linear", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "ftrl2",
                "learning_rate": 0.30000001192092896,
                "weight_decay": 0.01,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "learning_rate_power": -0.6,
                "initial_accumulator_value": 0.5,
                "l1_regularization_strength": 0.01,
                "l2_regularization_strength": 0.02,
                "l2_shrinkage_regularization_strength": 0.03,
                "beta": 0.4,
            },
            True,
            (
                ("ftrl2/iteration", "int64", ()),
                ("ftrl2/learning_rate", "float32", ()),
                ("ftrl2/dense3_kernel_accumulator", "float32", (2, 3)),
                ("ftrl2/dense3_kernel_linear", "float32", (2, 3)),
                ("ftrl2/dense3_bias_accumulator", "float32", (3,)),
                ("ftrl2/dense3_bias_linear", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "l",
                "learning_rate": 0.0010000000474974513,
                "weight_decay": None,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "beta_1": 0.9,
                "beta_2": 0.99,
            },
            True,
            (
                ("l/iteration", "int64", ()),
                ("l/learning_rate", "float32", ()),
                ("l/dense4_kernel_momentum", "float32", (2, 3)),
                ("l/dense4_bias_momentum", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "lion2",
                "learning_rate": 0.019999999552965164,
                "weight_decay": 0.1,
                "clipnorm": None,
                "global_clipnorm": 2.0,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "beta_1": 0.8,
                "beta_2": 0.95,
            },
            True,
            (
                ("lion2/iteration", "int64", ()),
                ("lion2/learning_rate", "float32", ()),
                ("lion2/dense5_kernel_momentum", "float32", (2, 3)),
                ("lion2/dense5_bias_momentum", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "af",
                "learning_rate": 0.0010000000474974513,
                "weight_decay": None,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": None,
                "gradient_accumulation_steps": None,
                "beta_2_decay": -0.8,
                "epsilon_1": 1e-30,
                "epsilon_2": 0.001,
                "clip_threshold": 1.0,
                "relative_step": True,
            },
            True,
            (
                ("af/iteration", "int64", ()),
                ("af/learning_rate", "float32", ()),
                ("af/kernel", "float32", (2,)),
                ("af/kernel", "float32", (3,)),
                ("af/dense6_kernel_velocity", "float32", (2, 3)),
                ("af/bias", "int32", ()),
                ("af/bias", "int32", ()),
                ("af/dense6_bias_velocity", "float32", (3,)),
            ),
        ),
        (
            {
                "name": "af2",
                "learning_rate": 0.009999999776482582,
                "weight_decay": None,
                "clipnorm": None,
                "global_clipnorm": None,
                "clipvalue": None,
                "use_ema": False,
                "ema_momentum": 0.99,
                "ema_overwrite_frequency": None,
                "loss_scale_factor": 8.0,
                "gradient_accumulation_steps": None,
                "beta_2_decay": -0.7,
                "epsilon_1": 1e-20,
                "epsilon_2": 0.01,
                "clip_threshold": 2.0,
                "relative_step": False,
            },
            True,
            (
                ("af2/iteration", "int64", ()),
                ("af2/learning_rate", "float32", ()),
                ("af2/kernel", "float32", (2,)),
                ("af2/kernel", "float32", (3,)),
                ("af2/dense7_kernel_velocity", "float32", (2, 3)),
                ("af2/bias", "int32", ()),
                ("af2/bias", "int32", ()),
                ("af2/dense7_bias_velocity", "float32", (3,)),
            ),
        ),
    ),
    "by_name": {
        "adadelta": (
            "Adadelta",
            (
                [[0.2999968, 0.29999506], [0.29999617, 0.29999423], [0.29999527, 0.29999384]],
                [1.1418331e-06, 5.398209e-07],
            ),
            (
                "iteration",
                "learning_rate",
                "seq_out_kernel_accumulated_grad",
                "seq_out_kernel_accumulated_delta_var",
                "seq_out_bias_accumulated_grad",
                "seq_out_bias_accumulated_delta_var",
            ),
        ),
        "ftrl": (
            "Ftrl",
            (
                [[0.17469345, 0.11053588], [0.14976238, 0.07917202], [0.11527934, 0.043936025]],
                [0.0011889283, 0.0010999207],
            ),
            (
                "iteration",
                "learning_rate",
                "seq_out_kernel_accumulator",
                "seq_out_kernel_linear",
                "seq_out_bias_accumulator",
                "seq_out_bias_linear",
            ),
        ),
        "lion": (
            "Lion",
            (
                [[0.29600006, 0.29600006], [0.29600006, 0.29600006], [0.29600006, 0.29600006]],
                [0.0, 0.0],
            ),
            ("iteration", "learning_rate", "seq_out_kernel_momentum", "seq_out_bias_momentum"),
        ),
        "adafactor": (
            "Adafactor",
            (
                [[0.29925707, 0.2989842], [0.2991375, 0.29882023], [0.2990191, 0.2986822]],
                [7.256533e-07, 2.807314e-07],
            ),
            (
                "iteration",
                "learning_rate",
                "kernel",
                "kernel",
                "seq_out_kernel_velocity",
                "bias",
                "bias",
                "seq_out_bias_velocity",
            ),
        ),
        "get": ("Adadelta", "Ftrl", "Lion"),
        "get_config_dict": 0.25,
    },
    "errors": (
        "`initial_accumulator_value` needs to be positive or zero. Received: "
        "initial_accumulator_value=-0.1.",
        "`learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.5.",
        "`l1_regularization_strength` needs to be positive or zero. Received: "
        "l1_regularization_strength=-1.0.",
        "`l2_regularization_strength` needs to be positive or zero. Received: "
        "l2_regularization_strength=-0.5.",
        "`l2_shrinkage_regularization_strength` needs to be positive or zero. Received: "
        "l2_shrinkage_regularization_strength=-0.25.",
        "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
        "to SignSGD. Received: beta_1=0.0.",
        "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
        "to SignSGD. Received: beta_1=1.5.",
        "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or "
        "a callable (that takes in the current iteration value and returns the corresponding "
        "learning rate value). Received instead: learning_rate=2",
        "Argument(s) not recognized: {'foo': 1}",
        "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
        "clipnorm=1.0, clipvalue=None, global_clipnorm=1.0",
        "Argument `first_decay_steps` must be > 0. Received: first_decay_steps=0",
        "The number of provided names must match the number of provided initializers.  "
        "Received name='['a', 'b']', initializer='['zeros']'",
    ),
}


@pytest.mark.parametrize("program", tf_keras_optimizers_more.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    # TF's float64 pow on a packet of 4 (Eigen's) is up to 2 ulps from NumPy's, and Ftrl's
    # (n + g²)ᵖ - nᵖ cancels most of its digits: measured 30 ulps in w, so 4 times that.
    ulps = 128 if program.__name__ == "ftrl_hyper_float64" else 32
    assert_matches(program(tf), LITERALS[program.__name__], ulps=ulps)


def test_adafactor_variable_paths():
    """TF 2.21's paths for an unnamed (2, 3) tf.Variable and a (3,) one named "bias":
    r and c are named after the variable itself (``Variable:0``), the placeholders of
    the vector are int32 zeros (symgrad's eager names are unique per graph, hence the
    fresh graph)."""
    tf.reset_default_graph()
    try:
        w, b = tf.Variable(tf.ones((2, 3))), tf.Variable(tf.ones(3), name="bias")
        opt = tf.keras.optimizers.Adafactor(name="adafactor")
        opt.apply_gradients([(tf.ones((2, 3)), w), (tf.ones(3), b)])
        assert [v.path for v in opt.variables] == [
            "adafactor/iteration",
            "adafactor/learning_rate",
            "adafactor/Variable:0",
            "adafactor/Variable:0",
            "adafactor/Variable_0_velocity",
            "adafactor/bias:0",
            "adafactor/bias:0",
            "adafactor/bias_0_velocity",
        ]
        assert [v.dtype for v in opt.variables[5:7]] == [tf.int32, tf.int32]
    finally:
        tf.reset_default_graph()


def test_adafactor_ignores_relative_step():
    """Keras's step takes min(lr, 1/√t) with or without ``relative_step``: equal updates."""
    out = []
    for relative_step in (True, False):
        v = tf.Variable([[2.0, -1.0], [0.5, 3.0]])
        opt = tf.keras.optimizers.Adafactor(5.0, relative_step=relative_step)
        for _ in range(3):
            opt.apply_gradients([(tf.constant([[0.1, -0.2], [0.3, 0.4]]), v)])
        out.append(v.numpy())
    np.testing.assert_array_equal(out[0], out[1])
