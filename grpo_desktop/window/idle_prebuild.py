"""The other workspaces' pages, built in idle time after the first paint: a first switch only shows.

A lecturer's first Ctrl+U or Ctrl+T used to build the Update or Training page then and there
(imports, the state and its first snapshot, the views, the first layout and paint: 0.25–0.65 s,
over 1.5 s on a busy machine). :class:`IdlePrebuild` does that work ahead, once the window has
painted: each workspace that asks for it (``idle_prebuild`` in ``workspace.py``) builds its page
a step at a time (:meth:`build_steps`), and the page is then laid out at the page stack's size
and painted once off screen (each graphics view, then the rest in small parts, a few per step),
so the switch finds its layout, pyqtgraph's axis pictures and the glyph caches ready. One step
per turn of the event loop (a zero timer between them; small steps share a turn up to
:data:`TURN_BUDGET_S`), so a key or click waits for that budget and one step at most (the Training
page's are each well under a frame); a key, click or wheel pauses the work
until the user has been quiet for :data:`RESUME_AFTER_MS` after what they asked for was done,
and a hidden or closed window stops it.

Nothing a user sees changes: the pages stay hidden, the states compute no more than the page's
first render asks (their gates stay shut, so a hidden run never plays or steps), and nothing goes
on the undo stack. ``GRPO_DESKTOP_PREBUILD=0`` turns it off (pages are then built on first use,
as before; ``benchmarks/bench_first_switch.py --compare`` measures both).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import QMoveEvent, QPixmap, QRegion, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsView,
    QGraphicsWidget,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from grpo_desktop.views.common.math_render import typesetting_busy
from grpo_desktop.window.workspace import Workspace

__all__ = ["PREBUILD_ENV", "IdlePrebuild", "prebuild_enabled"]

PREBUILD_ENV = "GRPO_DESKTOP_PREBUILD"  # 0 (or off, no, false): pages are built on first use
AFTER_FIRST_PAINT_MS = 150  # the window's deferred features (lessons, exports, typesetting)
START_AFTER_MS = 300  # after the window's first paint: its deferred features go first
RESUME_AFTER_MS = 400  # the user's last key, click or wheel turn, before building goes on
PIECE_WIDGETS = 12  # a part of a page with fewer widgets than this is painted in one piece
PAINT_STEP_WIDGETS = 10  # pieces painted in one step: this many widgets in all, at most
# A part taller than this and larger than PAINT_BAND_AREA is painted in bands of this height, a
# band a piece: the Update page's token rows drew every chip on screen for the first time in
# one piece (10-15 ms).
PAINT_BAND_PX = 160
PAINT_BAND_AREA = 120_000
# Another step follows in the same turn of the event loop while the turn has taken less than
# this: small steps (most of the Training page's) do not each wait for a turn of their own.
TURN_BUDGET_S = 0.004
# While the typesetting thread works (its import and the worked math's first lines, right after
# the first paint), a step shares the GIL with it: the longest step took 11-14 ms, 6.5-6.7 ms
# when the steps wait for it (four runs each), this long at a time, at most TYPESETTER_WAITS
# times in all (a line the typesetter is slow on does not hold the pages back for long).
TYPESETTER_WAIT_MS = 10
TYPESETTER_WAITS = 100
# A graphics view is painted again while its scene's layout moved after the paint before
# (pyqtgraph's axes size themselves to the labels they draw), at most this many times in all.
SETTLE_PAINTS = 3
USER_INPUT = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease,
        QEvent.Type.ShortcutOverride,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
        QEvent.Type.TouchUpdate,
        QEvent.Type.TouchEnd,
    }
)


def prebuild_enabled() -> bool:
    """False when ``GRPO_DESKTOP_PREBUILD`` says 0, off, no or false."""
    value = os.environ.get(PREBUILD_ENV, "1").strip().lower()
    return value not in ("0", "off", "no", "false")


class IdlePrebuild(QObject):
    """Builds, lays out and paints once the pages of ``workspaces`` (those that ask for it) in
    idle time, a step per turn of the event loop, starting :data:`START_AFTER_MS` after the
    window's first paint."""

    finished = Signal()
    # 150 ms after the window's first paint: what must not delay that paint starts then
    after_first_paint = Signal()

    def __init__(
        self, window: QWidget, pages: QStackedWidget, workspaces: Iterable[Workspace]
    ) -> None:
        super().__init__(window)
        self._window = window
        self._pages = pages
        self._workspaces = tuple(ws for ws in workspaces if getattr(ws, "idle_prebuild", False))
        self._steps: Iterator[str] | None = None
        self._done = False
        self._watching = False  # the application's input goes through eventFilter
        self.slices: list[tuple[str, float]] = []  # each step's name and wall time, in order
        self.slice_workspaces: list[str] = []  # the workspace each of those steps built
        self.began_at: float | None = None  # perf_counter() at its first step (benchmarks)
        self._building = ""  # the workspace whose page the steps build now
        self._painted = False  # the window's first paint was seen
        self._typesetter_waits = 0  # turns put off while the typesetting thread worked
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next_step)
        window.installEventFilter(self)  # until its first paint

    @property
    def running(self) -> bool:
        """Started and not finished or stopped (it may be paused for the user)."""
        return self._steps is not None

    @property
    def done(self) -> bool:
        """Every page it was given is built, laid out and painted once."""
        return self._done

    def start(self, delay_ms: int = START_AFTER_MS) -> None:
        """Begin after ``delay_ms`` (once; nothing when ``GRPO_DESKTOP_PREBUILD=0``)."""
        if self._steps is not None or self._done or not prebuild_enabled():
            return
        self._steps = self._all_steps()
        self._timer.start(delay_ms)

    def stop(self) -> None:
        """Give up what is left (a page begun is finished when it is first asked for)."""
        self._timer.stop()
        self._steps = None
        app = QApplication.instance()
        if app is not None and self._watching:
            app.removeEventFilter(self)
        self._watching = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if watched is self._window and kind == QEvent.Type.Paint and not self._painted:
            # Once: the application-wide filter the steps install sees the window's later
            # paints too, and each had set the features installing again (a click's repaint
            # of the window paid 1-2 ms for it while the prebuild waited for quiet).
            self._painted = True
            self._window.removeEventFilter(self)
            QTimer.singleShot(AFTER_FIRST_PAINT_MS, self, self.after_first_paint.emit)
            self.start()  # counted from the first paint: a slow first paint delays it too
        elif kind in USER_INPUT and self._steps is not None:
            # The user acts: nothing until they are quiet, counted from when what they asked
            # for is done (a zero timer fires once this event's handling has returned).
            self._timer.stop()
            QTimer.singleShot(0, self, self._wait_for_quiet)
        return False

    def _wait_for_quiet(self) -> None:
        if self._steps is not None:
            self._timer.start(RESUME_AFTER_MS)

    def _next_step(self) -> None:
        if self._steps is None:
            return
        if not self._window.isVisible():
            self.stop()  # closed or hidden: nobody will switch
            return
        if not self._watching:  # from the first step on (not during the first paint)
            QApplication.instance().installEventFilter(self)  # keys and clicks pause it
            self._watching = True
        if QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            self._timer.start(RESUME_AFTER_MS)  # a drag goes on
            return
        if typesetting_busy() and self._typesetter_waits < TYPESETTER_WAITS:
            self._typesetter_waits += 1
            self._timer.start(TYPESETTER_WAIT_MS)
            return
        turn = time.perf_counter()
        if self.began_at is None:
            self.began_at = turn
        while True:  # steps of a few milliseconds: a few of them share a turn
            start = time.perf_counter()
            try:
                name = next(self._steps)
            except StopIteration:
                self.stop()
                self._done = True
                self.finished.emit()
                return
            self.slices.append((name, time.perf_counter() - start))
            self.slice_workspaces.append(self._building)
            if time.perf_counter() - turn >= TURN_BUDGET_S:
                break
        self._timer.start(0)  # the next step on the next turn of the event loop

    def _all_steps(self) -> Iterator[str]:
        for workspace in self._workspaces:
            if workspace.built:
                continue  # built when first asked for (shown since, or about to be)
            self._building = workspace.name
            yield from workspace.build_steps()  # type: ignore[attr-defined]
            page = workspace.page
            if not page.isVisible():
                yield from self._lay_out_and_paint(page)

    def _lay_out_and_paint(self, page: QWidget) -> Iterator[str]:
        """Lay ``page`` out where the stack will show it and paint it once off screen: what a
        first showing does (its pending resize events, its layouts' first pass, pyqtgraph's
        ranges and axis pictures, the fonts' glyphs), so the switch finds it done."""
        shown = self._pages.currentWidget()
        if shown is None or page.isVisible():
            return
        page.setGeometry(shown.geometry())
        page.ensurePolished()
        yield "polish"
        for widget in _tree(page):
            _send_pending_geometry(widget)
            layout = widget.layout()
            if layout is not None:
                layout.activate()
            elif isinstance(widget, QSplitter):
                # A splitter hides the handle of a hidden part when it is shown: a part hidden
                # while the page was (Update's spillover chart) kept its handle, so the switch
                # resized the token rows by the handle's width and painted the page twice.
                widget.refresh()
        yield "first layout"  # what waits on it (splitter balances) runs before the next step
        if page.isVisible():
            return
        for view in page.findChildren(QGraphicsView):
            if not view.isVisibleTo(page):
                continue
            name = view.objectName() or type(view).__name__
            for attempt in range(SETTLE_PAINTS):
                view.grab()  # its axes' pictures and its items' paths, cached by pyqtgraph
                painted = _scene_geometry(view)
                # The layout the drawing asked for (an axis resized to its labels), now: the
                # next step may share this turn, and it would find the plot as it was painted
                # while the layout still waited (then it dropped the axis's drawing, hidden).
                _lay_out_scene(view)
                yield f"paint {name}" + (f" again ({attempt + 1})" if attempt else "")
                if page.isVisible():
                    return
                # The drawing moved its layout (an axis learns its labels' width as it draws
                # them, in a layout request handled since): paint it as it now stands, or the
                # switch's first paint redraws it, moves it again and paints it twice more.
                if _scene_geometry(view) == painted:
                    break
        # The rest in pieces (the whole page at once took 20–35 ms), several to a step: one
        # render of the page limited to their region. Each render of a hidden page first lays
        # out the whole window again (Qt's prepareToRender), 1-5 ms whatever it paints, so a
        # render per piece spent most of its time there (the Training page's 49 pieces: 120-230
        # ms one by one, 9-10 ms as one region). The caches they fill (glyphs, the style's
        # pixmaps) are the ones the page's first showing paints from.
        pieces = [band for part in _paint_pieces(page) for band in _bands(part)]
        yield from _paint_in_batches(page, pieces)


