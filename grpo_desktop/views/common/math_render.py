"""Typeset mathematics in the views: LaTeX → SVG (ziamath) → Qt's SVG renderer, as vectors.

Why ziamath: pure Python wheels (no compiler, no TeX, no browser: it installs from the package
registry wherever PySide6 does), MIT, kept up (0.13, 2026), about 4 MB installed with its own
STIX Two Math font, and it knows the LaTeX the app writes (``\\frac``, ``\\sqrt``, ``\\sum``,
``\\bar``, ``\\text``, sub- and superscripts). Its SVG is drawn by ``QSvgRenderer`` (QtSvg is in
PySide6-Essentials) straight into the text's painter, so the math is as crisp as the text at every
zoom and screen scale. It loads on first use (``load_typesetter``): the first screen shows the
plain text and typesets right after it, so start-up does not pay for the import.

ziamath is pure Python, and slow enough to be felt: its import parses its font (100-150 ms) and
a new line takes 9-45 ms. After the first screen it is imported on a thread of its own
(``load_typesetter_in_background``), and the lines a click brings are typeset on one long-lived
thread (``TypesetLater``), so neither holds the GUI thread (a click) that long. That thread only
makes SVG text; the drawing (a ``QSvgRenderer``, a QObject) is made on the GUI thread. Drawing
now (``typeset``: a paint, a screenshot, ``TypesetLater.finish``) still typesets on the GUI
thread; one lock keeps ziamath to one thread at a time.

A typeset line is one inline object in a ``QTextDocument`` (``TypesetBrowser``): its character
format carries the LaTeX, the plain text and the colour. The plain text stays what Ctrl+C copies
and what a screen reader reads; Copy as LaTeX (Ctrl+Shift+L, context menu) copies the LaTeX.
A line the typesetter refuses is shown as its plain text, never as an error.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import types
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import (
    QByteArray,
    QMimeData,
    QObject,
    QRectF,
    QSizeF,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAccessible,
    QAction,
    QContextMenuEvent,
    QFontInfo,
    QGuiApplication,
    QKeySequence,
    QPainter,
    QPyTextObject,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QAccessibleWidget, QTextBrowser, QWidget

from grpo_desktop.views.common import accessible_events, gui_collector
from grpo_desktop.views.common.text_runs import draw_kept

__all__ = [
    "COPY_LATEX_SHORTCUT",
    "OBJECT_CHARACTER",
    "TypesetBrowser",
    "TypesetLater",
    "TypesetMath",
    "document_latex",
    "document_plain_text",
    "is_typeset",
    "load_typesetter",
    "math_format",
    "render_count",
    "typeset",
    "typesetter_loaded",
    "typesetting_busy",
]

#: The character an inline object stands on in a ``QTextDocument``.
OBJECT_CHARACTER = "\ufffc"
COPY_LATEX_SHORTCUT = QKeySequence("Ctrl+Shift+L")

MATH_OBJECT = QTextFormat.ObjectTypes.UserObject + 1
_LATEX = QTextFormat.Property.UserProperty + 1
_PLAIN = QTextFormat.Property.UserProperty + 2
_COLOUR = QTextFormat.Property.UserProperty + 3
_SIZE = QTextFormat.Property.UserProperty + 4  # the math's size over the document's font
_WIDTH_SHARE = QTextFormat.Property.UserProperty + 5  # the share of the line it may take

#: The size ziamath lays the math out at (px per em); drawing scales it to the text's size.
_LAYOUT_SIZE = 24.0
#: STIX Two Math looks smaller than the UI's sans-serif at one em: this matches their x-heights.
MATH_TO_TEXT = 1.12
_DRAWN_MATH = "typeset line"  # its kind in render_cache.DRAWINGS
_CACHE_SIZE = 512  # typeset lines kept: every line of a few hundred groups
FIRST_LINE_DELAY_MS = 20  # after a click's 60 Hz frame: its plain text shows, then the math

_typesetter: types.ModuleType | None = None  # published on the GUI thread (load_typesetter)
_imported: types.ModuleType | None = None  # ziamath once imported, on whichever thread
_unavailable = False
_import_lock = threading.Lock()  # one import at a time: the background thread's or the GUI's
_import_asked = False  # the typesetting thread was asked to import it
#: ziamath is used from one thread at a time: the typesetting thread or the GUI thread.
_typesetter_lock = threading.Lock()
#: Typeset lines by (latex, colour): their drawing; None when refused; or the SVG text the
#: typesetting thread drew, made into a drawing (a QObject: GUI thread only) when first asked.
_cache: OrderedDict[tuple[str, str], TypesetMath | str | None] = OrderedDict()
_renders = 0
#: The typesetting thread's jobs: a line's (latex, colour), or None: import ziamath.
_jobs: queue.SimpleQueue[tuple[str, str] | None] = queue.SimpleQueue()
_typesetting_thread: threading.Thread | None = None
#: The lines given to the typesetting thread and not back yet, and the TypesetLaters waiting
#: for each (held until it is back: a deleted one is skipped then).
_waiting: dict[tuple[str, str], list[TypesetLater]] = {}
_jobs_out = 0  # jobs given to the typesetting thread and not handed back (GUI thread only)
#: The GIL's switch interval while a job is out (Python's is 5 ms): the GUI thread, wanting the
#: GIL back from the typesetting thread, waits up to this long each time (a click's handling
#: takes it back many times). Measured with benchmarks/bench_typeset_stalls.py.
JOB_SWITCH_INTERVAL_S = 0.001
_switch_interval = 0.005  # the interval before the first job out, restored once none is


@dataclass(frozen=True)
class TypesetMath:
    """One typeset line: its vector drawing and its size in ems of the text around it."""

    renderer: QSvgRenderer
    width_em: float
    height_em: float


class _Courier(QObject):
    """Brings what the other threads did to the GUI thread (where it lives): the typesetter
    imported, a line's SVG drawn. Their signals reach it queued, as events of its thread."""

    imported = Signal()
    drawn = Signal(str, str, object)  # latex, colour, the SVG text (None: refused)

    def __init__(self) -> None:
        super().__init__()
        self.waiting_for_import: list[tuple[QObject, Callable[[], None]]] = []
        queued = Qt.ConnectionType.QueuedConnection
        self.imported.connect(self._deliver_import, queued)
        self.drawn.connect(self._deliver_drawing, queued)

    @Slot()
    def _deliver_import(self) -> None:
        _handed_back()
        load_typesetter()  # imported already: publishes it
        waiting, self.waiting_for_import = self.waiting_for_import, []
        for context, loaded in waiting:
            if shiboken6.isValid(context):
                loaded()

    @Slot(str, str, object)
    def _deliver_drawing(self, latex: str, colour: str, svg: str | None) -> None:
        _handed_back()
        key = (latex, colour)
        if key not in _cache:  # (typeset meanwhile on the GUI thread: that drawing stays)
            _keep(key, svg)
        for later in _waiting.pop(key, []):
            if shiboken6.isValid(later):
                later.arrived(key)


