"""A random layer's seed state is a Keras variable: listed in ``variables`` and
``non_trainable_variables`` (not ``weights``), as Keras 3 lists it.  TensorFlow 2.21's
answers, from the same programs."""

import numpy as np

import symgrad as tf

K = tf.keras


def test_dropout_state_is_a_variable_not_a_weight() -> None:
    drop = K.layers.Dropout(0.5, seed=3)
    model = K.Sequential([K.Input((4,)), K.layers.Dense(2), drop])
    counts = (
        len(model.weights),
        len(model.variables),
        len(model.non_trainable_weights),
        len(model.non_trainable_variables),
        len(model.get_weights()),
        model.count_params(),
    )
    assert counts == (2, 3, 0, 1, 2, 10)
    state = drop.seed_generator.state
    assert [v.name for v in drop.variables] == ["seed_generator_state"] and drop.weights == []
    assert state.path == f"{drop.seed_generator.name}/seed_generator_state"
    assert not state.trainable and model.variables[2] is state
    ones = tf.ones([2, 4])
    assert drop(ones, training=True).numpy().tolist() == [[0, 2, 2, 2], [0, 0, 0, 0]]
    assert state.numpy().tolist() == [3, 1]
    assert drop(ones, training=True).numpy().tolist() == [[0, 2, 0, 2], [2, 0, 2, 0]]
    assert state.numpy().tolist() == [3, 2]


def test_a_subclassed_models_variables_in_keras_order() -> None:
    """Own weights, then each sublayer's variables in attribute order: the Dropout's
    state between the batch norm's and the last Dense's."""

    class Net(K.Model):
        def __init__(self) -> None:
            super().__init__()
            self.d1 = K.layers.Dense(8)
            self.bn = K.layers.BatchNormalization()
            self.drop = K.layers.Dropout(0.3, seed=2)
            self.d2 = K.layers.Dense(3)

        def call(self, x, training=False):
            h = self.bn(self.d1(x), training=training)
            return self.d2(self.drop(h, training=training))

    net = Net()
    net(np.zeros((2, 6), np.float32))
    names = ["kernel", "bias", "gamma", "beta", "moving_mean", "moving_variance"]
    assert [v.name for v in net.variables] == [*names, "seed_generator_state", "kernel", "bias"]
    sizes = (len(net.variables), len(net.trainable_variables), len(net.non_trainable_variables))
    assert sizes == (9, 6, 3)
    assert len(net.weights) == 8
    net.trainable = False
    frozen = (len(net.trainable_variables), len(net.non_trainable_variables))
    assert frozen == (0, 9) and len(net.non_trainable_weights) == 8
