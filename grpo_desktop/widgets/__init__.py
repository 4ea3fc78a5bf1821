"""Qt views: they render the lab state and emit *_requested signals; they never call core."""
