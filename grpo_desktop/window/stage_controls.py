"""On stage: themes, zoom, full screen and reduced motion, applied to the whole window at once.

Zoom, the theme's chrome scale and the screen scale set the application font (so menus, toolbar,
tabs, status bar, dialogs, cards, panels, charts and token chips grow together) and the theme's
type scale multiplies on top in the views; the Qt palette follows the theme so menus, combo boxes
and spin boxes match it too.

The screen scale is one rule for every text: a window larger than the 1280×800 the layout is
drawn for shows all of it larger, by the smaller of its width and height ratios (1920×1080:
1.35×, 3840×2160: 2.7×), in steps of ``SCREEN_STEP`` and never so large that the layout's
minimum outgrows the window (then the largest step that fits). It follows the window's size, so
full screen on a projector or a 4K monitor grows the tiles, prompt, lesson bar, toolbar, chart
ticks and tokens as the cards grow, and a window made smaller shrinks them back; a click never
changes it.

A zoom never makes the window larger than its screen (or than the size a screenshot asked for):
when the layout's minimum size at the requested zoom does not fit, the largest zoom step that does
is shown instead, and the status bar says so. The requested zoom stays the setting.
"""

from __future__ import annotations

import math
from typing import Protocol

from PySide6.QtCore import QSize, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QFont,
    QGuiApplication,
    QKeySequence,
    QScreen,
)
from PySide6.QtWidgets import (
    QApplication,
    QBoxLayout,
    QLayoutItem,
    QStackedWidget,
    QStatusBar,
    QWidget,
)

from grpo_desktop.core.common.theme import THEMES, Theme, get_theme
from grpo_desktop.model.settings import ZOOM_DEFAULT, ZOOM_MAX, ZOOM_MIN, AppSettings
from grpo_desktop.views.common.focus_ring import FocusRing
from grpo_desktop.views.common.fonts import SCREEN_SCALE_PROPERTY
from grpo_desktop.views.common.motion import set_reduced_motion
from grpo_desktop.views.common.theme_palette import palette_for
from grpo_desktop.window.zoom_descent import largest_fitting_zoom, zoom_for_room, zoom_ladder

ZOOM_STEP = 0.25
REFERENCE_SIZE = QSize(1280, 800)  # the window size the layout is drawn for at 1×
SCREEN_STEP = 0.05  # the screen scale's steps: a resize re-fonts only when it crosses one


def screen_scale_for(size: QSize) -> float:
    """How much larger than at 1280×800 a window of ``size`` shows its text (1 at most sizes
    up to that, never less than 1): the smaller of the two ratios, down to a ``SCREEN_STEP``."""
    ratio = min(size.width() / REFERENCE_SIZE.width(), size.height() / REFERENCE_SIZE.height())
    steps = math.floor(round(ratio / SCREEN_STEP, 6))
    return max(1.0, round(steps * SCREEN_STEP, 2))


BASE_SIZE_PROPERTY = "grpoBasePointSize"  # the application font's size before any scaling


def _base_point_size(app: QApplication | None) -> float:
    """The application font's size as the platform gave it, before any window zoomed or scaled
    it: kept on the application, so a second window (or one built after another closed) scales
    from the same base instead of from the first window's scaled font."""
    size = QGuiApplication.font().pointSizeF()
    if app is None:
        return size
    kept = app.property(BASE_SIZE_PROPERTY)
    if isinstance(kept, float) and kept > 0:
        return kept
    app.setProperty(BASE_SIZE_PROPERTY, size)
    return size


def needed_height(widget: QWidget, width: int) -> int:
    """The height ``widget`` needs at ``width`` px, wrapped text included.

    Qt's minimum sizes leave out text that wraps (its height depends on the width), and a stack's
    height-for-width is that of its tallest page; this walks vertical box layouts and counts only
    the page a stack shows.
    """
    if isinstance(widget, QStackedWidget):
        page = widget.currentWidget()
        return 0 if page is None else needed_height(page, width)
    layout = widget.layout()
    floor = widget.minimumSizeHint().expandedTo(widget.minimumSize()).height()
    if layout is None:
        return floor
    vertical = (QBoxLayout.Direction.TopToBottom, QBoxLayout.Direction.BottomToTop)
    if isinstance(layout, QBoxLayout) and layout.direction() in vertical:
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        heights = [_item_height(layout.itemAt(i), inner) for i in range(layout.count())]
        shown = [height for height in heights if height is not None]
        total = sum(shown) + layout.spacing() * max(0, len(shown) - 1)
        return max(floor, total + margins.top() + margins.bottom())
    if layout.hasHeightForWidth():
        return max(floor, layout.totalHeightForWidth(width))
    return floor


