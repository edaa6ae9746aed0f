"""tf.compat.v1.logging and tf.get_logger: TF 2.21's logging functions on the "tensorflow"
logger (what a script prints, with app.run's absl lines, is test_tf1_app.py's)."""

import logging

import pytest

import symgrad as tf
from symgrad.compat.tf1_app import tf_logging as v1_logging

log = tf.compat.v1.logging


@pytest.fixture(autouse=True)
def _restore_level():
    logger = tf.get_logger()
    level = logger.level
    v1_logging._counts.clear()
    yield
    logger.setLevel(level)


def test_levels_are_tfs():
    assert (log.DEBUG, log.INFO, log.WARN, log.ERROR, log.FATAL) == (10, 20, 30, 40, 50)
    assert not hasattr(log, "WARNING")  # TF 2.21 has WARN only
    assert tf.get_logger() is logging.getLogger("tensorflow")


def test_verbosity_is_the_loggers_level():
    tf.get_logger().setLevel(logging.NOTSET)
    assert log.get_verbosity() == logging.getLogger().getEffectiveLevel()
    log.set_verbosity(log.INFO)
    assert log.get_verbosity() == 20
    log.set_verbosity("DEBUG")
    assert log.get_verbosity() == 10


def test_records_name_the_caller(caplog):
    log.set_verbosity(log.DEBUG)
    with caplog.at_level(logging.DEBUG, logger="tensorflow"):
        log.info("steps %d", 3)
        log.warn("w")
        log.debug("d")
        log.fatal("f")  # logged at CRITICAL; TF's fatal neither raises nor exits
        log.TaskLevelStatusMessage("task")
        log.vlog(20, "v")
        log.log(30, "l %s", "x")
    got = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert got == [
        ("tensorflow", 20, "steps 3"),
        ("tensorflow", 30, "w"),
        ("tensorflow", 10, "d"),
        ("tensorflow", 50, "f"),
        ("tensorflow", 40, "task"),
        ("tensorflow", 20, "v"),
        ("tensorflow", 30, "l x"),
    ]
    # fatal's record names the library's file, tf_logging.py, as TF's does (the stdlib's
    # Logger.fatal adds a frame to TF's caller search).
    files = [r.filename for r in caplog.records]
    assert files == ["test_tf1_logging.py"] * 3 + ["tf_logging.py"] + ["test_tf1_logging.py"] * 3
    assert caplog.records[0].funcName == "test_records_name_the_caller"


def test_every_n_first_n_and_if(caplog):
    """One counter per caller location (TF's: the first frame outside the calling file,
    here pytest's, so both functions count on the same token, as in TF)."""
    log.set_verbosity(log.INFO)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        for i in range(5):
            log.log_every_n(log.INFO, "every %d", 2, i)
        for i in range(3):
            log.log_first_n(log.INFO, "first %d", 7, i)
        log.log_if(log.INFO, "if %s", True, "yes")
        log.log_if(log.INFO, "if %s", False, "no")
    assert [r.getMessage() for r in caplog.records] == [
        "every 0",
        "every 2",
        "every 4",
        "first 0",
        "first 1",
        "if yes",
    ]


def test_flush_raises_as_tfs():
    with pytest.raises(NotImplementedError):
        log.flush()
