"""Neural-network ops: relu, softmax, log_softmax, softplus, cross-entropy."""
