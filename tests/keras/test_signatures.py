"""Signatures of tf.data, tf.keras.losses and tf.keras.metrics as TF 2.21 (Keras 3.15.1)
has them: parameter names, kinds, order and defaults (annotations aside), recorded from
``inspect.signature`` in TF; and each namespace exports no name TF lacks."""

from __future__ import annotations

import inspect

import pytest

import symgrad as tf

# fmt: off
TF_SIGNATURES = {'Dataset.apply': '(self, transformation_func)',
 'Dataset.as_numpy_iterator': '(self)',
 'Dataset.batch': '(self, batch_size, drop_remainder=False, num_parallel_calls=None, '
                  'deterministic=None, name=None)',
 'Dataset.bucket_by_sequence_length': '(self, element_length_func, bucket_boundaries, '
                                      'bucket_batch_sizes, padded_shapes=None, '
                                      'padding_values=None, pad_to_bucket_boundary=False, '
                                      'no_padding=False, drop_remainder=False, name=None)',
 'Dataset.cache': "(self, filename='', name=None)",
 'Dataset.cardinality': '(self)',
 'Dataset.concatenate': '(self, dataset, name=None)',
 'Dataset.enumerate': '(self, start=0, name=None)',
 'Dataset.filter': '(self, predicate, name=None)',
 'Dataset.flat_map': '(self, map_func, name=None)',
 'Dataset.from_generator': '(generator, output_types=None, output_shapes=None, args=None, '
                           'output_signature=None, name=None)',
 'Dataset.from_tensor_slices': '(tensors, name=None)',
 'Dataset.from_tensors': '(tensors, name=None)',
 'Dataset.get_single_element': '(self, name=None)',
 'Dataset.group_by_window': '(self, key_func, reduce_func, window_size=None, '
                            'window_size_func=None, name=None)',
 'Dataset.interleave': '(self, map_func, cycle_length=None, block_length=None, '
                       'num_parallel_calls=None, deterministic=None, name=None)',
 'Dataset.map': '(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None, '
                'use_unbounded_threadpool=False, name=None)',
 'Dataset.padded_batch': '(self, batch_size, padded_shapes=None, padding_values=None, '
                         'drop_remainder=False, name=None)',
 'Dataset.prefetch': '(self, buffer_size, name=None)',
 'Dataset.range': '(*args, **kwargs)',
 'Dataset.rebatch': '(self, batch_size, drop_remainder=False, name=None)',
 'Dataset.reduce': '(self, initial_state, reduce_func, name=None)',
 'Dataset.repeat': '(self, count=None, name=None)',
 'Dataset.scan': '(self, initial_state, scan_func, name=None)',
 'Dataset.shard': '(self, num_shards, index, name=None)',
 'Dataset.shuffle': '(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None)',
 'Dataset.skip': '(self, count, name=None)',
 'Dataset.take': '(self, count, name=None)',
 'Dataset.take_while': '(self, predicate, name=None)',
 'Dataset.unbatch': '(self, name=None)',
 'Dataset.window': '(self, size, shift=None, stride=1, drop_remainder=False, name=None)',
 'Dataset.zip': '(*args, datasets=None, name=None)',
 'experimental.cardinality': '(dataset)',
 'losses.BinaryCrossentropy': '(from_logits=False, label_smoothing=0.0, axis=-1, '
                              "reduction='sum_over_batch_size', name='binary_crossentropy', "
                              'dtype=None)',
 'losses.BinaryFocalCrossentropy': '(apply_class_balancing=False, alpha=0.25, gamma=2.0, '
                                   'from_logits=False, label_smoothing=0.0, axis=-1, '
                                   "reduction='sum_over_batch_size', "
                                   "name='binary_focal_crossentropy', dtype=None)",
 'losses.CategoricalCrossentropy': '(from_logits=False, label_smoothing=0.0, axis=-1, '
                                   "reduction='sum_over_batch_size', "
                                   "name='categorical_crossentropy', dtype=None)",
 'losses.CategoricalFocalCrossentropy': '(alpha=0.25, gamma=2.0, from_logits=False, '
                                        'label_smoothing=0.0, axis=-1, '
                                        "reduction='sum_over_batch_size', "
                                        "name='categorical_focal_crossentropy', dtype=None)",
 'losses.CategoricalHinge': "(reduction='sum_over_batch_size', name='categorical_hinge', "
                            'dtype=None)',
 'losses.CosineSimilarity': "(axis=-1, reduction='sum_over_batch_size', "
                            "name='cosine_similarity', dtype=None)",
 'losses.Dice': "(reduction='sum_over_batch_size', name='dice', axis=None, dtype=None)",
 'losses.Hinge': "(reduction='sum_over_batch_size', name='hinge', dtype=None)",
 'losses.Huber': "(delta=1.0, reduction='sum_over_batch_size', name='huber_loss', dtype=None)",
 'losses.KLD': '(y_true, y_pred)',
 'losses.KLDivergence': "(reduction='sum_over_batch_size', name='kl_divergence', dtype=None)",
 'losses.LogCosh': "(reduction='sum_over_batch_size', name='log_cosh', dtype=None)",
 'losses.Loss': "(name=None, reduction='sum_over_batch_size', dtype=None)",
 'losses.MAE': '(y_true, y_pred)',
 'losses.MAPE': '(y_true, y_pred)',
 'losses.MSE': '(y_true, y_pred)',
 'losses.MSLE': '(y_true, y_pred)',
 'losses.MeanAbsoluteError': "(reduction='sum_over_batch_size', name='mean_absolute_error', "
                             'dtype=None)',
 'losses.MeanAbsolutePercentageError': "(reduction='sum_over_batch_size', "
                                       "name='mean_absolute_percentage_error', dtype=None)",
 'losses.MeanSquaredError': "(reduction='sum_over_batch_size', name='mean_squared_error', "
                            'dtype=None)',
 'losses.MeanSquaredLogarithmicError': "(reduction='sum_over_batch_size', "
                                       "name='mean_squared_logarithmic_error', dtype=None)",
 'losses.Poisson': "(reduction='sum_over_batch_size', name='poisson', dtype=None)",
 'losses.SparseCategoricalCrossentropy': '(from_logits=False, ignore_class=None, '
                                         "reduction='sum_over_batch_size', axis=-1, "
                                         "name='sparse_categorical_crossentropy', dtype=None)",
 'losses.SquaredHinge': "(reduction='sum_over_batch_size', name='squared_hinge', dtype=None)",
 'losses.Tversky': "(alpha=0.5, beta=0.5, reduction='sum_over_batch_size', name='tversky', "
                   'axis=None, dtype=None)',
 'losses.binary_crossentropy': '(y_true, y_pred, from_logits=False, label_smoothing=0.0, '
                               'axis=-1)',
 'losses.binary_focal_crossentropy': '(y_true, y_pred, apply_class_balancing=False, alpha=0.25, '
                                     'gamma=2.0, from_logits=False, label_smoothing=0.0, '
                                     'axis=-1)',
 'losses.categorical_crossentropy': '(y_true, y_pred, from_logits=False, label_smoothing=0.0, '
                                    'axis=-1)',
 'losses.categorical_focal_crossentropy': '(y_true, y_pred, alpha=0.25, gamma=2.0, '
                                          'from_logits=False, label_smoothing=0.0, axis=-1)',
 'losses.categorical_hinge': '(y_true, y_pred)',
 'losses.cosine_similarity': '(y_true, y_pred, axis=-1)',
 'losses.deserialize': '(name, custom_objects=None)',
 'losses.dice': '(y_true, y_pred, axis=None)',
 'losses.get': '(identifier)',
 'losses.hinge': '(y_true, y_pred)',
 'losses.huber': '(y_true, y_pred, delta=1.0)',
 'losses.kld': '(y_true, y_pred)',
 'losses.kullback_leibler_divergence': '(y_true, y_pred)',
 'losses.logcosh': '(y_true, y_pred)',
 'losses.mae': '(y_true, y_pred)',
 'losses.mape': '(y_true, y_pred)',
 'losses.mse': '(y_true, y_pred)',
 'losses.msle': '(y_true, y_pred)',
 'losses.poisson': '(y_true, y_pred)',
 'losses.serialize': '(loss)',
 'losses.sparse_categorical_crossentropy': '(y_true, y_pred, from_logits=False, '
                                           'ignore_class=None, axis=-1)',
 'losses.squared_hinge': '(y_true, y_pred)',
 'losses.tversky': '(y_true, y_pred, alpha=0.5, beta=0.5, axis=None)',
 'metrics.AUC': "(num_thresholds=200, curve='ROC', summation_method='interpolation', name=None, "
                'dtype=None, thresholds=None, multi_label=False, num_labels=None, '
                'label_weights=None, from_logits=False)',
 'metrics.Accuracy': "(name='accuracy', dtype=None)",
 'metrics.BinaryAccuracy': "(name='binary_accuracy', dtype=None, threshold=0.5)",
 'metrics.BinaryCrossentropy': "(name='binary_crossentropy', dtype=None, from_logits=False, "
                               'label_smoothing=0)',
 'metrics.BinaryIoU': '(target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None)',
 'metrics.CategoricalAccuracy': "(name='categorical_accuracy', dtype=None)",
 'metrics.CategoricalCrossentropy': "(name='categorical_crossentropy', dtype=None, "
                                    'from_logits=False, label_smoothing=0, axis=-1)',
 'metrics.CategoricalHinge': "(name='categorical_hinge', dtype=None)",
 'metrics.ConcordanceCorrelation': "(name='concordance_correlation', dtype=None, axis=-1)",
 'metrics.CosineSimilarity': "(name='cosine_similarity', dtype=None, axis=-1)",
 'metrics.F1Score': "(average=None, threshold=None, name='f1_score', dtype=None)",
 'metrics.FBetaScore': "(average=None, beta=1.0, threshold=None, name='fbeta_score', dtype=None)",
 'metrics.FalseNegatives': '(thresholds=None, name=None, dtype=None)',
 'metrics.FalsePositives': '(thresholds=None, name=None, dtype=None)',
 'metrics.Hinge': "(name='hinge', dtype=None)",
 'metrics.IoU': '(num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, '
                'sparse_y_true=True, sparse_y_pred=True, axis=-1)',
 'metrics.KLD': '(y_true, y_pred)',
 'metrics.KLDivergence': "(name='kl_divergence', dtype=None)",
 'metrics.LogCoshError': "(name='logcosh', dtype=None)",
 'metrics.MAE': '(y_true, y_pred)',
 'metrics.MAPE': '(y_true, y_pred)',
 'metrics.MSE': '(y_true, y_pred)',
 'metrics.MSLE': '(y_true, y_pred)',
 'metrics.Mean': "(name='mean', dtype=None)",
 'metrics.MeanAbsoluteError': "(name='mean_absolute_error', dtype=None)",
 'metrics.MeanAbsolutePercentageError': "(name='mean_absolute_percentage_error', dtype=None)",
 'metrics.MeanIoU': '(num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, '
                    'sparse_y_pred=True, axis=-1)',
 'metrics.MeanMetricWrapper': '(fn, name=None, dtype=None, **kwargs)',
 'metrics.MeanSquaredError': "(name='mean_squared_error', dtype=None)",
 'metrics.MeanSquaredLogarithmicError': "(name='mean_squared_logarithmic_error', dtype=None)",
 'metrics.Metric': '(dtype=None, name=None)',
 'metrics.OneHotIoU': '(num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, '
                      'sparse_y_pred=False, axis=-1)',
 'metrics.OneHotMeanIoU': '(num_classes, name=None, dtype=None, ignore_class=None, '
                          'sparse_y_pred=False, axis=-1)',
 'metrics.PearsonCorrelation': "(name='pearson_correlation', dtype=None, axis=-1)",
 'metrics.Poisson': "(name='poisson', dtype=None)",
 'metrics.Precision': '(thresholds=None, top_k=None, class_id=None, name=None, dtype=None)',
 'metrics.PrecisionAtRecall': '(recall, num_thresholds=200, class_id=None, name=None, '
                              'dtype=None)',
 'metrics.R2Score': "(class_aggregation='uniform_average', num_regressors=0, name='r2_score', "
                    'dtype=None)',
 'metrics.Recall': '(thresholds=None, top_k=None, class_id=None, name=None, dtype=None)',
 'metrics.RecallAtPrecision': '(precision, num_thresholds=200, class_id=None, name=None, '
                              'dtype=None)',
 'metrics.RootMeanSquaredError': "(name='root_mean_squared_error', dtype=None)",
 'metrics.SensitivityAtSpecificity': '(specificity, num_thresholds=200, class_id=None, '
                                     'name=None, dtype=None)',
 'metrics.SparseCategoricalAccuracy': "(name='sparse_categorical_accuracy', dtype=None)",
 'metrics.SparseCategoricalCrossentropy': "(name='sparse_categorical_crossentropy', dtype=None, "
                                          'from_logits=False, ignore_class=None, axis=-1)',
 'metrics.SparseTopKCategoricalAccuracy': "(k=5, name='sparse_top_k_categorical_accuracy', "
                                          'dtype=None, from_sorted_ids=False)',
 'metrics.SpecificityAtSensitivity': '(sensitivity, num_thresholds=200, class_id=None, '
                                     'name=None, dtype=None)',
 'metrics.SquaredHinge': "(name='squared_hinge', dtype=None)",
 'metrics.Sum': "(name='sum', dtype=None)",
 'metrics.TopKCategoricalAccuracy': "(k=5, name='top_k_categorical_accuracy', dtype=None)",
 'metrics.TrueNegatives': '(thresholds=None, name=None, dtype=None)',
 'metrics.TruePositives': '(thresholds=None, name=None, dtype=None)',
 'metrics.binary_accuracy': '(y_true, y_pred, threshold=0.5)',
 'metrics.binary_crossentropy': '(y_true, y_pred, from_logits=False, label_smoothing=0.0, '
                                'axis=-1)',
 'metrics.binary_focal_crossentropy': '(y_true, y_pred, apply_class_balancing=False, alpha=0.25, '
                                      'gamma=2.0, from_logits=False, label_smoothing=0.0, '
                                      'axis=-1)',
 'metrics.categorical_accuracy': '(y_true, y_pred)',
 'metrics.categorical_crossentropy': '(y_true, y_pred, from_logits=False, label_smoothing=0.0, '
                                     'axis=-1)',
 'metrics.categorical_focal_crossentropy': '(y_true, y_pred, alpha=0.25, gamma=2.0, '
                                           'from_logits=False, label_smoothing=0.0, axis=-1)',
 'metrics.categorical_hinge': '(y_true, y_pred)',
 'metrics.concordance_correlation': '(y_true, y_pred, axis=-1)',
 'metrics.deserialize': '(config, custom_objects=None)',
 'metrics.get': '(identifier)',
 'metrics.hinge': '(y_true, y_pred)',
 'metrics.huber': '(y_true, y_pred, delta=1.0)',
 'metrics.kld': '(y_true, y_pred)',
 'metrics.kullback_leibler_divergence': '(y_true, y_pred)',
 'metrics.logcosh': '(y_true, y_pred)',
 'metrics.mae': '(y_true, y_pred)',
 'metrics.mape': '(y_true, y_pred)',
 'metrics.mse': '(y_true, y_pred)',
 'metrics.msle': '(y_true, y_pred)',
 'metrics.pearson_correlation': '(y_true, y_pred, axis=-1)',
 'metrics.poisson': '(y_true, y_pred)',
 'metrics.serialize': '(metric)',
 'metrics.sparse_categorical_accuracy': '(y_true, y_pred)',
 'metrics.sparse_categorical_crossentropy': '(y_true, y_pred, from_logits=False, '
                                            'ignore_class=None, axis=-1)',
 'metrics.sparse_top_k_categorical_accuracy': '(y_true, y_pred, k=5, from_sorted_ids=False)',
 'metrics.squared_hinge': '(y_true, y_pred)',
 'metrics.top_k_categorical_accuracy': '(y_true, y_pred, k=5)'}
