"""``tf.compat.v1.train``: ``tf.train``'s names (:mod:`symgrad.train`) and TF1's training
loop (``MonitoredSession``, the hooks, ``Scaffold``) and checkpoint reader
(:mod:`symgrad.compat.monitored`)."""

from __future__ import annotations

from typing import Any

from symgrad.compat.monitored.hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from symgrad.compat.monitored.reader import NewCheckpointReader, init_from_checkpoint
from symgrad.compat.monitored.session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
)
from symgrad.compat.monitored.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from symgrad.summary.records import read_events as summary_iterator
from symgrad.train import *  # noqa: F403  (tf.train's names)
from symgrad.train import __all__ as _train_all

__all__ = [
    *_train_all,
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "ChiefSessionCreator",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "NewCheckpointReader",
    "Scaffold",
    "SecondOrStepTimer",
    "SessionCreator",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "SingularMonitoredSession",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "init_from_checkpoint",
    "summary_iterator",
]


def __getattr__(name: str) -> Any:
    from symgrad import train
    from symgrad.core.missing import missing

    try:
        return getattr(train, name)
    except AttributeError:
        raise missing("tf.compat.v1.train", name) from None
