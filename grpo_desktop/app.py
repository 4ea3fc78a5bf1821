"""The ``grpo-desktop`` entry point: ``score``, ``loss``, ``train`` and ``rollouts`` run headless;
anything else opens the window.

Qt is imported only after the arguments are checked, so ``score``, ``loss``, ``train``,
``rollouts``, ``--help``, ``--list-problems`` and bad arguments answer at once and work on machines
with no display.
"""

from __future__ import annotations

import argparse
import ctypes.util
import gc
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grpo_desktop.cli.common import OneLineArgumentParser
from grpo_desktop.cli.score import run_score
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.advantages import convention_names
from grpo_desktop.core.lab.lab_limits import WORKSPACES

NO_DISPLAY_MESSAGE = (
    "grpo-desktop: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set); start it from a "
    "desktop session, or render the window to an image with --screenshot out.png"
)
MISSING_XCB_MESSAGE = (
    "grpo-desktop: Qt's X11 platform needs system libraries that are not installed (libxcb-cursor0 "
    "is missing); on Debian/Ubuntu: sudo apt-get install libegl1 libxkbcommon-x11-0 "
    "libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0"
)


@dataclass(frozen=True)
class WindowSize:
    width: int
    height: int


#: The window lays out every workspace at 800x600 (the light and dark themes, any zoom); the
#: projector theme's larger type needs more, and a screenshot says so rather than grow.
SMALLEST_SIZE = WindowSize(800, 600)
LARGEST_SIZE = WindowSize(7680, 4320)
DEFAULT_WINDOW_SIZE = WindowSize(1280, 800)
DEFAULT_ANIMATION_SIZE = WindowSize(1280, 720)  # a 16:9 slide


class ScreenshotSizeError(ValueError):
    """The window cannot be laid out at the size asked for: no picture is written."""


def parse_size_text(text: str) -> WindowSize:
    """``WxH`` as a size, whatever it is for: the window's and an animation's ranges differ."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x800, got {text!r}") from None
    return WindowSize(width, height)


def window_size_problem(size: WindowSize) -> str:
    """Why the window cannot be laid out at ``size`` ("" when it can)."""
    low, high = SMALLEST_SIZE, LARGEST_SIZE
    if low.width <= size.width <= high.width and low.height <= size.height <= high.height:
        return ""
    return (
        f"size {size.width}x{size.height} is out of range ({low.width}x{low.height} to "
        f"{high.width}x{high.height})"
    )


def parse_size(text: str) -> WindowSize:
    size = parse_size_text(text)
    problem = window_size_problem(size)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return size


def parse_zoom(text: str) -> float:
    try:
        percent = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"zoom must be a percentage like 150, got {text!r}"
        ) from None
    if not 75 <= percent <= 300:
        raise argparse.ArgumentTypeError(f"zoom must be between 75 and 300 percent, got {text}")
    return percent / 100


def _either(names: Sequence[str]) -> str:
    """``"a, b or c"``."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


