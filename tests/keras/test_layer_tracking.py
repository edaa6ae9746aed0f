"""A layer's sub-layers are found wherever its attributes hold them, as Keras 3 tracks
them: directly, in lists (appended after the assignment too), dicts and tuples beside
other values; one held twice counts once.  Literals from the same program on TF 2.21."""

from __future__ import annotations

from typing import Any

import symgrad as tf

keras = tf.keras


class Block(keras.layers.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.first = keras.layers.Dense(2)
        self.by_name = {"x": keras.layers.Dense(3), "y": [keras.layers.Dense(4)]}
        self.pair = (keras.layers.Dense(5), 7, "seven")
        self.later: list[Any] = []
        self.units = 11
        self.later.append(keras.layers.Dense(6))
        self.again = self.first

    def call(self, x: Any) -> Any:
        h = self.by_name["y"][0](self.by_name["x"](self.first(x)))
        return self.later[0](self.pair[0](h))


def test_sub_layers_in_every_container_in_assignment_order() -> None:
    block = Block()
    block(tf.zeros((1, 1)))
    assert [tuple(w.shape) for w in block.weights] == [  # TF 2.21's, in its order
        (1, 2), (2,), (2, 3), (3,), (3, 4), (4,), (4, 5), (5,), (5, 6), (6,)
    ]  # fmt: skip
    assert len(block.trainable_variables) == 10
    assert [type(x).__name__ for x in block._flatten_layers()] == ["Block"] + ["Dense"] * 5
    del block.later  # TF 2.21: still 10 (Keras 3 tracks a layer when it is assigned, and
    assert len(block.trainable_variables) == 8  # keeps it): docs/semantics.md


def test_sub_layers_follow_every_change_of_the_attributes() -> None:
    block = Block()
    block(tf.zeros((1, 1)))
    assert len(block.weights) == 10
    extra = keras.layers.Dense(1)
    extra.build((None, 6))
    block.later.append(extra)  # a list the layer holds, appended to in place
    assert len(block.weights) == 12 and block.weights[-1] is extra.weights[-1]
    block.units = [extra]  # an attribute that held a number now holds a list
    block.later = 5  # one that held a list now holds a number
    assert [tuple(w.shape) for w in block.weights][-4:] == [(4, 5), (5,), (6, 1), (1,)]
    block.by_name["x"] = keras.layers.Identity()  # a dict's value replaced in place
    assert len(block.weights) == 8
    block.pair = None
    assert len(block.weights) == 6
