"""The image family: resizing (bilinear, nearest neighbour, bicubic, area) and their
gradient ops, and the contrast adjustment behind ``tf.image.adjust_contrast``.

``tf.image``'s other functions (flips, crops, pads, dtype conversion...) are compositions
of array and math ops, built in ``symgrad.api.image``.
"""