class _LessonIds:
    """The shipped lessons' ids as the help lists them, read only when it is printed."""

    def __str__(self) -> str:
        from grpo_desktop.core.files.lessons import LessonError, load_lessons

        try:
            return _either([lesson.id for lesson in load_lessons()])
        except LessonError:  # a broken install: --lesson still says why when used
            return "see the Lesson menu"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(
        prog="grpo-desktop",
        description="A live lab for how GRPO scores a group of sampled answers. "
        "Run 'grpo-desktop score 1 0 0 1' to score rewards in the terminal, "
        "'grpo-desktop loss FILE.json' to see each library's loss and gradient on a batch, "
        "'grpo-desktop train' to run the toy training of six algorithms side by side, "
        "'grpo-desktop rollouts PATH' to summarise a real verl or TRL run's logged groups, "
        "'grpo-desktop step --rewards 1,0,0,1' to see one GRPO step make each answer more or "
        "less likely, 'grpo-desktop worksheet --lesson ID --out FILE.pdf' to print a lesson's "
        "worksheet, or "
        "'grpo-desktop lm eval|sample|train' to evaluate, sample or GRPO-train the tiny "
        "language model.",
    )
    parser.add_argument("--problem", metavar="ID", help="the problem to open (see --list-problems)")
    parser.add_argument(
        "--group-size", "-G", type=int, metavar="G", help="answers in the group (2–64)"
    )
    parser.add_argument(
        "--rewards", metavar="1,0,0,1", help="each card right (1) or wrong (0); sets G too"
    )
    parser.add_argument(
        "--sample", type=int, metavar="SEED", help="start from a group sampled with this seed"
    )
    first, *others = convention_names()
    parser.add_argument(
        "--convention",
        metavar="NAME",
        help=f"how advantages are computed: {_either((f'{first} (default)', *others))}",
    )
    parser.add_argument(
        "--view", choices=("advantage", "reward"), help="what the chart shows (default: advantage)"
    )
    parser.add_argument(
        "--compare", action="store_true", help="open the easy vs hard comparison side by side"
    )
    parser.add_argument(
        "--workspace",
        choices=WORKSPACES,
        help="the workspace to open: lab (default), update (each token's push), training (a "
        "toy run over the problem library) or compare (easy vs hard)",
    )
    parser.add_argument("--theme", metavar="NAME", help="light, dark or projector (this run only)")
    parser.add_argument(
        "--reduce-motion",
        action="store_true",
        help="no animation or playback: each step shows at once (this run only)",
    )
    parser.add_argument(
        "--presenter",
        action="store_true",
        help="the presenter view: the lab full screen on the second screen (when there is one) "
        "and a console with the lesson's notes, the next step and a timer",
    )
    parser.add_argument(
        "--zoom", type=parse_zoom, metavar="PERCENT", help="75 to 300 (this run only)"
    )
    parser.add_argument(
        "--scenario", type=Path, metavar="FILE", help="open a saved .grpo.json scenario"
    )
    lesson = parser.add_argument("--lesson", metavar="ID")
    lesson.lesson_ids = _LessonIds()  # read when the help is printed: reading them takes time
    lesson.help = "start a lesson: %(lesson_ids)s"
    parser.add_argument(
        "--open-rollouts",
        type=Path,
        metavar="PATH",
        help="open a real run's rollouts in the browser: a verl {step}.jsonl file, a TRL "
        "completions_*.parquet file, or a folder of either",
    )
    parser.add_argument(
        "--screenshot", type=Path, metavar="PATH", help="render the window to a PNG and exit"
    )
    parser.add_argument(
        "--size",
        type=parse_size_text,
        metavar="WxH",
        help="window size, e.g. 1280x800 (default) or 1920x1080; with --export-animation the "
        "animation's, 1280x720 (default) or 1920x1080",
    )
    parser.add_argument(
        "--export-animation",
        type=Path,
        metavar="FILE.gif",
        help="write the group's reward -> advantage animation (with --training-steps, the toy "
        "training run's first steps) as an animated GIF for slides and exit; no display needed",
    )
    parser.add_argument(
        "--training-steps",
        type=int,
        metavar="N",
        help="with --export-animation: animate the toy training run's first N steps instead",
    )
    parser.add_argument(
        "--list-problems", action="store_true", help="list the shipped problems and exit"
    )
    parser.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add GRPO Desktop (menu entry, icons) to this user's Linux desktop and exit",
    )
    parser.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help="remove what --install-desktop-entry added and exit",
    )
    return parser


