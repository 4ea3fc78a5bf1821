"""A chart's scene kept active, so showing its page paints it once, not once per chart.

Qt activates a graphics scene each time a view of it is shown in an active window (the view
sends the scene ``WindowActivate``; hiding sends ``WindowDeactivate``), and the scene then
activates its top-level items, unless it is already active: it counts activations. Every
``QGraphicsWidget`` (pyqtgraph's plot item, axes and view box) repaints itself when activated,
and the scene's queued update then makes its view deliver the window's pending repaint at once
(``QGraphicsView`` does that to paint promptly): showing the Training page painted the whole
page, then each chart again with the parts laid out after it, four times over (traced on
offscreen and xcb alike). A scene given one activation of its own when it is made never sees
its count fall to 0, so showing and hiding its view activates nothing and the page is painted
once. What activation changes is the palette's colour group and keyboard focus among items;
the charts draw with their own pens and take keys as widgets, so nothing they show changes.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QGraphicsView

__all__ = ["keep_scene_active"]


def keep_scene_active(view: QGraphicsView) -> None:
    """Give ``view``'s scene an activation of its own (see the module's note)."""
    scene = view.scene()
    if scene is not None:
        QCoreApplication.sendEvent(scene, QEvent(QEvent.Type.WindowActivate))
