"""Execution: plans (pruned, rewritten, scheduled, in place), Session, traced functions.

How a graph runs; what an op computes is in ops/, control flow is in control_flow/.
"""
