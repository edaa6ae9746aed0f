"""The core: graph IR, context, op and gradient registries, batching, dtypes, shapes, errors, nest.

Everything else builds on it; it imports nothing from symgrad outside itself.
"""
