"""Errors reach the user: a per-user log file, and a dialog instead of a silent failure.

``grpo-desktop`` is a gui-script: on Windows it has no console, so a traceback printed to stderr is
lost (and ``sys.stderr`` may even be None, which makes ``print(..., file=sys.stderr)`` crash).
This module gives every run a log file and, once a ``QApplication`` exists, turns any uncaught
exception (including one raised inside a Qt slot, which PySide6 routes through
``sys.excepthook``) into one log entry with its traceback plus a dialog naming the error and the
log file. The app keeps running.

Use from the entry point::

    configure_logging()                   # early; pure Python, no Qt import
    log_path = install_error_handling(app)  # right after the QApplication exists

``log_file_path`` and ``configure_logging`` import no Qt (``grpo-desktop score`` stays Qt-free);
Qt is imported only by ``install_error_handling`` and the dialog.
"""

from __future__ import annotations

import contextlib
import getpass
import logging
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType
from typing import Any

APP_NAME = "GRPO Desktop"
LOGGER_NAME = "grpo_desktop"
LOG_FILE_NAME = "grpo-desktop.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUP_COUNT = 3
LOG_FORMAT = "%(asctime)s %(levelname)-8s %(name)s [%(threadName)s]: %(message)s"
DIALOG_TITLE = "GRPO Desktop hit a problem"
REPEAT_SECONDS = 5.0  # the same error again within this many seconds is logged, not shown again
MAX_SUMMARY_CHARS = 300
# Platforms with no screen a person looks at: a modal dialog there would wait forever.
HEADLESS_PLATFORMS = ("offscreen", "minimal")

logger = logging.getLogger(LOGGER_NAME)
qt_logger = logging.getLogger(f"{LOGGER_NAME}.qt")


# --- where the log lives ----------------------------------------------------------------------


def log_file_path(platform: str | None = None) -> Path:
    """This user's log file, where each desktop looks for an app's logs.

    Linux and other Unixes: ``$XDG_STATE_HOME/grpo-desktop/grpo-desktop.log`` (default
    ``~/.local/state``); Windows: ``%LOCALAPPDATA%\\GRPO Desktop\\Logs\\grpo-desktop.log``; macOS:
    ``~/Library/Logs/GRPO Desktop/grpo-desktop.log``. ``platform`` defaults to ``sys.platform``.
    """
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
        return base / APP_NAME / "Logs" / LOG_FILE_NAME
    if platform == "darwin":
        return Path.home() / "Library" / "Logs" / APP_NAME / LOG_FILE_NAME
    state = os.environ.get("XDG_STATE_HOME", "")
    # The XDG spec says a relative path is invalid and must be ignored.
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "grpo-desktop" / LOG_FILE_NAME


