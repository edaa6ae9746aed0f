"""Records what TensorFlow's event files hold for ``programs.PROGRAMS`` (not a test).

Run it with TensorFlow's interpreter, TensorBoard installed (TF 2.21 takes ``tf.summary``'s
scalar, histogram, image and text from it), to remake ``tf_files.py``::

    PYTHONPATH=src TF_CPP_MIN_LOG_LEVEL=3 <tf-python> tests/summary/record_tf.py \\
        > tests/summary/tf_files.py
"""

from __future__ import annotations

import pprint
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from describe import describe
from summary_programs import PROGRAMS


def main() -> None:
    import tensorflow as tf

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for program in PROGRAMS:
            logdir = str(Path(tmp) / program.__name__)
            program(tf, logdir)
            out[program.__name__] = describe(logdir)
    print('"""What TF 2.21 wrote for tests/summary/summary_programs.py (record_tf.py)."""\n')
    print("# fmt: off")
    print("FILES = " + pprint.pformat(out, width=100, compact=True, sort_dicts=False))


if __name__ == "__main__":
    main()
