"""Keras 3's training loop on symgrad: ``compile``/``fit``/``evaluate``/``predict`` (the
``Trainer`` mixin of ``Model``), the data it iterates and the losses and metrics it compiles."""
