"""Mirror of ``tensorflow.python`` for the private names TF users import (seed 000)."""