def _paint_in_batches(page: QWidget, pieces: list[tuple[QWidget, QRect | None]]) -> Iterator[str]:
    """Paint ``pieces`` of the hidden ``page`` off screen, a batch a step: pieces of at most
    :data:`PAINT_STEP_WIDGETS` widgets in all, or a band alone (a band of token chips costs a
    batch's worth). Counted in widgets: a pixel's cost varies too much to budget by area (a
    spin box's several times a label's)."""
    ratio = page.devicePixelRatioF()
    canvas = QPixmap((QSizeF(page.size()) * ratio).toSize())
    canvas.setDevicePixelRatio(ratio)
    flags = QWidget.RenderFlag.DrawWindowBackground | QWidget.RenderFlag.DrawChildren
    start = 0
    while start < len(pieces):
        if page.isVisible():
            return
        region = QRegion()
        widgets = 0
        end = start
        while end < len(pieces):
            widget, band = pieces[end]
            more = 1 + len(widget.findChildren(QWidget))
            alone = band is not None or pieces[start][1] is not None
            if end > start and (alone or widgets + more > PAINT_STEP_WIDGETS):
                break
            rect = widget.rect() if band is None else band
            region += rect.translated(widget.mapTo(page, QPoint(0, 0)))
            widgets += more
            end += 1
        QWidget.render(page, canvas, QPoint(0, 0), region, flags)  # not the page's render()
        widget, band = pieces[start]
        first = widget.objectName() or type(widget).__name__
        if band is not None:
            first += f" ({band.top()}–{band.bottom() + 1} px)"
        more_named = f" and {end - start - 1} more" if end - start > 1 else ""
        yield f"paint {page.objectName()}: {first}{more_named}"
        start = end


