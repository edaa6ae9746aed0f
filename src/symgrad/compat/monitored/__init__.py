"""TF1's training loop: ``tf.compat.v1.train.MonitoredSession`` and its hooks, and the
checkpoint reader (``NewCheckpointReader``, ``init_from_checkpoint``).

It lives in ``compat`` because it joins the layers below it: Sessions and variables,
``train``'s Saver and checkpoint files, ``summary``'s FileWriter and TF1's logging.
"""
