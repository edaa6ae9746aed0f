"""The debugging ops: ``tf.Assert`` and ``tf.print`` (op type ``PrintV2``).

Both are stateful: a plan keeps them even when nothing reads their output.
"""
