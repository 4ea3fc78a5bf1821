"""Moved to ``render_cache``; this alias stays only until ``window/main_window.py`` imports from
there (issue 27, item 4). Add nothing here."""

from grpo_desktop.views.render_cache import CachedScrollBar, CachedTabWidget, CachedToolBar

__all__ = ["CachedScrollBar", "CachedTabWidget", "CachedToolBar"]
