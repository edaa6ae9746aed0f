"""``tf.data.Dataset``: TF 2.21's methods and signatures over ``DatasetBase``."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from symgrad.data import batching, sampling, shuffle, sources, traced_datasets, transforms, windows
from symgrad.data.base import DatasetBase, passthrough
from symgrad.data.options import Options


class Dataset(DatasetBase):
    """A pipeline of elements, in memory; see the package docstring."""

    def _autograph_for(self, *args: Any) -> None:
        """AutoGraph's ``for x in dataset`` (see :mod:`.loop`)."""
        from symgrad.data.loop import dataset_for_stmt

        dataset_for_stmt(self, *args)

    # -- sources ------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        if traced_datasets.recording(tensors):
            return traced_datasets.source(Dataset, "from_tensor_slices", (tensors,), {})  # type: ignore[return-value]
        return sources.from_tensor_slices(Dataset, tensors)  # type: ignore[no-any-return]

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        if traced_datasets.recording(tensors):
            return traced_datasets.source(Dataset, "from_tensors", (tensors,), {})  # type: ignore[return-value]
        return sources.from_tensors(Dataset, tensors)  # type: ignore[no-any-return]

    @staticmethod
    def range(*args: Any, **kwargs: Any) -> Dataset:
        if traced_datasets.recording((args, kwargs)):
            return traced_datasets.source(Dataset, "range", args, kwargs)  # type: ignore[return-value]
        return sources.range_(Dataset, *args, **kwargs)  # type: ignore[no-any-return]

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        return sources.from_generator(  # type: ignore[no-any-return]
            Dataset, generator, output_types, output_shapes, args, output_signature
        )

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        if traced_datasets.recording(datasets):
            return traced_datasets.source(Dataset, "zip", (datasets,), {})  # type: ignore[return-value]
        out = sources.zip_(Dataset, datasets)
        _carry_feeds(out, [datasets])
        return out  # type: ignore[no-any-return]

    @staticmethod
    def choose_from_datasets(
        datasets: Any, choice_dataset: Dataset, stop_on_empty_dataset: bool = True
    ) -> Dataset:
        return transforms.choose_from_datasets(  # type: ignore[no-any-return]
            Dataset, datasets, choice_dataset, stop_on_empty_dataset
        )

    @staticmethod
    def sample_from_datasets(
        datasets: Any,
        weights: Any = None,
        seed: Any = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: Any = None,
    ) -> Dataset:
        return sampling.sample_from_datasets(  # type: ignore[no-any-return]
            Dataset, datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration
        )

    @staticmethod
    def random(
        seed: Any = None, rerandomize_each_iteration: Any = None, name: str | None = None
    ) -> Dataset:
        return sampling.random(Dataset, seed, rerandomize_each_iteration)  # type: ignore[no-any-return]

    # -- element-wise -------------------------------------------------------------
    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        synchronous: Any = None,
        use_unbounded_threadpool: bool = False,
        name: str | None = None,
    ) -> Dataset:
        return transforms.map_(self, map_func)  # type: ignore[no-any-return]

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        return transforms.filter_(self, predicate)  # type: ignore[no-any-return]

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        return transforms.take_while(self, predicate)  # type: ignore[no-any-return]

    def enumerate(self, start: Any = 0, name: str | None = None) -> Dataset:
        return transforms.enumerate_(self, start)  # type: ignore[no-any-return]

    def scan(
        self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None
    ) -> Dataset:
        return transforms.scan(self, initial_state, scan_func)  # type: ignore[no-any-return]

    def reduce(
        self, initial_state: Any, reduce_func: Callable[..., Any], name: str | None = None
    ) -> Any:
        return transforms.reduce(self, initial_state, reduce_func)

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        out = transformation_func(self)
        if not isinstance(out, DatasetBase):
            raise TypeError("`transformation_func` must return a `tf.data.Dataset` object.")
        return out  # type: ignore[return-value]

    def unique(self, name: str | None = None) -> Dataset:
        return transforms.unique(self)  # type: ignore[no-any-return]

    # -- options (kept and read back; they change nothing here: see options.py) --------
    _options: Options | None = None

    def with_options(self, options: Options, name: str | None = None) -> Dataset:
        out = passthrough(self)
        out._options = options if self._options is None else self._options.merge(options)
        return out  # type: ignore[no-any-return]

    def options(self) -> Options:
        """The options set on this dataset and the datasets it reads, merged."""
        return self._options.merge(Options()) if self._options is not None else Options()

    # -- order and count -----------------------------------------------------------
    def shuffle(
        self,
        buffer_size: Any,
        seed: Any = None,
        reshuffle_each_iteration: Any = True,
        name: str | None = None,
    ) -> Dataset:
        return shuffle.shuffle(self, buffer_size, seed, reshuffle_each_iteration)  # type: ignore[no-any-return]

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        return transforms.repeat(self, count)  # type: ignore[no-any-return]

    def take(self, count: Any, name: str | None = None) -> Dataset:
        return transforms.take(self, count)  # type: ignore[no-any-return]

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        return transforms.skip(self, count)  # type: ignore[no-any-return]

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Dataset:
        return transforms.shard(self, num_shards, index)  # type: ignore[no-any-return]

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        return transforms.concatenate(self, dataset)  # type: ignore[no-any-return]

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        if filename:
            raise NotImplementedError(
                "symgrad's Dataset.cache keeps elements in memory only (filename='')"
            )
        return transforms.cache(self)  # type: ignore[no-any-return]

    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        """Order and values are unchanged: elements are produced when asked for."""
        if batching.as_int(buffer_size, "buffer_size") == 0:
            return passthrough(self)  # type: ignore[no-any-return]
        return Dataset(self.element_spec, self._card, self._produce)

    # -- batches ---------------------------------------------------------------------
    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        return batching.batch(self, batch_size, drop_remainder)  # type: ignore[no-any-return]

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        return batching.padded_batch(  # type: ignore[no-any-return]
            self, batch_size, padded_shapes, padding_values, drop_remainder
        )

    def unbatch(self, name: str | None = None) -> Dataset:
        return batching.unbatch(self)  # type: ignore[no-any-return]

    def rebatch(
        self, batch_size: Any, drop_remainder: bool = False, name: str | None = None
    ) -> Dataset:
        return batching.rebatch(self, batch_size, drop_remainder)  # type: ignore[no-any-return]

    # -- datasets of datasets -----------------------------------------------------------
    def window(
        self,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        return windows.window(self, size, shift, stride, drop_remainder)  # type: ignore[no-any-return]

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> Dataset:
        return windows.flat_map(self, map_func)  # type: ignore[no-any-return]

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        return windows.interleave(self, map_func, cycle_length, block_length)  # type: ignore[no-any-return]

    def group_by_window(
        self,
        key_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        window_size: Any = None,
        window_size_func: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> Dataset:
        return windows.group_by_window(  # type: ignore[no-any-return]
            self, key_func, reduce_func, window_size, window_size_func
        )

    def bucket_by_sequence_length(
        self,
        element_length_func: Callable[..., Any],
        bucket_boundaries: Any,
        bucket_batch_sizes: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        return windows.bucket_by_sequence_length(  # type: ignore[no-any-return]
            self,
            element_length_func,
            list(bucket_boundaries),
            list(bucket_batch_sizes),
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )


def _keeps_options(method: Callable[..., Any]) -> Callable[..., Any]:
    """A transformation whose result carries its input's options, as TF's datasets do,
    and the graph tensors its inputs were made from (a TF1 iterator's ``Feeds``)."""

    @functools.wraps(method)
    def transformed(self: Dataset, *args: Any, **kwargs: Any) -> Any:
        out = method(self, *args, **kwargs)
        if self._options is not None and isinstance(out, Dataset) and out._options is None:
            out._options = self._options
        if isinstance(out, Dataset):
            _carry_feeds(out, [self, *args, *kwargs.values()])
        return out

    return transformed


def _carry_feeds(out: Any, inputs: list[Any]) -> None:
    feeds = [f for d in inputs if isinstance(d, DatasetBase) for f in d._feeds]
    feeds += [f for d in inputs if isinstance(d, tuple | list | dict) for f in _feeds_in(d)]
    if feeds and not out._feeds:
        out._feeds = tuple(dict.fromkeys(feeds))  # each once, in order


def _feeds_in(datasets: Any) -> list[Any]:
    leaves = datasets.values() if isinstance(datasets, dict) else datasets
    return [f for d in leaves if isinstance(d, DatasetBase) for f in d._feeds]


_OWN = ("with_options", "options")
for _name, _method in list(vars(Dataset).items()):  # (the methods of an instance only)
    if isinstance(_method, types.FunctionType) and not _name.startswith("_") and _name not in _OWN:
        setattr(Dataset, _name, _keeps_options(_method))
