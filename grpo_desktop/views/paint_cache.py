"""Moved to ``render_cache``; this alias stays only until ``window/main_window.py`` and
``tests/window/test_paint_caches.py`` import from there (issue 27, item 4). Add nothing here."""

from grpo_desktop.views.render_cache import PaintCache, cache_paints

__all__ = ["PaintCache", "cache_paints"]
