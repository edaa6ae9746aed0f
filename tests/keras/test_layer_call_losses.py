"""``add_loss`` across eager calls, as Keras 3 on TF 2.21 (literals from that run): an
outermost call clears the losses of itself and every sub-layer (one held in a list too),
and no other layer's; the layer call skips that walk while no layer holds losses."""

from __future__ import annotations

from typing import Any

import symgrad as tf

keras = tf.keras


class Child(keras.layers.Layer):
    def call(self, x: Any) -> Any:
        self.add_loss(tf.reduce_sum(x))
        return x * 2.0


class Parent(keras.layers.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[Any] = []
        self.blocks.append(Child())  # tracked though added after the assignment

    def call(self, x: Any) -> Any:
        return self.blocks[0](x) + 1.0


def _floats(losses: list[Any]) -> list[float]:
    return [float(v) for v in losses]


def test_outermost_call_clears_only_its_own_tree() -> None:
    x = tf.constant([[1.0, 2.0]])
    parent, other = Parent(), Child()
    parent(x)
    parent(x)
    assert _floats(parent.losses) == [3.0]  # TF: [3.0], the first call's loss cleared
    assert _floats(parent.blocks[0].losses) == [3.0]
    other(x * 3.0)
    assert _floats(parent.losses) == [3.0]  # TF: another layer's call leaves them
    assert _floats(other.losses) == [9.0]
    parent.blocks[0](x * 5.0)
    assert _floats(parent.losses) == [15.0]  # TF: the child called alone clears its own


def test_layers_without_losses_keep_none() -> None:
    x = tf.constant([[1.0, -2.0]])
    dense = keras.layers.Dense(2, kernel_initializer="ones")
    for _ in range(3):
        out = dense(x)
    assert dense.losses == []
    assert out.numpy().tolist() == [[-1.0, -1.0]]
