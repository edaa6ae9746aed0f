"""``GradientMonitor``: symgrad's own callback (Keras has none) for a training run that
diverges. While ``fit`` runs it

* checks every op's output for NaN and Inf (``tf.debugging.enable_check_numerics``, the
  NaN locator), and at the first one stops training with a report naming the layer that
  made it, the op, and whether the op is in the forward pass or the gradient of a layer's
  op (``forward_op_of``);
* records each layer's gradient norm (the global norm of its trainable variables'
  gradients) at every step, averaged per epoch in ``gradient_norms``.

Ops are attributed to layers by wrapping each layer's ``call`` while ``fit`` runs: the ops
between a call's inputs and its outputs are the layer's (the innermost layer's when
layers nest).  The norms are written to one variable per layer inside the compiled step,
by wrapping the optimizer's ``apply``, so a custom ``train_step`` that applies gradients
through the optimizer is measured too.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from symgrad.control_flow.numerics_where import original
from symgrad.core import nest
from symgrad.core.errors import InvalidArgumentError
from symgrad.keras.callbacks.base import Callback
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.add_n import add_n
from symgrad.ops.reduction.reduce import reduce_sum
from symgrad.ops.state.variables import Variable
from symgrad.tools import numerics
from symgrad.tools.explain import forward_op_of


class GradientMonitor(Callback):
    """Stop at the first NaN/Inf with the layer and op that made it (``report``); record
    per-layer gradient norms (``gradient_norms[layer] = [epoch means]``).

    Args:
        check_numerics: check every op's outputs for NaN/Inf while ``fit`` runs.
        record_norms: record per-layer gradient norms.
        verbose: print the report when training stops.
    """

    def __init__(
        self, check_numerics: bool = True, record_norms: bool = True, verbose: int = 1
    ) -> None:
        super().__init__()
        self.check_numerics, self.record_norms, self.verbose = check_numerics, record_norms, verbose
        self.report: dict[str, Any] | None = None
        self.gradient_norms: dict[str, list[float]] = {}
        self._owner: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._undo: list[Any] = []

    # -- install while fit runs -----------------------------------------------------------
    def on_train_begin(self, logs: Any = None) -> None:
        self.report, self.gradient_norms = None, {}
        model = self.model
        for layer in model._flatten_layers(include_self=False):
            self._wrap_call(layer)
        if self.record_norms:
            self._wrap_apply(model)
        if self.check_numerics and not numerics.check_numerics_enabled():
            numerics.enable_check_numerics()
            self._undo.append(numerics.disable_check_numerics)
        if not hasattr(model, "_step_functions"):
            model._step_functions = {}
        steps = model._step_functions
        old = steps.pop("train", None)  # trace again, with the wrappers
        steps["train"] = self._guard(model._step_function("train"))
        model._prepare = self._guard(model._prepare)  # its eager forward pass builds metrics
        self._undo.append(lambda: delattr(model, "_prepare"))
        self._undo.append(lambda: steps.pop("train") if old is None else steps.update(train=old))

    def on_train_end(self, logs: Any = None) -> None:
        self._restore()
        if self.report is not None and self.verbose:
            print(self.report["message"])

    def _restore(self) -> None:
        while self._undo:
            self._undo.pop()()
        if self.report is not None and self.verbose:
            print(self.report["message"])

    def _wrap_call(self, layer: Any) -> None:
        inner = layer.call

        @functools.wraps(inner)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                outputs = inner(*args, **kwargs)
            except InvalidArgumentError as e:  # an eager op failed inside this call
                if e.op is not None:
                    self._owner.setdefault(e.op, layer.name)
                raise
            self._claim(layer.name, (args, kwargs), outputs)
            return outputs

        layer.call = call
        self._undo.append(lambda: delattr(layer, "call"))

    def _claim(self, name: str, inputs: Any, outputs: Any) -> None:
        """Attribute to ``name`` the ops from ``inputs`` to ``outputs`` not yet claimed."""
        stop = {id(t) for t in nest.flatten(inputs)}
        todo = [t.op for t in nest.flatten(outputs) if hasattr(t, "op") and id(t) not in stop]
        seen: set[int] = set()
        while todo:
            op = todo.pop()
            if id(op) in seen or op is None:
                continue
            seen.add(id(op))
            self._owner.setdefault(op, name)
            todo.extend(t.op for t in op.inputs if id(t) not in stop)

    # -- gradient norms -------------------------------------------------------------------
    def _wrap_apply(self, model: Any) -> None:
        optimizer = model.optimizer
        groups = [
            (layer.name, {id(v) for v in layer.trainable_weights})
            for layer in model._flatten_layers(include_self=False)
            if layer.trainable_weights and not layer._layers
        ]
        self._norm_vars = {
            name: Variable(0.0, trainable=False, name=f"grad_norm_{name}") for name, _ in groups
        }
        self._sums = {name: [0.0, 0] for name, _ in groups}
        inner = optimizer.apply

        def apply(grads: Any, trainable_variables: Any = None) -> Any:
            pairs = list(zip(grads, trainable_variables or model.trainable_weights, strict=True))
            for name, ids in groups:
                mine = [g for g, v in pairs if id(v) in ids and g is not None]
                if mine:
                    squares = [reduce_sum(math.square(g)) for g in mine]
                    self._norm_vars[name].assign(math.sqrt(add_n(squares)))
            return inner(grads, trainable_variables)

        optimizer.apply = apply
        self._undo.append(lambda: delattr(optimizer, "apply"))

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        if self.record_norms and self.report is None:
            for name, var in self._norm_vars.items():
                self._sums[name][0] += float(var.numpy())
                self._sums[name][1] += 1

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        if not self.record_norms:
            return
        for name, (total, n) in self._sums.items():
            if n:
                self.gradient_norms.setdefault(name, []).append(total / n)
            self._sums[name] = [0.0, 0]

    # -- the NaN report -------------------------------------------------------------------
    def _guard(self, step: Any) -> Any:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.report is not None:  # stopped: the epoch's remaining steps do nothing
                return self.model.get_metrics_result()
            try:
                return step(*args, **kwargs)
            except Exception as e:
                found = isinstance(e, InvalidArgumentError) and e.op is not None
                if not (found and "Infinity or NaN" in str(e)):
                    self._restore()  # fit ends without on_train_end: put everything back
                    raise
                self.report = self._report(e)  # type: ignore[arg-type]
                self.model.stop_training = True
                return self.model.get_metrics_result()

        return guarded

    def _report(self, e: InvalidArgumentError) -> dict[str, Any]:
        op: Any = e.op
        forward = forward_op_of(op)
        forward = original(forward) if forward is not None else None
        layer = self._owner.get(forward if forward is not None else op)
        where = "the loss or the optimizer's update" if layer is None else f"layer '{layer}'"
        if forward is not None:
            what = f"the gradient of {where}'s op '{forward.name}' (type {forward.type})"
        else:
            what = f"{where}, op '{op.name}' (type {op.type})"
        first = str(e).splitlines()[-1].lstrip(": ")
        message = f"GradientMonitor stopped training at the first NaN/Inf: {first} in {what}\n{e}"
        return {
            "layer": layer,
            "op": op.name,
            "op_type": op.type,
            "gradient": forward is not None,
            "forward_op": None if forward is None else forward.name,
            "message": message,
        }