_the_courier: _Courier | None = None


def _courier() -> _Courier:
    """The courier, made on first use (by the GUI thread: every caller here runs on it)."""
    global _the_courier
    if _the_courier is None:
        _the_courier = _Courier()
    return _the_courier


def typesetter_loaded() -> bool:
    return _typesetter is not None


def typesetting_busy() -> bool:
    """Whether the typesetting thread has a job out: GUI-thread work meanwhile shares the GIL
    with it (a millisecond each way), so idle work that can wait should."""
    return _jobs_out > 0


def _import_typesetter() -> None:
    """Import ziamath once, on the thread that asks first (the other waits for it)."""
    global _imported, _unavailable
    with _import_lock:
        if _imported is not None or _unavailable:
            return
        # ziamath finds its font with importlib's deprecated path(): a warning to its makers,
        # not to a lecturer (nor a line in our log on every start).
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ziamath(\.|$)")
        try:
            import ziamath
        except Exception:  # not installed, or broken (a data file missing): plain text stays
            logging.getLogger(__name__).warning("typeset math unavailable", exc_info=True)
            _unavailable = True
            return
        ziamath.config.svg2 = False  # SVG 1.1 paths, as Qt's SVG Tiny renderer reads them
        _imported = ziamath


def load_typesetter() -> bool:
    """Import ziamath now (once; waits for an import under way on another thread); False, and
    plain text everywhere, if it cannot be imported."""
    global _typesetter
    _import_typesetter()
    _typesetter = _imported
    return _typesetter is not None


