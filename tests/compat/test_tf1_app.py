"""tf.compat.v1.app.run with flags and logging, end to end: tf1_app_program.py run as a
script prints what it prints on TensorFlow 2.21 (stdout, stderr with absl's and TF's log
lines, the exit status), for each command line of ARGVS."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ARGVS = [
    ["--steps=3", "--fast", "--name", "y", "pos", "--items=b,c", "--mode", "eval", "7"],
    ["--nofast", "--unknown=3", "pos", "--steps", "4"],
    ["--verbosity=1", "-v", "2", "--", "--steps=5"],
    ["--steps=abc"],
    ["--help"],
    ["--only_check_args"],
]
_ABSL = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.M)
_NOISE = ("absl::InitializeLog", "oneDNN", "cuda", "TF-TRT", "rebuild TensorFlow", "cpu_feature")
# The logging library's own line, where a record's caller is found in it (TF's fatal: the
# stdlib's Logger.fatal calls critical, one frame more than TF's caller search expects).
_LIBRARY = re.compile(r"\b(tf_logging|v1_logging)\.py:\d+\]")


def normalize(text: str) -> str:
    """absl's time and thread id as placeholders; a traceback as its last line (the error);
    TensorFlow's own start-up lines dropped."""
    if "Traceback (most recent call last)" in text:
        last = text.strip().splitlines()[-1]
        return "Traceback ... " + last.split(".")[-1] if ": " in last else last
    lines = [line for line in text.splitlines() if not any(n in line for n in _NOISE)]
    text = _ABSL.sub(r"\1<date time thread> ", "\n".join(lines))
    return _LIBRARY.sub("<logging library>]", text)


# TensorFlow 2.21 (record_app.py)
EXPECTED = {
    "--help": (
        1,
        "A TF1 program's first lines: flags, logging and app.run.  test_tf1_app.py runs it as "
        "a\n"
        "script with ``import symgrad as tf`` (TF_MODULE=tensorflow runs it on TensorFlow, to\n"
        "record TF's output: see record_app.py).\n"
        "flags:\n"
        "\n"
        "tf1_app_program.py:\n"
        "  --[no]fast: go fast\n"
        "    (default: 'false')\n"
        "  --items: items\n"
        "    (default: 'a')\n"
        "    (a comma separated list)\n"
        "  --mode: <train|eval>: mode\n"
        "    (default: 'train')\n"
        "  --name: a name\n"
        "    (default: 'x')\n"
        "  --steps: number of steps\n"
        "    (default: '10')\n"
        "    (an integer)\n"
        "\n"
        "Try --helpfull to get a list of all flags.",
        "WARNING:tensorflow:before run: 1",
    ),
    "--nofast --unknown=3 pos --steps 4": (
        0,
        "verbosity 20\nargv ['tf1_app_program.py', '--unknown=3', 'pos'] 4 False x ['a'] train",
        "WARNING:tensorflow:before run: 1\n"
        "INFO:tensorflow:steps 4\n"
        "I<date time thread> tf1_app_program.py:24] steps 4\n"
        "ERROR:tensorflow:error\n"
        "E<date time thread> tf1_app_program.py:26] error\n"
        "CRITICAL:tensorflow:fatal\n"
        "E<date time thread> <logging library>] CRITICAL - fatal\n"
        "INFO:tensorflow:every 0\n"
        "I<date time thread> tf1_app_program.py:29] every 0\n"
        "INFO:tensorflow:every 2\n"
        "I<date time thread> tf1_app_program.py:29] every 2",
    ),
    "--only_check_args": (0, "", "WARNING:tensorflow:before run: 1"),
    "--steps=3 --fast --name y pos --items=b,c --mode eval 7": (
        7,
        "verbosity 20\nargv ['tf1_app_program.py', 'pos', '7'] 3 True y ['b', 'c'] eval",
        "WARNING:tensorflow:before run: 1\n"
        "INFO:tensorflow:steps 3\n"
        "I<date time thread> "
        "tf1_app_program.py:24] steps 3\n"
        "ERROR:tensorflow:error\n"
        "E<date time thread> "
        "tf1_app_program.py:26] error\n"
        "CRITICAL:tensorflow:fatal\n"
        "E<date time thread> "
        "tf_logging.py:199] CRITICAL - fatal\n"
        "INFO:tensorflow:every 0\n"
        "I<date time thread> "
        "tf1_app_program.py:29] every 0\n"
        "INFO:tensorflow:every 2\n"
        "I<date time thread> "
        "tf1_app_program.py:29] every 2",
    ),
    "--steps=abc": (
        1,
        "",
        "Traceback ... IllegalFlagValueError: flag --steps=abc: invalid literal for int() "
        "with base 10: 'abc'",
    ),
    "--verbosity=1 -v 2 -- --steps=5": (
        0,
        "verbosity 9\nargv ['tf1_app_program.py', '--', '--steps=5'] 10 False x ['a'] train",
        "WARNING:tensorflow:before run: 1\n"
        "INFO:tensorflow:steps 10\n"
        "I<date time thread> tf1_app_program.py:24] steps 10\n"
        "DEBUG:tensorflow:debug\n"
        "I<date time thread> tf1_app_program.py:25] debug\n"
        "ERROR:tensorflow:error\n"
        "E<date time thread> tf1_app_program.py:26] error\n"
        "CRITICAL:tensorflow:fatal\n"
        "E<date time thread> <logging library>] CRITICAL - fatal\n"
        "INFO:tensorflow:every 0\n"
        "I<date time thread> tf1_app_program.py:29] every 0\n"
        "INFO:tensorflow:every 2\n"
        "I<date time thread> tf1_app_program.py:29] every 2",
    ),
}


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_the_program_prints_what_tensorflow_prints(argv):
    here = pathlib.Path(__file__).parent
    env = dict(os.environ, TF_MODULE="symgrad")
    run = subprocess.run(
        [sys.executable, "tf1_app_program.py", *argv], cwd=here, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    status, out, err = EXPECTED[" ".join(argv)]
    assert (run.returncode, normalize(run.stdout), normalize(run.stderr)) == (
        status,
        normalize(out),
        normalize(err),
    )
