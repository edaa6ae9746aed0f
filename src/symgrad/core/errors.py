"""TensorFlow's runtime error classes (``symgrad.core.errors.InvalidArgumentError`` ...)."""

from __future__ import annotations

from symgrad.core import missing as _missing


class OpError(Exception):
    """An error raised while running an op; ``.op`` is the Operation when known."""

    def __init__(self, message: str, op: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError, ValueError):
    """Bad input to an op at run time (also a ValueError, so callers may catch either)."""


class FailedPreconditionError(OpError):
    """The system is not in a state to run the op, e.g. an uninitialised variable."""


class ResourceExhaustedError(OpError, MemoryError):
    """Out of memory for a tensor (also a MemoryError, so callers may catch either)."""


class NotFoundError(OpError):
    pass


class AlreadyExistsError(OpError):
    """What was to be created exists (a file ``tf.io.gfile.copy`` would overwrite)."""


class PermissionDeniedError(OpError):
    """Not allowed: a file without permission, or a GFile not open for reading/writing."""


class UnimplementedError(OpError):
    pass


class OutOfRangeError(OpError):
    """An index past the end of a sequence (a TensorArray read or write)."""


class InternalError(OpError):
    """The runtime met what it cannot handle (a py_func returned an unconvertible object)."""


class UnknownError(OpError):
    """An error of no other kind (a py_func's Python function raised, say, a KeyError)."""


class InaccessibleTensorError(ValueError):
    """A tensor of a finished inner graph (a loop body, a branch) used outside it."""


__getattr__ = _missing.module_getattr("tf.errors")