def fallback_log_path() -> Path:
    """A log file in the temp folder, for when the per-user folder cannot be created."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name (e.g. in some containers): still log somewhere
        user = "user"
    safe_user = "".join(c if c.isalnum() or c in "-_." else "_" for c in user) or "user"
    return Path(tempfile.gettempdir()) / f"grpo-desktop-{safe_user}.log"


# --- streams and logging ----------------------------------------------------------------------


_replaced_streams: list[Any] = []  # the devnull writers ensure_streams put in place


def ensure_streams() -> None:
    """Give None ``sys.stdout``/``sys.stderr`` a devnull writer so prints cannot crash the app.

    A Windows gui-script (pythonw) starts with both set to None; then any
    ``print(..., file=sys.stderr)`` raises AttributeError.
    """
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives for the run)
            setattr(sys, name, stream)
            _replaced_streams.append(stream)


def has_console() -> bool:
    """Whether stderr goes somewhere a person might read (not None, not our devnull stand-in)."""
    return sys.stderr is not None and not any(sys.stderr is s for s in _replaced_streams)


class _LogFileHandler(RotatingFileHandler):
    """Our rotating log file; a subclass so we find (and replace) exactly our own handlers."""


class _ConsoleHandler(logging.StreamHandler):
    """Warnings and errors to stderr, when there is a console to read them."""


def _our_handlers() -> list[logging.Handler]:
    return [h for h in logger.handlers if isinstance(h, (_LogFileHandler, _ConsoleHandler))]


def _open_log_file(path: Path) -> _LogFileHandler:
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    return _LogFileHandler(
        path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUP_COUNT, encoding="utf-8"
    )


def configure_logging(path: Path | None = None) -> Path:
    """Log the ``grpo_desktop`` logger to a rotating file (and stderr when a console exists).

    Returns the log file actually used: ``path`` (default ``log_file_path()``), or a file in the
    temp folder when that folder cannot be created or written. Never raises for an unwritable
    folder. Calling it again with the same path changes nothing; with another path it moves the
    log there.
    """
    console = has_console()
    ensure_streams()
    wanted = Path(path) if path is not None else log_file_path()
    for handler in _our_handlers():
        if isinstance(handler, _LogFileHandler) and Path(handler.baseFilename) == wanted.absolute():
            return wanted
    stop_logging()

    formatter = logging.Formatter(LOG_FORMAT)
    used: Path | None = None
    failures: list[str] = []
    for candidate in _candidates(wanted):
        try:
            file_handler = _open_log_file(candidate)
        except OSError as error:
            failures.append(f"{candidate}: {error}")
            continue
        file_handler.setFormatter(formatter)
        file_handler.setLevel(logging.DEBUG)
        logger.addHandler(file_handler)
        used = candidate
        break
    if console:
        console_handler = _ConsoleHandler(sys.stderr)
        console_handler.setFormatter(formatter)
        console_handler.setLevel(logging.WARNING)
        logger.addHandler(console_handler)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    for failure in failures:
        logger.warning("could not open the log file %s", failure)
    return used if used is not None else wanted


def _candidates(wanted: Path) -> list[Path]:
    try:
        return [wanted, fallback_log_path()]
    except Exception:  # no usable temp folder at all
        return [wanted]


def stop_logging() -> None:
    """Detach and close the handlers ``configure_logging`` added (tests; a clean shutdown)."""
    for handler in _our_handlers():
        logger.removeHandler(handler)
        handler.close()


def current_log_path() -> Path | None:
    """The log file being written, or None before ``configure_logging`` opened one."""
    for handler in _our_handlers():
        if isinstance(handler, _LogFileHandler):
            return Path(handler.baseFilename)
    return None


# --- uncaught exceptions ----------------------------------------------------------------------


ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def summarize(exc_type: type[BaseException], exc: BaseException | None) -> str:
    """One line naming the error: ``ZeroDivisionError: division by zero``."""
    text = " ".join(str(exc).split()) if exc is not None else ""
    summary = f"{exc_type.__name__}: {text}" if text else exc_type.__name__
    if len(summary) > MAX_SUMMARY_CHARS:
        summary = summary[: MAX_SUMMARY_CHARS - 1] + "…"
    return summary


def build_error_dialog(message: str, details: str, log_path: Path, parent: Any = None):
    """The QMessageBox ``show_error_dialog`` runs (separate so tests can inspect it unshown)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(DIALOG_TITLE)
    box.setTextFormat(Qt.TextFormat.PlainText)  # an error message is not HTML
    sentence = message if message.endswith((".", "!", "?", "…")) else f"{message}."
    box.setText(f"Something went wrong: {sentence}")
    box.setInformativeText(
        f"A report was written to {log_path}\n\n"
        f"{APP_NAME} is still running. If the lab looks wrong, reset it or restart the app; "
        "send the report file with a bug report."
    )
    box.setDetailedText(details)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    return box


def show_error_dialog(message: str, details: str, log_path: Path) -> None:
    """Show the error to the user (modal). Tests replace this module attribute."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    if QGuiApplication.platformName() in HEADLESS_PLATFORMS:
        # --screenshot and CI: nobody could close a modal dialog; the log has the report.
        logger.info("no screen to show the error dialog on; see the log entry above")
        return
    box = build_error_dialog(message, details, log_path, QApplication.activeWindow())
    box.exec()
    box.deleteLater()


class _ErrorHandling:
    """What ``install_error_handling`` changed, so ``uninstall_error_handling`` can undo it."""

    def __init__(self, app: Any, log_path: Path) -> None:
        self.app = app
        self.log_path = log_path
        self.gui_thread = threading.get_ident()
        self.previous_excepthook: Callable[..., Any] = sys.excepthook
        self.previous_threading_hook: Callable[..., Any] = threading.excepthook
        self.previous_qt_handler: Callable[..., Any] | None = None
        self.qt_handler_installed = False
        self.bridge: Any = None
        self.showing = False  # a dialog is open: further errors are only logged
        self.last_seen: dict[str, float] = {}
        self.lock = threading.Lock()
        self.local = threading.local()  # per-thread re-entry guard for the hooks themselves

    # Called from any thread.
    def should_show(self, message: str) -> bool:
        """True for the first of a run of identical errors (storm guard); records every one."""
        now = time.monotonic()
        with self.lock:
            for key, seen in list(self.last_seen.items()):
                if now - seen > REPEAT_SECONDS:
                    del self.last_seen[key]
            fresh = message not in self.last_seen
            self.last_seen[message] = now
        return fresh and not self.showing

    def handle(self, exc_info: ExcInfo, where: str) -> None:
        if getattr(self.local, "busy", False):
            return  # an error inside our own handling: never loop
        self.local.busy = True
        try:
            exc_type, exc, tb = exc_info
            logger.error("Uncaught exception %s", where, exc_info=exc_info)
            message = summarize(exc_type, exc)
            if not self.should_show(message):
                return
            details = "".join(traceback.format_exception(exc_type, exc, tb))
            if threading.get_ident() == self.gui_thread and _loop_level() == 0:
                # No event loop is running (start-up, or after exec returned): show it now.
                self.show(message, details)
            elif self.bridge is not None:
                # Inside the event loop or another thread: show it from the loop, not from the
                # middle of whatever Qt was doing (a paint event, a layout pass, another thread).
                self.bridge.requested.emit(message, details)
        except Exception:
            _log_quietly("error while handling an uncaught exception")
        finally:
            self.local.busy = False

    def show(self, message: str, details: str) -> None:
        """Run the (injectable) dialog; anything it raises is logged, never re-raised."""
        if self.showing:
            return
        self.showing = True
        try:
            show_error_dialog(message, details, self.log_path)
        except Exception:
            _log_quietly("the error dialog itself failed")
        finally:
            self.showing = False


_installed: _ErrorHandling | None = None


def _log_quietly(what: str) -> None:
    with contextlib.suppress(Exception):
        logger.exception(what)


def _loop_level() -> int:
    from PySide6.QtCore import QThread

    return QThread.currentThread().loopLevel()


def _excepthook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    handling = _installed
    if handling is None or issubclass(exc_type, KeyboardInterrupt):
        previous = handling.previous_excepthook if handling else sys.__excepthook__
        previous(exc_type, exc, tb)
        return
    handling.handle((exc_type, exc, tb), "in the GUI thread")


def _threading_excepthook(args: threading.ExceptHookArgs) -> None:
    handling = _installed
    if handling is None or args.exc_value is None or issubclass(args.exc_type, SystemExit):
        previous = handling.previous_threading_hook if handling else threading.__excepthook__
        previous(args)
        return
    name = args.thread.name if args.thread is not None else "unknown"
    handling.handle((args.exc_type, args.exc_value, args.exc_traceback), f"in thread {name}")


def _qt_level(mode: Any) -> int:
    from PySide6.QtCore import QtMsgType

    return {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }.get(mode, logging.WARNING)


def _qt_message_handler(mode: Any, context: Any, message: str) -> None:
    """Qt's own warnings go to the log at the matching level, then to any earlier handler."""
    with contextlib.suppress(Exception):
        qt_logger.log(_qt_level(mode), "%s", message)
    handling = _installed
    previous = handling.previous_qt_handler if handling is not None else None
    if previous is not None:
        previous(mode, context, message)  # e.g. pytest-qt's capture keeps working


