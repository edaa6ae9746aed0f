"""The registered custom objects tests/keras/test_registry.py and gen_registry_files.py
share: ``define(tf)`` makes them with either TensorFlow or symgrad (``import symgrad as
tf``), each registered under the package "SgReg" as Keras 3's decorator does."""

from __future__ import annotations

from typing import Any

X = [[1.0, -2.0, 3.0], [0.5, 0.5, 0.5]]
Y = [[1.0, 2.0], [0.0, 1.0]]


def define(tf: Any) -> dict[str, Any]:
    keras = tf.keras
    register = keras.utils.register_keras_serializable

    @register(package="SgReg")
    def twice_relu(x: Any) -> Any:
        return tf.nn.relu(x) * 2.0

    @register(package="SgReg")
    def double_mae(y_true: Any, y_pred: Any) -> Any:
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1) * 2.0

    @register(package="SgReg")
    def mean_pred(y_true: Any, y_pred: Any) -> Any:
        return tf.reduce_mean(y_pred, axis=-1)

    @register(package="SgReg", name="Scale")
    class ScaleLayer(keras.layers.Layer):  # type: ignore[misc,name-defined]
        def __init__(self, factor: float = 1.0, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape: Any) -> None:
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x: Any) -> Any:
            return x * self.w * self.factor

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "factor": self.factor}

    @register(package="SgReg")
    class Net(keras.Model):  # type: ignore[misc,name-defined]
        def __init__(self, units: int = 2, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.units = units
            self.d = keras.layers.Dense(units, kernel_initializer="ones", name="inner")

        def call(self, x: Any) -> Any:
            return self.d(x)

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "units": self.units}

    return {"twice_relu": twice_relu, "double_mae": double_mae, "mean_pred": mean_pred,
            "ScaleLayer": ScaleLayer, "Net": Net}  # fmt: skip


def sequential(tf: Any, objs: dict[str, Any]) -> Any:
    keras = tf.keras
    return keras.Sequential(
        [keras.Input((3,)),
         keras.layers.Dense(2, activation=objs["twice_relu"], kernel_initializer="ones",
                            name="d"),
         objs["ScaleLayer"](3.0, name="sc")]
    )  # fmt: skip


def subclassed(tf: Any, objs: dict[str, Any]) -> Any:
    m = objs["Net"](2, name="net")
    m.compile(optimizer="sgd", loss=objs["double_mae"], metrics=[objs["mean_pred"]])
    return m
