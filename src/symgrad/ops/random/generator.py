"""``tf.random.Generator``: a Philox state in a variable, and TensorFlow's numbers from it.

The state is an int64[3] variable: the 128-bit counter, then the key (Philox, TF's
default).  Each draw of ``n`` numbers is one ``RngReadAndSkip`` op, which returns the
state and moves the variable's counter on by ``256 n`` blocks, followed by the stateless
V2 op of the distribution on that key and counter; ``from_seed(s)`` starts at counter
``s``, key 0 (``create_rng_state``).  That is TF's scheme step for step, so a generator
draws TF's numbers, in eager code, in ``function`` and in a Session.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import OPS, ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import seeded as rnd
from symgrad.ops.random import stateless as stateless_random
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.state.variables import Variable

_U64 = (1 << 64) - 1
_STATE_SIZE = 3  # Philox: two words of counter, one of key


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the counter-based generators (symgrad runs Philox)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


# -------------------------------------------------------------------------------------
# RngReadAndSkip: read the state, advance its counter


def _skip_infer(inputs: Sequence[Tensor], *, var: Variable) -> Spec:
    check_dtype("RngReadAndSkip", inputs[0], (dt.int32,), "alg")
    check_dtype("RngReadAndSkip", inputs[1], (dt.int64, dt.uint64), "delta")
    if not var.shape.is_compatible_with([_STATE_SIZE]):
        raise ShapeError(f"the RNG state must have shape [3], not {var.shape}")
    return TensorShape([_STATE_SIZE]), dt.int64


def _skip_kernel(alg: np.ndarray, delta: np.ndarray, *, var: Variable) -> np.ndarray:
    if int(alg) not in (Algorithm.PHILOX.value, Algorithm.AUTO_SELECT.value):
        raise InvalidArgumentError(f"Unsupported algorithm id: {int(alg)}")
    state = OPS["ReadVariableOp"].kernel(var=var)
    words = [int(w) & _U64 for w in state.astype(np.uint64)]
    counter = (words[0] | words[1] << 64) + 256 * (int(delta) & _U64)  # TF's 256 per output
    new = np.array([counter & _U64, (counter >> 64) & _U64, words[2]], np.uint64)
    OPS["AssignVariableOp"].kernel(new.view(np.int64), var=var, mode="assign")
    return np.array(state, copy=True)


register_op(
    "RngReadAndSkip",
    _skip_infer,
    _skip_kernel,
    stateful=True,
    batch="it reads and writes a generator's state, one draw at a time",
    no_cases="it needs a variable: tests/ops/test_random.py::test_generator_* cover it",
).no_gradient()


# -------------------------------------------------------------------------------------
# States from seeds


def create_rng_state(seed: Any, alg: Any) -> np.ndarray:
    """The int64[3] state a seed gives (TF's ``create_rng_state``): an int is cut into
    64-bit words, lowest first; a vector is zero-padded on the left."""
    _alg(alg)
    if isinstance(seed, int):
        words = [(seed >> (64 * i)) & _U64 for i in range(_STATE_SIZE)]
    else:
        words = [int(w) & _U64 for w in np.ravel(np.asarray(seed))][:_STATE_SIZE]
        words = [0] * (_STATE_SIZE - len(words)) + words
    return np.array(words, np.uint64).view(np.int64)


def _key_counter_state(key: Any, counter: Any) -> np.ndarray:
    words = [int(w) for w in np.ravel(counter)] + [int(key)]
    return np.array([w & _U64 for w in words], np.uint64).view(np.int64)


def _alg(alg: Any) -> int:
    """The algorithm's id; ThreeFry is refused (symgrad runs Philox, TF's default)."""
    value = alg.value if isinstance(alg, Algorithm) else alg
    a = stateless_random.alg_id(value) if value is not None else Algorithm.PHILOX.value
    return a


# -------------------------------------------------------------------------------------
# Generator


class Generator:
    """Random numbers from a state kept in a variable; ``from_seed(s)`` draws TF's numbers.

    >>> g = Generator.from_seed(1234)
    >>> g.normal([3]).numpy()  # TF 2.21's numbers for this seed
    array([ 0.9356609 ,  1.0854305 , -0.93788373], dtype=float32)
    """

    def __init__(
        self, copy_from: Generator | None = None, state: Any = None, alg: Any = None
    ) -> None:
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        if state is None or alg is None:
            raise ValueError(
                "Generator needs `state` and `alg` (or `copy_from`); use "
                "Generator.from_seed(seed) to start from a seed."
            )
        self._alg = _alg(alg)
        if isinstance(state, Variable):
            self._state_var = state
        else:
            value = state if isinstance(state, Tensor) else np.asarray(state, np.int64)
            with name_scope("random_generator"):
                self._state_var = Variable(value, trainable=False, name="StateVar", dtype=dt.int64)
        if not self._state_var.shape.is_compatible_with([_STATE_SIZE]):
            raise ValueError(f"the RNG state must have shape [3], not {self._state_var.shape}")

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        return cls(state=create_rng_state(seed, "philox"), alg=_alg(alg))

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        return cls(state=_key_counter_state(key, counter), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        return cls.from_seed(secrets.randbits(64 * _STATE_SIZE), alg)

    @property
    def state(self) -> Variable:
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Tensor:
        return self._state_var.value()[-1]

    def reset(self, state: Any) -> None:
        self._state_var.assign(np.asarray(state, np.int64))

    def reset_from_seed(self, seed: Any) -> None:
        self.reset(create_rng_state(seed, "philox"))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        self.reset(_key_counter_state(key, counter))

    def skip(self, delta: Any) -> Tensor:
        """Advance the counter as a draw of ``delta`` numbers would; returns the old state."""
        d = array.cast(convert_to_tensor(delta), dt.int64)
        alg = convert_to_tensor(np.int32(self._alg))
        return apply_op1("RngReadAndSkip", [alg, d], {"var": self._state_var})

    def _key_counter(self, shape: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        state = self.skip(reduction.reduce_prod(shape))
        return state[2:3], state[0:2], convert_to_tensor(np.int32(self._alg))

    def _v2(self, op_type: str, shape: Any, dtype: dt.DType) -> Tensor:
        s = rnd.shape_tensor(shape)
        key, counter, alg = self._key_counter(s)
        return apply_op1(op_type, [s, key, counter, alg], {"dtype": dtype})

    def normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = dt.float32,
        name: str | None = None,
    ) -> Tensor:
        d = dt.as_dtype(dtype)
        with name_scope(name, "stateful_normal"):
            r = self._v2("StatelessRandomNormalV2", shape, d)
            return math.add(
                math.multiply(r, convert_to_tensor(stddev, dtype=d)),
                convert_to_tensor(mean, dtype=d),
            )

    def truncated_normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = dt.float32,
        name: str | None = None,
    ) -> Tensor:
        d = dt.as_dtype(dtype)
        with name_scope(name, "truncated_normal"):
            r = self._v2("StatelessTruncatedNormalV2", shape, d)
            return math.add(
                math.multiply(r, convert_to_tensor(stddev, dtype=d)),
                convert_to_tensor(mean, dtype=d),
            )

    def uniform(
        self,
        shape: Any,
        minval: Any = 0,
        maxval: Any = None,
        dtype: Any = dt.float32,
        name: str | None = None,
    ) -> Tensor:
        d = dt.as_dtype(dtype)
        if d.is_integer and (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer dtype {d!r}, minval and maxval must be both `None` "
                f"or both non-`None`; got minval={minval} and maxval={maxval}"
            )
        maxval = 1 if maxval is None and not d.is_integer else maxval
        with name_scope(name, "stateful_uniform"):
            if d.is_integer and minval is None:
                return self._v2("StatelessRandomUniformFullIntV2", shape, d)
            lo, hi = convert_to_tensor(minval, dtype=d), convert_to_tensor(maxval, dtype=d)
            if d.is_integer:
                s = rnd.shape_tensor(shape)
                key, counter, alg = self._key_counter(s)
                return apply_op1("StatelessRandomUniformIntV2", [s, key, counter, alg, lo, hi])
            r = self._v2("StatelessRandomUniformV2", shape, d)
            return math.add(math.multiply(r, math.subtract(hi, lo)), lo)

    def uniform_full_int(
        self, shape: Any, dtype: Any = dt.uint64, name: str | None = None
    ) -> Tensor:
        with name_scope(name, "stateful_uniform_full_int"):
            return self._v2("StatelessRandomUniformFullIntV2", shape, dt.as_dtype(dtype))

    def make_seeds(self, count: int = 1) -> Tensor:
        """[2, count] seeds for the stateless ops: new keys over zeros, as TF's."""
        keys = self.uniform_full_int([count], dt.int64)
        return joining.stack([keys, array.zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        """``count`` new generators, each keyed by a fresh key from this one (counter 0)."""
        keys = joining.unstack(self.uniform_full_int([count], dt.int64), num=count)
        return [Generator(state=joining.stack([0, 0, k]), alg=self._alg) for k in keys]


_GLOBAL: list[Generator] = []


def get_global_generator() -> Generator:
    """The process's generator, seeded non-deterministically on first use (as TF's)."""
    if not _GLOBAL:
        _GLOBAL.append(Generator.from_non_deterministic_state())
    return _GLOBAL[0]


def set_global_generator(generator: Generator) -> None:
    _GLOBAL[:] = [generator]
