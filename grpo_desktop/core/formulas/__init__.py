"""The formulas: group advantages under each convention, the clipped policy loss, TRL's weighted
sum of reward functions.
"""
