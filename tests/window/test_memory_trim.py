"""MemoryTrim: freed memory goes back to the system on a coarse timer, where glibc allows it."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QObject

from grpo_desktop.window.memory_trim import TRIM_INTERVAL_MS, MemoryTrim


def test_the_window_trims_every_few_seconds_on_linux(window):
    trim = window.memory_trim
    if sys.platform.startswith("linux") and trim.available:
        assert trim.timer.isActive() and trim.timer.interval() == TRIM_INTERVAL_MS
    trim.trim()  # callable at any time; never raises


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_a_trim_returns_freed_memory_so_rss_does_not_keep_it(qapp):
    trim = MemoryTrim(QObject())
    if not trim.available:
        pytest.skip("not glibc")

    def rss() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1])

    blocks = [bytearray(1000) for _ in range(30_000)]  # ~30 MB in small blocks
    del blocks[:-1]  # freed, but glibc keeps the pages for reuse
    kept = rss()
    trim.trim()
    assert rss() < kept
