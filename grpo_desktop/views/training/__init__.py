"""The Training workspace's widgets: the charts over steps, the frontier, the controls, a step's
groups.
"""
