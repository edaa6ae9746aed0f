# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's IntegerLookup (``IndexLookup`` over int64 tokens) as it computes on TensorFlow.

Indices: the mask token (``output_mode="int"`` only) at 0, then ``num_oov_indices`` OOV
slots, then the vocabulary.  The hash table is a comparison of the int64 inputs with the
vocabulary; an unknown token goes to the single OOV slot, or to
``floormod(token, num_oov_indices)`` among several, or fails (``num_oov_indices=0``).
``invert=True`` maps indices back to tokens (``oov_token`` for unknown indices, the mask
token at 0).  ``adapt`` counts tokens (a 2-D array: each row a document) and keeps them by
count, then value, both descending, as Keras's ``np.lexsort(...)[::-1]``; ``tf_idf``
weights are ``log(1 + documents / (1 + document count))``, the special slots given their
mean.  An adapted vocabulary is written to a ``.keras`` file as Keras writes it
(``assets/<layer path>/vocabulary.txt``); idf weights as the layer's ``idf_weights``.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras import backend
from symgrad.keras.layers.categorical.encoding import encode_categorical
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.boolean_mask import boolean_mask
from symgrad.ops.array.gather import gather
from symgrad.ops.array.shape import squeeze
from symgrad.ops.control import control_dependencies
from symgrad.ops.core import constant, convert_to_tensor, identity
from symgrad.ops.debug.assertion import Assert
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.reduce import argmax, reduce_any

_INT64_MAX = np.iinfo(np.int64).max