def _paint_pieces(page: QWidget) -> list[QWidget]:
    """The parts of ``page`` to paint one at a time, in reading order: each subtree of at
    most :data:`PIECE_WIDGETS` widgets and no graphics view (those are painted on their own)
    whole, a larger one through its children. Hidden parts are left out."""
    pieces: list[QWidget] = []

    def walk(widget: QWidget) -> None:
        children = [
            child
            for child in widget.children()
            if isinstance(child, QWidget) and not child.isWindow() and child.isVisibleTo(page)
        ]
        for child in children:
            if isinstance(child, QGraphicsView):
                continue
            inside = child.findChildren(QWidget)
            if len(inside) < PIECE_WIDGETS and not any(
                isinstance(part, QGraphicsView) for part in inside
            ):
                pieces.append(child)
            else:
                walk(child)

    walk(page)
    return pieces


def _bands(widget: QWidget) -> list[tuple[QWidget, QRect | None]]:
    """``widget`` to paint whole (None), or in bands :data:`PAINT_BAND_PX` tall when it is
    taller than that and larger than :data:`PAINT_BAND_AREA` (a band paints only what it
    covers: the token rows' chips of those lines)."""
    width, height = widget.width(), widget.height()
    if height <= PAINT_BAND_PX or width * height <= PAINT_BAND_AREA:
        return [(widget, None)]
    return [
        (widget, QRect(0, top, width, min(PAINT_BAND_PX, height - top)))
        for top in range(0, height, PAINT_BAND_PX)
    ]