def _item_height(item: QLayoutItem, width: int) -> int | None:
    widget = item.widget()
    if widget is not None:
        if widget.isHidden() and not widget.sizePolicy().retainSizeWhenHidden():
            return None
        return needed_height(widget, width)
    if item.isEmpty():
        return None
    return item.heightForWidth(width) if item.hasHeightForWidth() else item.minimumSize().height()


class StageWindow(Protocol):
    """What the stage controls ask of the window: Qt's own calls, and re-styling for a theme."""

    def apply_theme(self, theme: Theme) -> None: ...

    def addAction(self, action: QAction) -> None: ...

    def statusBar(self) -> QStatusBar: ...

    def showFullScreen(self) -> None: ...

    def showNormal(self) -> None: ...

    def minimumSize(self) -> QSize: ...

    def minimumSizeHint(self) -> QSize: ...

    def screen(self) -> QScreen: ...

    def centralWidget(self) -> QWidget: ...

    def height(self) -> int: ...

    def size(self) -> QSize: ...

    def resize(self, size: QSize) -> None: ...


class StageControls:
    """Theme, zoom and full screen for one window, remembered in the settings."""

    def __init__(
        self, window: StageWindow, settings: AppSettings, built_in: Theme | None = None
    ) -> None:
        """``built_in``: the theme the window's views were built in, at the application's
        font as it is now; the first ``apply`` does not style them again for the same look."""
        self.window = window
        self.settings = settings
        app = QApplication.instance()
        self._base_point_size = _base_point_size(app)
        self._built_look = None if built_in is None else (built_in, QGuiApplication.font())
        self._app = app
        self.theme_name = settings.theme
        self.zoom = settings.zoom  # what the user asked for (remembered)
        self.shown_zoom = settings.zoom  # what fits: never more than ``zoom``
        self.screen_scale = 1.0  # what the window's size gives the text (see the module)
        self._wanted_screen_scale = 1.0  # what the window's size asked for when last fitted
        self._fitting = False  # applying fonts: the resizes that causes are not the user's
        self.released = False  # the window has closed: the application's font is left alone
        self.fit_size: QSize | None = None  # the size to fit; None: the window's screen
        # The zoom last shown for a zoom too large, per look and room: the next descent's guess.
        self._fitted_zooms: dict[tuple, float] = {}
        # A resize is fitted once its events have settled (a drag sends many), never per event.
        # The window owns the timer: it must never fire into a window that has been deleted.
        self._refit_timer = QTimer(window, interval=0, singleShot=True)
        self._refit_timer.timeout.connect(self.fit_window)

        self.theme_actions = QActionGroup(window)
        for theme in THEMES.values():
            action = QAction(theme.label, window, checkable=True, objectName=f"theme_{theme.name}")
            action.setData(theme.name)
            action.setStatusTip(f"Switch to the {theme.label.lower()} theme")
            self.theme_actions.addAction(action)
        self.theme_actions.triggered.connect(lambda action: self.set_theme(action.data()))

        self.zoom_in_action = self._action("Zoom in", "zoomIn", QKeySequence.StandardKey.ZoomIn)
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_in_action.triggered.connect(lambda: self.set_zoom(self.zoom + ZOOM_STEP))
        self.zoom_out_action = self._action("Zoom out", "zoomOut", QKeySequence("Ctrl+-"))
        self.zoom_out_action.triggered.connect(lambda: self.set_zoom(self.zoom - ZOOM_STEP))
        self.zoom_reset_action = self._action("Actual size", "zoomReset", QKeySequence("Ctrl+0"))
        self.zoom_reset_action.triggered.connect(lambda: self.set_zoom(ZOOM_DEFAULT))
        self.full_screen_action = self._action(
            "Full screen", "fullScreen", QKeySequence(QKeySequence.StandardKey.FullScreen)
        )
        self.full_screen_action.setShortcuts([QKeySequence("F11")])
        self.full_screen_action.setCheckable(True)
        self.full_screen_action.toggled.connect(self.set_full_screen)
        # View ▸ Reduce motion: the animation shows its steps at once, a training run advances
        # on key presses only, nothing slides (views.common.motion). Application-wide.
        self.reduce_motion_action = self._action(
            "Reduce motion", "reduceMotionAction", QKeySequence()
        )
        self.reduce_motion_action.setCheckable(True)
        self.reduce_motion_action.setStatusTip(
            "No moving pictures: the reward → advantage steps appear at once, a training run "
            "advances only when you press Play or Step, nothing slides"
        )
        self.reduce_motion_action.setToolTip(self.reduce_motion_action.statusTip())
        self.reduce_motion = settings.reduce_motion
        self.reduce_motion_action.setChecked(self.reduce_motion)
        set_reduced_motion(self.reduce_motion)
        self.reduce_motion_action.triggered.connect(self.set_reduce_motion)  # the user, not code
        # The keyboard focus, ringed in the theme's focus colour on every widget (3:1 or more
        # against every background in every theme: views.common.focus_ring).
        self.focus_ring = (
            FocusRing(window, get_theme(self.theme_name)) if isinstance(window, QWidget) else None
        )

    def _action(self, text: str, name: str, shortcut) -> QAction:
        action = QAction(text, self.window, objectName=name)
        action.setShortcut(QKeySequence(shortcut))
        self.window.addAction(action)
        return action

    def add_to_menu(self, menu) -> None:
        theme_menu = menu.addMenu("Theme")
        for action in self.theme_actions.actions():
            theme_menu.addAction(action)
        menu.addAction(self.zoom_in_action)
        menu.addAction(self.zoom_out_action)
        menu.addAction(self.zoom_reset_action)
        menu.addAction(self.full_screen_action)
        menu.addAction(self.reduce_motion_action)

    @property
    def theme(self) -> Theme:
        """The current theme with the zoom folded into its type scale."""
        return get_theme(self.theme_name)

    def apply(self) -> None:
        """Put the current theme, zoom and screen scale on the application and the window.

        Shows the largest zoom step (by ``ZOOM_STEP``, down from the one asked for) at which the
        window's minimum size fits the space available, so a zoom never pushes the status bar or
        the bottom rows off the screen; at each zoom the screen scale is the largest that the
        window's size allows (see the module).
        """
        theme = self.theme
        for action in self.theme_actions.actions():
            action.setChecked(action.data() == theme.name)
        if self.released:
            return  # a closed window restyles nothing: another window may own the look now
        QApplication.setPalette(palette_for(theme))
        if self.focus_ring is not None:
            self.focus_ring.set_theme(theme)
        available = self.available_size()
        room = self.window.size()
        zoom = self.zoom
        self._fitting = True
        try:
            if available is None:
                self._apply_fitting_screen_scale(theme, zoom, room)
            else:
                zoom = self._largest_fitting_zoom(theme, room.boundedTo(available), available)
        finally:
            self._fitting = False
        self.shown_zoom = zoom
        if available is not None and not self.full_screen_action.isChecked():
            size = self.window.size()
            if size.boundedTo(available) != size:  # a larger zoom had grown the window
                self.window.resize(size.boundedTo(available))
        self.zoom_in_action.setEnabled(self.zoom < ZOOM_MAX)
        self.zoom_out_action.setEnabled(self.zoom > ZOOM_MIN)

    def release(self) -> None:
        """The window is closing: give the application back the font it had before this window
        scaled it (a later window measures its own zoom and screen scale from that)."""
        self._refit_timer.stop()
        self.released = True
        if self._app is not None:
            self._app.setProperty(SCREEN_SCALE_PROPERTY, 1.0)
        font = QFont(QGuiApplication.font())
        if font.pointSizeF() != self._base_point_size:
            font.setPointSizeF(self._base_point_size)
            QApplication.setFont(font)

    def window_resized(self) -> None:
        """The window has a new size: fit the screen scale to it once the resizes settle."""
        if self._fitting or self.released:
            return
        if screen_scale_for(self.window.size()) != self._wanted_screen_scale:
            self._refit_timer.start()

    def fit_window(self) -> None:
        """Fit the screen scale to the window's size as it is now, keeping the zoom shown and
        the window's size (a trial font may grow the window; it is put back)."""
        self._refit_timer.stop()
        if self.released:
            return
        room = self.window.size()
        self._fitting = True
        try:
            self._apply_fitting_screen_scale(self.theme, self.shown_zoom, room)
        finally:
            self._fitting = False
        if self.window.size() != room and not self.full_screen_action.isChecked():
            self.window.resize(room)

    def _largest_fitting_zoom(self, theme: Theme, room: QSize, available: QSize) -> float:
        """Apply the largest zoom step, down from ``self.zoom``, at which the window fits
        ``available`` (``zoom_descent``: the same as trying each step from the top, in fewer
        relayouts), and return it."""
        # The fit depends on what is shown too (workspace, group size, lesson bar): the zoom
        # remembered is only a guess, checked as any other.
        setting = (theme.name, room.toTuple(), available.toTuple())
        setting += (self.full_screen_action.isChecked(),)
        measured: dict[float, QSize] = {}  # what each zoom that did not fit needed

        def fits(zoom: float) -> bool:
            if self._apply_fitting_screen_scale(theme, zoom, room) or zoom <= ZOOM_MIN:
                return True
            needed = measured[zoom] = self._needed_within(available)
            return needed.width() <= available.width() and needed.height() <= available.height()

        def guess(failed: float) -> float | None:
            remembered = self._fitted_zooms.get(setting)
            if len(measured) == 1 and remembered is not None and remembered < failed:
                return remembered  # still checked: it fits and the step above it does not
            return zoom_for_room(
                {zoom: size.toTuple() for zoom, size in measured.items()}, available.toTuple()
            )

        ladder = zoom_ladder(self.zoom, ZOOM_STEP, ZOOM_MIN)
        zoom = largest_fitting_zoom(ladder, fits, guess, self._first_try(ladder, setting, room))
        if zoom < self.zoom:
            if len(self._fitted_zooms) >= 64:
                self._fitted_zooms.clear()
            self._fitted_zooms[setting] = zoom
        return zoom

    def _first_try(self, ladder: list[float], setting: tuple, room: QSize) -> int:
        """Where the descent starts in ``ladder``: the step above the zoom last shown in the same
        setting when the window already fills the room (trying a larger zoom first could only
        grow it past the room, which is then taken back), else the zoom asked for."""
        remembered = self._fitted_zooms.get(setting)
        available = self.available_size()
        if remembered is None or available is None or room != available:
            return 0
        above = round(remembered + ZOOM_STEP, 2)
        return ladder.index(above) if above in ladder else 0

    def _apply_fitting_screen_scale(self, theme: Theme, zoom: float, room: QSize) -> bool:
        """Apply ``zoom`` with the largest screen scale up to the one ``room`` gives whose
        layout fits ``room``; True when a scale above 1 fits (1 is applied otherwise)."""
        wanted = screen_scale_for(room)
        self._wanted_screen_scale = wanted
        scale = wanted
        while scale > 1.0:
            self._apply_zoom(theme, zoom, scale)
            needed = self._needed_size()
            if needed.width() <= room.width() and needed.height() <= room.height():
                return True
            # Text sizes grow with the scale, fixed margins do not: this guess is never below
            # the largest scale that fits, so stepping down from it finds that one.
            shrink = min(room.width() / needed.width(), room.height() / needed.height())
            guess = math.floor(round(scale * shrink / SCREEN_STEP, 6)) * SCREEN_STEP
            scale = round(min(scale - SCREEN_STEP, guess), 2)
        self._apply_zoom(theme, zoom, 1.0)
        return False

    def _apply_zoom(self, theme: Theme, zoom: float, screen_scale: float = 1.0) -> None:
        self.screen_scale = screen_scale
        if self._app is not None:  # for the views that fit their own text (views.common.fonts)
            self._app.setProperty(SCREEN_SCALE_PROPERTY, screen_scale)
        font = QFont(QGuiApplication.font())
        font.setPointSizeF(self._base_point_size * zoom * theme.chrome_scale * screen_scale)
        built, self._built_look = self._built_look, None
        if built == (theme, font):
            return  # start-up: the views already look so (restyling them took 5 ms)
        QApplication.setFont(font)
        self.window.apply_theme(theme)

    def available_size(self) -> QSize | None:
        """The most room the window may take: ``fit_size``, else its screen's free area."""
        if self.fit_size is not None:
            return self.fit_size
        screen = self.window.screen()
        return None if screen is None else screen.availableGeometry().size()

    def _needed_within(self, available: QSize) -> QSize:
        """The least size the window's layout needs, measured with the window bounded to
        ``available``."""
        size = self.window.size()
        if size.width() > available.width() and not self.full_screen_action.isChecked():
            # A resize is clamped to the minimum of the fonts before: let the layout catch up
            # first, or a zoom several steps down would be measured at the last one's width.
            self._settled_minimum()
            size = self.window.size()
        if size.boundedTo(available) != size and not self.full_screen_action.isChecked():
            # Measured at the size it will be shown at: a layout's minimum can depend on its
            # width (wrapped text), and the window would be bounded to ``available`` anyway.
            self.window.resize(size.boundedTo(available))
        return self._needed_size()

    def _settled_minimum(self) -> QSize:
        """The window's minimum size hint once the layout has caught up with its fonts."""
        # New fonts post layout requests; run them (and the resizes they cause) until the
        # minimum settles (a large font change takes a few rounds).
        settled = None
        for _ in range(8):
            QApplication.sendPostedEvents()
            hint = self.window.minimumSizeHint()
            if hint == settled:
                break
            settled = hint
        return settled

    def _needed_size(self) -> QSize:
        """The least size the window's layout needs at the fonts it has now."""
        window = self.window
        needed = self._settled_minimum().expandedTo(window.minimumSize())
        # Text that wraps (the prompt, the tiles' notes) needs more height the narrower it is;
        # the main window's own minimum leaves that out, so ask the central layout at its width.
        central = window.centralWidget()
        if central is not None:
            chrome = window.height() - central.height()
            needed.setHeight(max(needed.height(), chrome + needed_height(central, central.width())))
        return needed

    def fit_to(self, size: QSize | None) -> None:
        """Fit the zoom to ``size`` (a screenshot's size) or, with None, to the screen."""
        self.fit_size = size
        self.apply()
        self._say_if_reduced()

    def _say_if_reduced(self) -> None:
        if self.shown_zoom < self.zoom:
            self.window.statusBar().showMessage(
                f"Zoom {self.zoom:.0%} does not fit this screen: showing {self.shown_zoom:.0%}",
                4000,
            )

    def set_theme(self, name: str, remember: bool = True) -> None:
        """Switch theme; ``remember=False`` (e.g. ``--theme`` for one run) keeps the setting."""
        get_theme(name)
        self.theme_name = name
        if remember:
            self.settings.theme = name
        self.apply()

    def set_zoom(self, zoom: float, remember: bool = True) -> None:
        zoom = round(min(ZOOM_MAX, max(ZOOM_MIN, zoom)), 2)
        if zoom == self.zoom:
            return
        self.zoom = zoom
        if remember:
            self.settings.zoom = zoom
        self.apply()
        self.window.statusBar().showMessage(f"Zoom {zoom:.0%}", 2000)
        self._say_if_reduced()

    def set_reduce_motion(self, on: bool, remember: bool = True) -> None:
        """Reduce motion everywhere (or allow it again); ``remember=False`` for one run."""
        on = bool(on)
        self.reduce_motion = on
        if remember:
            self.settings.reduce_motion = on
        if self.reduce_motion_action.isChecked() != on:
            self.reduce_motion_action.setChecked(on)  # triggered only by the user
        set_reduced_motion(on)

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.window.showFullScreen()
        else:
            self.window.showNormal()
        if self.full_screen_action.isChecked() != on:
            self.full_screen_action.setChecked(on)