def run_desktop_entry(install: bool) -> int:
    """--install-desktop-entry / --uninstall-desktop-entry: no Qt, works without a display."""
    from grpo_desktop.desktop_entry import install_desktop_entry, uninstall_desktop_entry

    if sys.platform in ("win32", "darwin"):
        print(
            "grpo-desktop: menu entries are for Linux desktops; on Windows or macOS make a "
            "shortcut to the grpo-desktop program instead",
            file=sys.stderr,
        )
        return 2
    try:
        paths = install_desktop_entry() if install else uninstall_desktop_entry()
    except OSError as error:
        print(f"grpo-desktop: error: {error}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"{'wrote' if install else 'removed'} {path}")
    if not paths:
        print("grpo-desktop: no menu entry was installed; nothing removed")
    return 0


def list_problems() -> str:
    from grpo_desktop.core.lab.problems import load_problems

    rows = [f"{'id':<26} {'difficulty':<10} {'G':>2}  prompt"]
    for problem in load_problems():
        rows.append(
            f"{problem.id:<26} {problem.difficulty:<10} {problem.group_size:>2}  {problem.prompt}"
        )
    return "\n".join(rows)


@dataclass(frozen=True)
class LabSetup:
    """The starting lab the command line asked for, checked before Qt starts."""

    problem_id: str
    correct: tuple[bool, ...] | None
    group_size: int | None
    sample_seed: int | None
    convention: str = "textbook"
    view: str | None = None  # None: the scenario's view, else advantages
    workspace: str | None = None  # asked for on the command line; else the scenario's, or lab
    theme: str | None = None
    zoom: float | None = None
    lesson: str | None = None
    scenario: object | None = None  # a loaded Scenario
    scenario_path: Path | None = None
    rollouts: Path | None = None  # --open-rollouts: read once the window exists (with progress)
    reduce_motion: bool = False  # --reduce-motion: this run only (View ▸ Reduce motion)
    presenter: bool = False  # --presenter: the presenter view once the window shows


def check_lab_arguments(args: argparse.Namespace) -> LabSetup:
    """Validate --problem/--group-size/--rewards/--sample; ValueError with a readable reason."""
    from grpo_desktop.core import get_convention
    from grpo_desktop.core.common.theme import get_theme
    from grpo_desktop.core.files.lessons import get_lesson
    from grpo_desktop.core.files.scenario import load_scenario
    from grpo_desktop.core.lab.lab_limits import (
        check_group_size,
        check_sample_seed,
        parse_reward_pattern,
    )
    from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, get_problem

    problem_id = args.problem or DEFAULT_PROBLEM_ID
    get_problem(problem_id)  # UnknownProblemError lists the valid ids
    correct = parse_reward_pattern(args.rewards) if args.rewards is not None else None
    if args.group_size is not None:
        check_group_size(args.group_size)
        if correct is not None and len(correct) != args.group_size:
            raise ValueError(
                f"--rewards has {len(correct)} values but --group-size is {args.group_size}"
            )
    if args.sample is not None:
        if correct is not None:
            raise ValueError("use either --rewards or --sample, not both")
        check_sample_seed(args.sample)
    convention = args.convention or "textbook"
    get_convention(convention)  # lists the valid names
    if args.theme is not None:
        get_theme(args.theme)
    if args.lesson is not None:
        get_lesson(args.lesson)  # UnknownLessonError lists the valid ids
    workspace = args.workspace or ("compare" if args.compare else None)
    if args.compare and workspace != "compare":
        raise ValueError(f"--compare opens the compare workspace; --workspace says {workspace}")
    scenario = None
    if args.scenario is not None:
        lab_flags = (args.problem, args.rewards, args.group_size, args.sample, args.convention)
        if any(flag is not None for flag in lab_flags):
            raise ValueError(
                "--scenario sets the problem, rewards and convention itself; "
                "use it without --problem, --rewards, --group-size, --sample or --convention"
            )
        scenario = load_scenario(args.scenario)  # ScenarioError: one clear sentence
        try:  # its group is computed before the window opens, as File ▸ Open does
            scenario.lab_memento().preview(get_convention(scenario.convention))
        except (ValueError, ArithmeticError) as error:
            raise ValueError(f"{args.scenario.name}: {error}") from None
    rollouts = getattr(args, "open_rollouts", None)
    if rollouts is not None:
        check_rollouts_path(rollouts)
    return LabSetup(
        problem_id,
        correct,
        args.group_size,
        args.sample,
        convention,
        args.view,
        workspace,
        args.theme,
        args.zoom,
        args.lesson,
        scenario,
        args.scenario,
        rollouts,
        args.reduce_motion,
        args.presenter,
    )


def check_rollouts_path(path: Path) -> None:
    """--open-rollouts names a file or a folder that exists; ValueError says what is wrong.

    Only the path is checked here: reading a large run takes a while, so the window reads it
    (with a progress dialog) and a file whose contents are bad gets the window's message.
    """
    import stat

    try:
        info = os.stat(path)
    except OSError as error:
        raise ValueError(
            f"--open-rollouts: cannot read {path} ({error.strerror or error})"
        ) from None
    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        raise ValueError(
            f"--open-rollouts: {path} is neither a file nor a folder (a verl {{step}}.jsonl "
            "file, a TRL completions_*.parquet file, or a folder of either)"
        )


def display_problem(screenshot: bool) -> str | None:
    """Why a window cannot open here, or None; checked before Qt can abort the process."""
    if screenshot or not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb") and not platform.startswith("wayland"):
        return None
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return NO_DISPLAY_MESSAGE
    uses_xcb = platform.startswith("xcb") or not os.environ.get("WAYLAND_DISPLAY")
    if uses_xcb and ctypes.util.find_library("xcb-cursor") is None:
        return MISSING_XCB_MESSAGE
    if uses_xcb and not x_display_opens():
        display = os.environ.get("DISPLAY", "")
        return (
            f"grpo-desktop: cannot open the X display {visible(display)!r} (DISPLAY): no X server "
            "answers there, or it does not let this user in; start the app from a desktop "
            "session, or render the window to an image with --screenshot out.png"
        )
    return None


def x_display_opens() -> bool:
    """Whether libxcb can connect to ``$DISPLAY``: Qt's xcb platform aborts the process (status
    134, blaming its libraries) when it cannot, so the app asks first. True when libxcb cannot be
    asked (Qt then gives its own message)."""
    library = ctypes.util.find_library("xcb")
    if library is None:
        return True
    try:
        xcb = ctypes.CDLL(library)
        xcb.xcb_connect.restype = ctypes.c_void_p
        xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
        xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
        xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    except (OSError, AttributeError):
        return True
    connection = xcb.xcb_connect(None, None)  # never NULL: an error is a connection in error
    try:
        return xcb.xcb_connection_has_error(connection) == 0
    finally:
        xcb.xcb_disconnect(connection)


HEADLESS_COMMANDS = ("score", "loss", "train", "rollouts", "lm", "step", "worksheet")


def run_headless(name: str, argv: list[str]) -> int:
    """One of :data:`HEADLESS_COMMANDS`; each loads its own module, so the window's start-up
    never pays for them."""
    if name == "score":
        return run_score(argv)
    if name == "loss":
        from grpo_desktop.cli.loss import run_loss

        return run_loss(argv)
    if name == "train":
        from grpo_desktop.cli.train import run_train

        return run_train(argv)
    if name == "lm":
        from grpo_desktop.cli.lm import run_lm

        return run_lm(argv)
    if name == "step":
        from grpo_desktop.cli.step import run_step

        return run_step(argv)
    if name == "worksheet":
        from grpo_desktop.cli.worksheet import run_worksheet

        return run_worksheet(argv)
    from grpo_desktop.cli.rollouts import run_rollouts

    return run_rollouts(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from grpo_desktop.error_handling import ensure_streams

    ensure_streams()  # a gui-script on Windows has no console: stderr may be None
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in HEADLESS_COMMANDS:
        from grpo_desktop.cli.common import run_command

        name, rest = args_list[0], args_list[1:]
        return run_command(f"grpo-desktop {name}", lambda: run_headless(name, rest))
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.list_problems:
        print(list_problems())
        return 0
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        return run_desktop_entry(install=args.install_desktop_entry)
    try:
        setup = check_lab_arguments(args)
    except ValueError as error:  # the message may quote a file name or a value from outside
        print(f"grpo-desktop: error: {visible(str(error))}", file=sys.stderr)
        return 2
    if args.export_animation is not None:
        return export_animation(args, setup)
    if args.training_steps is not None:
        parser.error("--training-steps goes with --export-animation")
    size = args.size or DEFAULT_WINDOW_SIZE
    if window_size_problem(size):
        parser.error(f"argument --size: {window_size_problem(size)}")
    reason = display_problem(screenshot=args.screenshot is not None)
    if reason:
        print(reason, file=sys.stderr)
        return 2
    if args.screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return run_window(setup, size, args.screenshot)


def animation_request(args: argparse.Namespace) -> tuple[WindowSize, int | None]:
    """--export-animation's size and training steps, checked; ValueError says what is wrong."""
    from grpo_desktop.core.files.animation import MAX_TRAINING_STEPS, check_animation_size

    if args.screenshot is not None:
        raise ValueError("use either --screenshot or --export-animation, not both")
    if args.export_animation.suffix.lower() != ".gif":
        raise ValueError(f"--export-animation writes a .gif file, got {args.export_animation}")
    size = args.size or DEFAULT_ANIMATION_SIZE
    check_animation_size(size.width, size.height)
    steps = args.training_steps
    if steps is not None and not 1 <= steps <= MAX_TRAINING_STEPS:
        raise ValueError(f"--training-steps must be 1 to {MAX_TRAINING_STEPS}, got {steps}")
    return size, steps


def export_animation(args: argparse.Namespace, setup: LabSetup) -> int:
    """--export-animation FILE.gif: the animation drawn offscreen and written atomically.

    Bad arguments are one line and status 2 (before Qt loads); a path that cannot be written
    (a folder, a FIFO, a missing folder, no permission) is one line and status 1.
    """
    try:
        size, steps = animation_request(args)
    except ValueError as error:
        print(f"grpo-desktop: error: {visible(str(error))}", file=sys.stderr)
        return 2
    path = args.export_animation
    from grpo_desktop.window.animation_export import refusal

    refused = refusal(path)
    if refused:
        print(f"grpo-desktop: error: {visible(refused)}", file=sys.stderr)
        return 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.common.atomic import write_bytes_atomically
    from grpo_desktop.core.common.theme import DEFAULT_THEME, get_theme
    from grpo_desktop.core.files.animation import (
        advantage_animation,
        first_steps_snapshot,
        training_animation,
    )
    from grpo_desktop.core.training.training_config import TrainingConfig
    from grpo_desktop.views.files.animation_frames import animation_gif_bytes

    app = QApplication.instance() or QApplication(sys.argv[:1])
    quiet_offscreen_size_hints()
    app.setApplicationName("GRPO Desktop")
    theme = get_theme(setup.theme or DEFAULT_THEME)
    if steps is not None:
        run = first_steps_snapshot(TrainingConfig(), steps, setup.convention)
        frames = training_animation(run, theme)
    else:
        frames = advantage_animation(lab_snapshot(setup), theme)
    data = animation_gif_bytes(frames, theme, (size.width, size.height))
    try:
        write_bytes_atomically(path, data)
    except OSError as error:
        reason = error.strerror or str(error)
        print(f"grpo-desktop: error: cannot write {visible(path)}: {reason}", file=sys.stderr)
        return 1
    seconds = sum(frame.duration_ms for frame in frames) / 1000
    print(
        f"wrote {visible(path)} ({size.width}x{size.height}, {len(frames)} frames, "
        f"{seconds:g} s, looping)"
    )
    return 0


def lab_snapshot(setup: LabSetup):
    """The group the command line asked for, as the window's lab would compute it."""
    from grpo_desktop.core import get_convention
    from grpo_desktop.model.lab_state import LabState

    if setup.scenario is not None:
        scenario = setup.scenario
        return scenario.lab_memento().preview(get_convention(scenario.convention))
    state = LabState(convention=setup.convention)
    state.set_problem(setup.problem_id, setup.correct)
    if setup.group_size is not None:
        state.set_group_size(setup.group_size)
    if setup.sample_seed is not None:
        state.sample(setup.sample_seed)
    return state.snapshot


def build_window(
    setup: LabSetup,
    remember_settings: bool = True,
    size: WindowSize | None = None,
    fit: bool = False,
):
    """The main window with the lab the command line asked for (a QApplication must exist).

    ``size`` is the window's size before the theme and zoom apply, so the zoom is measured at
    the width it will be shown at (wrapped text needs more height when narrower). With ``fit``
    (a screenshot) ``size`` is also the screen the zoom is fitted to, as the real window's is
    fitted to its own screen: the offscreen platform's small screen would step a zoom down and
    leave "does not fit this screen" on the status bar of a picture it fits.

    ``remember_settings=False`` (a screenshot) reads the user's settings and writes none."""
    from grpo_desktop.core.lab.lab_limits import next_sample_seed
    from grpo_desktop.model.lab_state import LabState
    from grpo_desktop.model.settings import AppSettings
    from grpo_desktop.model.workbench import Workbench
    from grpo_desktop.window.main_window import MainWindow

    state = LabState(convention=setup.convention)
    state.set_problem(setup.problem_id, setup.correct)
    if setup.group_size is not None:
        state.set_group_size(setup.group_size)
    if setup.sample_seed is not None:
        state.sample(setup.sample_seed)
    workbench = Workbench(state)
    if setup.sample_seed is not None:
        workbench.next_sample_seed = next_sample_seed(setup.sample_seed)
    window = MainWindow(workbench=workbench, settings=AppSettings(remember=remember_settings))
    workbench.setParent(window)
    if setup.scenario is not None:
        window.document.apply(setup.scenario, setup.scenario_path)
    if setup.view is not None or setup.scenario is None:
        window.set_view(setup.view or "advantage", animate=False)
    if setup.reduce_motion:
        window.presentation.set_reduce_motion(True, remember=False)
    if setup.theme is not None:
        window.presentation.set_theme(setup.theme, remember=False)
    if size is not None:
        window.resize(size.width, size.height)
        window.layout().activate()  # the central widget at that width, though not yet shown
        if fit:  # a screenshot: laid out as shown (offscreen), then fitted to the picture
            from PySide6.QtCore import QSize
            from PySide6.QtWidgets import QApplication

            window.show()
            for _ in range(3):
                QApplication.processEvents()
            window.presentation.fit_to(QSize(size.width, size.height))
    if setup.zoom is not None:
        window.presentation.set_zoom(setup.zoom, remember=False)
    if setup.workspace is not None:
        window.workbench.set_workspace(setup.workspace)
    if setup.lesson is not None:
        window.install_deferred_features()
        window.lessons.start(setup.lesson)
    if setup.presenter:  # once the window shows: the audience window takes its screen
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, window, window.presenter.start)
    if setup.rollouts is not None:  # once the event loop runs: the window shows while it reads
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, window, lambda: window.rollouts.open_path(setup.rollouts))
    return window


