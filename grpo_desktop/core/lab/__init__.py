"""The Lab: problems and the checker, a group's rewards, its snapshot and explanation, reward
patterns, mementos.
"""
