"""The linear-algebra family: matmul, einsum/tensordot, diagonals, decompositions, solves,
determinants, least squares and the matrix exponential.
"""