def save_screenshot(window, size: WindowSize, path: Path) -> WindowSize:
    """Lay the window out at ``size`` and write it as a PNG (no display needed offscreen).

    The zoom is fitted to ``size`` first, so the picture is exactly that size, or
    :class:`ScreenshotSizeError` and no file when even the smallest zoom does not fit; returns
    the size of the image written.
    """
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.common.atomic import write_bytes_atomically
    from grpo_desktop.window.export_controller import png_bytes

    window.install_deferred_features()  # the picture shows the complete menu bar
    window.math_panel.finish_typesetting()  # and the worked math typeset, not plain text
    window.resize(size.width, size.height)
    window.show()
    for _ in range(3):
        QApplication.processEvents()
    window.presentation.fit_to(QSize(size.width, size.height))
    window.resize(size.width, size.height)
    for _ in range(3):
        QApplication.processEvents()
    laid_out = window.size()
    if (laid_out.width(), laid_out.height()) != (size.width, size.height):
        needs = WindowSize(max(laid_out.width(), size.width), max(laid_out.height(), size.height))
        raise ScreenshotSizeError(
            f"the window cannot be laid out at {size.width}x{size.height} in this theme, even "
            f"at the smallest zoom (it needs {needs.width}x{needs.height}); nothing was "
            f"written: ask for --size {needs.width}x{needs.height} or larger"
        )
    image = window.grab()
    data = png_bytes(image)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(path, data)  # never half a PNG; a FIFO or device is refused
    except OSError as error:
        reason = error.strerror or str(error)
        raise OSError(f"cannot write {visible(path)}: {reason}") from None
    written = image.deviceIndependentSize()
    return WindowSize(round(written.width()), round(written.height()))