def load_typesetter_in_background(context: QObject, loaded: Callable[[], None]) -> None:
    """Import ziamath on the typesetting thread, then call ``loaded`` on the GUI thread (unless
    ``context`` is gone): its import parses a font for 100-150 ms of pure Python, which held the
    GUI thread (a click) that long. Loaded already or unavailable: ``loaded`` is called now."""
    global _import_asked
    if _typesetter is not None or _unavailable:
        loaded()
        return
    _courier().waiting_for_import.append((context, loaded))
    if not _import_asked:
        _import_asked = True
        _give(None)


def render_count() -> int:
    """How many lines have been typeset in this process (a cache hit adds none)."""
    return _renders


def _draw_svg(latex: str, colour: str) -> str | None:
    """ziamath's SVG of ``latex`` (any thread), or None when it refuses the LaTeX."""
    global _renders
    with _typesetter_lock:
        _renders += 1
        try:
            return str(_imported.Latex(latex, size=_LAYOUT_SIZE, color=colour).svg())
        except Exception:  # any refusal of the typesetter falls back to plain text
            return None


def _drawing(svg: str | None) -> TypesetMath | None:
    """The vector drawing of ``svg`` (GUI thread: a QSvgRenderer is a QObject)."""
    if svg is None:
        return None
    renderer = QSvgRenderer(QByteArray(svg.encode()))
    size = renderer.viewBoxF().size()
    if not (renderer.isValid() and size.width() > 0 and size.height() > 0):
        return None
    return TypesetMath(renderer, size.width() / _LAYOUT_SIZE, size.height() / _LAYOUT_SIZE)


def _keep(key: tuple[str, str], value: TypesetMath | str | None) -> None:
    _cache[key] = value
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)


def typeset(latex: str, colour: str) -> TypesetMath | None:
    """``latex`` drawn in ``colour``, from the cache when it was drawn before (the size is not
    part of the key: the drawing is vectors, scaled as it is painted). None when the typesetter
    is not loaded or refuses the LaTeX. GUI thread only."""
    key = (latex, colour)
    if key in _cache:
        _cache.move_to_end(key)
        kept = _cache[key]
        if not isinstance(kept, str):
            return kept
        math = _drawing(kept)  # drawn on the typesetting thread: its drawing made now
    elif _typesetter is None or not latex:
        return None
    else:
        math = _drawing(_draw_svg(latex, colour))
    _keep(key, math)
    return math


def is_typeset(latex: str, colour: str) -> bool:
    """Whether ``latex`` in ``colour`` was typeset already (drawing it costs nothing now)."""
    return (latex, colour) in _cache


def _typeset_on_thread(key: tuple[str, str], later: TypesetLater) -> None:
    """Have the typesetting thread draw ``key``'s SVG; ``later.arrived`` tells when it is in."""
    if key not in _waiting:
        _give(key)
    _waiting.setdefault(key, []).append(later)


