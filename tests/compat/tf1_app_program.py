"""A TF1 program's first lines: flags, logging and app.run.  test_tf1_app.py runs it as a
script with ``import symgrad as tf`` (TF_MODULE=tensorflow runs it on TensorFlow, to
record TF's output: see record_app.py)."""

import importlib
import os

tf = importlib.import_module(os.environ.get("TF_MODULE", "symgrad"))
flags = tf.compat.v1.flags
flags.DEFINE_integer("steps", 10, "number of steps")
flags.DEFINE_boolean("fast", False, "go fast")
flags.DEFINE_string("name", "x", "a name")
flags.DEFINE_list("items", ["a"], "items")
flags.DEFINE_enum("mode", "train", ["train", "eval"], "mode")
FLAGS = flags.FLAGS
log = tf.compat.v1.logging

log.warning("before run: %d", 1)
log.info("not shown")


def main(argv):
    print("verbosity", log.get_verbosity(), flush=True)
    log.info("steps %d", FLAGS.steps)
    log.debug("debug")
    log.error("error")
    log.fatal("fatal")
    for i in range(4):
        log.log_every_n(log.INFO, "every %d", 2, i)
    for i in range(3):
        log.log_first_n(log.WARN, "first %d", 2, i)
    print("argv", argv, FLAGS.steps, FLAGS.fast, FLAGS.name, FLAGS.items, FLAGS.mode, flush=True)
    return int(argv[-1]) if argv[-1].isdigit() else None


if __name__ == "__main__":
    tf.compat.v1.app.run()
