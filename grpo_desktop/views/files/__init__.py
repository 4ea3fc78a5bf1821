"""Widgets over files: the rollouts browser and the exported figures."""