def _lay_out_scene(view: QGraphicsView) -> None:
    """Deliver the layout requests ``view``'s scene has waiting (its items' layouts post them)."""
    scene = view.scene()
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, QGraphicsWidget):
            QApplication.sendPostedEvents(item, QEvent.Type.LayoutRequest)


def _scene_geometry(view: QGraphicsView) -> list[tuple[float, float, float, float]]:
    """Where the laid-out items of ``view``'s scene (its plot, axes, view box) stand."""
    scene = view.scene()
    if scene is None:
        return []
    return [
        item.geometry().getRect() for item in scene.items() if isinstance(item, QGraphicsWidget)
    ]


def _tree(widget: QWidget) -> list[QWidget]:
    """``widget`` and its child widgets (not windows, nor what is inside them), each before its
    children: one search in C++ (walking ``children()`` from Python wrapped every child object,
    layouts and actions too, 1-2 ms a page)."""
    window = widget.window()
    return [widget] + [child for child in widget.findChildren(QWidget) if child.window() is window]


def _send_pending_geometry(widget: QWidget) -> None:
    """The move and resize events a hidden widget's geometry changes leave for its first show
    (Qt sends them then, as here, and clears the same flags)."""
    pending_move = Qt.WidgetAttribute.WA_PendingMoveEvent
    pending_resize = Qt.WidgetAttribute.WA_PendingResizeEvent
    if widget.testAttribute(pending_move):
        QApplication.sendEvent(widget, QMoveEvent(widget.pos(), widget.pos()))
        widget.setAttribute(pending_move, False)
    if widget.testAttribute(pending_resize):
        QApplication.sendEvent(widget, QResizeEvent(widget.size(), QSize()))
        widget.setAttribute(pending_resize, False)
