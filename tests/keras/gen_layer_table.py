"""Record Keras-on-TF's numbers for the Keras layer table (tests/keras/test_keras_layer_table.py).

Run with TensorFlow 2.21 / Keras 3 (the TF venv), from the repository root:
    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/gen_layer_table.py [--new]
(``--new`` keeps the recorded cases and records only those the file lacks.)
Each case builds a layer from the same source text in both libraries, gives it seeded
weights with set_weights, and records the output and the tape gradients of
sum(output * r) with respect to the input and to each trainable weight.
"""

from __future__ import annotations

import json
import pathlib
import sys
import zlib

import numpy as np

T = {"training": True}
# (id, layer expression over `layers`, input shape, dtype, call kwargs, integer input range)
CASES: list[tuple[str, str, list[int], str, dict, int]] = [
    ("dense", "layers.Dense(3)", [4, 5], "float32", {}, 0),
    (
        "dense_relu_nobias",
        "layers.Dense(3, activation='relu', use_bias=False)",
        [4, 5],
        "float32",
        {},
        0,
    ),
    ("dense_rank3", "layers.Dense(3, activation='tanh')", [2, 3, 5], "float32", {}, 0),
    (
        "dense_f64",
        "layers.Dense(3, activation='sigmoid', dtype='float64')",
        [4, 5],
        "float64",
        {},
        0,
    ),
    ("activation_elu", "layers.Activation('elu')", [3, 4], "float32", {}, 0),
    ("activation_gelu", "layers.Activation('gelu')", [3, 4], "float32", {}, 0),
    ("activation_selu", "layers.Activation('selu')", [3, 4], "float32", {}, 0),
    ("activation_softmax", "layers.Activation('softmax')", [3, 4], "float32", {}, 0),
    ("activation_swish", "layers.Activation('swish')", [3, 4], "float32", {}, 0),
    ("activation_softplus", "layers.Activation('softplus')", [3, 4], "float32", {}, 0),
    ("activation_hard_sigmoid", "layers.Activation('hard_sigmoid')", [3, 4], "float32", {}, 0),
    ("activation_mish", "layers.Activation('mish')", [3, 4], "float32", {}, 0),
    ("activation_leaky_relu", "layers.Activation('leaky_relu')", [3, 4], "float32", {}, 0),
    ("activation_relu6", "layers.Activation('relu6')", [3, 4], "float64", {}, 0),
    ("dropout_train", "layers.Dropout(0.4, seed=7)", [3, 5], "float32", {"training": True}, 0),
    ("dropout_infer", "layers.Dropout(0.4, seed=7)", [3, 5], "float32", {"training": False}, 0),
    ("flatten", "layers.Flatten()", [2, 3, 4], "float32", {}, 0),
    ("reshape", "layers.Reshape((4, 3))", [2, 3, 4], "float32", {}, 0),
    ("conv2d", "layers.Conv2D(3, 3)", [2, 6, 5, 2], "float32", {}, 0),
    (
        "conv2d_same_stride",
        "layers.Conv2D(3, (3, 2), strides=2, padding='same', activation='relu')",
        [2, 7, 6, 2],
        "float32",
        {},
        0,
    ),
    (
        "conv2d_dilated_f64",
        "layers.Conv2D(2, 2, dilation_rate=2, dtype='float64')",
        [1, 6, 5, 3],
        "float64",
        {},
        0,
    ),
    ("conv1d", "layers.Conv1D(3, 3, padding='same')", [2, 7, 2], "float32", {}, 0),
    ("conv3d", "layers.Conv3D(2, 2)", [1, 4, 3, 5, 2], "float32", {}, 0),
    ("maxpool2d", "layers.MaxPooling2D()", [2, 6, 5, 3], "float32", {}, 0),
    (
        "maxpool2d_same",
        "layers.MaxPooling2D(3, strides=2, padding='same')",
        [2, 6, 5, 3],
        "float32",
        {},
        0,
    ),
    ("avgpool2d", "layers.AveragePooling2D(2)", [2, 6, 4, 3], "float32", {}, 0),
    (
        "avgpool1d_same",
        "layers.AveragePooling1D(3, strides=2, padding='same')",
        [2, 7, 3],
        "float32",
        {},
        0,
    ),
    ("maxpool1d", "layers.MaxPooling1D()", [2, 6, 3], "float32", {}, 0),
    ("gap2d", "layers.GlobalAveragePooling2D()", [2, 4, 3, 5], "float32", {}, 0),
    ("gmp2d_keepdims", "layers.GlobalMaxPooling2D(keepdims=True)", [2, 4, 3, 5], "float32", {}, 0),
    ("gap1d", "layers.GlobalAveragePooling1D()", [2, 4, 3], "float64", {}, 0),
    ("batchnorm_train", "layers.BatchNormalization()", [6, 4], "float32", {"training": True}, 0),
    ("batchnorm_infer", "layers.BatchNormalization()", [6, 4], "float32", {"training": False}, 0),
    (
        "batchnorm_conv_train",
        "layers.BatchNormalization(momentum=0.9, epsilon=1e-2)",
        [2, 3, 4, 5],
        "float32",
        {"training": True},
        0,
    ),
    (
        "batchnorm_axis1_f64",
        "layers.BatchNormalization(axis=1, dtype='float64')",
        [3, 4, 2],
        "float64",
        {"training": True},
        0,
    ),
    ("layernorm", "layers.LayerNormalization()", [3, 5], "float32", {}, 0),
    (
        "layernorm_rank3_f64",
        "layers.LayerNormalization(epsilon=1e-5, dtype='float64')",
        [2, 3, 5],
        "float64",
        {},
        0,
    ),
    (
        "layernorm_axes",
        "layers.LayerNormalization(axis=[1, 2], center=False)",
        [2, 3, 4],
        "float32",
        {},
        0,
    ),
    ("embedding", "layers.Embedding(7, 3)", [2, 5], "int32", {}, 7),
    (
        "relu_layer",
        "layers.ReLU(max_value=1.5, negative_slope=0.1, threshold=0.2)",
        [3, 4],
        "float32",
        {},
        0,
    ),
    ("relu6_layer", "layers.ReLU(max_value=6)", [3, 4], "float32", {}, 0),
    ("leaky_relu_layer", "layers.LeakyReLU()", [3, 4], "float32", {}, 0),
    ("prelu", "layers.PReLU(shared_axes=[1])", [2, 3, 4], "float32", {}, 0),
    ("elu_layer", "layers.ELU(alpha=0.5)", [3, 4], "float64", {}, 0),
    ("softmax_layer", "layers.Softmax(axis=1)", [2, 3, 4], "float32", {}, 0),
    ("softmax_axes", "layers.Softmax(axis=(1, 2))", [2, 3, 4], "float32", {}, 0),
    ("add", "layers.Add()", [[2, 3], [2, 3], [2, 3]], "float32", {}, 0),
    ("subtract", "layers.Subtract()", [[2, 3], [2, 3]], "float32", {}, 0),
    ("multiply", "layers.Multiply()", [[2, 3], [2, 3]], "float32", {}, 0),
    ("average", "layers.Average()", [[2, 3], [2, 3], [2, 3]], "float64", {}, 0),
    ("maximum", "layers.Maximum()", [[2, 3], [2, 3]], "float32", {}, 0),
    ("minimum", "layers.Minimum()", [[2, 3], [2, 3]], "float32", {}, 0),
    ("concatenate", "layers.Concatenate(axis=1)", [[2, 3, 2], [2, 1, 2]], "float32", {}, 0),
    ("dot_2d", "layers.Dot(axes=1)", [[3, 4], [3, 4]], "float32", {}, 0),
    (
        "dot_3d_normalize",
        "layers.Dot(axes=(2, 2), normalize=True)",
        [[2, 3, 4], [2, 5, 4]],
        "float32",
        {},
        0,
    ),
    ("permute", "layers.Permute((2, 1))", [2, 3, 4], "float32", {}, 0),
    ("repeat_vector", "layers.RepeatVector(3)", [2, 4], "float32", {}, 0),
    ("zero_padding2d", "layers.ZeroPadding2D(((1, 0), (2, 1)))", [2, 3, 2, 2], "float32", {}, 0),
    ("zero_padding1d", "layers.ZeroPadding1D(2)", [2, 3, 2], "float32", {}, 0),
    ("cropping2d", "layers.Cropping2D(((1, 0), (0, 1)))", [2, 4, 3, 2], "float32", {}, 0),
    ("cropping1d", "layers.Cropping1D((1, 2))", [2, 5, 2], "float32", {}, 0),
    ("upsampling2d", "layers.UpSampling2D((2, 3))", [2, 2, 3, 2], "float32", {}, 0),
    ("upsampling1d", "layers.UpSampling1D(3)", [2, 2, 3], "float32", {}, 0),
    ("rescaling", "layers.Rescaling(1 / 255.0, offset=-0.5)", [2, 3], "float32", {}, 0),
    (
        "gaussian_noise_train",
        "layers.GaussianNoise(0.3, seed=4)",
        [3, 4],
        "float32",
        {"training": True},
        0,
    ),
    (
        "spatial_dropout2d_train",
        "layers.SpatialDropout2D(0.5, seed=2)",
        [3, 2, 2, 4],
        "float32",
        {"training": True},
        0,
    ),
    (
        "spatial_dropout1d_train",
        "layers.SpatialDropout1D(0.5, seed=5)",
        [3, 2, 4],
        "float32",
        {"training": True},
        0,
    ),
    ("simple_rnn", "layers.SimpleRNN(3)", [2, 4, 3], "float32", {}, 0),
    (
        "simple_rnn_seq_back",
        "layers.SimpleRNN(3, activation='relu', return_sequences=True, go_backwards=True)",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    ("lstm", "layers.LSTM(3)", [2, 4, 3], "float32", {}, 0),
    ("lstm_seq", "layers.LSTM(3, return_sequences=True)", [2, 5, 2], "float32", {}, 0),
    ("lstm_f64", "layers.LSTM(2, dtype='float64')", [2, 3, 3], "float64", {}, 0),
    ("gru", "layers.GRU(3)", [2, 4, 3], "float32", {}, 0),
    (
        "gru_reset_before",
        "layers.GRU(3, reset_after=False, return_sequences=True)",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "bidirectional_lstm",
        "layers.Bidirectional(layers.LSTM(2, return_sequences=True))",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "bidirectional_gru_sum",
        "layers.Bidirectional(layers.GRU(2), merge_mode='sum')",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "time_distributed",
        "layers.TimeDistributed(layers.Dense(3, activation='tanh'))",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "masked_lstm",
        "keras.Sequential([layers.Embedding(6, 3, mask_zero=True), "
        "layers.LSTM(2, return_sequences=True)])",
        [3, 5],
        "int32",
        {},
        3,
    ),
    (
        "masked_gru_last",
        "keras.Sequential([layers.Embedding(6, 3, mask_zero=True), layers.GRU(2)])",
        [3, 5],
        "int32",
        {},
        3,
    ),
    (
        "masked_bidirectional",
        "keras.Sequential([layers.Embedding(6, 3, mask_zero=True), "
        "layers.Bidirectional(layers.SimpleRNN(2, return_sequences=True))])",
        [3, 5],
        "int32",
        {},
        3,
    ),
    (
        "masked_average",
        "keras.Sequential([layers.Embedding(6, 3, mask_zero=True), "
        "layers.GlobalAveragePooling1D()])",
        [3, 5],
        "int32",
        {},
        3,
    ),
    (
        "einsum_dense",
        "layers.EinsumDense('ab,bc->ac', 4, bias_axes='c', activation='relu')",
        [3, 5],
        "float32",
        {},
        0,
    ),
    (
        "einsum_dense_3d",
        "layers.EinsumDense('abc,cd->abd', (None, 3), bias_axes='d')",
        [2, 4, 5],
        "float32",
        {},
        0,
    ),
    ("mha_self", "layers.MultiHeadAttention(2, 3)", [[2, 4, 5], [2, 4, 5]], "float32", {}, 0),
    (
        "mha_cross_value_dim",
        "layers.MultiHeadAttention(2, 3, value_dim=2, output_shape=6)",
        [[2, 4, 5], [2, 3, 5]],
        "float32",
        {},
        0,
    ),
    (
        "mha_causal",
        "layers.MultiHeadAttention(2, 3)",
        [[2, 4, 5], [2, 4, 5]],
        "float32",
        {"use_causal_mask": True},
        0,
    ),
    (
        "mha_scores_path",
        "layers.MultiHeadAttention(2, 3, dropout=0.5)",
        [[2, 4, 5], [2, 4, 5]],
        "float32",
        {"use_causal_mask": True},
        0,
    ),
    (
        "mha_f64",
        "layers.MultiHeadAttention(3, 2, use_bias=False, dtype='float64')",
        [[2, 3, 4], [2, 5, 4]],
        "float64",
        {},
        0,
    ),
    ("attention_dot", "layers.Attention()", [[2, 3, 4], [2, 5, 4]], "float32", {}, 0),
    (
        "attention_scaled_causal",
        "layers.Attention(use_scale=True)",
        [[2, 4, 3], [2, 4, 3]],
        "float32",
        {"use_causal_mask": True},
        0,
    ),
    (
        "attention_concat",
        "layers.Attention(score_mode='concat', use_scale=True)",
        [[2, 3, 4], [2, 5, 4], [2, 5, 4]],
        "float32",
        {},
        0,
    ),
    ("conv2d_transpose", "layers.Conv2DTranspose(3, 3, strides=2)", [2, 3, 4, 2], "float32", {}, 0),
    (
        "conv2d_transpose_same_pad",
        "layers.Conv2DTranspose(2, (3, 2), strides=(2, 3), padding='same', output_padding=1)",
        [1, 3, 2, 3],
        "float32",
        {},
        0,
    ),
    (
        "conv1d_transpose_f64",
        "layers.Conv1DTranspose(2, 3, dtype='float64')",
        [2, 4, 3],
        "float64",
        {},
        0,
    ),
    (
        "depthwise_conv2d",
        "layers.DepthwiseConv2D(3, depth_multiplier=2)",
        [2, 5, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "depthwise_conv2d_strided_same",
        "layers.DepthwiseConv2D((2, 3), strides=2, padding='same', activation='relu')",
        [2, 5, 6, 2],
        "float32",
        {},
        0,
    ),
    (
        "separable_conv2d",
        "layers.SeparableConv2D(4, 3, depth_multiplier=2)",
        [2, 5, 5, 3],
        "float32",
        {},
        0,
    ),
    ("group_norm", "layers.GroupNormalization(groups=2)", [2, 3, 3, 4], "float32", {}, 0),
    (
        "group_norm_rank3_f64",
        "layers.GroupNormalization(groups=3, epsilon=1e-5, dtype='float64')",
        [2, 4, 6],
        "float64",
        {},
        0,
    ),
    (
        "group_norm_axis1",
        "layers.GroupNormalization(groups=2, axis=1, center=False)",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "normalization_given",
        "layers.Normalization(mean=[0.5, -1.0, 2.0], variance=[2.0, 0.25, 1e-20])",
        [4, 3],
        "float32",
        {},
        0,
    ),
    (
        "normalization_invert",
        "layers.Normalization(axis=None, mean=0.5, variance=4.0, invert=True)",
        [2, 3],
        "float32",
        {},
        0,
    ),
    # recurrent dropout: Keras's masks, drawn once per call from the cell's seed
    (
        "simple_rnn_dropout",
        "layers.SimpleRNN(3, dropout=0.3, recurrent_dropout=0.4, seed=3, return_sequences=True)",
        [2, 4, 3],
        "float32",
        {"training": True},
        0,
    ),
    ("lstm_dropout", "layers.LSTM(3, dropout=0.3, seed=4)", [2, 4, 3], "float32", T, 0),
    (
        "lstm_recurrent_dropout",
        "layers.LSTM(3, dropout=0.3, recurrent_dropout=0.25, seed=5, return_sequences=True)",
        [2, 4, 3],
        "float32",
        T,
        0,
    ),
    (
        "lstm_recurrent_dropout_f64",
        "layers.LSTM(2, recurrent_dropout=0.5, seed=8, dtype='float64')",
        [2, 3, 2],
        "float64",
        T,
        0,
    ),
    (
        "gru_recurrent_dropout",
        "layers.GRU(3, dropout=0.2, recurrent_dropout=0.3, seed=6)",
        [2, 4, 3],
        "float32",
        T,
        0,
    ),
    (
        "gru_recurrent_dropout_reset_before",
        "layers.GRU(3, recurrent_dropout=0.3, reset_after=False, seed=7, return_sequences=True)",
        [2, 4, 3],
        "float32",
        T,
        0,
    ),
    (
        "lstm_dropout_inference",
        "layers.LSTM(3, dropout=0.3, recurrent_dropout=0.3, seed=5)",
        [2, 4, 3],
        "float32",
        {"training": False},
        0,
    ),
    ("gru_unroll", "layers.GRU(3, unroll=True, go_backwards=True)", [2, 4, 3], "float32", {}, 0),
    # attention over several axes (rank-4 inputs take Keras's einsum path)
    (
        "mha_rank4_default_axes",
        "layers.MultiHeadAttention(2, 3)",
        [[2, 3, 2, 4], [2, 3, 2, 4]],
        "float32",
        {},
        0,
    ),
    (
        "mha_axes_2",
        "layers.MultiHeadAttention(2, 2, attention_axes=2, output_shape=3)",
        [[2, 2, 3, 4], [2, 2, 4, 4]],
        "float32",
        {},
        0,
    ),
    (
        "mha_axes_1_causal",
        "layers.MultiHeadAttention(2, 2, attention_axes=(1,))",
        [[2, 3, 2, 4], [2, 3, 2, 4]],
        "float32",
        {"use_causal_mask": True},
        0,
    ),
    (
        "mha_axes_12_dropout_f64",
        "layers.MultiHeadAttention(2, 2, attention_axes=(1, 2), dropout=0.4, seed=3, "
        "dtype='float64')",
        [[2, 2, 3, 3], [2, 2, 3, 3]],
        "float64",
        {"training": True},
        0,
    ),
    (
        "einsum_left_ellipsis",
        "layers.EinsumDense('...b,bc->...c', 4, bias_axes='c')",
        [2, 3, 5],
        "float32",
        {},
        0,
    ),
    (
        "einsum_right_ellipsis",
        "layers.EinsumDense('ab...,bc->ac...', 4, bias_axes='c')",
        [2, 5, 3],
        "float32",
        {},
        0,
    ),
    # channels_first and UpSampling2D's interpolations (no Conv3D: Keras-on-TF 2.21's
    # channels_first Conv3D on a CPU adds the bias along the last axis, a TF-side bug; no
    # float64 convolution: TF's CPU Conv2D refuses NCHW in float64)
    (
        "conv2d_channels_first",
        "layers.Conv2D(3, (3, 2), strides=(2, 1), padding='same', data_format='channels_first')",
        [2, 2, 7, 6],
        "float32",
        {},
        0,
    ),
    (
        "conv1d_channels_first",
        "layers.Conv1D(2, 3, dilation_rate=2, data_format='channels_first')",
        [2, 3, 9],
        "float32",
        {},
        0,
    ),
    (
        "avgpool2d_channels_first_f64",
        "layers.AveragePooling2D(2, data_format='channels_first', dtype='float64')",
        [1, 2, 4, 3],
        "float64",
        {},
        0,
    ),
    (
        "conv2d_transpose_channels_first",
        "layers.Conv2DTranspose(2, 3, strides=2, data_format='channels_first')",
        [2, 3, 3, 4],
        "float32",
        {},
        0,
    ),
    (
        "depthwise_channels_first",
        "layers.DepthwiseConv2D(2, depth_multiplier=2, data_format='channels_first')",
        [2, 3, 4, 5],
        "float32",
        {},
        0,
    ),
    (
        "separable_channels_first",
        "layers.SeparableConv2D(2, 2, padding='same', data_format='channels_first')",
        [2, 3, 4, 5],
        "float32",
        {},
        0,
    ),
    (
        "maxpool2d_channels_first",
        "layers.MaxPooling2D(2, strides=1, data_format='channels_first')",
        [2, 3, 4, 5],
        "float32",
        {},
        0,
    ),
    (
        "avgpool1d_channels_first",
        "layers.AveragePooling1D(2, padding='same', data_format='channels_first')",
        [2, 3, 5],
        "float32",
        {},
        0,
    ),
    (
        "global_avg_channels_first_keepdims",
        "layers.GlobalAveragePooling2D(data_format='channels_first', keepdims=True)",
        [2, 3, 4, 5],
        "float32",
        {},
        0,
    ),
    (
        "global_max1d_channels_first",
        "layers.GlobalMaxPooling1D(data_format='channels_first')",
        [2, 3, 5],
        "float32",
        {},
        0,
    ),
    (
        "upsampling2d_channels_first",
        "layers.UpSampling2D((2, 3), data_format='channels_first')",
        [2, 3, 2, 2],
        "float32",
        {},
        0,
    ),
    (
        "zeropadding2d_channels_first",
        "layers.ZeroPadding2D(((1, 0), (2, 1)), data_format='channels_first')",
        [2, 3, 2, 2],
        "float32",
        {},
        0,
    ),
    (
        "zeropadding1d_channels_first",
        "layers.ZeroPadding1D((1, 2), data_format='channels_first')",
        [2, 3, 2],
        "float32",
        {},
        0,
    ),
    (
        "cropping2d_channels_first",
        "layers.Cropping2D(((1, 0), (0, 2)), data_format='channels_first')",
        [2, 3, 4, 5],
        "float32",
        {},
        0,
    ),
    (
        "spatial_dropout2d_channels_first",
        "layers.SpatialDropout2D(0.5, data_format='channels_first', seed=4)",
        [2, 3, 4, 5],
        "float32",
        T,
        0,
    ),
    (
        "upsampling2d_bilinear",
        "layers.UpSampling2D((2, 3), interpolation='bilinear')",
        [2, 3, 4, 2],
        "float32",
        {},
        0,
    ),
    (
        "upsampling2d_bicubic",
        "layers.UpSampling2D(3, interpolation='bicubic')",
        [2, 3, 4, 2],
        "float32",
        {},
        0,
    ),
    (
        "upsampling2d_bilinear_f64",
        "layers.UpSampling2D(2, interpolation='bilinear', dtype='float64')",
        [1, 3, 3, 2],
        "float64",
        {},
        0,
    ),
    (
        "upsampling2d_bicubic_channels_first",
        "layers.UpSampling2D(2, interpolation='bicubic', data_format='channels_first')",
        [2, 2, 3, 4],
        "float32",
        {},
        0,
    ),
    ("additive_attention", "layers.AdditiveAttention()", [[2, 3, 4], [2, 5, 4]], "float32", {}, 0),
    (
        "additive_attention_key_noscale",
        "layers.AdditiveAttention(use_scale=False)",
        [[2, 3, 4], [2, 5, 4], [2, 5, 4]],
        "float32",
        {},
        0,
    ),
    (
        "additive_attention_dropout",
        "layers.AdditiveAttention(dropout=0.4, seed=3)",
        [[2, 3, 4], [2, 5, 4]],
        "float32",
        T,
        0,
    ),
    ("alpha_dropout", "layers.AlphaDropout(0.3, seed=5)", [3, 4, 5], "float32", T, 0),
    (
        "alpha_dropout_noise_shape",
        "layers.AlphaDropout(0.5, noise_shape=(3, 1, 5), seed=2)",
        [3, 4, 5],
        "float32",
        T,
        0,
    ),
    ("alpha_dropout_infer", "layers.AlphaDropout(0.3, seed=5)", [3, 4], "float32", {}, 0),
    ("gaussian_dropout", "layers.GaussianDropout(0.3, seed=5)", [3, 4, 5], "float32", T, 0),
    (
        "gaussian_dropout_f64",
        "layers.GaussianDropout(0.6, seed=1, dtype='float64')",
        [4, 3],
        "float64",
        T,
        0,
    ),
    ("category_encoding", "layers.CategoryEncoding(6)", [4, 3], "int32", {}, 6),
    (
        "category_encoding_count",
        "layers.CategoryEncoding(5, output_mode='count')",
        [3, 6],
        "int64",
        {},
        5,
    ),
    (
        "category_encoding_one_hot",
        "layers.CategoryEncoding(4, output_mode='one_hot')",
        [5],
        "int32",
        {},
        4,
    ),
    (
        "discretization",
        "layers.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 1.5])",
        [3, 4],
        "float32",
        {},
        0,
    ),
    (
        "discretization_multi_hot",
        "layers.Discretization(bin_boundaries=[-0.5, 0.25], output_mode='multi_hot')",
        [3, 4],
        "float32",
        {},
        0,
    ),
    (
        "integer_lookup",
        "layers.IntegerLookup(vocabulary=[4, 1, 7, 2], mask_token=0)",
        [3, 4],
        "int64",
        {},
        9,
    ),
    (
        "integer_lookup_count",
        "layers.IntegerLookup(vocabulary=[4, 1, 7, 2], output_mode='count', num_oov_indices=2)",
        [3, 5],
        "int64",
        {},
        9,
    ),
    (
        "integer_lookup_invert",
        "layers.IntegerLookup(vocabulary=[14, 11, 17], invert=True, mask_token=0)",
        [2, 5],
        "int64",
        {},
        6,
    ),
    (
        "stacked_rnn_cells",
        "layers.RNN(layers.StackedRNNCells([layers.SimpleRNNCell(3), layers.LSTMCell(2)]),"
        " return_sequences=True)",
        [2, 4, 3],
        "float32",
        {},
        0,
    ),
    (
        "stacked_rnn_cells_gru",
        "layers.RNN(layers.StackedRNNCells([layers.GRUCell(2), layers.GRUCell(3)]),"
        " go_backwards=True)",
        [2, 3, 4],
        "float32",
        {},
        0,
    ),
    # Keras 3 names added by the kerasbreadth branch (recorded with --new)
    (
        "zero_padding3d",
        "layers.ZeroPadding3D(((1, 0), (0, 2), 1))",
        [2, 2, 3, 2, 2],
        "float32",
        {},
        0,
    ),
    (
        "zero_padding3d_channels_first",
        "layers.ZeroPadding3D(1, data_format='channels_first')",
        [1, 2, 2, 3, 2],
        "float32",
        {},
        0,
    ),
    ("cropping3d", "layers.Cropping3D(((1, 0), (0, 1), 1))", [2, 3, 3, 4, 2], "float32", {}, 0),
    (
        "cropping3d_channels_first",
        "layers.Cropping3D((1, (0, 1), 0), data_format='channels_first')",
        [1, 2, 4, 3, 2],
        "float32",
        {},
        0,
    ),
    ("upsampling3d", "layers.UpSampling3D((2, 1, 3))", [2, 2, 3, 2, 2], "float32", {}, 0),
    (
        "upsampling3d_channels_first_f64",
        "layers.UpSampling3D(2, data_format='channels_first', dtype='float64')",
        [1, 2, 2, 1, 3],
        "float64",
        {},
        0,
    ),
    (
        "spatial_dropout3d_train",
        "layers.SpatialDropout3D(0.5, seed=3)",
        [3, 2, 2, 2, 4],
        "float32",
        T,
        0,
    ),
    (
        "spatial_dropout3d_channels_first_train",
        "layers.SpatialDropout3D(0.4, data_format='channels_first', seed=6)",
        [3, 4, 2, 2, 2],
        "float32",
        T,
        0,
    ),
    (
        "spatial_dropout3d_infer",
        "layers.SpatialDropout3D(0.5, seed=3)",
        [2, 2, 2, 2, 3],
        "float32",
        {},
        0,
    ),
    (
        "conv3d_transpose",
        "layers.Conv3DTranspose(2, 2, strides=2)",
        [1, 2, 3, 2, 3],
        "float32",
        {},
        0,
    ),
    (
        "conv3d_transpose_same",
        "layers.Conv3DTranspose(3, (3, 2, 2), strides=(1, 2, 2), padding='same',"
        " activation='relu')",
        [2, 3, 2, 2, 2],
        "float32",
        {},
        0,
    ),
    (
        "conv3d_transpose_output_padding",
        "layers.Conv3DTranspose(2, 3, strides=2, output_padding=1, use_bias=False)",
        [1, 2, 2, 2, 2],
        "float32",
        {},
        0,
    ),
    ("depthwise_conv1d", "layers.DepthwiseConv1D(3)", [2, 7, 3], "float32", {}, 0),
    (
        "depthwise_conv1d_mult_stride",
        "layers.DepthwiseConv1D(2, strides=2, padding='same', depth_multiplier=2,"
        " activation='tanh')",
        [2, 7, 2],
        "float32",
        {},
        0,
    ),
    (
        "depthwise_conv1d_dilated_channels_first",
        "layers.DepthwiseConv1D(2, dilation_rate=2, data_format='channels_first')",
        [2, 3, 8],
        "float32",
        {},
        0,
    ),
    ("separable_conv1d", "layers.SeparableConv1D(4, 3)", [2, 7, 3], "float32", {}, 0),
    (
        "separable_conv1d_same_mult",
        "layers.SeparableConv1D(3, 3, strides=2, padding='same', depth_multiplier=2)",
        [2, 8, 2],
        "float32",
        {},
        0,
    ),
    (
        "separable_conv1d_dilated_channels_first",
        "layers.SeparableConv1D(2, 2, dilation_rate=2, data_format='channels_first',"
        " use_bias=False)",
        [2, 3, 7],
        "float32",
        {},
        0,
    ),
    ("convolution2d_alias", "layers.Convolution2D(2, 2)", [1, 4, 3, 2], "float32", {}, 0),
    (
        "separable_convolution2d_alias",
        "layers.SeparableConvolution2D(2, 2)",
        [1, 4, 3, 2],
        "float32",
        {},
        0,
    ),
    ("global_avg_pool3d_alias", "layers.GlobalAvgPool3D()", [2, 2, 3, 2, 3], "float32", {}, 0),
    (
        "global_max_pool3d_alias",
        "layers.GlobalMaxPool3D(keepdims=True)",
        [2, 2, 3, 2, 3],
        "float32",
        {},
        0,
    ),
]


def _build(layer, expr: str, shapes: list, multi: bool) -> None:
    """MultiHeadAttention takes its tensors as separate arguments, other layers a list."""
    if "MultiHeadAttention" in expr:
        layer.build(*shapes)
    else:
        layer.build(shapes if multi else shapes[0])


def _call(layer, expr: str, xs: list, multi: bool, kwargs: dict):
    if "MultiHeadAttention" in expr:
        return layer(*xs, **kwargs)
    return layer(xs if multi else xs[0], **kwargs)


def _weight(rng: np.random.RandomState, v) -> np.ndarray:
    w = rng.uniform(-1, 1, size=tuple(v.shape)).astype(str(v.dtype))
    return np.abs(w) + 0.5 if "variance" in v.path else w  # a variance is positive


def main() -> None:
    import keras
    import tensorflow as tf
    from keras import layers

    out: dict[str, np.ndarray] = {}
    rng = np.random.RandomState(25)
    path = pathlib.Path(__file__).parent / "data" / "layer_table.npz"
    todo = CASES
    if "--new" in sys.argv:  # record only the cases the file lacks, each from its own seed
        old = np.load(path)
        out = {k: old[k] for k in old.files}
        todo = [c for c in CASES if f"{c[0]}/y" not in out]
    for cid, expr, shape, dtype, kwargs, int_range in todo:
        if "--new" in sys.argv:
            rng = np.random.RandomState(zlib.crc32(cid.encode()))
        layer = eval(expr, {"layers": layers, "keras": keras})
        multi = isinstance(shape[0], list)
        shapes = shape if multi else [shape]
        if int_range:
            xs = [rng.randint(0, int_range, size=sh).astype(dtype) for sh in shapes]
        else:
            xs = [rng.uniform(-2, 2, size=sh).astype(dtype) for sh in shapes]
        if not layer.built:
            _build(layer, expr, [tuple(sh) for sh in shapes], multi)
        weights = [_weight(rng, v) for v in layer.weights]
        layer.set_weights(weights)
        xts = [tf.constant(x) for x in xs]
        with tf.GradientTape() as tape:
            tape.watch(xts)
            y = _call(layer, expr, xts, multi, kwargs)
            r = tf.constant(rng.uniform(-1, 1, size=y.shape).astype(y.dtype.name))
            loss = tf.reduce_sum(y * r)
        grads = tape.gradient(loss, [*xts, *layer.trainable_weights])
        for i, x in enumerate(xs):
            out[f"{cid}/x{i}"] = x
        out[f"{cid}/r"] = r.numpy()
        out[f"{cid}/y"] = y.numpy()
        for i, w in enumerate(weights):
            out[f"{cid}/w{i}"] = w
        out[f"{cid}/names"] = np.array(
            json.dumps([v.path.split("/", 1)[-1] for v in layer.weights])
        )
        out[f"{cid}/after"] = np.array(json.dumps([v.numpy().tolist() for v in layer.weights]))
        for i, g in enumerate(grads):
            out[f"{cid}/g{i}"] = np.zeros(0) if g is None else tf.convert_to_tensor(g).numpy()
    out["cases"] = np.array(json.dumps(CASES))
    out["versions"] = np.array(json.dumps([tf.__version__, keras.__version__]))
    np.savez_compressed(path, **out)
    print(f"wrote {len(CASES)} cases to {path}")


if __name__ == "__main__":
    main()
