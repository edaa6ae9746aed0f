"""The neural-network family: activations, softmax and cross entropies, bias, convolutions,
pooling, normalisation and dropout.
"""
