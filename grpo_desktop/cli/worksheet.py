"""``grpo-desktop worksheet``: a lesson's printable worksheet (or its answer key) as a PDF.

A lecturer prints the handouts the night before, from a terminal or a script, with no window
and no display: Qt's PDF writer needs only a ``QGuiApplication`` on the offscreen platform, which
is chosen before Qt loads. The worksheet's content comes from the core
(:mod:`grpo_desktop.core.files.worksheet`), its drawing from ``window/worksheet_pdf.py`` (QtGui
only). The target is checked before anything is drawn and written atomically after, so a bad
path costs nothing and a failure never leaves half a PDF.

Statuses: 0 written; 2 a bad argument (an unknown lesson, a folder, FIFO or device as ``--out``);
1 the file could not be written (a missing folder, no permission, a full disk).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from grpo_desktop.cli.common import AsciiArgumentParser, write_text
from grpo_desktop.core.common.atomic import write_bytes_atomically, write_target
from grpo_desktop.core.common.jsonfile import kind_of_file
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.files.lessons import LessonError, load_lessons

PROG = "grpo-desktop worksheet"
PAPER_CHOICES = ("a4", "letter")
EXIT_USAGE = 2
EXIT_WRITE = 1


class WorksheetUsageError(ValueError):
    """An argument no worksheet can be made from: one line, status 2."""


def build_worksheet_parser() -> AsciiArgumentParser:
    parser = AsciiArgumentParser(
        prog=PROG,
        description=(
            "Write a lesson's printable predict-and-observe worksheet as a PDF: per step the "
            "question to answer before the reveal, the figure the step shows, blank tables and "
            "room to write. --answers writes the answer key, with the app's own numbers."
        ),
    )
    parser.add_argument("--lesson", required=True, metavar="ID", help="a shipped lesson's id")
    parser.add_argument("--out", required=True, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument(
        "--answers", action="store_true", help="the answer key instead of the student's sheet"
    )
    parser.add_argument(
        "--paper",
        default="a4",
        choices=PAPER_CHOICES,
        help="a4 (default) or letter",
    )
    return parser


def check_lesson_id(lesson_id: str) -> None:
    """Unknown ids are a usage error that lists the valid ones."""
    try:
        ids = [lesson.id for lesson in load_lessons()]
    except LessonError as error:
        raise WorksheetUsageError(str(error)) from None
    if lesson_id not in ids:
        raise WorksheetUsageError(
            f"unknown lesson {visible(lesson_id)!r}; choose from: {', '.join(ids)}"
        )


def check_out_path(path: str) -> None:
    """Refuse a folder, a FIFO or a device as ``--out`` before anything is drawn (writing into
    a FIFO could block forever; replacing a device would swap it for a file)."""
    try:
        target = write_target(path)
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise WorksheetUsageError(f"--out {visible(path)}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise WorksheetUsageError(
            f"--out {visible(path)}: it is {kind_of_file(mode)}, not a regular file"
        )


def render_pdf(lesson_id: str, paper: str, answers: bool) -> bytes:
    """The worksheet's PDF, drawn under a QGuiApplication on the offscreen platform."""
    if "PySide6.QtGui" not in sys.modules:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads: no display is needed
    from PySide6.QtGui import QGuiApplication

    from grpo_desktop.core.files.worksheet import lesson_worksheet
    from grpo_desktop.window.worksheet_pdf import worksheet_pdf_bytes

    application = QGuiApplication.instance() or QGuiApplication([PROG])
    if application is None:
        raise RuntimeError("Qt could not start its offscreen platform")
    return worksheet_pdf_bytes(lesson_worksheet(lesson_id), paper=paper, answers=answers)


def run_worksheet(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop worksheet``; returns the process exit status."""
    args = build_worksheet_parser().parse_args(list(argv))
    try:
        check_lesson_id(args.lesson)
        check_out_path(args.out)
    except WorksheetUsageError as error:
        write_text(f"{PROG}: error: {error}", sys.stderr)
        return EXIT_USAGE
    data = render_pdf(args.lesson, args.paper, args.answers)
    path = Path(args.out)
    try:
        write_bytes_atomically(path, data)
    except OSError as error:
        reason = error.strerror or str(error)
        if not path.parent.is_dir():
            reason = f"the folder {visible(path.parent)} does not exist"
        write_text(f"{PROG}: error: cannot write {visible(args.out)}: {reason}", sys.stderr)
        return EXIT_WRITE
    kind = "answer key" if args.answers else "worksheet"
    write_text(
        f"wrote the {kind} of {args.lesson} ({args.paper}) to {visible(args.out)}", sys.stdout
    )
    return 0
