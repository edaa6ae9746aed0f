"""``model.summary()``'s options, as Keras 3 on TF 2.21 prints them (each text below is
what TF's ``print_fn`` got, one call with the whole table, from the same program run on TF
with ``COLUMNS=80``): ``show_trainable``, ``line_length`` with ``positions``, a table
wider than the console (cut at its width), ``expand_nested`` with ``layer_range``, an
unbuilt model, and the model names Keras gives (a Sequential's build takes a Functional's
name)."""

from __future__ import annotations

import pytest

import symgrad as tf

keras = tf.keras

TF = {
    "trainable": (
        'Model: "sequential"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩\n"
        "│ dense (Dense)               │ (None, 4)             │         16 │   N   │\n"
        "├─────────────────────────────┼───────────────────────┼────────────┼───────┤\n"
        "│ dense_1 (Dense)             │ (None, 2)             │         10 │   Y   │\n"
        "└─────────────────────────────┴───────────────────────┴────────────┴───────┘\n"
        " Total params: 26 (104.00 B)\n"
        " Trainable params: 10 (40.00 B)\n"
        " Non-trainable params: 16 (64.00 B)\n"
    ),
    "narrow": (
        'Model: "sequential"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━┓\n"
        "┃                        ┃ Output      ┃         ┃\n"
        "┃ Layer (type)           ┃ Shape       ┃ Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━┩\n"
        "│ dense (Dense)          │ (None, 4)   │      16 │\n"
        "├────────────────────────┼─────────────┼─────────┤\n"
        "│ dense_1 (Dense)        │ (None, 2)   │      10 │\n"
        "└────────────────────────┴─────────────┴─────────┘\n"
        " Total params: 26 (104.00 B)\n"
        " Trainable params: 10 (40.00 B)\n"
        " Non-trainable params: 16 (64.00 B)\n"
    ),
    "wide": (
        'Model: "functional_1"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━\n"
        "┃ Layer (type)          ┃ Output Shape       ┃     Param # ┃ Connected to       \n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━\n"
        "│ input_layer_1         │ (None, 3)          │           0 │ -                  \n"
        "│ (InputLayer)          │                    │             │                    \n"
        "├───────────────────────┼────────────────────┼─────────────┼────────────────────\n"
        "│ dense_2 (Dense)       │ (None, 2)          │           8 │ input_layer_1[0][… \n"
        "├───────────────────────┼────────────────────┼─────────────┼────────────────────\n"
        "│ dense_3 (Dense)       │ (None, 2)          │           8 │ input_layer_1[0][… \n"
        "├───────────────────────┼────────────────────┼─────────────┼────────────────────\n"
        "│ add (Add)             │ (None, 2)          │           0 │ dense_2[0][0],     \n"
        "│                       │                    │             │ dense_3[0][0]      \n"
        "└───────────────────────┴────────────────────┴─────────────┴────────────────────\n"
        " Total params: 16 (64.00 B)\n"
        " Trainable params: 16 (64.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    "nested": (
        'Model: "sequential_1"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ sequential (Sequential)         │ (None, 2)              │            26 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│    └ dense (Dense)              │ (None, 4)              │            16 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│    └ dense_1 (Dense)            │ (None, 2)              │            10 │\n"
        "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
        "│ dense_4 (Dense)                 │ (None, 1)              │             3 │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 29 (116.00 B)\n"
        " Trainable params: 13 (52.00 B)\n"
        " Non-trainable params: 16 (64.00 B)\n"
    ),
    "unbuilt": (
        'Model: "sequential_2"\n'
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
        "│ dense_5 (Dense)                 │ ?                      │   0 (unbuilt) │\n"
        "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
        " Total params: 0 (0.00 B)\n"
        " Trainable params: 0 (0.00 B)\n"
        " Non-trainable params: 0 (0.00 B)\n"
    ),
    "names": ["sequential", "functional_1", "sequential_1", "sequential_2"],
}


@pytest.fixture(autouse=True)
def _console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # the width TF's texts were printed at
    keras.backend.clear_session()


def _cases() -> dict[str, object]:
    out: dict[str, object] = {}
    got: list[str] = []
    s = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    s.layers[0].trainable = False
    s.summary(print_fn=got.append, show_trainable=True)
    out["trainable"] = got[-1]
    s.summary(print_fn=got.append, line_length=50, positions=[0.5, 0.8, 1.0])
    out["narrow"] = got[-1]
    inp = keras.Input((3,))
    a, b = keras.layers.Dense(2)(inp), keras.layers.Dense(2)(inp)
    m = keras.Model(inp, keras.layers.Add()([a, b]))
    m.summary(print_fn=got.append, line_length=90, show_trainable=True)
    out["wide"] = got[-1]
    outer = keras.Sequential([keras.Input((3,)), s, keras.layers.Dense(1)])
    outer.summary(print_fn=got.append, expand_nested=True, layer_range=["seq", "dense"])
    out["nested"] = got[-1]
    u = keras.Sequential([keras.layers.Dense(4)])
    u.summary(print_fn=got.append)
    out["unbuilt"] = got[-1]
    out["names"] = [s.name, m.name, outer.name, u.name]
    return out


@pytest.mark.parametrize("case", sorted(TF))
def test_summary_options_print_kerass_text(case: str) -> None:
    assert _cases()[case] == TF[case]


def test_bad_options_raise_kerass_errors() -> None:
    s = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4)])
    with pytest.raises(ValueError, match="^Insufficient console width to print summary.$"):
        s.summary(line_length=8)
    with pytest.raises(ValueError, match="^Passed layer_names do not match the layer names"):
        s.summary(layer_range=["nope", "dense"])
    with pytest.raises(ValueError, match="^layer_range must be a list or tuple of length 2"):
        s.summary(layer_range=["dense"])
