"""Write the ``.keras`` files with registered custom objects that tests/keras/test_registry.py
loads, with TF:
    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/gen_registry_files.py
and print the outputs the test holds as literals."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from registry_objects import X, Y, define, sequential, subclassed


def main() -> None:
    import tensorflow as tf

    data = pathlib.Path(__file__).parent / "data"
    objs = define(tf)
    x, y = np.array(X, "float32"), np.array(Y, "float32")
    m = sequential(tf, objs)
    print("sequential", m(x).numpy().tolist())
    m.save(data / "tf_registered_sequential.keras")
    n = subclassed(tf, objs)
    print("evaluate", n.evaluate(x, y, verbose=0))
    n.save(data / "tf_registered_subclassed.keras")


if __name__ == "__main__":
    main()
