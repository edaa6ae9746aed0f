"""Keras 3's ``Layer`` on symgrad: lazy ``build`` from the first input's shape, weights made
by ``add_weight`` (Keras's argument order and names), sub-layer tracking in attribute order,
``trainable`` freezing, ``training=`` handed down from the outermost call, masks, losses.

Called on a symbolic ``KerasTensor`` (from ``keras.Input``), a layer builds, traces its
``call`` on placeholders in a scratch graph to learn the output shapes, and records a node
that a functional ``Model`` replays on real tensors (see :mod:`.keras_tensor`).
"""

from __future__ import annotations

import contextlib
import inspect
import weakref
from typing import Any

from symgrad.core import nest
from symgrad.keras import backend, constraints, dtype_policies, initializers, regularizers
from symgrad.keras import random as krandom
from symgrad.keras.layers import masks
from symgrad.keras.layers.input_spec import assert_input_compatibility
from symgrad.keras.layers.variables import make_variable, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variables import Variable

_CALL: dict[str, Any] = {"ctx": None}
# Layers that may hold losses from an earlier call, by id (``add_loss`` puts them here; a
# weak reference, since a user's layer may be unhashable): while it is empty, an outermost
# call has no losses to clear and skips the walk over its sub-layers.
_WITH_LOSSES: dict[int, weakref.ref[Any]] = {}


class CallContext:
    """The outermost layer call and the ``training`` value its inner calls inherit."""

    def __init__(self, entry_layer: Any) -> None:
        self.entry_layer, self.training = entry_layer, None


def _is_tensor_like(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (int, float))


def _shape_of(x: Any) -> Any:
    if x is None:
        return None
    shape = x.shape
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    return tuple(shape)


