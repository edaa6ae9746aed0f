"""Gradient checking, exposed as ``symgrad.test``.

* ``compute_gradient(f, x, delta=None)`` and ``max_error(grad1, grad2)``: TF2's
  ``tf.test.compute_gradient`` — full theoretical and numerical Jacobians, in the
  arguments' own dtypes, for small problems and for TF code that already uses them.
* ``check_vjp(fn, args, ...)``: symgrad's checker for a function of tensors.  It computes
  in float64 and compares, for each differentiated argument and a random direction ``v``
  and cotangent ``u``, ``⟨VJP(u), v⟩`` from backprop with ``⟨u, JVP(v)⟩`` from central
  differences (autograd's ``check_vjp``), and recurses on the VJP for higher orders.
* ``check_gradient(op_type_or_fn, *inputs, ...)``: a one-call check of a registered rule:
  it calls the rule itself, checks the count, shapes and dtypes of what it returns
  (naming a missing un-broadcast), then runs ``check_vjp`` to second order.

Failures raise ``GradientCheckError`` (an ``AssertionError``) whose message names the op
or function, the argument, and what is wrong.  Complex tensors are compared under the
real inner product ``Re(Σ conj(a)·b)``, which is the one TensorFlow's complex gradients
(``g · conj(f'(z))``) are adjoint under.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from symgrad.autodiff.gradients import gradients
from symgrad.autodiff.tape import GradientTape
from symgrad.core import dtypes as dt
from symgrad.core import missing as _missing
from symgrad.core.context import (
    executing_eagerly,
    get_default_graph,
    get_default_session,
    init_scope,
)
from symgrad.core.devices import gpu_device_name, is_gpu_available
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS, apply_op, constant_value
from symgrad.ops.core import constant, to_array
from symgrad.ops.sparse.indexed_slices import dense

__all__ = [
    "GradientCheckError",
    "check_gradient",
    "check_vjp",
    "compute_gradient",
    "gpu_device_name",
    "is_gpu_available",
    "max_error",
]

_JACOBIAN_DTYPES = (dt.float16, dt.float32, dt.float64, dt.complex64, dt.complex128)


class GradientCheckError(AssertionError):
    """A gradient rule or function failed a check; the message says which and why."""


# --------------------------------------------------------------------------------------
# tf.test.compute_gradient / max_error


def compute_gradient(
    f: Callable[..., Any], x: Sequence[Any], delta: float | None = None
) -> tuple[tuple[np.ndarray, ...], ...]:
    """Theoretical and numerical Jacobians of ``y = f(*x)`` w.r.t. each argument.

    Returns ``(theoretical, numerical)``, each a tuple with one 2-D array per argument of
    shape ``(y.size, x_i.size)`` in x_i's (real) dtype.  Complex values count as pairs of
    reals (twice the rows/columns), as TF.  ``delta`` defaults to 1/1024, a step exactly
    representable in binary floating point.  Runs eagerly at top level; inside
    ``Graph.as_default()`` it builds ``f`` on placeholders and runs it in the default
    Session (or a new one on that graph).

    >>> import symgrad as tf
    >>> theoretical, numerical = tf.test.compute_gradient(lambda x: x * x, [3.0])
    >>> theoretical
    (array([[6.]], dtype=float32),)
    >>> bool(tf.test.max_error(theoretical, numerical) < 1e-2)
    True
    """
    if not isinstance(x, list | tuple):
        raise ValueError(
            "`x` must be a list or tuple of values convertible to a Tensor "
            f"(arguments to `f`), not a {type(x)}"
        )
    step = 1.0 / 1024 if delta is None else delta
    xs = [_value_of(v) for v in x]
    runner = _Runner(f, xs)
    y_shape, y_dtype = runner.y_shape, runner.y_dtype
    pairs = [_jacobians(runner, xs, i, y_shape, y_dtype, step) for i in range(len(xs))]
    return tuple(zip(*pairs, strict=True))


def _value_of(v: Any) -> np.ndarray:
    """An argument's value: symbolic tensors (a Const built in a graph, as TF's graph-mode
    tests pass) are evaluated in the default Session, as TF's checker does."""
    if isinstance(v, Tensor) and not v.has_value():
        known = constant_value(v)
        if known is None:
            session = get_default_session()
            if session is None:
                raise ValueError(
                    f"compute_gradient: argument {v.name} has no value yet; evaluate it in a "
                    "Session (with session.as_default():) or pass its value"
                )
            known = session.run(v)
        return np.asarray(known)
    return to_array(v)


