"""The sparse family: ``IndexedSlices`` (a gather's gradient), segment reductions, and sums
of gradients that are zero but for one part.
"""
