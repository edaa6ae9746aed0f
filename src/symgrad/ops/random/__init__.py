"""The random family: TensorFlow's Philox bits on NumPy, seeded and stateless random ops,
and ``tf.random.Generator``.
"""