# fmt: on
NOT_PROVIDED = [
    "losses.CTC",
    "losses.Circle",
    "losses.CategoricalGeneralizedCrossEntropy",
    "losses.ctc",
    "losses.circle",
    "losses.categorical_generalized_cross_entropy",
]


def _plain(obj):
    sig = inspect.signature(obj)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _lookup(path):
    head, name = path.split(".")
    owner = {
        "Dataset": tf.data.Dataset,
        "experimental": tf.data.experimental,
        "losses": tf.keras.losses,
        "metrics": tf.keras.metrics,
    }[head]
    return getattr(owner, name)


@pytest.mark.parametrize("path", sorted(TF_SIGNATURES))
def test_signature_is_tensorflows(path):
    assert _plain(_lookup(path)) == TF_SIGNATURES[path]


@pytest.mark.parametrize("namespace", ["losses", "metrics"])
def test_no_name_beyond_tensorflows(namespace):
    module = getattr(tf.keras, namespace)
    tf_names = {k.split(".")[1] for k in TF_SIGNATURES if k.startswith(namespace + ".")}
    tf_names |= {k.split(".")[1] for k in NOT_PROVIDED if k.startswith(namespace + ".")}
    extra = set(module.__all__) - tf_names - {"Reduction"}
    assert not extra


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="tf.keras.losses' has no attribute 'CTC'"):
        tf.keras.losses.CTC  # noqa: B018
