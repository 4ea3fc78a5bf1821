"""The command line: clear messages for bad arguments and no display, screenshots without one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grpo_desktop.app import MISSING_XCB_MESSAGE, NO_DISPLAY_MESSAGE, display_problem, main


def run_app(*args: str, env_changes: dict[str, str | None] | None = None):
    env = dict(os.environ)
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "-m", "grpo_desktop", *args],
        cwd=env["HOME"],  # not the repository root: that would import the source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


@pytest.fixture(scope="module")
def screenshot(tmp_path_factory):
    """``screenshot(*args)`` runs ``grpo-desktop *args --screenshot shot.png`` once per test
    process, in a fresh home of its own, and gives ``(result, shot, home)``. Each run is a whole
    app start (3–4 s of CPU); several tests read the same lab, Update or Training screenshot,
    and a run that only wrote its screenshot leaves its home as a first run's."""
    runs = {}

    def run(*args: str):
        if args not in runs:
            home = tmp_path_factory.mktemp("screenshot_home")
            shot = home / "shot.png"
            result = run_app(
                *args,
                "--screenshot",
                str(shot),
                env_changes={
                    "HOME": str(home),
                    "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local" / "share"),
                    "XDG_STATE_HOME": str(home / ".local" / "state"),
                },
            )
            runs[args] = (result, shot, home)
        return runs[args]

    return run


def test_screenshot_writes_a_png_at_the_requested_size(screenshot):
    from PySide6.QtGui import QImage

    result, target, _home = screenshot("--size", "1280x800")
    assert result.returncode == 0, result.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)


def test_a_zoomed_screenshot_is_exactly_the_requested_size_and_says_so(tmp_path):
    from PySide6.QtGui import QImage

    target = tmp_path / "zoomed.png"
    result = run_app(
        "--screenshot", str(target), "--size", "1280x800", "--theme", "projector", "--zoom", "200"
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)
    assert "(1280x800)" in result.stdout


