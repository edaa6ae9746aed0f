"""Control flow: cond/case/switch_case and while_loop as functional If/While ops, their
gradients and batching rules, loop fusion, map_fn/scan, TensorArray and vectorized_map.
"""
