"""``tf.image``'s colour spaces (HSV, YIQ, YUV), hue and saturation adjustments and their
random forms (``hsv``), and image measures and derivatives (``measures``)."""
