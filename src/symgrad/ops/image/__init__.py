"""The image family: resizing (bilinear, nearest neighbour, bicubic, area) and their
gradient ops, the contrast adjustment behind ``tf.image.adjust_contrast``, the HSV
conversions and hue and saturation adjustments (``color``), and the projective
transform behind Keras's RandomRotation and RandomZoom.

``tf.image``'s other functions (flips, crops, pads, dtype conversion...) are compositions
of array and math ops, built in ``symgrad.api.image``.
"""