def test_screenshot_needs_no_display(tmp_path):
    target = tmp_path / "lab.png"
    no_display = {"DISPLAY": None, "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None}
    result = run_app("--screenshot", str(target), "--rewards", "1,1,1,1", env_changes=no_display)
    assert result.returncode == 0, result.stderr
    assert target.stat().st_size > 10_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland check is Linux-only")
def test_no_display_gives_one_clear_line_and_status_2():
    no_display = {"DISPLAY": None, "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None}
    result = run_app(env_changes=no_display)
    assert result.returncode == 2
    assert result.stderr.strip() == NO_DISPLAY_MESSAGE


def test_missing_xcb_libraries_are_named(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr("ctypes.util.find_library", lambda name: None)
    assert display_problem(screenshot=False) == MISSING_XCB_MESSAGE


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--problem", "nope"], "valid ids: mult-23x47"),
        (["--rewards", "1,0,2"], "0s and 1s"),
        (["--group-size", "99"], "between 2 and 64"),
        (["--rewards", "1,0,0,1", "--group-size", "5"], "--rewards has 4 values"),
    ],
)
def test_bad_lab_arguments_name_the_valid_choices(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_size_is_one_line_with_status_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--size", "huge"])
    assert exit_info.value.code == 2
    assert "1280x800" in capsys.readouterr().err


def test_list_problems_shows_every_id(capsys):
    assert main(["--list-problems"]) == 0
    out = capsys.readouterr().out
    assert "mult-23x47" in out and "Compute 23 × 47." in out


def test_install_desktop_entry_flag_writes_into_xdg_data_home(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["--install-desktop-entry"]) == 0
    assert (tmp_path / "applications" / "grpo-desktop.desktop").is_file()
    assert main(["--uninstall-desktop-entry"]) == 0
    assert not (tmp_path / "applications" / "grpo-desktop.desktop").exists()


def test_scenario_flag_opens_the_saved_lab(tmp_path, qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments
    from grpo_desktop.core.files.scenario import Scenario, save_scenario
    from grpo_desktop.core.lab.problems import get_problem

    path = tmp_path / "hard.grpo.json"
    scenario = Scenario(
        problem=get_problem("hard-remainder-7-pow-100"),
        custom_problem=False,
        correct=(True, False, False, False, False),
        convention="verl",
        view="reward",
        sample_seed=None,
    )
    save_scenario(scenario, path)
    setup = check_lab_arguments(build_parser().parse_args(["--scenario", str(path)]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.state.snapshot.rewards == (1, 0, 0, 0, 0)
    assert window.state.convention == "verl" and window.view == "reward"
    assert "hard.grpo.json" in window.windowTitle()


def test_a_scenario_that_cannot_be_loaded_exits_2_with_one_line(tmp_path, capsys):
    path = tmp_path / "broken.grpo.json"
    path.write_text("{not json", encoding="utf-8")
    assert main(["--scenario", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "broken.grpo.json" in err and len(err.splitlines()) == 1


def test_theme_flag_is_checked_before_the_window_opens(capsys):
    assert main(["--theme", "neon"]) == 2
    assert "light, dark, projector" in capsys.readouterr().err


def test_projector_screenshot_renders(tmp_path):
    target = tmp_path / "projector.png"
    result = run_app("--theme", "projector", "--screenshot", str(target), "--size", "1920x1080")
    assert result.returncode == 0, result.stderr
    assert target.stat().st_size > 10_000


@pytest.mark.parametrize("zoom", ["50", "400", "big"])
def test_zoom_flag_outside_75_to_300_is_refused(capsys, zoom):
    with pytest.raises(SystemExit) as exit_info:
        main(["--zoom", zoom])
    assert exit_info.value.code == 2
    assert "zoom must be" in capsys.readouterr().err


def test_unknown_lesson_lists_the_valid_ones(capsys):
    assert main(["--lesson", "nope"]) == 2
    err = capsys.readouterr().err
    assert "group-is-baseline" in err and len(err.strip().splitlines()) == 1


def test_lesson_flag_starts_the_lesson(qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    setup = check_lab_arguments(build_parser().parse_args(["--lesson", "same-formula-two-groups"]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.lessons.active and window.lessons.step_index == 0


def test_reduce_motion_flag_reduces_motion_for_this_run_only(qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    setup = check_lab_arguments(build_parser().parse_args(["--reduce-motion"]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.presentation.reduce_motion
    assert window.findChild(type(window.describe_action), "reduceMotionAction").isChecked()
    assert not window.settings.reduce_motion  # the remembered setting is untouched


def test_screenshot_prints_no_offscreen_size_hints_warning(tmp_path):
    target = tmp_path / "lesson.png"
    result = run_app("--screenshot", str(target), "--lesson", "group-is-baseline", "--compare")
    assert result.returncode == 0, result.stderr
    assert "propagateSizeHints" not in result.stdout + result.stderr
    assert result.stdout.startswith("wrote ")


@pytest.mark.qt_log_level_fail("CRITICAL")  # the warnings below are the test's own
def test_the_size_hints_filter_drops_that_message_and_passes_every_other(qapp, qtlog):
    from PySide6.QtCore import qInstallMessageHandler, qWarning

    from grpo_desktop.app import OFFSCREEN_SIZE_HINTS_MESSAGE, quiet_offscreen_size_hints

    previous = quiet_offscreen_size_hints()
    try:
        qWarning(OFFSCREEN_SIZE_HINTS_MESSAGE)
        qWarning("a different warning")
        qWarning(f"{OFFSCREEN_SIZE_HINTS_MESSAGE} and more")
    finally:
        qInstallMessageHandler(previous)
    assert [record.message for record in qtlog.records] == [
        "a different warning",
        f"{OFFSCREEN_SIZE_HINTS_MESSAGE} and more",
    ]


def test_workspace_update_screenshot_shows_the_update_page(screenshot):
    from PySide6.QtGui import QImage

    shots = []
    for args in ((), ("--workspace", "update")):  # the default size, 1280x800
        result, target, _home = screenshot(*args)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"wrote {target} (1280x800)"
        assert result.stderr.strip() == ""
        shots.append(target)
    lab, update = shots
    image = QImage(str(update))
    assert (image.width(), image.height()) == (1280, 800)
    assert image != QImage(str(lab)), "the Update screenshot shows the lab"


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param((), id="default"),  # the run the test above reads too
        # The development loop keeps one size check per workspace (each is a whole app run).
        pytest.param(
            ("--theme", "projector", "--size", "1024x768"),
            id="projector-1024x768",
            marks=pytest.mark.slow,
        ),
        pytest.param(("--problem", "length-bias-sum"), id="length-bias", marks=pytest.mark.slow),
    ],
)
def test_workspace_update_screenshots_are_exactly_the_requested_size(screenshot, extra):
    from PySide6.QtGui import QImage

    result, target, _home = screenshot("--workspace", "update", *extra)
    assert result.returncode == 0, result.stderr
    size = extra[extra.index("--size") + 1] if "--size" in extra else "1280x800"
    image = QImage(str(target))
    assert f"{image.width()}x{image.height()}" == size, "the Update page grew the window"


def test_workspace_update_opens_the_update_page(qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    setup = check_lab_arguments(build_parser().parse_args(["--workspace", "update"]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.workbench.workspace == "update"
    assert window.pages.currentWidget() is window.update_page
    assert window.update_action.isChecked() and not window.lab_action.isChecked()
    assert window.windowTitle().startswith("Update step · ")


def test_workspace_update_with_compare_exits_2_with_one_line(capsys):
    assert main(["--workspace", "update", "--compare"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "--compare" in err and "update" in err
    assert captured.out == ""


def test_an_unknown_workspace_names_the_choices(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--workspace", "train"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "lab" in err and "update" in err and "compare" in err


def test_workspace_training_screenshot_shows_the_training_page(screenshot):
    from PySide6.QtGui import QImage

    shots = []
    for args in ((), ("--workspace", "training")):  # the default size, 1280x800
        result, target, _home = screenshot(*args)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"wrote {target} (1280x800)"
        assert "Traceback" not in result.stderr
        shots.append(target)
    lab, training = shots
    image = QImage(str(training))
    assert (image.width(), image.height()) == (1280, 800)
    assert image != QImage(str(lab)), "the Training screenshot shows the lab"


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(("--theme", "projector", "--size", "1024x768"), id="projector-1024x768"),
        pytest.param(("--zoom", "200"), id="zoom-200", marks=pytest.mark.slow),
    ],
)
def test_workspace_training_screenshots_are_exactly_the_requested_size(tmp_path, extra):
    from PySide6.QtGui import QImage

    target = tmp_path / "training.png"
    result = run_app("--workspace", "training", "--screenshot", str(target), *extra)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    size = extra[extra.index("--size") + 1] if "--size" in extra else "1280x800"
    image = QImage(str(target))
    assert f"{image.width()}x{image.height()}" == size, "the Training page grew the window"


def test_workspace_training_opens_the_training_page(qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    setup = check_lab_arguments(build_parser().parse_args(["--workspace", "training"]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.workbench.workspace == "training"
    page = window.training_page
    assert window.pages.currentWidget() is page and page.objectName() == "trainingView"
    assert window.training_action.isChecked() and not window.lab_action.isChecked()
    assert window.windowTitle().startswith("Training run")
    assert not page.state.playing and page.state.run.step_count == 0


def test_open_rollouts_flag_opens_the_browser_on_the_run(tmp_path, qtbot):
    from rollout_files import write_verl

    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    folder = write_verl(tmp_path / "run")
    setup = check_lab_arguments(build_parser().parse_args(["--open-rollouts", str(folder)]))
    window = build_window(setup)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.rollouts.source is not None)
    assert window.rollouts.browser.isVisible()
    assert window.rollouts.browser.steps_list.count() == 2


def test_open_rollouts_with_a_missing_path_exits_2_with_one_line(tmp_path, capsys):
    assert main(["--open-rollouts", str(tmp_path / "nowhere.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "nowhere.jsonl" in err and "--open-rollouts" in err and len(err.splitlines()) == 1


def test_open_rollouts_refuses_a_fifo_before_the_window_opens(tmp_path, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert main(["--open-rollouts", str(fifo)]) == 2
    assert "neither a file nor a folder" in capsys.readouterr().err


def test_a_bad_rollouts_file_with_screenshot_does_not_wait_on_its_message(tmp_path):
    bad = tmp_path / "1.jsonl"
    bad.write_text('{"input": "q", "output": "a"}\n', encoding="utf-8")  # no score
    out = tmp_path / "shot.png"
    result = run_app("--open-rollouts", str(bad), "--screenshot", str(out))
    assert result.returncode == 0, result.stderr
    assert out.exists()


@pytest.mark.parametrize(
    ("seed", "shown"),
    [("-5", "got -5"), (str(2**64), f"got {2**64}"), (str(10**40), "a very large integer")],
)
def test_a_sample_seed_outside_the_savable_range_is_refused_in_one_line(capsys, seed, shown):
    assert main(["--sample", seed]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "sample seed must be an integer from 0 to 2**64 − 1" in err and shown in err


def test_the_largest_sample_seed_opens_and_the_next_draw_wraps_to_0(qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    largest = str(2**64 - 1)
    window = build_window(check_lab_arguments(build_parser().parse_args(["--sample", largest])))
    qtbot.addWidget(window)
    assert window.workbench.next_sample_seed == 0
    assert window.workbench.sample() == 0


@pytest.mark.parametrize("workspace", ["update", "training", "compare"])
def test_a_scenario_opens_on_the_workspace_it_was_saved_in(tmp_path, qtbot, workspace):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    path = save_seed_scenario(tmp_path / f"{workspace}.grpo.json", workspace=workspace)
    setup = check_lab_arguments(build_parser().parse_args(["--scenario", str(path)]))
    window = build_window(setup)
    qtbot.addWidget(window)
    assert window.workbench.workspace == workspace


def test_the_workspace_flag_wins_over_the_scenarios(tmp_path, qtbot):
    from grpo_desktop.app import build_parser, build_window, check_lab_arguments

    path = save_seed_scenario(tmp_path / "update.grpo.json", workspace="update")
    args = build_parser().parse_args(["--scenario", str(path), "--workspace", "lab"])
    window = build_window(check_lab_arguments(args))
    qtbot.addWidget(window)
    assert window.workbench.workspace == "lab"


@pytest.mark.parametrize(
    "contents",
    [
        pytest.param(
            b"[view]\ntheme=dark\nzoom=1.5\n[window]\ngeometry=@ByteArray(not a geometry)\n",
            id="saved",
            marks=pytest.mark.slow,  # the corrupt file below keeps the check in the fast loop
        ),
        pytest.param(b"[view\x00\xff\xfe corrupt \n=\n", id="corrupt"),
    ],
)
def test_a_screenshot_leaves_the_settings_file_untouched(tmp_path, private_home, contents):
    settings_file = private_home / ".config" / "GRPO Desktop" / "GRPO Desktop.ini"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_bytes(contents)
    before = settings_file.stat()
    result = run_app(
        "--screenshot", str(tmp_path / "shot.png"), "--size", "1024x768", "--zoom", "200"
    )
    assert result.returncode == 0, result.stderr
    assert settings_file.read_bytes() == contents
    assert settings_file.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in settings_file.parent.iterdir()) == ["GRPO Desktop.ini"]


def test_a_screenshot_of_a_first_run_creates_no_settings_file(screenshot):
    result, _shot, home = screenshot()  # in a fresh home: the app's first run there
    assert result.returncode == 0, result.stderr
    assert not (home / ".config" / "GRPO Desktop").exists()


def save_seed_scenario(path, problem_changes=None, **fields):
    """The seed's group (23 × 47, rewards 1, 0, 0, 1) saved as a scenario at ``path``;
    ``problem_changes`` make the problem a custom one, ``fields`` set scenario fields."""
    from dataclasses import replace

    from grpo_desktop.core.files.scenario import Scenario, save_scenario
    from grpo_desktop.core.lab.problems import get_problem

    problem = get_problem("mult-23x47")
    if problem_changes:
        problem = replace(problem, id="custom-long", title="Long", **problem_changes)
    values = {
        "problem": problem,
        "custom_problem": bool(problem_changes),
        "correct": (True, False, False, True),
        "convention": "textbook",
        "view": "advantage",
        "sample_seed": None,
    }
    save_scenario(Scenario(**(values | fields)), path)
    return path


def test_a_prompt_of_one_long_word_wraps_and_the_screenshot_keeps_its_size(tmp_path):
    from PySide6.QtGui import QImage

    scenario = tmp_path / "long.grpo.json"
    save_seed_scenario(scenario, {"prompt": "Compute " + "7" * 300 + "."})
    target = tmp_path / "long.png"
    result = run_app("--scenario", str(scenario), "--screenshot", str(target), "--size", "1280x800")
    assert result.returncode == 0, result.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)


def test_a_size_the_window_cannot_take_is_refused_and_nothing_is_written(tmp_path):
    target = tmp_path / "small.png"
    result = run_app(
        "--lesson", "why-runs-stall", "--theme", "projector",
        "--screenshot", str(target), "--size", "800x600",
    )  # fmt: skip
    assert result.returncode == 2
    assert not target.exists()
    message = result.stderr.strip().splitlines()
    assert len(message) == 1 and "cannot be laid out at 800x600" in message[0]
    assert "--size 800x" in message[0]


def test_sizes_below_the_smallest_layout_are_refused_by_argument_checking(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--screenshot", "x.png", "--size", "640x480"])
    assert exit_info.value.code == 2
    assert "out of range (800x600 to 7680x4320)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_screenshot_onto_a_named_pipe_is_refused_in_one_line(tmp_path):
    pipe = tmp_path / "shot.png"
    os.mkfifo(pipe)
    result = run_app("--screenshot", str(pipe))
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"grpo-desktop: error: cannot write {pipe}: it is a named pipe (FIFO), not a regular file"
    )
    assert os.path.exists(pipe) and not os.path.isfile(pipe)


@pytest.mark.skipif(os.name != "posix", reason="a process is asked after only on POSIX")
def test_start_up_clears_what_killed_saves_left_beside_recent_files(tmp_path, qtbot):
    import subprocess

    from grpo_desktop.app import build_parser, build_window, check_lab_arguments, remove_leftovers

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    folder = tmp_path / "lectures"
    folder.mkdir()
    leftover = folder / f".week3.grpo.json.{child.pid}.k3j_9a0z.tmp"
    leftover.write_text("partial", encoding="utf-8")
    window = build_window(check_lab_arguments(build_parser().parse_args([])))
    qtbot.addWidget(window)
    window.settings.add_recent_file(folder / "week3.grpo.json")
    assert remove_leftovers(window) == [leftover.name]
    assert list(folder.iterdir()) == []


def test_a_scenario_whose_group_cannot_be_computed_is_one_line_before_the_window(
    tmp_path, capsys, monkeypatch
):
    import grpo_desktop.core.lab.lab_snapshot as snapshot_module

    path = save_seed_scenario(tmp_path / "huge.grpo.json")

    def explain_overflows(*args, **kwargs):
        raise OverflowError("(34, 'Numerical result out of range')")

    monkeypatch.setattr(snapshot_module, "explain", explain_overflows)
    assert main(["--scenario", str(path), "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "grpo-desktop: error: huge.grpo.json: (34, 'Numerical result out of range')"
    assert not (tmp_path / "x.png").exists()


@pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or __import__("ctypes.util").util.find_library("xcb-cursor") is None,
    reason="needs Linux with Qt's xcb libraries (tests/xcb installs them in CI)",
)
def test_a_display_that_does_not_exist_is_one_line_and_status_2_not_an_abort():
    result = run_app(
        env_changes={"DISPLAY": ":987", "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None}
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "grpo-desktop: cannot open the X display ':987' (DISPLAY): no X server answers there, or "
        "it does not let this user in; start the app from a desktop session, or render the window "
        "to an image with --screenshot out.png"
    )


def test_a_display_that_opens_passes_the_check(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr("ctypes.util.find_library", lambda name: f"lib{name}.so")
    monkeypatch.setattr("grpo_desktop.app.x_display_opens", lambda: True)
    assert display_problem(screenshot=False) is None


@pytest.mark.parametrize(
    ("size", "theme"),
    [
        pytest.param((3840, 2160), "light", id="4k"),
        pytest.param((1280, 800), "light", id="laptop", marks=pytest.mark.slow),  # fits, as 4k
        pytest.param((1280, 800), "projector", id="laptop-projector"),
    ],
)
def test_a_screenshots_zoom_message_is_the_one_the_real_window_shows_at_that_size(
    tmp_path, qtbot, size, theme
):
    """The zoom is fitted to the screenshot's size as laid out, not to the offscreen platform's
    small screen nor an unshown window: the status bar says "does not fit" exactly when the
    picture shows less than 200 % (at 3840x2160 it fits, and the real window says nothing)."""
    from grpo_desktop.app import (
        WindowSize,
        build_parser,
        build_window,
        check_lab_arguments,
        save_screenshot,
    )

    args = build_parser().parse_args(["--zoom", "200", "--theme", theme])
    wanted = WindowSize(*size)
    window = build_window(check_lab_arguments(args), remember_settings=False, size=wanted, fit=True)
    qtbot.addWidget(window)
    save_screenshot(window, wanted, tmp_path / "shot.png")
    message = window.statusBar().full_message
    reduced = window.presentation.shown_zoom < 2.0
    assert ("does not fit" in message) == reduced, (message, window.presentation.shown_zoom)
    assert reduced == (size == (1280, 800) and theme == "projector")
    window.undo_stack.setClean()
    window.presentation.set_theme("light", remember=False)
