"""The reduction family: Sum/Mean/Max/Min/Prod/Any/All, arg-reductions, scans, norms,
statistics and counting.
"""
