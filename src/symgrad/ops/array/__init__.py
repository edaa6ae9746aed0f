"""The array family: shape and layout, slicing, joining and splitting, gathers and scatters,
padding, sorting, and the list ops behind TensorArray.
"""
