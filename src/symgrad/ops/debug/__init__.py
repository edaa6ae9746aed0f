"""The debugging ops: ``tf.Assert``, ``tf.print`` (op type ``PrintV2``), and the ops that
call the user's Python (``tf.numpy_function``: ``PyFunc``; ``tf.py_function``'s
``EagerPyFunc`` is in ``autodiff/py_function.py``, since its gradient replays a tape).

They are stateful (but ``PyFuncStateless``): a plan keeps them even when nothing reads
their output.
"""
