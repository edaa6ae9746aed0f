"""``tensorflow.python.ops.init_ops``: TF1's initializer classes and their snake-case names."""

from symgrad.api.init_ops import (  # noqa: F401
    Constant,
    GlorotNormal,
    GlorotUniform,
    Ones,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
