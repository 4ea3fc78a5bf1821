"""GRPO Desktop: a live lab for how GRPO scores a group of sampled answers."""

__version__ = "0.1.0"
