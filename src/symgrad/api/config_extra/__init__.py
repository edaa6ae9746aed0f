"""``tf.config.threading`` and ``tf.config.experimental`` (see :mod:`symgrad.core.devices`)."""
