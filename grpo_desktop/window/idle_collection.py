"""Python's garbage collector run in idle time, so that a click does not run it.

CPython collects its youngest objects once 700 more have been made than freed, wherever that
happens to fall. A lab click makes about 130; typesetting a line of the worked math and drawing
the next toggles ahead (idle time after a click) make thousands more, which then waited for the
next click: at 200 % zoom, G = 64, about every other click ran a collection of 0.5-5 ms inside
its frame, and now and then a full one. Once the lab has drawn ahead, idle time collects the
young objects (0.4-1 ms), or everything when the next automatic pass would be a full one
(1.3-8 ms, the objects made since ``gc.freeze`` at start-up): the next click starts with none
due. Clicks faster than the drawing ahead get the automatic collections, as before.
"""

from __future__ import annotations

import gc

__all__ = ["collect_while_idle", "freeze_long_lived"]


def collect_while_idle() -> int:
    """Collect what an automatic pass would soon collect in a click; returns the generation
    collected (-1: nothing was due, or the collector is off)."""
    if not gc.isenabled():
        return -1
    young, middle, old = gc.get_count()
    if old >= gc.get_threshold()[2] - 1:  # the next middle-aged pass would start a full one
        gc.collect(2)
        return 2
    if young or middle:
        gc.collect(1)
        return 1
    return -1


def freeze_long_lived() -> None:
    """Keep what is alive now out of the collector's full passes: the app calls this once the
    Update and Training pages are built in idle time (they live as long as the window, like
    what ``gc.freeze`` kept at start-up). Their 41,000 objects made a full pass cost 27 ms of
    CPU, which then fell in whatever frame ran it; after this, 0.01 ms. The young garbage is
    collected first, so that little is kept for good."""
    gc.collect(1)
    gc.freeze()
