"""Keras models program for tests/keras/test_keras_models.py: names and paths, a subclassed
model with add_weight/add_loss/regularizers/BatchNormalization, freezing, a functional model
with two inputs, a shared layer, two outputs and a nested Sequential, seeded initializers.

Runs on both libraries: ``python models_program.py tensorflow`` prints what
data/models_tf.txt holds (recorded with TF 2.21 / Keras 3.15.1); with no argument, symgrad.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "symgrad")
layers = tf.keras.layers
# names and paths
tf.keras.backend.clear_session()
a = layers.Dense(2)
b = layers.Dense(2)
c = layers.Conv2D(1, 1)
print("names:", [a.name, b.name, c.name])


# subclassed model with add_loss and regularizer
class Block(tf.keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer=tf.keras.initializers.RandomNormal(seed=11),
            name="w",
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="zeros", name="b", trainable=False
        )

    def call(self, x):
        self.add_loss(0.5 * tf.reduce_sum(tf.square(self.w)))
        return tf.matmul(x, self.w) + self.b


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.block = Block(3)
        self.bn = layers.BatchNormalization()
        self.out = layers.Dense(
            2,
            kernel_initializer=tf.keras.initializers.HeNormal(seed=5),
            kernel_regularizer=tf.keras.regularizers.L1L2(0.01, 0.02),
        )

    def call(self, x, training=False):
        return self.out(self.bn(self.block(x), training=training))


net = Net()
x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
y = net(x, training=True)
print("net:", [net.name, [w.path for w in net.weights]])
print("trainable:", [w.path for w in net.trainable_weights])
print("y:", y.numpy().tolist())
print("losses:", [float(l) for l in net.losses])
print("mm:", net.bn.moving_mean.numpy().tolist())
net.bn.trainable = False
print("frozen:", [[w.path for w in net.trainable_weights], len(net.non_trainable_weights)])
# functional: two inputs, shared layer, two outputs, nested model
i1 = tf.keras.Input((3,), name="a")
i2 = tf.keras.Input((3,), name="b")
shared = layers.Dense(
    4, activation="tanh", kernel_initializer=tf.keras.initializers.GlorotNormal(seed=2)
)
h = shared(i1) + shared(i2)
o1 = layers.Dense(1, kernel_initializer=tf.keras.initializers.Orthogonal(seed=3), name="o1")(h)
inner = tf.keras.Sequential(
    [
        layers.Dense(2, kernel_initializer=tf.keras.initializers.TruncatedNormal(seed=4)),
        layers.Activation("softmax"),
    ],
    name="inner",
)
o2 = inner(h)
fm = tf.keras.Model([i1, i2], [o1, o2])
print("fm layers:", [[l.name for l in fm.layers], [w.path for w in fm.weights]])
r = fm([x, x[::-1]])
print("fm out:", [t.numpy().tolist() for t in r])
with tf.GradientTape() as tape:
    out = fm([x, x[::-1]])
    loss = tf.reduce_sum(out[0]) + tf.reduce_sum(out[1] * np.array([1.0, -2.0], np.float32))
g = tape.gradient(loss, fm.trainable_variables)
print("fm grads:", [np.asarray(t).sum().item() for t in g])
s = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.Dense(1)])
print("seq:", [[l.name for l in s.layers], [w.path for w in s.weights]])
s.pop()
print("popped:", [l.name for l in s.layers])
print("init:", tf.keras.initializers.RandomUniform(seed=9)((2, 3)).numpy().tolist())
lecun = tf.keras.initializers.LecunNormal(seed=9)((2, 3))
scaling = tf.keras.initializers.VarianceScaling(2.0, "fan_out", "uniform", seed=1)((3, 2))
print("init2:", [lecun.numpy().tolist(), scaling.numpy().tolist()])
print("dense cfg:", sorted(layers.Dense(2).get_config())[:5])

# a masked transformer block (Embedding mask_zero -> MultiHeadAttention -> LayerNorm)
tokens = tf.keras.Input((5,), dtype="int32")
emb = layers.Embedding(
    7, 4, mask_zero=True, embeddings_initializer=tf.keras.initializers.RandomNormal(seed=21)
)(tokens)
att = layers.MultiHeadAttention(
    2, 3, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=22)
)(emb, emb)
block = layers.LayerNormalization()(layers.Add()([emb, att]))
pooled = layers.GlobalAveragePooling1D()(block)
transformer = tf.keras.Model(
    tokens, layers.Dense(2, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=23))(pooled)
)
ids = np.array([[1, 2, 3, 0, 0], [4, 5, 6, 2, 0]], np.int32)
with tf.GradientTape() as tape:
    out = transformer(ids)
    loss = tf.reduce_sum(out * np.array([1.0, -1.0], np.float32))
print("transformer out:", out.numpy().tolist())
print(
    "transformer grads:",
    [float(tf.reduce_sum(tf.abs(g))) for g in tape.gradient(loss, transformer.trainable_variables)],
)


# a custom RNN cell in keras.layers.RNN
class MinimalCell(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer=tf.keras.initializers.GlorotUniform(seed=31),
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units),
            initializer=tf.keras.initializers.Orthogonal(seed=32),
            name="recurrent_kernel",
        )

    def call(self, inputs, states):
        output = tf.tanh(
            tf.matmul(inputs, self.kernel) + tf.matmul(states[0], self.recurrent_kernel)
        )
        return output, [output]


rnn = layers.RNN(MinimalCell(3), return_sequences=True, return_state=True)
seq = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 4, 3)
outs = rnn(seq)
print("custom rnn:", [[o.numpy().tolist() for o in outs], [w.path for w in rnn.weights]])

# Normalization learned by adapt(): one array, then a list of batches
data = np.linspace(-3, 5, 24, dtype=np.float32).reshape(8, 3) ** 2
norm = layers.Normalization()
norm.adapt(data)
print("adapted:", [norm(data[:2]).numpy().tolist(), [w.path for w in norm.weights]])
norm2 = layers.Normalization(axis=None)
norm2.adapt([data[:3], data[3:]])
print("adapted batches:", norm2(data[:2]).numpy().tolist())

# recurrent layers over a time dimension known only at run time (a tf.while_loop)
init = tf.keras.initializers
tokens = tf.keras.Input((None,), dtype="int32")
x = layers.Embedding(8, 3, mask_zero=True, embeddings_initializer=init.RandomUniform(seed=1))(
    tokens
)
x = layers.Bidirectional(
    layers.LSTM(
        4,
        return_sequences=True,
        kernel_initializer=init.GlorotUniform(2),
        recurrent_initializer=init.Orthogonal(seed=3),
    )
)(x)
x = layers.GRU(
    3,
    kernel_initializer=init.GlorotUniform(4),
    recurrent_initializer=init.Orthogonal(seed=5),
    go_backwards=True,
)(x)
model = tf.keras.Model(tokens, layers.Dense(1, kernel_initializer=init.GlorotUniform(6))(x))
ids = np.array([[1, 4, 2, 0, 0, 0], [5, 6, 7, 3, 1, 2]], np.int32)
with tf.GradientTape() as tape:
    y = model(ids)
    loss = tf.reduce_sum(y)
g = tape.gradient(loss, model.trainable_variables)
print("dynamic:", [y.numpy().ravel().tolist(), [float(tf.reduce_sum(tf.abs(t))) for t in g]])
f = tf.function(lambda t: model(t), input_signature=[tf.TensorSpec([None, None], tf.int32)])
print("in function:", f(ids).numpy().ravel().tolist())