def max_error(grad1: Sequence[np.ndarray], grad2: Sequence[np.ndarray]) -> float:
    """The largest elementwise gap between two lists of equally shaped arrays."""
    error: Any = 0
    for a, b in zip(grad1, grad2, strict=False):
        a, b = np.asarray(a), np.asarray(b)
        if a.size or b.size:
            error = np.maximum(error, np.fabs(a - b).max())
    return error  # type: ignore[no-any-return]


class _Runner:
    """Evaluates ``f`` and its VJP on NumPy arguments, eagerly or through a Session."""

    def __init__(self, f: Callable[..., Any], xs: list[np.ndarray]) -> None:
        self.f = f
        self.eager = executing_eagerly()
        self._vjps: dict[int, Any] = {}
        if self.eager:
            y = _single(f(*[constant(a) for a in xs]), f)
        else:
            graph = get_default_graph()
            self.phs = [_placeholder(a) for a in xs]
            with GradientTape(persistent=True) as self.tape:  # in graphs too, as TF's
                self.tape.watch(self.phs)
                y = _single(f(*self.phs), f)
            session = get_default_session()
            if session is None or session.graph is not graph:
                from symgrad.runtime.session import Session

                session = Session(graph=graph)
            self.session = session
        self.y = y
        self.y_shape = tuple(y.shape.as_list()) if self.eager else None
        self.y_dtype = y.dtype
        if not self.eager:
            self.y_shape = np.shape(self.forward(xs))

    def forward(self, xs: Sequence[np.ndarray]) -> np.ndarray:
        if self.eager:
            return np.asarray(_single(self.f(*[constant(a) for a in xs]), self.f).numpy())
        return np.asarray(self.session.run(self.y, dict(zip(self.phs, xs, strict=True))))

    def vjp(self, xs: Sequence[np.ndarray], param: int, dy: np.ndarray) -> np.ndarray | None:
        if self.eager:  # a tape, as TF's checker: no static check of a rule's shapes
            ts = [constant(a) for a in xs]
            with GradientTape() as tape:
                tape.watch(ts[param])
                y = _single(self.f(*ts), self.f)
            g = tape.gradient(y, ts[param], output_gradients=constant(dy))
            g = None if g is None else dense(g)
            return None if g is None else np.asarray(g.numpy())
        if param not in self._vjps:
            from symgrad.ops.core import placeholder

            dy_ph = placeholder(self.y.dtype, self.y.shape)
            g = self.tape.gradient(self.y, self.phs[param], output_gradients=dy_ph)
            self._vjps[param] = (dy_ph, None if g is None else dense(g))
        dy_ph, g = self._vjps[param]
        if g is None:
            return None
        feeds = dict(zip(self.phs, xs, strict=True))
        feeds[dy_ph] = dy
        return np.asarray(self.session.run(g, feeds))


def _placeholder(a: np.ndarray) -> Tensor:
    from symgrad.ops.core import placeholder

    return placeholder(dt.as_dtype(a.dtype), a.shape)


def _single(y: Any, f: Any) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"compute_gradient: {_label(f)} must return one Tensor, got {y!r}")
    return y


def _jacobians(
    runner: _Runner, xs: list[np.ndarray], param: int, y_shape: Any, y_dtype: dt.DType, delta: float
) -> tuple[np.ndarray, np.ndarray]:
    x_dtype = dt.as_dtype(xs[param].dtype)
    for what, d in ((f"argument {param}", x_dtype), ("y", y_dtype)):
        assert d in _JACOBIAN_DTYPES, (
            f"Cannot compute gradient for unsupported type {d.name} of {what}"
        )
    y_size = int(np.prod(y_shape)) * (2 if y_dtype.is_complex else 1)
    return (
        _theoretical(runner, xs, param, y_shape, y_dtype, y_size),
        _numerical(runner, xs, param, y_dtype, y_size, delta),
    )