#: The offscreen platform prints this each time a window is shown; it has no window manager to
#: pass size hints to, so the message says nothing about the app (the pytest config ignores it too).
OFFSCREEN_SIZE_HINTS_MESSAGE = "This plugin does not support propagateSizeHints()"
_message_filter = None  # kept alive while installed


def quiet_offscreen_size_hints():
    """On the offscreen platform, drop that one Qt message; every other goes on as before.

    Installs a Qt message handler that forwards everything else to the handler it replaces (the
    error handling's, which logs). Does nothing on a real display. Returns the replaced handler.
    """
    global _message_filter
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.platformName() != "offscreen":
        return None
    previous = None

    def message_filter(mode, context, message: str) -> None:
        if message == OFFSCREEN_SIZE_HINTS_MESSAGE:
            return
        if previous is not None:
            previous(mode, context, message)
        else:  # Qt's default handler cannot be called from Python: print as it would
            print(message, file=sys.stderr)

    _message_filter = message_filter
    previous = qInstallMessageHandler(message_filter)
    return previous


#: Once the window is up: a killed save's leftovers are cleared off the start-up path.
LEFTOVER_CLEANUP_DELAY_MS = 1500


def remove_leftovers(window) -> list[str]:
    """Delete the temporaries killed writes left: ours beside the recent files (and an opened
    scenario), Qt's beside the settings file. Logged, never shown: nothing of the user's goes."""
    import logging

    from grpo_desktop.core.common.atomic import remove_left_temporaries
    from grpo_desktop.model.settings import remove_left_settings_temporaries

    settings = window.settings
    folders = [Path(recent).parent for recent in settings.recent_files]
    if window.document.path is not None:
        folders.append(Path(window.document.path).parent)
    removed = remove_left_temporaries(folders)
    if settings.file_name:
        removed += remove_left_settings_temporaries(Path(settings.file_name))
    if removed:
        logging.getLogger(__name__).info("removed what killed saves left: %s", ", ".join(removed))
    return removed


