"""Training-step builders for the peer frameworks (each imports its framework lazily).

The model, loss and update are the ones of ``wl_training``; a builder takes its ``Data``
and returns a no-argument step that runs forward, backward and the SGD update and returns
the loss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness


def tf_session(d: Any) -> Callable[[], Any]:
    import wl_training

    tf = harness.import_tf()
    return wl_training.tf1_session_step(tf, d, {"config": harness.tf_session_config(tf)})


def tf_function(d: Any) -> Callable[[], Any]:
    import wl_training

    return wl_training.tf2_step(harness.import_tf(), d, compile_fn=True)


def tf_eager(d: Any) -> Callable[[], Any]:
    import wl_training

    return wl_training.tf2_step(harness.import_tf(), d, compile_fn=False)


def torch_eager(d: Any, optimizer: bool = False) -> Callable[[], float]:
    """PyTorch's eager step; ``optimizer``: the update by ``torch.optim.SGD`` (``zero_grad``,
    ``step``), as the optimizer row's symgrad step uses a Keras optimizer."""
    torch = harness.import_torch()
    import torch.nn.functional as F

    params = [torch.tensor(a, requires_grad=True) for a in d.ws + d.bs]
    ws, bs = params[: len(d.ws)], params[len(d.ws) :]
    x, y = torch.from_numpy(d.x), torch.from_numpy(d.y)
    opt = torch.optim.SGD(params, lr=d.lr) if optimizer else None

    def step() -> float:
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = torch.addmm(b, h, w)
            if i < len(ws) - 1:
                h = torch.relu(h)
        loss = F.cross_entropy(h, y)
        if opt is not None:
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-d.lr)
        return loss.item()

    return step


def torch_sgd(d: Any) -> Callable[[], float]:
    return torch_eager(d, optimizer=True)


def jax_jit(d: Any) -> Callable[[], float]:
    import jax
    import jax.numpy as jnp

    def loss_fn(params: Any, x: Any, y: Any) -> Any:
        ws, bs = params
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w + b
            if i < len(ws) - 1:
                h = jax.nn.relu(h)
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h), axis=1))

    @jax.jit
    def update(params: Any, x: Any, y: Any) -> Any:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - d.lr * g, params, grads), loss

    state = {"params": jax.device_put(([*d.ws], [*d.bs]))}
    x, y = jax.device_put(d.x), jax.device_put(d.y)

    def step() -> float:
        state["params"], loss = update(state["params"], x, y)
        return float(loss)  # waits for the result

    return step


def pytensor_fn(d: Any) -> Callable[[], Any]:
    import numpy as np
    import pytensor
    import pytensor.tensor as pt
    from pytensor.tensor.special import log_softmax

    ws = [pytensor.shared(w) for w in d.ws]
    bs = [pytensor.shared(b) for b in d.bs]
    x, y = pt.matrix("x", dtype="float32"), pt.matrix("y", dtype="float32")
    h = x
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = pt.dot(h, w) + b
        if i < len(ws) - 1:
            h = pt.maximum(h, 0)
    loss = -pt.mean(pt.sum(y * log_softmax(h, axis=1), axis=1))
    params = ws + bs
    lr = np.float32(d.lr)
    updates = [(p, p - lr * g) for p, g in zip(params, pytensor.grad(loss, params))]
    fn = pytensor.function([x, y], loss, updates=updates)
    return lambda: fn(d.x, d.y)


def autograd_fn(d: Any) -> Callable[[], float]:
    import autograd.numpy as anp
    from autograd import value_and_grad

    def loss_fn(params: Any) -> Any:
        ws, bs = params
        h = d.x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = anp.dot(h, w) + b
            if i < len(ws) - 1:
                h = anp.maximum(h, 0)
        z = h - anp.max(h, axis=1, keepdims=True)
        logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
        return -anp.mean(anp.sum(d.y * logp, axis=1))

    vg = value_and_grad(loss_fn)
    params = ([w.copy() for w in d.ws], [b.copy() for b in d.bs])

    def step() -> float:
        loss, (gws, gbs) = vg(params)
        for p, g in zip(params[0] + params[1], gws + gbs):
            p -= d.lr * g
        return float(loss)

    return step


BUILDERS: dict[str, Callable[[Any], Callable[[], Any]]] = {
    "tf_session": tf_session,
    "tf_function": tf_function,
    "tf_eager": tf_eager,
    "torch": torch_eager,
    "torch_sgd": torch_sgd,
    "jax_jit": jax_jit,
    "pytensor": pytensor_fn,
    "autograd": autograd_fn,
}
