"""Deleting the windows a test made once the test is over, so they stop costing later tests.

pytest-qt closes every widget a test registered and calls ``deleteLater``, but a deferred delete
runs only inside an event loop, which most tests never enter again: every window the suite made
stayed alive (24 top-level widgets each, plus about 28 parentless pyqtgraph menus), and each zoom
or theme change (``QApplication.setFont`` / ``setPalette``) restyled all of them. A 300 % layout
test took 3.5 s alone and 34–115 s late in the suite.

Deleting such windows blindly crashed a worker once: during the teardown of a scene a pyqtgraph
ViewBox emitted a signal into one of our Python slots, which touched an object already gone
("Signal source has been deleted", then a segfault). So a window is first made inert — no
signal of any of its objects or of its scenes' graphics objects reaches a slot any more — and
only then deleted, at once and in one place. A window that still runs a thread or a process, or
that a test left shown or parented, is left alone, as before.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, QProcess, QThread
from PySide6.QtWidgets import QGraphicsObject, QGraphicsView, QMenu, QWidget

# pyqtgraph keeps its context menus in these attributes, without a Qt parent: deleting the window
# does not delete them, and they stay top-level widgets until Python's cyclic collector runs.
PARENTLESS_MENU_ATTRIBUTES = ("menu", "ctrlMenu")


def dispose(widget: QWidget) -> bool:
    """Deletes ``widget`` now if that is safe; says whether it did."""
    if not shiboken6.isValid(widget) or widget.parent() is not None or widget.isVisible():
        return False
    if any(thread.isRunning() for thread in widget.findChildren(QThread)):
        return False
    if any(
        process.state() != QProcess.ProcessState.NotRunning
        for process in widget.findChildren(QProcess)
    ):
        return False
    menus = _silence(widget)
    shiboken6.delete(widget)
    for menu in menus:
        if shiboken6.isValid(menu):
            shiboken6.delete(menu)
    return True


def _silence(widget: QWidget) -> list[QMenu]:
    """Blocks the signals of the window, its objects and its scenes' graphics objects; returns
    the parentless pyqtgraph menus to delete with it."""
    menus: list[QMenu] = []
    for obj in (widget, *widget.findChildren(QObject)):
        obj.blockSignals(True)
    for view in widget.findChildren(QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        scene.blockSignals(True)
        for item in scene.items():
            if not isinstance(item, QGraphicsObject):
                continue
            item.blockSignals(True)
            for name in PARENTLESS_MENU_ATTRIBUTES:
                menu = getattr(item, name, None)
                if isinstance(menu, QMenu) and menu.parent() is None:
                    menus.append(menu)
    return menus