def _theoretical(
    runner: _Runner, xs: list[np.ndarray], param: int, y_shape: Any, y_dtype: dt.DType, y_size: int
) -> np.ndarray:
    """Row r is the VJP of the r-th one-hot cotangent (complex: real then imaginary parts)."""
    x = xs[param]
    real = x.real.dtype
    jacobian = np.zeros((y_size, x.size * (2 if x.dtype.kind == "c" else 1)), dtype=real)
    dy = np.zeros(y_shape, dtype=y_dtype.np)
    dy_flat = dy.reshape(-1).view(y_dtype.real_dtype.np)
    for row in range(y_size):
        dy_flat[row] = 1
        g = runner.vjp(xs, param, dy.copy())
        if g is not None:
            jacobian[row, :] = np.ascontiguousarray(g, dtype=x.dtype).reshape(-1).view(real)
        dy_flat[row] = 0
    if y_size == 0:
        g = runner.vjp(xs, param, dy)
        if g is not None and g.shape != x.shape:
            raise ValueError(f"Empty gradient has wrong shape: expected {x.shape}, got {g.shape}")
        if g is not None and np.any(g):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numerical(
    runner: _Runner, xs: list[np.ndarray], param: int, y_dtype: dt.DType, y_size: int, delta: float
) -> np.ndarray:
    """Column c is the central difference of y along the c-th real coordinate of x."""
    xs = [np.array(a, copy=True) for a in xs]
    x = xs[param]
    real = x.real.dtype
    x_flat = x.reshape(-1).view(real)
    y_real = y_dtype.real_dtype.np
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((y_size, x_flat.size), dtype=real)
    for col in range(x_flat.size):
        original = x_flat[col]
        x_flat[col] = original + real.type(delta)
        y_pos = runner.forward(xs)
        x_flat[col] = original - real.type(delta)
        y_neg = runner.forward(xs)
        x_flat[col] = original
        diff = (y_pos - y_neg) / scale
        jacobian[:, col] = np.ascontiguousarray(diff).reshape(-1).view(y_real)
    return jacobian


# --------------------------------------------------------------------------------------
# check_vjp: ⟨VJP(u), v⟩ against ⟨u, JVP(v)⟩ by central differences, in float64


def check_vjp(
    fn: Callable[..., Any],
    args: Sequence[Any],
    *,
    diff: Sequence[int] | None = None,
    order: int = 1,
    rng: np.random.Generator | int | None = None,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    name: str | None = None,
) -> None:
    """Check the gradients of ``fn`` (tensors -> tensor or list of tensors) at ``args``.

    ``args`` are NumPy-convertible values; floating and complex ones are widened to
    float64/complex128 and differentiated (``diff`` picks argument indices instead), the
    rest (indices, axes) stay constant.  For each differentiated argument the checker
    requires a gradient of the argument's shape and dtype whose inner product with a
    random direction matches central differences of ``Σ_k ⟨u_k, y_k⟩`` within
    ``atol + rtol · scale``.  ``order=2`` then checks the VJP function ``(x, u) ->
    VJP(u)`` the same way, and so on.  Raises ``GradientCheckError``.

    >>> import numpy as np, symgrad as tf
    >>> tf.test.check_vjp(lambda a, b: tf.sin(a) * b, [np.ones((2, 3)), np.ones(3)], order=2)
    """
    label = name or _label(fn)
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    arrays = [widen(np.asarray(a)) for a in args]
    idx = (
        list(diff)
        if diff is not None
        else [i for i, a in enumerate(arrays) if a.dtype.kind in "fc"]
    )
    if not idx or any(arrays[i].dtype.kind not in "fc" for i in idx):
        raise GradientCheckError(
            f"{label}: the arguments to differentiate ({idx}) must be "
            "floating-point or complex, and there must be at least one"
        )
    with _eager():
        for level in range(1, order + 1):
            where = label if level == 1 else f"{label} [order {level}: gradient of the VJP]"
            us = _check_first_order(fn, arrays, idx, gen, eps, rtol, atol, where)
            if level < order:
                # The VJP (x, u) -> VJP(u) is itself a function of tensors: check it next.
                fn, n = _vjp_function(fn, len(arrays), idx), len(arrays)
                arrays, idx = arrays + us, idx + list(range(n, n + len(us)))


def _check_first_order(
    fn: Callable[..., Any],
    args: list[np.ndarray],
    idx: list[int],
    rng: np.random.Generator,
    eps: float,
    rtol: float,
    atol: float,
    label: str,
) -> list[np.ndarray]:
    ts = [constant(a) for a in args]
    outs = _differentiable(_call(fn, ts, label), label)
    us = [_random_like(np.asarray(o.numpy()), rng) for o in outs]
    try:
        grads = gradients(outs, [ts[i] for i in idx], grad_ys=[constant(u) for u in us])
        grads = [dense(g) for g in grads]
    except (ValueError, TypeError, LookupError) as e:
        raise GradientCheckError(f"{label}: backprop failed: {type(e).__name__}: {e}") from e
    for i, g in zip(idx, grads, strict=True):
        _check_structure(label, f"argument {i}", args[i], g)
        v = _random_like(args[i], rng)
        analytic = 0.0 if g is None else _inner(np.asarray(g.numpy()), v)
        numeric = _directional(fn, args, i, v, us, eps, label)
        if abs(analytic - numeric) > atol + rtol * max(abs(analytic), abs(numeric)):
            got = "None (no gradient)" if g is None else f"{analytic:.10g}"
            raise GradientCheckError(
                f"{label}: wrong gradient for argument {i} (shape {args[i].shape}): "
                f"⟨VJP(u), v⟩ = {got} but central differences give ⟨u, JVP(v)⟩ = "
                f"{numeric:.10g} (eps={eps:g}, rtol={rtol:g}, atol={atol:g}). The gradient "
                "for an input must be Σ over output entries of grad·∂y/∂x, with the input's "
                "shape."
            )
    return us


