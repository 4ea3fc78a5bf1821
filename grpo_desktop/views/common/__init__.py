"""Shared by every workspace's widgets: fonts, the render cache, pyqtgraph's fence, chart bars and
captions, accessibility, forms, the lesson bar.
"""
