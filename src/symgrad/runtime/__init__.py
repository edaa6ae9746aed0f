"""Execution: compiled plans, Session, traced functions."""