def _directional(
    fn: Callable[..., Any],
    args: list[np.ndarray],
    i: int,
    v: np.ndarray,
    us: list[np.ndarray],
    eps: float,
    label: str,
) -> float:
    """d/de Σ_k ⟨u_k, y_k(x_i + e·v)⟩ at e = 0, by central differences."""

    def at(step: float) -> float:
        moved = list(args)
        moved[i] = args[i] + step * v
        outs = _differentiable(_call(fn, [constant(a) for a in moved], label), label)
        return sum(_inner(u, np.asarray(o.numpy())) for u, o in zip(us, outs, strict=True))

    return (at(eps) - at(-eps)) / (2 * eps)


def _vjp_function(fn: Callable[..., Any], n: int, idx: list[int]) -> Callable[..., Any]:
    """(x_0..x_{n-1}, u_0..) -> [VJP(u) w.r.t. x_i for i in idx] (zeros where unconnected)."""
    from symgrad.ops.array.structure import zeros_like

    def vjp(*ts: Tensor) -> list[Tensor]:
        xs, us = list(ts[:n]), list(ts[n:])
        outs = _differentiable(fn(*xs), "fn")
        grads = gradients(outs, [xs[i] for i in idx], grad_ys=us)
        return [
            zeros_like(xs[i]) if g is None else dense(g) for i, g in zip(idx, grads, strict=True)
        ]

    vjp.__name__ = f"vjp_of_{_label(fn)}"
    return vjp


def _check_structure(
    label: str, what: str, x: np.ndarray, g: Any, out_shapes: Sequence[tuple[int | None, ...]] = ()
) -> None:
    if g is None:
        return
    shape = tuple(g.shape.as_list()) if g.shape.dims is not None else None
    if g.dtype.np != x.dtype:
        raise GradientCheckError(
            f"{label}: the gradient for {what} has dtype {g.dtype.name} "
            f"but the input has dtype {dt.as_dtype(x.dtype).name}"
        )
    if shape != x.shape:
        hint = ""
        if shape in out_shapes:
            hint = (
                " — that is the output's shape: the input was broadcast, so its gradient "
                "must be summed over the broadcast dimensions (use "
                "symgrad.ops.core.unbroadcast, or reduce_sum then reshape)"
            )
        raise GradientCheckError(
            f"{label}: the gradient for {what} has shape {shape} but the "
            f"input has shape {x.shape}{hint}"
        )


# --------------------------------------------------------------------------------------
# check_gradient: a registered rule's contract, then values to order 2


