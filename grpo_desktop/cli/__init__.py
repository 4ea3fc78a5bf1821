"""The headless commands: score, loss, train, rollouts, lm (no Qt); common.py is what they share."""
