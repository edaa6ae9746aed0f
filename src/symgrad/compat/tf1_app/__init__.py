"""TF1's ``app``, ``flags`` and ``logging`` (``tf.compat.v1.app.run``, ``flags.FLAGS``,
``logging.set_verbosity``): absl's behaviour and texts, written here without absl."""