def check_gradient(
    op: str | Callable[..., Any],
    *inputs: Any,
    attrs: dict[str, Any] | None = None,
    order: int = 2,
    diff: Sequence[int] | None = None,
    rng: np.random.Generator | int | None = 0,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """Check the gradient rule of op type ``op`` (or the gradients of function ``op``).

    ``inputs`` are the op's input values (give operands of different shapes to exercise
    broadcasting); ``attrs`` its attributes.  For an op type the registered rule is first
    called directly, as backprop would (``rule(op, *grads)``), in the inputs' own dtypes
    and in float64, and must return one gradient or None per input, each with its input's
    shape and dtype.  Then ``check_vjp`` compares values against float64 central
    differences, up to ``order``.  Raises ``GradientCheckError`` naming the op.

    >>> import numpy as np, symgrad as tf
    >>> tf.test.check_gradient("Mul", np.ones((2, 3)), np.arange(3.0))
    """
    if isinstance(op, str):
        fn = _op_function(op, attrs or {})
        label = f"check_gradient('{op}')"
        _require_rule(op, label)
        for arrays in ([np.asarray(a) for a in inputs], [widen(np.asarray(a)) for a in inputs]):
            with _eager():
                _check_rule_contract(op, fn, arrays, diff, label)
    else:
        fn, label = op, f"check_gradient({_label(op)})"
    check_vjp(
        fn, list(inputs), diff=diff, order=order, rng=rng, eps=eps, rtol=rtol, atol=atol, name=label
    )


def _op_function(op_type: str, attrs: dict[str, Any]) -> Callable[..., Any]:
    def fn(*ts: Tensor) -> Any:
        outs = apply_op(op_type, list(ts), dict(attrs)).outputs
        return outs[0] if len(outs) == 1 else list(outs)

    fn.__name__ = op_type
    return fn


def _require_rule(op_type: str, label: str) -> None:
    if op_type not in OPS:
        raise GradientCheckError(f"{label}: no op type '{op_type}' is registered")
    if op_type not in gradient_registry:
        raise GradientCheckError(
            f"{label}: no gradient is registered for op type '{op_type}'; "
            f"register one with @RegisterGradient('{op_type}')"
        )
    if gradient_registry.lookup(op_type) is None:
        raise GradientCheckError(
            f"{label}: op type '{op_type}' is registered as NoGradient; there is no rule to check"
        )


def _check_rule_contract(
    op_type: str,
    fn: Callable[..., Any],
    arrays: list[np.ndarray],
    diff: Sequence[int] | None,
    label: str,
) -> None:
    """Call the rule by hand with random upstream gradients and check what it returns."""
    ts = [constant(a) for a in arrays]
    outs = _outputs(_call(fn, ts, label))
    forward = outs[0].op
    rng = np.random.default_rng(0)
    upstream = [
        constant(_random_like(np.asarray(o.numpy()), rng)) if o.dtype.is_differentiable else None
        for o in outs
    ]
    rule = gradient_registry.lookup(op_type)
    try:
        result = rule(forward, *upstream)  # type: ignore[misc]
    except Exception as e:
        raise GradientCheckError(
            f"{label}: the gradient function raised {type(e).__name__}: {e}"
        ) from e
    if isinstance(result, Tensor) or result is None or not isinstance(result, list | tuple):
        result = [result]
    if len(result) != len(ts):
        raise GradientCheckError(
            f"{label}: the gradient function returned {len(result)} gradient(s) but the op "
            f"has {len(ts)} input(s); it must return one gradient (or None) per input, in "
            "input order"
        )
    out_shapes = [tuple(o.shape.as_list()) for o in outs]
    wanted = set(diff) if diff is not None else None
    for i, (a, g) in enumerate(zip(arrays, result, strict=True)):
        if (wanted is not None and i not in wanted) or a.dtype.kind not in "fc":
            continue
        g = dense(g)  # a rule may give IndexedSlices (a gather's); the check is of its values
        if g is not None and not isinstance(g, Tensor):
            g = constant(np.asarray(g))
        _check_structure(label, f"input {i}", a, g, out_shapes)


# --------------------------------------------------------------------------------------
# Small helpers


@contextlib.contextmanager
def _eager() -> Iterator[None]:
    """Run in eager mode even inside ``Graph.as_default()``: checks need values."""
    if executing_eagerly():
        yield
        return
    with init_scope():
        yield


def _call(fn: Callable[..., Any], ts: list[Tensor], label: str) -> Any:
    try:
        return fn(*ts)
    except (ValueError, TypeError) as e:
        raise GradientCheckError(
            f"{label}: the forward computation failed: {type(e).__name__}: {e}"
        ) from e


def _outputs(result: Any) -> list[Tensor]:
    return list(result) if isinstance(result, list | tuple) else [result]


def _differentiable(result: Any, label: str) -> list[Tensor]:
    outs = [o for o in _outputs(result) if isinstance(o, Tensor) and o.dtype.is_differentiable]
    if not outs:
        raise GradientCheckError(f"{label}: the function has no floating-point output")
    return outs


def widen(a: np.ndarray) -> np.ndarray:
    """``a`` in float64 (complex128) if it is a float (complex) array: checks compare there."""
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a


def _random_like(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if a.dtype.kind == "c":
        return (rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape)).astype(a.dtype)
    return rng.standard_normal(a.shape).astype(a.dtype)


def _inner(a: np.ndarray, b: np.ndarray) -> float:
    """The real inner product Re(Σ conj(a)·b)."""
    return float(np.real(np.vdot(a, b)))


def _label(fn: Any) -> str:
    return getattr(fn, "__name__", None) or repr(fn)


__getattr__ = _missing.module_getattr("tf.test")