def _give(job: tuple[str, str] | None) -> None:
    """Hand ``job`` to the typesetting thread (made on first use: one long-lived thread, jobs in
    the order given), with Python's garbage collector paused (``gui_collector``) and the GIL
    changing hands every millisecond (``JOB_SWITCH_INTERVAL_S``) until it is handed back.

    Paused, because a collection runs on whichever thread allocates when it is due, and one run
    on the typesetting thread freed Qt objects there: Qt's locks deadlocked against the GUI
    thread's. Paused, the GUI thread alone collects (the first allocation after the pause)."""
    global _typesetting_thread, _jobs_out, _switch_interval
    courier = _courier()
    if _jobs_out == 0:
        _switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(_switch_interval, JOB_SWITCH_INTERVAL_S))
        gui_collector.pause()
    _jobs_out += 1
    _jobs.put(job)
    if _typesetting_thread is None:
        _typesetting_thread = threading.Thread(
            target=_typeset_jobs, args=(courier,), name="typesetter", daemon=True
        )
        _typesetting_thread.start()


def _handed_back() -> None:
    """A job is back on the GUI thread: once none is out, the collector runs again and the GIL
    changes hands as often as before."""
    global _jobs_out
    _jobs_out -= 1
    if _jobs_out == 0:
        sys.setswitchinterval(_switch_interval)
        gui_collector.resume()


def _typeset_jobs(courier: _Courier) -> None:
    """The typesetting thread: pure Python, nothing of Qt but the courier's signals."""
    # Bound once: between a job handed back and waiting for the next, nothing is allocated here
    # (an allocation could start a collection on this thread once the collector runs again).
    next_job, imported, drawn = _jobs.get, courier.imported.emit, courier.drawn.emit
    try:
        while True:
            job = next_job()
            if job is None:
                _import_typesetter()
                imported()
            else:
                drawn(job[0], job[1], _draw_svg(job[0], job[1]))
    except RuntimeError:  # the courier is gone: the application is closing
        return


class TypesetLater(QObject):
    """Typesets the lines a click asked for after the click's frame, on the typesetting thread
    one line at a time, then calls ``ready`` once: a new line takes 9-45 ms of pure Python, which
    held the GUI thread (a click landing meanwhile) that long. Meanwhile they show as plain text."""

    def __init__(self, ready: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._ready = ready
        self._queue: dict[tuple[str, str], None] = {}
        self._on_thread: tuple[str, str] | None = None  # the line being typeset for it
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next)

    @property
    def waiting(self) -> bool:
        return bool(self._queue) or self._on_thread is not None

    def ask(self, latex: str, colour: str) -> None:
        key = (latex, colour)
        if latex and not is_typeset(latex, colour) and key != self._on_thread:
            self._queue[key] = None
            if not self._timer.isActive() and self._on_thread is None:
                self._timer.start(FIRST_LINE_DELAY_MS)  # the click's frame is painted first

    def finish(self) -> None:
        """Typeset everything asked for now (a screenshot, a test), then ``ready``."""
        self._timer.stop()
        if self._on_thread is not None:
            self._queue[self._on_thread] = None
            self._on_thread = None
        while self._queue:
            typeset(*self._queue.popitem()[0])
        self._ready()

    def drop(self) -> None:
        """Forget the lines asked for (their document is being replaced); no ``ready``."""
        self._timer.stop()
        self._queue.clear()
        self._on_thread = None

    def _next(self) -> None:
        while self._queue:
            key = next(iter(self._queue))
            del self._queue[key]
            if not is_typeset(*key):
                self._on_thread = key
                _typeset_on_thread(key, self)
                return
        self._ready()

    def arrived(self, key: tuple[str, str]) -> None:
        """``key``'s line is back from the typesetting thread (it is in the cache now)."""
        if key == self._on_thread:
            self._on_thread = None
            self._next()  # the next line, or ``ready``