class IntegerLookup(Layer):
    def __init__(
        self, max_tokens: Any = None, num_oov_indices: int = 1, mask_token: Any = None,
        oov_token: Any = -1, vocabulary: Any = None, vocabulary_dtype: str = "int64",
        idf_weights: Any = None, invert: bool = False, output_mode: str = "int",
        sparse: bool = False, pad_to_max_tokens: bool = False, oov_method: str = "floormod",
        salt: Any = None, name: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(
                "If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. "
                f"Received: max_tokens={max_tokens}"
            )
        if num_oov_indices < 0:
            raise ValueError(
                "The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. "
                f"Received: num_oov_indices={num_oov_indices}"
            )
        if vocabulary_dtype != "int64":
            raise ValueError(
                "Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                f"vocabulary_dtype={vocabulary_dtype}"
            )
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(
                "If pad_to_max_tokens is True, must set `max_tokens`. "
                f"Received: max_tokens={max_tokens}"
            )
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        allowed = ("int", "one_hot", "multi_hot", "count", "tf_idf")
        if output_mode not in allowed:
            raise ValueError(
                "Unknown value for `output_mode` argument of layer IntegerLookup. Allowed "
                f"values are: {allowed}. Received: {output_mode}"
            )
        if invert and output_mode != "int":
            raise ValueError(
                "`output_mode` must be `'int'` when `invert` is true. "
                f"Received: output_mode={output_mode}"
            )
        if sparse or oov_method != "floormod" or salt is not None:
            raise NotImplementedError(
                "symgrad's IntegerLookup supports sparse=False, oov_method='floormod' and salt=None"
            )
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(
                "`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                f"idf_weights={idf_weights} and output_mode={output_mode}"
            )
        frozen = kwargs.pop("vocabulary_size", None)
        has_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("dtype", None)  # Keras's IndexLookup keeps floatx as its dtype
        trainable = kwargs.pop("trainable", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")
        super().__init__(name=name, trainable=trainable)
        self.invert, self.max_tokens, self.num_oov_indices = invert, max_tokens, num_oov_indices
        self.mask_token, self.oov_token, self.output_mode = mask_token, oov_token, output_mode
        self.sparse, self.pad_to_max_tokens, self.vocabulary_dtype = (
            sparse,
            pad_to_max_tokens,
            "int64",
        )
        self.oov_method, self.salt = oov_method, salt
        self._frozen_vocab_size = frozen
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_vocabulary
        self._tokens = np.zeros(0, np.int64)
        self._idf: Any = None
        if output_mode == "tf_idf" and has_vocabulary and idf_weights is None:
            raise ValueError(
                "When specifying the `vocabulary` argument, in TF-IDF output mode, the "
                "`idf_weights` argument must also be provided."
            )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    @property
    def compute_dtype(self) -> str:
        return self.vocabulary_dtype

    @property
    def variable_dtype(self) -> str:
        return self.vocabulary_dtype

    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def _default_value(self) -> int:
        if self.invert:
            return int(self.oov_token)
        return self._oov_start_index() if self.num_oov_indices == 1 else -1

    def vocabulary_size(self) -> int:
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        vocab = [self.oov_token] * self._token_start_index() + [int(t) for t in self._tokens]
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        return vocab if include_special_tokens else vocab[self._token_start_index() :]

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(
                "`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                f"output_mode={self.output_mode} and idf_weights={idf_weights}"
            )
        if isinstance(vocabulary, str):
            raise NotImplementedError("symgrad's IntegerLookup takes a vocabulary list")
        vocabulary = np.array(getattr(vocabulary, "numpy", lambda: vocabulary)())
        if vocabulary.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        oov_start, token_start = self._oov_start_index(), self._token_start_index()
        special = [self.mask_token] * oov_start + [self.oov_token] * self.num_oov_indices
        found_special = np.array_equal(special, vocabulary[:token_start])
        tokens = vocabulary[token_start:] if found_special else vocabulary
        repeated = [t for t, c in collections.Counter(tokens.tolist()).items() if c > 1]
        if repeated:
            raise ValueError(
                "The passed vocabulary has at least one repeated term. Please uniquify your "
                f"dataset. The repeated terms are: {repeated}"
            )
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(
                "Found reserved mask token at unexpected location in `vocabulary`. Note that "
                "passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"mask_token={self.mask_token} at vocabulary index "
                f"{np.argwhere(vocabulary == self.mask_token)[-1]}"
            )
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            raise ValueError(
                "Found reserved OOV token at unexpected location in `vocabulary`. Note that "
                "passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"oov_token={self.oov_token} at vocabulary index "
                f"{np.argwhere(vocabulary == self.oov_token)[-1]}"
            )
        size = token_start + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(
                "Attempted to set a vocabulary larger than the maximum vocab size. Received "
                f"vocabulary size is {size}; `max_tokens` is {self.max_tokens}."
            )
        self._tokens = tokens.astype(np.int64)
        self._record_vocabulary_size()
        if self.output_mode == "tf_idf" and idf_weights is not None:
            w = np.asarray(getattr(idf_weights, "numpy", lambda: idf_weights)())
            if len(vocabulary) != len(w):
                raise ValueError(
                    "`idf_weights` must be the same length as vocabulary. len(idf_weights) "
                    f"is {len(w)}; len(vocabulary) is {len(vocabulary)}"
                )
            front, front_value = (0, 0) if found_special else (token_start, np.average(w))
            back = 0
            if self.pad_to_max_tokens and self.max_tokens is not None:
                back = self.max_tokens - front - len(w)
            padded = np.pad(w, (front, back), "constant", constant_values=(front_value, 0))
            self._idf = padded.astype(backend.floatx())

    def _record_vocabulary_size(self) -> None:
        size = self.vocabulary_size()
        if (
            self.output_mode != "int" and not self.pad_to_max_tokens
            and self._frozen_vocab_size is not None and size != self._frozen_vocab_size
        ):  # fmt: skip
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "the vocabulary size cannot be changed after the layer is called. Old vocab "
                f"size is {self._frozen_vocab_size}, new vocab size is {size}"
            )
        self._frozen_vocab_size = size

    # -- adapt
    def adapt(self, data: Any, steps: Any = None) -> None:
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' after setting a static vocabulary via "
                "`vocabulary` argument or `set_vocabulary()` method."
            )
        if hasattr(data, "shape") or isinstance(data, (list, tuple, np.ndarray)):
            whole = np.asarray(getattr(data, "numpy", lambda: data)(), dtype=np.int64)
            batches = [whole[:, None] if whole.ndim == 1 else whole]
        else:
            batches = [np.asarray(getattr(b, "numpy", lambda b=b: b)(), np.int64) for b in data]
            batches = batches[:steps] if steps is not None else batches
        counts: collections.Counter[int] = collections.Counter()
        doc_counts: collections.Counter[int] = collections.Counter()
        documents = 0
        for batch in batches:
            batch = batch.reshape(1, -1) if batch.ndim <= 1 else batch
            counts.update(batch.reshape(-1).tolist())
            for row in batch:
                doc_counts.update(set(np.asarray(row).reshape(-1).tolist()))
            documents += batch.shape[0]
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(int(special), None)
        if not counts:
            self._record_vocabulary_size()
            return
        tokens = np.array(list(counts), np.int64)
        order = np.lexsort((tokens, np.array([counts[t] for t in tokens.tolist()])))[::-1]
        if self.max_tokens:
            order = order[: self.max_tokens - self._token_start_index()]
        self._tokens = tokens[order]
        if self.output_mode == "tf_idf":
            df = np.array([doc_counts[t] for t in self._tokens.tolist()], np.int64)
            idf = np.log(1 + documents / (1 + df)).astype(backend.floatx())
            idf = np.pad(idf, [[self._token_start_index(), 0]], constant_values=idf.mean())
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, [[0, self.max_tokens - idf.size]], constant_values=0)
            self._idf = idf
        self._record_vocabulary_size()

    # -- call
    def _lookup(self, x: Any) -> Any:
        tokens, start = self._tokens, self._token_start_index()
        default = constant(self._default_value(), dt.int64)
        if self.invert:
            if tokens.size == 0:
                out = array.fill(array.shape(x), default)
            else:
                inside = m.logical_and(m.greater_equal(x, start), m.less(x, start + tokens.size))
                at = m.minimum(m.maximum(m.subtract(x, start), 0), tokens.size - 1)
                out = array.where(inside, gather(constant(tokens), at), default)
            if self.mask_token is not None:
                out = array.where(m.equal(x, 0), constant(int(self.mask_token), dt.int64), out)
            return out
        if tokens.size == 0:
            out = array.fill(array.shape(x), default)
        else:
            hit = m.equal(array.expand_dims(x, -1), constant(tokens))
            at = m.add(argmax(array.cast(hit, dt.int32), axis=-1, output_type=dt.int64), start)
            out = array.where(reduce_any(hit, axis=-1), at, default)
        if self.mask_token is not None:
            value = 0 if self.output_mode == "int" else _INT64_MAX
            out = array.where(
                m.equal(x, constant(int(self.mask_token), dt.int64)), constant(value, dt.int64), out
            )
        if self.num_oov_indices == 0:
            missing = m.equal(out, -1)
            check = Assert(
                m.logical_not(reduce_any(missing)),
                ["When `num_oov_indices=0` all inputs should be in vocabulary, found OOV "
                 "values", boolean_mask(x, missing)],
            )  # fmt: skip
            if check is not None:  # in a graph: the lookup waits for the check
                with control_dependencies([check]):
                    out = identity(out)
        elif self.num_oov_indices > 1:
            buckets = m.add(m.floormod(x, self.num_oov_indices), self._oov_start_index())
            out = array.where(m.equal(out, default), buckets, out)
        return out

    def call(self, inputs: Any) -> Any:
        if (
            self.output_mode != "int"
            and not self.pad_to_max_tokens
            and (self._frozen_vocab_size is None)
        ):
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "you must set the layer's vocabulary before calling it. Either pass a "
                "`vocabulary` argument to the layer, or call `adapt` with some sample data."
            )
        x = convert_to_tensor(inputs)
        if x.dtype != dt.int64:
            x = array.cast(x, dt.int64)
        scalar = x.shape.rank == 0
        if scalar:
            x = array.expand_dims(x, -1)
        out = self._lookup(x)
        if self.output_mode == "int":
            return squeeze(out, [-1]) if scalar else out
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = encode_categorical(out, mode, depth, dt.int64)
        if self.output_mode == "tf_idf":
            if self._idf is None and _is_placeholder(inputs):  # Keras's compute_output_spec
                return array.cast(out, backend.floatx())
            if self._idf is None:
                raise ValueError(
                    "When `output_mode` is `'tf_idf'`, `idf_weights` must be provided."
                )
            out = m.multiply(array.cast(out, self._idf.dtype), constant(self._idf))
        return out

    # -- config and files
    def get_config(self) -> dict[str, Any]:
        def listify(x: Any) -> Any:
            x = getattr(x, "numpy", lambda: x)()
            return x.tolist() if isinstance(x, np.ndarray) else x

        vocabulary = listify(self.input_vocabulary)
        return {
            **super().get_config(),
            "invert": self.invert, "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": None if self.oov_token is None else int(self.oov_token),
            "mask_token": None if self.mask_token is None else int(self.mask_token),
            "output_mode": self.output_mode, "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary_dtype": self.vocabulary_dtype,
            "idf_weights": listify(self.input_idf_weights),
            "vocabulary": None if vocabulary is None else [int(v) for v in vocabulary],
            "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method, "salt": self.salt,
        }  # fmt: skip

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**{k: v for k, v in config.items() if k != "dtype"})

    def save_own_variables(self, store: dict[str, Any]) -> None:
        if self.output_mode == "tf_idf":
            store["idf_weights"] = self._idf

    def load_own_variables(self, store: Any) -> None:
        if self.output_mode == "tf_idf":
            self._idf = np.asarray(store["idf_weights"])

    def save_assets(self) -> dict[str, str] | None:
        """The files Keras writes under the layer's ``assets/`` folder (none when the
        vocabulary is in the config)."""
        if self.input_vocabulary is not None:
            return None
        return {"vocabulary.txt": "\n".join(str(w) for w in self.get_vocabulary())}

    def load_assets(self, files: dict[str, str]) -> None:
        if self.input_vocabulary is not None:
            return
        lines = files["vocabulary.txt"].splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        values = [int(line) for line in lines]
        idf = self._idf if self.output_mode == "tf_idf" else None
        self._frozen_vocab_size = None
        self.set_vocabulary(values, idf_weights=idf)


def _is_placeholder(x: Any) -> bool:
    """A symbolic call's stand-in input (a functional model traced before adapt/load)."""
    return getattr(getattr(x, "op", None), "type", None) == "Placeholder"