class Layer:
    """Base class of every Keras layer (see the module docstring)."""

    _trainable_variables: list[Any]
    _non_trainable_variables: list[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:
            cls.build = _scoped_build(cls.__dict__["build"])  # type: ignore[method-assign]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__new__(cls)
        object.__setattr__(obj, "_trainable_variables", [])
        object.__setattr__(obj, "_non_trainable_variables", [])
        object.__setattr__(obj, "_init_args", (args, kwargs))  # for clone_layer
        object.__setattr__(obj, "_build_shapes_dict", None)  # build_config, as Keras
        return obj

    def __init__(
        self,
        *,
        activity_regularizer: Any = None,
        trainable: bool = True,
        dtype: Any = None,
        autocast: bool = True,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        kwargs.pop("input_dtype", None)
        if kwargs:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}"
            )
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            self._input_shape_arg: Any = tuple(batch_input_shape)
        else:
            self._input_shape_arg = None if input_shape is None else (None, *input_shape)
        self.name = name if name is not None else backend.auto_name(type(self).__name__)
        self._trainable = bool(trainable)
        self._dtype_policy = dtype_policies.get(dtype)
        self.autocast = autocast
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.built = False
        self.supports_masking = _overrides(self, "compute_mask")
        self._losses: list[Any] = []
        self._inbound_nodes: list[Any] = []
        self._call_signature = inspect.signature(self.call)

    # -- attributes: sub-layers and variables are tracked in assignment order
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Variable) and not name.startswith("_"):
            own = self._trainable_variables + self._non_trainable_variables
            if all(v is not value for v in own):
                (
                    self._trainable_variables if value.trainable else self._non_trainable_variables
                ).append(value)
        if isinstance(value, _HOLDERS) or name in self.__dict__.get("_holding", ()):
            self.__dict__.pop("_holding", None)  # (``_layers`` finds them again)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__.pop("_holding", None)
        object.__delattr__(self, name)

    @property
    def _layers(self) -> list[Layer]:
        """The sub-layers the attributes hold now, in assignment order.  Which attributes
        can hold one (``_holding``) is kept until an attribute is set to a layer or a
        container, or one of them is set or deleted; their contents are read each time,
        so a list appended to is seen."""
        found: list[Layer] = []
        attrs = vars(self)
        holding = attrs.get("_holding")
        if holding is None:
            holding = attrs["_holding"] = tuple(
                k for k, v in attrs.items() if isinstance(v, _HOLDERS) and k not in _NO_LAYERS
            )
        for key in holding:
            for leaf in _leaves(attrs[key]):
                if (
                    isinstance(leaf, Layer)
                    and leaf is not self
                    and all(leaf is not f for f in found)
                ):
                    found.append(leaf)
        return found

    def _flatten_layers(self, include_self: bool = True) -> list[Layer]:
        out: list[Layer] = [self] if include_self else []
        for layer in self._layers:
            for sub in layer._flatten_layers():
                if all(sub is not o for o in out):
                    out.append(sub)
        return out

    # -- dtype
    @property
    def dtype_policy(self) -> Any:
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value: Any) -> None:
        self._dtype_policy = dtype_policies.get(value)

    @property
    def dtype(self) -> str:
        """The variables' dtype (Keras 3: an alias of ``variable_dtype``)."""
        return self.variable_dtype

    @property
    def variable_dtype(self) -> str:
        return str(self._dtype_policy.variable_dtype)

    @property
    def compute_dtype(self) -> str:
        return str(self._dtype_policy.compute_dtype)

    @property
    def input_dtype(self) -> str:
        return self.compute_dtype

    input_spec: Any = None  # an InputSpec (or a list of them) the first argument must meet

    # -- weights
    def add_weight(
        self,
        *args: Any,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        aggregation: str = "none",
        overwrite_with_gradient: bool = False,
        name: Any = None,
    ) -> Any:
        """A new weight of this layer (Keras 3: ``add_weight(shape, initializer, dtype)``
        positionally; the default initializer is glorot_uniform for floats, else zeros)."""
        if args:
            if isinstance(args[0], str):
                raise ValueError(
                    f"Cannot pass a string as the first positional argument of add_weight(). "
                    f"Received: add_weight('{args[0]}', ...). Use: add_weight(shape=..., "
                    f"name='{args[0]}')."
                )
            shape = args[0]
            initializer = args[1] if len(args) > 1 else initializer
            dtype = args[2] if len(args) > 2 else dtype
        shape = () if shape is None else tuple(int(s) for s in shape)
        dtype = backend.standardize_dtype(dtype) if dtype is not None else self.variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        variable = make_variable(
            self.name, self, shape, initializers.get(initializer), dtype, trainable,
            regularizers.get(regularizer), constraints.get(constraint), name or "variable",
        )  # fmt: skip
        variable._autocast = bool(autocast)
        (self._trainable_variables if trainable else self._non_trainable_variables).append(variable)
        return variable

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        value = bool(value)
        self._trainable = value
        for v in self._trainable_variables:
            v.trainable = value
        for layer in self._layers:
            layer.trainable = value

    @property
    def weights(self) -> list[Any]:
        found = self._trainable_variables + self._non_trainable_variables
        for layer in self._layers:
            found += layer.weights
        return list({id(w): w for w in found}.values())  # each once, where first found

    @property
    def trainable_weights(self) -> list[Any]:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Any]:
        return [v for v in self.weights if not v.trainable] if self.trainable else self.weights

    @property
    def variables(self) -> list[Any]:
        """``weights`` and the layer's other state, as Keras 3 lists it: its own weights,
        the state of its seed generators (Dropout's ``seed_generator_state``), then its
        sublayers' variables, each once."""
        out = self._trainable_variables + self._non_trainable_variables
        out = [w for i, w in enumerate(out) if all(w is not o for o in out[:i])]
        out += [v.state for v in vars(self).values() if isinstance(v, krandom.SeedGenerator)]
        for layer in self._layers:
            out += [w for w in layer.variables if all(w is not o for o in out)]
        return out

    trainable_variables = trainable_weights

    @property
    def non_trainable_variables(self) -> list[Any]:
        return [v for v in self.variables if not v.trainable] if self.trainable else self.variables

    def get_weights(self) -> list[Any]:
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights: Any) -> None:
        layer_weights = self.weights
        if len(layer_weights) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self.name}' with a weight list "
                f"of length {len(weights)}, but the layer was expecting "
                f"{len(layer_weights)} weights."
            )
        for variable, value in zip(layer_weights, weights):
            if tuple(variable.shape.as_list()) != tuple(getattr(value, "shape", ())):
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(variable.shape.as_list())} is not "
                    f"compatible with provided weight shape {getattr(value, 'shape', ())}."
                )
            variable.assign(value)

    def count_params(self) -> int:
        return sum(int(v.shape.num_elements()) for v in self.weights)

    # -- losses
    def add_loss(self, loss: Any) -> None:
        self._losses.extend(nest.flatten(loss))
        key = id(self)
        if key not in _WITH_LOSSES:
            _WITH_LOSSES[key] = weakref.ref(self, _forgetter(key))

    def _clear_losses(self) -> None:
        if not _WITH_LOSSES:  # no layer holds losses: nothing to clear, no walk
            return
        self._clear_own_and_sub_losses()
        for key, ref in list(_WITH_LOSSES.items()):
            layer = ref()
            if layer is None or not layer._losses:
                del _WITH_LOSSES[key]

    def _clear_own_and_sub_losses(self) -> None:
        self._losses.clear()
        for layer in self._layers:
            layer._clear_own_and_sub_losses()

    @property
    def losses(self) -> list[Any]:
        out = list(self._losses)
        for layer in self._flatten_layers(include_self=False):
            out.extend(layer._losses)
        for v in self.trainable_weights:
            if getattr(v, "regularizer", None) is not None:
                out.append(v.regularizer(v))
        return out

    # -- building and calling
    def build(self, input_shape: Any = None) -> None:
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `call()` method implemented."
        )

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask if self.supports_masking else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from symgrad.keras.layers import keras_tensor

        spec = self.input_spec  # checked before the build, and again after it (Keras's)
        if spec is not None and args:
            assert_input_compatibility(spec, args[0], self.name)
        if _has_keras_tensor(args, kwargs, keras_tensor.KerasTensor):
            return keras_tensor.symbolic_call(self, args, kwargs)
        args = tuple(self._convert(a) for a in args)
        if not self.built:  # a built layer skips binding and the build's name scope
            bound = self._bind(args, kwargs)
            with name_scope(self.name, caller=self):
                self._maybe_build(bound)
            if self.input_spec is not None and args:
                assert_input_compatibility(self.input_spec, args[0], self.name)
        ctx = _CALL["ctx"]
        entry = ctx is None
        if entry:
            ctx = _CALL["ctx"] = CallContext(self)
            self._clear_losses()
        # ``call`` is called from this frame, not from a helper: the eager fast path walks
        # every frame between the user's code and each op made inside (a Sequential's ops
        # walk two layers' calls).
        try:
            previous_training = ctx.training
            try:
                previous_mask = self._call_arguments(ctx, args, kwargs)
                autocast = dtype_policies.scope_for(self)
                with name_scope(self.name, caller=self), autocast or contextlib.nullcontext():
                    outputs = self.call(*args, **kwargs)
                    self._called(outputs)
            finally:
                ctx.training = previous_training
            if self.supports_masking:
                masks.set_output_masks(self, args[0] if args else None, outputs, previous_mask)
            return outputs
        finally:
            if entry:
                _CALL["ctx"] = None

    def _call_arguments(self, ctx: CallContext, args: Any, kwargs: dict[str, Any]) -> Any:
        """``training`` and ``mask`` put into ``kwargs`` where ``call`` takes them (the
        call's training set in ``ctx``, for the layers it calls); the inputs' mask."""
        params = self._call_signature.parameters
        if "training" in params:
            training = kwargs.get("training")
            if training is None:
                training = ctx.training
            if training is None:
                default = params["training"].default
                training = None if default is inspect.Parameter.empty else default
            kwargs["training"] = training
            if training is not None:
                ctx.training = training
        first = args[0] if args else None
        if "mask" in params and kwargs.get("mask") is None and first is not None:
            kwargs["mask"] = (
                nest.map_structure(masks.get_mask, first)
                if isinstance(first, (list, tuple))
                else masks.get_mask(first)
            )
        previous_mask = kwargs.get("mask")
        if previous_mask is None and isinstance(first, (list, tuple)):
            found = [masks.get_mask(x) for x in first]
            previous_mask = found if any(f is not None for f in found) else None
        elif previous_mask is None and first is not None:
            previous_mask = masks.get_mask(first)
        return previous_mask

    def _called(self, outputs: Any) -> None:
        """After ``call``: built, the first output shape kept (Keras's), the activity loss."""
        self.built = True
        if getattr(self, "_output_shape_seen", None) is None:  # Keras: as first built
            self._output_shape_seen = (
                nest.map_structure(_shape_of, outputs)
                if nest.is_nested(outputs)
                else _shape_of(outputs)
            )
        self._activity_loss(outputs)

    def _activity_loss(self, outputs: Any) -> None:
        if self.activity_regularizer is None:
            return
        from symgrad.ops.math.safe_math import divide_no_nan

        for out in nest.flatten(outputs):
            loss = self.activity_regularizer(out)
            if out.shape.rank:
                loss = divide_no_nan(loss, array.cast(array.shape(out)[0], loss.dtype))
            self.add_loss(loss)

    def _convert(self, x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            return type(x)(self._convert(v) for v in x)
        if x is None or isinstance(x, (dict, str, bool)):
            return x
        t = convert_to_tensor(x)
        if self.autocast and t.dtype.is_floating and t.dtype.name != self.compute_dtype:
            t2 = array.cast(t, self.compute_dtype)
            masks.copy_mask(t, t2)
            return t2
        return t

    def _bind(self, args: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            return dict(self._call_signature.bind(*args, **kwargs).arguments)
        except TypeError:
            return {}

    def _maybe_build(self, bound: dict[str, Any]) -> None:
        if self.built:
            return
        shapes = {
            f"{k}_shape": nest.map_structure(_shape_of, v)
            for k, v in bound.items()
            if k not in ("mask", "training", "kwargs", "args") and _has_tensor(v)
        }
        if _overrides(self, "build"):
            params = [
                p.name for p in inspect.signature(self.build).parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY, p.KEYWORD_ONLY)
            ]  # fmt: skip
            if len(params) == 1:
                self.build(next(iter(shapes.values()), None))
            else:
                self.build(**{k: v for k, v in shapes.items() if k in params})
        elif getattr(self, "_build_shapes_dict", None) is None:
            # Keras records the shapes a default build saw (its build_config)
            object.__setattr__(self, "_build_shapes_dict", shapes)
        self.built = True

    # -- config
    def get_config(self) -> dict[str, Any]:
        """Keras 3's config dict: base keys plus the constructor arguments (see
        :mod:`.config`)."""
        from symgrad.keras.layers.config import layer_config

        return layer_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        from symgrad.keras.layers.config import from_config

        return from_config(cls, config)

    @property
    def input(self) -> Any:
        return self._inbound_nodes[0].call_args[0] if self._inbound_nodes else None

    @property
    def output(self) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self._inbound_nodes[0].outputs

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _scoped_build(build: Any) -> Any:
    """Keras's build wrapper: a layer's weights are made inside its name scope however
    ``build`` is reached (a direct ``layer.build(shape)`` too)."""
    if getattr(build, "_scoped", False):
        return build

    def scoped(self: Layer, *args: Any, **kwargs: Any) -> Any:
        with name_scope(self.name, caller=self):
            out = build(self, *args, **kwargs)
        self.built = True
        try:  # Keras records the shapes build was called with (its get_build_config)
            bound = inspect.signature(build).bind(self, *args, **kwargs).arguments
            object.__setattr__(self, "_build_shapes_dict", dict(list(bound.items())[1:]))
        except TypeError:
            pass
        return out

    scoped._scoped = True  # type: ignore[attr-defined]
    scoped.__wrapped__ = build  # type: ignore[attr-defined]
    scoped.__doc__, scoped.__name__ = build.__doc__, build.__name__
    return scoped


def clone_layer(layer: Layer, **overrides: Any) -> Any:
    """A new layer made with ``layer``'s constructor arguments and ``overrides`` (what Keras
    does by serializing and deserializing a layer's config)."""
    args, kwargs = layer._init_args  # type: ignore[attr-defined]
    return type(layer)(*args, **{**kwargs, **overrides})


def _overrides(obj: Any, method: str) -> bool:
    return getattr(type(obj), method) is not getattr(Layer, method)


def _forgetter(key: int) -> Any:
    def forget(_: Any) -> None:
        _WITH_LOSSES.pop(key, None)

    return forget


def _has_keras_tensor(args: Any, kwargs: dict[str, Any], keras_tensor_type: type) -> bool:
    """Whether any argument is symbolic; plain tensors as arguments skip the flattening."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, keras_tensor_type):
            return True
        if nest.is_nested(a) and any(isinstance(x, keras_tensor_type) for x in nest.flatten(a)):
            return True
    return False


def _has_tensor(v: Any) -> bool:
    return any(_is_tensor_like(x) for x in nest.flatten(v))


def _leaves(value: Any) -> list[Any]:
    """The layers in ``value``: a layer, or nested in lists, tuples and dicts."""
    if isinstance(value, Layer):
        return [value]
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, (list, tuple)):
        return []
    return [leaf for v in value if isinstance(v, _HOLDERS) for leaf in _leaves(v)]


# What may hold a layer: ``_layers`` looks into these only (a model's step reads its
# variables twice, each read visiting the attributes of every layer).
_HOLDERS = (Layer, list, tuple, dict)
# The layer's own bookkeeping, which holds no sub-layer (its variables, shapes, losses,
# the functional graph's nodes).
_NO_LAYERS = frozenset(
    (
        "_trainable_variables",
        "_non_trainable_variables",
        "_build_shapes_dict",
        "_output_shape_seen",
        "_losses",
        "_inbound_nodes",
        "_holding",
    )
)
