"""Shared test set-up: the tests folder is importable (``import optable``)."""
