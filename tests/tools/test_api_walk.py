"""The API walk that makes the README's table and the signature test's list of names."""

from __future__ import annotations

import symgrad as tf
from symgrad.tools import api


def _resolve(path: str) -> object:
    obj: object = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_every_walked_path_resolves_to_its_object() -> None:
    walked = api.walk()
    for path, obj in walked.items():
        assert _resolve(path) is obj, path


def test_walk_enters_every_namespace_and_its_fallbacks() -> None:
    walked = api.walk()
    for path in (
        "tf.compat.v1.nn.dropout",  # TF1's, defined in compat.v1
        "tf.compat.v1.nn.relu",  # tf.nn's, reached through the fallback
        "tf.compat.v1.losses.huber_loss",
        "tf.compat.v1.metrics.auc",
        "tf.compat.v2.GradientTape",
        "tf.keras.optimizers.schedules.ExponentialDecay",
        "tf.optimizers.Adam",
        "tf.random.experimental.stateless_split",
    ):
        assert path in walked, path
    assert walked["tf.compat.v1.nn.dropout"] is not walked["tf.nn.dropout"]
    assert "tf.compat.v1.nn.gelu" not in walked and "tf.compat.v2.placeholder" not in walked


def test_kinds_split_the_walk_in_three() -> None:
    assert api.kind("tf.nn.dropout") == api.TF2
    assert api.kind("tf.placeholder") == api.TF1 == api.kind("tf.compat.v1.placeholder")
    assert api.kind("tf.why_none") == api.SYMGRAD == api.kind("tf.config.set_atomic_runs")
    sections = api.by_kind()
    assert "placeholder" in sections[api.TF1]["tf"]
    assert "why_none" in sections[api.SYMGRAD]["tf"]
    assert not any(ns.startswith("tf.compat.v2") for groups in sections.values() for ns in groups)