def math_format(
    latex: str,
    plain: str,
    colour: str,
    base: QTextCharFormat | None = None,
    size: float = 1.0,
    width_share: float = 1.0,
    later: TypesetLater | None = None,
) -> QTextCharFormat | None:
    """The character format of a typeset line (insert ``OBJECT_CHARACTER`` with it), or None
    when the line cannot be typeset (not loaded, no LaTeX, refused): show ``plain`` then.

    ``size`` scales it against the document's font (a heading's 140 %); ``width_share`` is the
    share of the text's width it may take (a table cell's), shrinking it when wider. With
    ``later``, a line not typeset yet is not typeset now: None, and ``later`` is asked for it."""
    if later is not None and not is_typeset(latex, colour):
        if typesetter_loaded():
            later.ask(latex, colour)
        return None
    if typeset(latex, colour) is None:
        return None
    form = QTextCharFormat(base) if base is not None else QTextCharFormat()
    form.setObjectType(MATH_OBJECT)
    form.setProperty(_LATEX, latex)
    form.setProperty(_PLAIN, plain)
    form.setProperty(_COLOUR, colour)
    form.setProperty(_SIZE, float(size))
    form.setProperty(_WIDTH_SHARE, float(width_share))
    return form


def _is_math(form: QTextFormat) -> bool:
    return form.objectType() == MATH_OBJECT


class _MathObject(QPyTextObject):
    """Sizes and paints a typeset line inside a document's layout."""

    def intrinsicSize(self, document: QTextDocument, position: int, form: QTextFormat) -> QSizeF:
        math = typeset(str(form.property(_LATEX)), str(form.property(_COLOUR)))
        if math is None:
            return QSizeF(0, 0)
        em = QFontInfo(document.defaultFont()).pixelSize() * MATH_TO_TEXT
        em *= float(form.property(_SIZE) or 1.0) * math_scale(document)
        width, height = math.width_em * em, math.height_em * em
        if document.textWidth() > 0:
            block = document.findBlock(position).blockFormat()
            room = document.textWidth() - 2 * document.documentMargin()
            room -= block.leftMargin() + block.rightMargin() + block.textIndent()
            room *= float(form.property(_WIDTH_SHARE) or 1.0)
            if width > room > 0:  # never clipped: a long line is drawn smaller to fit
                height *= room / width
                width = room
        return QSizeF(width, height)

    def drawObject(
        self,
        painter: QPainter,
        rect: QRectF,
        document: QTextDocument,
        position: int,
        form: QTextFormat,
    ) -> None:
        latex, colour = str(form.property(_LATEX)), str(form.property(_COLOUR))
        math = typeset(latex, colour)
        if math is None:
            return

        def draw(target: QPainter, box: QRectF) -> None:
            target.setRenderHint(QPainter.RenderHint.Antialiasing)
            math.renderer.render(target, box)

        # Drawn once per size and blitted: a repaint of the worked math rendered every line's
        # vectors afresh (a twentieth of a click at 200 % zoom).
        draw_kept(painter, rect, (_DRAWN_MATH, latex, colour), draw)


def _pieces(document: QTextDocument, start: int, end: int) -> list[tuple[str, str]]:
    """(plain, latex) for each run of text between ``start`` and ``end``; latex is "" for text."""
    pieces: list[tuple[str, str]] = []
    block = document.findBlock(start)
    while block.isValid() and block.position() <= end:
        if pieces:
            pieces.append(("\n", ""))
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            low = max(start, fragment.position())
            high = min(end, fragment.position() + fragment.length())
            if low < high:
                form = fragment.charFormat()
                if _is_math(form):
                    pieces.append((str(form.property(_PLAIN)), str(form.property(_LATEX))))
                else:
                    text = fragment.text()[low - fragment.position() : high - fragment.position()]
                    pieces.append((text, ""))
            iterator += 1
        block = block.next()
    return pieces


def document_plain_text(document: QTextDocument, start: int = 0, end: int | None = None) -> str:
    """The document's text (or that of ``start``..``end``) with every typeset line as its plain
    text: what a screen reader reads and Ctrl+C copies."""
    stop = document.characterCount() - 1 if end is None else end
    text = "".join(plain for plain, _ in _pieces(document, start, stop))
    return text.replace("\u2029", "\n").replace("\u2028", "\n").replace("\xa0", " ")