def run_window(setup: LabSetup, size: WindowSize, screenshot: Path | None) -> int:
    from PySide6.QtCore import QSize, QTimer
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.desktop_entry import DESKTOP_ID, ICON_SIZES, icon_path
    from grpo_desktop.error_handling import install_error_handling
    from grpo_desktop.window.idle_collection import freeze_long_lived

    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_error_handling(app)  # uncaught errors: a dialog and the log file, app keeps running
    quiet_offscreen_size_hints()  # after it: the filter passes every other message to its log
    app.setStyle("Fusion")  # the same look everywhere, and the themes' palettes apply fully
    app.setApplicationName("GRPO Desktop")
    app.setOrganizationName("GRPO Desktop")
    app.setDesktopFileName(DESKTOP_ID)  # Wayland app id; matches grpo-desktop.desktop
    icon = QIcon()
    for icon_size in ICON_SIZES:
        icon.addFile(str(icon_path(icon_size)), QSize(icon_size, icon_size))
    app.setWindowIcon(icon)
    window = build_window(
        setup, remember_settings=screenshot is None, size=size, fit=screenshot is not None
    )
    if screenshot is not None:
        try:
            written = save_screenshot(window, size, screenshot)
        except (OSError, ScreenshotSizeError) as error:
            print(f"grpo-desktop: error: {visible(str(error))}", file=sys.stderr)
            return 2
        print(f"wrote {visible(screenshot)} ({written.width}x{written.height})")
        window.close()
        return 0
    window.resize(size.width, size.height)
    window.show()
    QTimer.singleShot(LEFTOVER_CLEANUP_DELAY_MS, window, lambda: remove_leftovers(window))
    window.presentation.fit_to(None)  # a zoom too large for this screen steps down until it fits
    # Everything alive now (Qt wrappers, the problem library, pyqtgraph) lives as long as the app:
    # keep it out of the garbage collector's full passes, which otherwise scan it all and stall
    # a click by tens of milliseconds every few clicks (benchmarks/bench_update.py).
    gc.freeze()
    # So do the Update and Training pages, built in idle time once the window has painted.
    window.prebuild.finished.connect(freeze_long_lived)
    return app.exec()
