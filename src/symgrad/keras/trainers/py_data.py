"""Python generators and ``keras.utils.PyDataset`` as ``fit``/``evaluate``/``predict``
input, with Keras 3's epoch semantics.

Keras 3 reads the first two batches of a generator to learn their structure, and replays
them in front of the rest (``peek_and_restore``); a generator has no known length, so the
first epoch runs until it is exhausted (and warns "Your input ran out of data"), and every
later epoch starts a new pass, which is those two replayed batches only.  With
``steps_per_epoch`` one pass lasts across epochs until it runs out.  A PyDataset has
``num_batches`` (``len``) batches per epoch, read by index, in an order Python's
``random.shuffle`` draws each epoch when ``shuffle=True`` (so ``set_random_seed`` repeats
TF's order); its ``on_epoch_begin``/``on_epoch_end`` run as Keras calls them.
:class:`PyEpochIterator` follows Keras's ``EpochIterator`` step for step, so callbacks see
the same batch numbers (a ``on_train_batch_begin`` before a pass turns out to be empty too).
"""

from __future__ import annotations

import itertools
import random
import types
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.keras.trainers.data import class_weights_to_sample_weights, unpack_x_y_sample_weight
from symgrad.keras.utils_data import PyDataset

PEEKED = 2  # Keras's NUM_BATCHES_FOR_TENSOR_SPEC


def is_python_input(x: Any) -> bool:
    return isinstance(x, (types.GeneratorType, PyDataset))


def _unsupported(arg: str, what: str, kind: str) -> ValueError:
    return ValueError(
        f"When providing `x` as a {kind}, `{arg}` should not be passed. Instead, {what} "
        f"should be included as part of the {kind}."
    )


def adapter(x: Any, y: Any, sample_weight: Any, shuffle: bool, class_weight: Any) -> Any:
    """Keras's ``get_data_adapter`` for these two kinds of input (its checks and warnings)."""
    kind = "generator" if isinstance(x, types.GeneratorType) else "PyDataset"
    if y is not None:
        raise _unsupported("y", "the targets", kind)
    if sample_weight is not None:
        raise _unsupported("sample_weights", "the sample weights", kind)
    if kind == "generator":
        if class_weight is not None:
            raise ValueError(
                "Argument `class_weight` is not supported for Python generator inputs. "
                f"Received: class_weight={class_weight}"
            )
        if shuffle:
            warnings.warn(
                "`shuffle=True` was passed, but will be ignored since the data `x` was "
                "provided as a generator. The generator is expected to yield "
                "already-shuffled data.",
                stacklevel=4,
            )
        return GeneratorAdapter(x)
    if x.num_batches is None and shuffle:
        warnings.warn(
            "`shuffle=True` was passed, but will be ignored since the data `x` was provided "
            "as an infinite PyDataset. The PyDataset is expected to already be shuffled.",
            stacklevel=4,
        )
    return PyDatasetAdapter(x, class_weight, shuffle)


class GeneratorAdapter:
    def __init__(self, generator: Any) -> None:
        self._first = list(itertools.islice(generator, PEEKED))
        self._generator = generator
        if not self._first:
            raise ValueError(
                "When passing a Python generator to a Keras model, the generator must yield "
                "at least one batch. Received an empty generator."
            )
        if not isinstance(self._first[0], tuple):
            raise ValueError(
                "When passing a Python generator to a Keras model, the generator must return "
                "a tuple, either (input,) or (inputs, targets) or (inputs, targets, "
                f"sample_weights). Received: {self._first[0]}"
            )
        self.num_batches = None

    def get_iterator(self) -> Iterator[Any]:
        return itertools.chain(self._first, self._generator)

    def on_epoch_begin(self) -> None:
        pass

    def on_epoch_end(self) -> None:
        pass