def _make_bridge(handling: _ErrorHandling) -> Any:
    """A QObject in the GUI thread whose queued signal shows the dialog from the event loop."""
    from PySide6.QtCore import QObject, Qt, Signal, Slot

    class ErrorDialogBridge(QObject):
        requested = Signal(str, str)

        @Slot(str, str)
        def show_dialog(self, message: str, details: str) -> None:
            handling.show(message, details)

    bridge = ErrorDialogBridge()
    bridge.setObjectName("errorDialogBridge")
    # Queued even from the GUI thread: the dialog opens once the failing slot has returned.
    bridge.requested.connect(bridge.show_dialog, Qt.ConnectionType.QueuedConnection)
    return bridge


def install_error_handling(app: Any, log_path: Path | None = None) -> Path:
    """Log every uncaught exception and show it in a dialog; the app keeps running.

    Sets ``sys.excepthook`` and ``threading.excepthook`` and routes Qt's own messages to the log
    (chained to any handler already installed). Configures logging if nothing did yet. Returns
    the log file path the dialog names. Call ``uninstall_error_handling`` to undo it all.
    """
    global _installed
    from PySide6.QtCore import qInstallMessageHandler

    if _installed is not None:
        uninstall_error_handling()
    if log_path is not None:
        log_path = configure_logging(log_path)
    else:
        log_path = current_log_path() or configure_logging()
    handling = _ErrorHandling(app, log_path)
    handling.bridge = _make_bridge(handling)
    _installed = handling
    sys.excepthook = _excepthook
    threading.excepthook = _threading_excepthook
    handling.previous_qt_handler = qInstallMessageHandler(_qt_message_handler)
    handling.qt_handler_installed = True
    logger.info("%s started (%s); errors are reported to %s", APP_NAME, _versions(), log_path)
    return log_path


def uninstall_error_handling() -> None:
    """Put back the excepthooks and Qt message handler that were there before installing."""
    global _installed
    handling = _installed
    if handling is None:
        return
    _installed = None
    if sys.excepthook is _excepthook:
        sys.excepthook = handling.previous_excepthook
    if threading.excepthook is _threading_excepthook:
        threading.excepthook = handling.previous_threading_hook
    if handling.qt_handler_installed:
        from PySide6.QtCore import qInstallMessageHandler

        qInstallMessageHandler(handling.previous_qt_handler)
        handling.qt_handler_installed = False
    if handling.bridge is not None:
        handling.bridge.deleteLater()
        handling.bridge = None


def _versions() -> str:
    try:
        import PySide6
        from PySide6.QtCore import qVersion

        from grpo_desktop import __version__

        return (
            f"version {__version__}, Python {sys.version.split()[0]}, "
            f"PySide6 {PySide6.__version__}, Qt {qVersion()}, {sys.platform}"
        )
    except Exception:
        return sys.platform
