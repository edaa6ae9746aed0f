"""Write the small ``.keras`` files tests/keras/test_keras_model_files.py loads, with TF.

Run with TensorFlow 2.21 / Keras 3 (the TF venv), from the repository root:
    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/gen_keras_files.py
It saves a compiled, trained Sequential model and a two-input, two-output functional model,
a Sequential model holding an adapted tf_idf IntegerLookup,
and prints the outputs the test holds as literals.
"""

from __future__ import annotations

import pathlib

import numpy as np

X = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)


def main() -> None:
    import keras

    layers = keras.layers
    data = pathlib.Path(__file__).parent / "data"
    keras.utils.set_random_seed(3)
    m = keras.Sequential(
        [keras.Input((4,)), layers.Dense(3, activation="tanh"), layers.Dropout(0.2),
         layers.Dense(2)]
    )  # fmt: skip
    m.compile(optimizer="adam", loss="mse", metrics=["mae"])
    m.fit(X, np.ones((3, 2), "float32"), verbose=0, epochs=2)
    m.save(data / "tf_sequential.keras")
    i, j = keras.Input((4,), name="inp"), keras.Input((2,), name="aux")
    h = layers.Dense(3, name="d1")(i)
    o = layers.Dense(1, name="out")(layers.Concatenate(name="cat")([h, j]))
    f = keras.Model([i, j], [o, h], name="fun")
    f.save(data / "tf_functional.keras")
    print("sequential", m.predict(X, verbose=0).tolist())
    print("optimizer", [v.numpy().tolist() for v in m.optimizer.variables])
    print("functional", [y.tolist() for y in f.predict([X, X[:, :2]], verbose=0)])
    lookup = layers.IntegerLookup(output_mode="tf_idf", max_tokens=5, name="lk")
    lookup.adapt(np.array([[12, 1138, 42], [42, 1000, 36], [36, 36, 7]]))
    keras.utils.set_random_seed(4)
    p = keras.Sequential([keras.Input((3,), dtype="int64"), lookup, layers.Dense(2, name="d")])
    p.save(data / "tf_integer_lookup.keras")  # the adapted vocabulary is an asset file
    print("integer_lookup", p(np.array([[12, 36, 99]])).numpy().tolist())


if __name__ == "__main__":
    main()
