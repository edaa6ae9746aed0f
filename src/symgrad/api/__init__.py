"""The TensorFlow namespaces users import (tf.math, tf.nn, tf.linalg, tf.random, tf.config,
...): names, signatures and argument handling over the op library, nothing more.
"""
