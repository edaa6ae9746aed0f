"""``tensorflow.python.ops.gradient_checker``: TF1's Jacobian checker, ``(x, x_shape, y,
y_shape)`` form, run through the default Session (``tf.test.compute_gradient`` is TF2's).

The theoretical Jacobian comes from ``gradients(y, x, grad_ys=dy)`` with one one-hot ``dy``
per entry of ``y``; the numerical one from central differences of ``y`` with ``x`` fed at
``x_init_value`` ± ``delta``, entry by entry.  Each is ``[x.size, y.size]``, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autodiff.gradients import gradients
from symgrad.core.context import get_default_session
from symgrad.core.graph import Tensor
from symgrad.ops.core import placeholder
from symgrad.ops.sparse.indexed_slices import dense
from symgrad.runtime.session import Session


def compute_gradient(
    x: Any,
    x_shape: Any,
    y: Tensor,
    y_shape: Any,
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: Any = None,
) -> Any:
    """``(theoretical, numerical)`` Jacobians of ``y`` w.r.t. ``x`` (a list of pairs for a
    list of ``x``)."""
    xs, shapes = (list(x), list(x_shape)) if isinstance(x, list | tuple) else ([x], [x_shape])
    inits = (
        x_init_value
        if isinstance(x, list | tuple) and x_init_value is not None
        else [x_init_value] * len(xs)
    )
    sess = get_default_session() or Session()
    if init_targets is not None:
        sess.run(init_targets)
    feeds = dict(extra_feed_dict or {})
    values = [
        np.asarray(v, t.dtype.np).reshape(s)
        if v is not None
        else np.random.random_sample(s).astype(t.dtype.np)
        for t, s, v in zip(xs, shapes, inits, strict=True)
    ]
    dy = placeholder(y.dtype, y_shape)
    grads = [dense(g) for g in gradients(y, xs, grad_ys=dy)]
    pairs = []
    for i, (t, g) in enumerate(zip(xs, grads, strict=True)):
        base = {**feeds, **dict(zip(xs, values, strict=True))}
        pairs.append(
            (
                _theoretical(sess, t, g, dy, values[i], y_shape, base),
                _numerical(sess, t, y, values[i], delta, base),
            )
        )
    return pairs if isinstance(x, list | tuple) else pairs[0]


def _theoretical(
    sess: Any, x: Tensor, g: Any, dy: Tensor, x0: np.ndarray, y_shape: Any, feeds: dict[Any, Any]
) -> np.ndarray:
    n_y = int(np.prod(y_shape))
    jac = np.zeros((x0.size, n_y))
    if g is None:
        return jac
    for j in range(n_y):
        onehot = np.zeros(n_y, dy.dtype.np)
        onehot[j] = 1
        jac[:, j] = np.ravel(sess.run(g, {**feeds, dy: onehot.reshape(y_shape)}))
    return jac


def _numerical(
    sess: Any, x: Tensor, y: Tensor, x0: np.ndarray, delta: float, feeds: dict[Any, Any]
) -> np.ndarray:
    rows = []
    for i in range(x0.size):
        moved = []
        for sign in (1, -1):
            xi = x0.copy().ravel()
            xi[i] += sign * delta
            moved.append(np.ravel(sess.run(y, {**feeds, x: xi.reshape(x0.shape)})))
        rows.append((moved[0].astype(np.float64) - moved[1]) / (2 * delta))
    return np.array(rows)


def compute_gradient_error(
    x: Any,
    x_shape: Any,
    y: Tensor,
    y_shape: Any,
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: Any = None,
) -> float:
    """The largest |theoretical - numerical| over every Jacobian entry."""
    result = compute_gradient(
        x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict
    )
    pairs = result if isinstance(result, list) else [result]
    return max(float(np.max(np.abs(t - n))) if t.size else 0.0 for t, n in pairs)