def document_latex(document: QTextDocument, start: int = 0, end: int | None = None) -> str:
    """The LaTeX of the typeset lines (of ``start``..``end``), one line each."""
    stop = document.characterCount() - 1 if end is None else end
    return "\n".join(latex for _, latex in _pieces(document, start, stop) if latex)


class _TypesetAccessible(QAccessibleWidget):
    """A typeset text as a screen reader meets it: its words (the plain text), not pictures."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget, QAccessible.Role.StaticText, "")

    def text(self, kind: QAccessible.Text) -> str:
        widget = self.widget()
        if kind == QAccessible.Text.Value and isinstance(widget, TypesetBrowser):
            return widget.toPlainText()
        return super().text(kind)


class TypesetBrowser(QTextBrowser):
    """A read-only rich text whose math lines are typeset; copies plain text or LaTeX."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        accessible_events.register(type(self), _TypesetAccessible)
        register_math_objects(self.document())
        self._copy_latex_action = QAction("Copy as LaTeX", self)
        self._copy_latex_action.setShortcut(COPY_LATEX_SHORTCUT)
        self._copy_latex_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._copy_latex_action.triggered.connect(self.copy_latex)
        self.addAction(self._copy_latex_action)

    def toPlainText(self) -> str:  # Qt override (for Python callers): math as its plain text
        return document_plain_text(self.document())

    def shown_latex(self) -> str:
        """The LaTeX of the selected math lines, or of all of them when none is selected."""
        cursor = self.textCursor()
        if cursor.hasSelection():
            selected = document_latex(
                self.document(), cursor.selectionStart(), cursor.selectionEnd()
            )
            if selected:
                return selected
        return document_latex(self.document())

    def copy_latex(self) -> None:
        """Put ``shown_latex`` on the clipboard (nothing when no line is typeset)."""
        latex = self.shown_latex()
        if latex:
            QGuiApplication.clipboard().setText(latex)

    def createMimeDataFromSelection(self) -> QMimeData:  # Qt override: Ctrl+C, drag
        cursor = self.textCursor()
        text = document_plain_text(self.document(), cursor.selectionStart(), cursor.selectionEnd())
        # Made by Qt, not by Python: the clipboard keeps it until the process exits, and a
        # QMimeData made in Python is then deleted after the interpreter has gone (the app
        # crashed on quitting after a copy). Qt's own holds the selection's rich text, turned
        # into formats when first read (text() does), which clear() then drops: plain text only.
        data = super().createMimeDataFromSelection()
        data.text()
        data.clear()
        data.setText(text)
        return data

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # Qt override
        menu = self.createStandardContextMenu(event.pos())
        self._copy_latex_action.setEnabled(bool(document_latex(self.document())))
        menu.addAction(self._copy_latex_action)
        menu.exec(event.globalPos())
        menu.deleteLater()


_MATH_SCALE = "grpoMathScale"  # a document's dynamic property: all its math drawn this much smaller


def math_scale(document: QTextDocument) -> float:
    """How much smaller than its size the document draws its math (1: not at all)."""
    return float(document.property(_MATH_SCALE) or 1.0)


def set_math_scale(document: QTextDocument, scale: float) -> None:
    """Draw all the document's math ``scale`` times its size (a box too short for it)."""
    if scale != math_scale(document):
        document.setProperty(_MATH_SCALE, float(scale))
        document.markContentsDirty(0, document.characterCount())


_REGISTERED = "grpoMathObjects"  # a document's dynamic property: its layout knows math objects


def register_math_objects(document: QTextDocument) -> None:
    """Let ``document`` lay out and paint typeset lines (once per document)."""
    if document.property(_REGISTERED):
        return
    handler = _MathObject(document)  # a child of the document: lives as long as it does
    document.documentLayout().registerHandler(MATH_OBJECT, handler)
    document.setProperty(_REGISTERED, True)


def insert_math(cursor: QTextCursor, form: QTextCharFormat) -> None:
    """Insert one typeset line at ``cursor``."""
    cursor.insertText(OBJECT_CHARACTER, form)
