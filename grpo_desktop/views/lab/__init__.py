"""The Lab's widgets: trace cards and their grid, stats, banner, problem and math panels, the
advantage chart and its animation, rewards, the problem editor.
"""