class PyDatasetAdapter:
    def __init__(self, dataset: Any, class_weight: Any, shuffle: bool) -> None:
        self.dataset, self.class_weight, self.shuffle = dataset, class_weight, shuffle
        self.num_batches = dataset.num_batches
        count = PEEKED if self.num_batches is None else min(PEEKED, self.num_batches)
        batches = [self._standardize(dataset[i]) for i in range(count)]  # TF's spec peek
        if not batches:
            raise ValueError("The PyDataset has length 0")
        self._within_epoch = False

    def _standardize(self, batch: Any) -> Any:
        if isinstance(batch, dict):
            return batch
        if isinstance(batch, np.ndarray):
            batch = (batch,)
        if isinstance(batch, list):
            batch = tuple(batch)
        if not isinstance(batch, tuple) or len(batch) not in (1, 2, 3):
            raise ValueError(
                "PyDataset.__getitem__() must return a tuple or a dict. If a tuple, it must "
                "be ordered either (input,) or (inputs, targets) or (inputs, targets, "
                f"sample_weights). Received: {str(batch)[:100]}... of type {type(batch)}"
            )
        if self.class_weight is not None:
            if len(batch) == 3:
                raise ValueError(
                    "You cannot specify `class_weight` and `sample_weight` at the same time."
                )
            if len(batch) == 2:
                batch = (*batch, class_weights_to_sample_weights(batch[1], self.class_weight))
        return batch

    def get_iterator(self) -> Iterator[Any]:
        """Lazy, as TF's ``from_generator`` is: the order is drawn at the first batch, so an
        iterator made and dropped at an epoch's end draws nothing."""
        if self.num_batches is None:
            indices: Any = itertools.count()
        else:
            indices = list(range(self.num_batches))
            if self.shuffle:
                random.shuffle(indices)
        for i in indices:
            yield self._standardize(self.dataset[i])

    def on_epoch_begin(self) -> None:
        if self._within_epoch:
            raise ValueError(
                "`on_epoch_begin` was called twice without `on_epoch_end` having been called."
            )
        self._within_epoch = True
        self.dataset.on_epoch_begin()

    def on_epoch_end(self) -> None:
        self.dataset.on_epoch_end()
        self._within_epoch = False


def _interrupted_warning() -> None:
    warnings.warn(
        "Your input ran out of data; interrupting training. Make sure that your dataset or "
        "generator can generate at least `steps_per_epoch * epochs` batches. You may need to "
        "use the `.repeat()` function when building your dataset.",
        UserWarning,
        stacklevel=4,
    )


class PyEpochIterator:
    """Keras 3's ``EpochIterator`` over an adapter above.  ``enumerate_epoch`` yields
    ``(step, fetch)``: the loop calls its batch-begin callbacks, then ``fetch()``, which
    returns the batch or ``None`` when the pass ran out (the epoch then ends)."""

    def __init__(self, adapter: Any, steps_per_epoch: Any = None) -> None:
        self.adapter, self.steps_per_epoch = adapter, steps_per_epoch
        self._num_batches = adapter.num_batches
        self._current: Any = None
        self._steps_seen = 0
        self.exhausted = False

    @property
    def num_batches(self) -> Any:
        return self.steps_per_epoch or self._num_batches

    def reset(self) -> None:
        self._current, self._steps_seen = None, 0
        self._num_batches = self.adapter.num_batches
        self.adapter.on_epoch_end()

    def _fetch(self, iterator: Any) -> Any:
        try:
            return unpack_x_y_sample_weight(next(iterator))
        except StopIteration:
            if self._num_batches is None:
                self._num_batches = self._steps_seen
            _interrupted_warning()
            self._current = None
            self.adapter.on_epoch_end()
            return None

    def enumerate_epoch(self) -> Iterator[tuple[int, Any]]:
        self.adapter.on_epoch_begin()
        steps = self.steps_per_epoch or self._num_batches or -1
        if steps > 0:
            if self._current is None or self.steps_per_epoch is None:
                self._current, self._steps_seen = iter(self.adapter.get_iterator()), 0
            for step in range(steps):
                if self._num_batches and self._steps_seen >= self._num_batches:
                    if self.steps_per_epoch:
                        _interrupted_warning()
                    break
                self._steps_seen += 1
                yield step, (lambda it=self._current: self._fetch(it))
            if self._num_batches and self._steps_seen >= self._num_batches:
                self._current, self._steps_seen = iter(self.adapter.get_iterator()), 0
        else:
            iterator = iter(self.adapter.get_iterator())
            for step in itertools.count():
                self._steps_seen = step + 1
                yield step, (lambda it=iterator: self._fetch(it))
        self.adapter.on_epoch_end()
