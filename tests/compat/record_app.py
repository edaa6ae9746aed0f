"""Records TensorFlow's output of tf1_app_program.py for test_tf1_app.py's ARGVS::

PYTHONPATH=src <tf-python> tests/compat/record_app.py
"""

import os
import pathlib
import pprint
import subprocess
import sys

from test_tf1_app import ARGVS, normalize

here = pathlib.Path(__file__).parent
env = dict(os.environ, TF_MODULE="tensorflow", TF_CPP_MIN_LOG_LEVEL="3")
out = {}
for argv in ARGVS:
    run = subprocess.run(
        [sys.executable, "tf1_app_program.py", *argv], cwd=here, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    out[" ".join(argv)] = (run.returncode, normalize(run.stdout), normalize(run.stderr))
sys.stdout.write("EXPECTED = " + pprint.pformat(out, width=100) + "\n")
