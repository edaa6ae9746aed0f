"""The math family: elementwise arithmetic, comparisons, logic, complex numbers, special functions.

Each module declares op records: kernel, shape rule, gradient, batching rule and cases.
"""
