"""File ▸ Export and Edit ▸ Copy image on a real window: PNG, SVG, CSV, clipboard, failures."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

# --- the actions on a real window --------------------------------------------------------------


@pytest.fixture
def window(qtbot):
    from grpo_desktop.model.lab_state import LabState
    from grpo_desktop.window.main_window import MainWindow

    state = LabState()
    state.set_problem("mult-23x47", [1, 0, 0, 1])
    state.set_convention("textbook")
    win = MainWindow(state=state)
    qtbot.addWidget(win)
    with qtbot.waitExposed(win):
        win.show()
    return win


@pytest.fixture
def actions(window):
    window.install_deferred_features()
    return window.export_actions


@pytest.fixture
def warnings(monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox,
        "warning",
        staticmethod(lambda parent, title, text, *a: seen.append((title, text))),
    )
    return seen


def answer(actions, monkeypatch, path):
    """Make the save dialog answer ``path`` (None = cancel); returns the questions it was asked."""
    asked: list[tuple[str, str, str]] = []

    def ask_path(title, default_name, filters):
        asked.append((title, default_name, filters))
        return None if path is None else str(path)

    monkeypatch.setattr(actions, "ask_path", ask_path)
    return asked


def load_image(path: Path):
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    return image


def test_install_is_idempotent_and_fills_file_and_edit_menus(window, actions):
    window.install_deferred_features()
    assert window.export_actions is actions
    export_menu = actions.export_menu
    assert export_menu is not None
    assert export_menu.menuAction() in window.file_menu.actions()
    assert [a.text() for a in export_menu.actions()] == [
        "Window as PNG…",
        "Chart as PNG…",
        "Chart as SVG…",
        "Group as CSV…",
        "Training run as CSV…",
        "Animation…",
    ]
    file_actions = window.file_menu.actions()
    assert file_actions.index(export_menu.menuAction()) < file_actions.index(window.quit_action)
    assert actions.copy_action in window.edit_menu.actions()
    names = [a.objectName() for a in window.findChildren(type(actions.copy_action))]
    assert names.count("copyWindowImage") == 1  # a second install added nothing


def test_shortcuts_are_set_and_unique_in_the_window(window, actions):
    from PySide6.QtGui import QAction, QKeySequence, QShortcut

    assert actions.copy_action.shortcut() == QKeySequence("Ctrl+Shift+C")
    assert actions.window_png_action.shortcut() == QKeySequence("Ctrl+Shift+W")
    assert actions.chart_png_action.shortcut() == QKeySequence("Ctrl+Shift+P")
    keys = [k.toString() for a in window.findChildren(QAction) for k in a.shortcuts()]
    keys += [s.key().toString() for s in window.findChildren(QShortcut)]
    ours = [a.shortcut().toString() for a in actions.actions if not a.shortcut().isEmpty()]
    for key in ours:
        assert keys.count(key) == 1, f"{key} is bound more than once"


def test_window_png(actions, window, monkeypatch, tmp_path):
    asked = answer(actions, monkeypatch, tmp_path / "lab")  # no suffix typed
    written = actions.export_window_png()
    assert written == tmp_path / "lab.png"
    assert asked == [("Save window as PNG", "grpo-mult-23x47-1001.png", "PNG image (*.png)")]
    image = load_image(written)
    assert image.width() >= window.width() > 0 and image.height() > 0
    assert window.statusBar().currentMessage() == f"Saved window as {written}"
    assert actions.last_folder == tmp_path
    assert actions.default_folder(".png") == tmp_path


def test_chart_png_is_slide_sized_and_wider_than_on_screen(actions, window, monkeypatch, tmp_path):
    answer(actions, monkeypatch, tmp_path / "chart.png")
    written = actions.export_chart_png()
    assert written == tmp_path / "chart.png"
    image = load_image(written)
    chart = window.lab.chart
    assert image.width() > chart.width() * 1.5
    assert image.height() > chart.height() * 1.5
    assert window.statusBar().currentMessage() == f"Saved chart as {written}"


def test_chart_export_finishes_a_running_animation_first(actions, window, monkeypatch, tmp_path):
    chart = window.lab.chart
    chart.animation_ms = 60_000
    chart.set_animation_enabled(True)
    chart.set_view("reward", animate=True)
    assert chart.is_animating()
    answer(actions, monkeypatch, tmp_path / "chart.png")
    assert actions.export_chart_png() is not None
    assert not chart.is_animating()
    assert chart.caption_text() == ""
    assert chart.view() == "reward"


def test_chart_svg(actions, monkeypatch, tmp_path):
    answer(actions, monkeypatch, tmp_path / "chart.SVG")  # any case of the suffix is kept
    written = actions.export_chart_svg()
    assert written == tmp_path / "chart.SVG"
    text = written.read_text(encoding="utf-8")
    assert text.startswith("<?xml") and "<svg" in text
    assert "+1.00" in text and "−1.00" in text  # the bars' value labels, as text
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(written))
    assert renderer.isValid() and not renderer.defaultSize().isEmpty()


def test_group_csv_export(actions, window, monkeypatch, tmp_path):
    asked = answer(actions, monkeypatch, tmp_path / "group")
    written = actions.export_group_csv()
    assert written == tmp_path / "group.csv"
    assert asked[0][1] == "grpo-mult-23x47-1001.csv"
    with written.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [float(row["advantage"]) for row in rows] == [1.0, -1.0, -1.0, 1.0]
    assert window.statusBar().currentMessage() == f"Saved group as {written}"


def test_cancel_writes_nothing(actions, window, monkeypatch, tmp_path, warnings):
    answer(actions, monkeypatch, None)
    before = window.statusBar().currentMessage()
    for export in (
        actions.export_window_png,
        actions.export_chart_png,
        actions.export_chart_svg,
        actions.export_group_csv,
    ):
        assert export() is None
    assert list(tmp_path.iterdir()) == []
    assert warnings == []
    assert window.statusBar().currentMessage() == before


def test_missing_folder_warns_with_the_path_and_reason(
    actions, window, monkeypatch, tmp_path, warnings
):
    target = tmp_path / "no-such-folder" / "chart.png"
    answer(actions, monkeypatch, target)
    rewards = window.state.snapshot.rewards
    assert actions.export_chart_png() is None
    assert len(warnings) == 1
    title, text = warnings[0]
    assert title == "Export failed"
    assert str(target) in text and "does not exist" in text
    assert not target.parent.exists()
    assert window.state.snapshot.rewards == rewards


def test_write_error_keeps_the_existing_file(actions, window, monkeypatch, tmp_path, warnings):
    from grpo_desktop.core.common import atomic

    target = tmp_path / "group.csv"
    target.write_bytes(b"the lecturer's old file")

    def refuse(path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(atomic, "write_bytes_atomically", refuse)
    answer(actions, monkeypatch, target)
    assert actions.export_group_csv() is None
    assert target.read_bytes() == b"the lecturer's old file"
    assert warnings and str(target) in warnings[0][1] and "permission denied" in warnings[0][1]
    assert actions.last_folder is None


def test_render_failure_warns_and_writes_nothing(actions, monkeypatch, tmp_path, warnings):
    from grpo_desktop.views.files import export_figures

    def broken(*args, **kwargs):
        raise RuntimeError("exporter broke")

    monkeypatch.setattr(export_figures, "paint_figure", broken)
    answer(actions, monkeypatch, tmp_path / "chart.svg")
    assert actions.export_chart_svg() is None
    assert list(tmp_path.iterdir()) == []
    assert len(warnings) == 1 and "exporter broke" in warnings[0][1]


def test_added_suffix_asks_before_replacing_an_existing_file(actions, monkeypatch, tmp_path):
    existing = tmp_path / "lab.png"
    existing.write_bytes(b"keep me")
    answer(actions, monkeypatch, tmp_path / "lab")
    monkeypatch.setattr(actions, "confirm_overwrite", lambda path: False)
    assert actions.export_window_png() is None
    assert existing.read_bytes() == b"keep me"
    monkeypatch.setattr(actions, "confirm_overwrite", lambda path: True)
    assert actions.export_window_png() == existing
    load_image(existing)


def test_menu_action_triggers_the_export(actions, monkeypatch, tmp_path):
    answer(actions, monkeypatch, tmp_path / "from-menu.csv")
    actions.csv_action.trigger()
    assert (tmp_path / "from-menu.csv").is_file()


def test_copy_image_puts_the_window_on_the_clipboard(actions, window):
    from PySide6.QtGui import QGuiApplication

    clipboard = QGuiApplication.clipboard()
    clipboard.clear()
    actions.copy_action.trigger()
    image = clipboard.image()
    assert not image.isNull()
    assert image.width() > 0 and image.height() > 0
    assert "clipboard" in window.statusBar().currentMessage()


def test_default_folder_is_pictures_or_documents_else_home(actions, tmp_path, monkeypatch):
    from PySide6.QtCore import QStandardPaths

    pictures = tmp_path / "Pictures"
    documents = tmp_path / "Documents"
    pictures.mkdir()
    documents.mkdir()
    locations = {
        QStandardPaths.StandardLocation.PicturesLocation: str(pictures),
        QStandardPaths.StandardLocation.DocumentsLocation: str(documents),
    }
    monkeypatch.setattr(QStandardPaths, "writableLocation", lambda kind: locations.get(kind, ""))
    assert actions.default_folder(".png") == pictures
    assert actions.default_folder(".svg") == pictures
    assert actions.default_folder(".csv") == documents
    documents.rmdir()
    assert actions.default_folder(".csv") == Path.home()


def test_ask_path_dialog_starts_in_the_default_folder_and_adds_the_suffix(
    actions, monkeypatch, tmp_path
):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QFileDialog

    actions.last_folder = tmp_path
    seen = {}

    def fill_in():
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QFileDialog)
        seen["folder"] = Path(dialog.directory().absolutePath())
        seen["title"] = dialog.windowTitle()
        dialog.selectFile(str(tmp_path / "slide"))
        dialog.accept()

    QTimer.singleShot(0, fill_in)
    chosen = actions.ask_path("Save chart as PNG", "grpo-x.png", "PNG image (*.png)")
    assert chosen == str(tmp_path / "slide.png")
    assert seen == {"folder": tmp_path, "title": "Save chart as PNG"}

    QTimer.singleShot(0, lambda: QApplication.activeModalWidget().reject())
    assert actions.ask_path("Save chart as PNG", "grpo-x.png", "PNG image (*.png)") is None


def svg_texts(path: Path) -> list[str]:
    """Every ``<text>`` element's words in an SVG file, in document order."""
    from xml.etree import ElementTree

    root = ElementTree.parse(path).getroot()
    texts = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] == "text":
            words = "".join(element.itertext()).strip()
            if words:
                texts.append(words)
    return texts


def assert_png_is_a_slide_and_not_blank(path: Path, background: str) -> None:
    from PySide6.QtGui import QColor

    image = load_image(path)
    assert (image.width(), image.height()) == (1920, 1080)
    colours = {
        image.pixelColor(x, y).name() for y in range(0, 1080, 12) for x in range(0, 1920, 12)
    }
    assert QColor(background).name() in colours and len(colours) > 20  # drawn on, not empty


def test_the_exported_lab_chart_reads_alone_title_legend_axes_and_ticks(
    actions, window, monkeypatch, tmp_path
):
    answer(actions, monkeypatch, tmp_path / "chart.svg")
    texts = svg_texts(actions.export_chart_svg())
    assert "GRPO advantages of one group" in texts
    assert any("Multiply 23 × 47" in t and "G = 4" in t for t in texts)  # what group it is
    assert {"▲ pushed up (A > 0)", "▼ pushed down (A < 0)"} <= set(texts)  # the colour key
    assert {"advantage A", "answer (card)"} <= set(texts)
    assert {"−2", "−1", "0", "1", "2", "#1", "#4"} <= set(texts)  # tick numbers, both axes
    answer(actions, monkeypatch, tmp_path / "chart.png")
    assert_png_is_a_slide_and_not_blank(actions.export_chart_png(), window.theme.surface)


def test_the_exported_push_chart_names_both_presets_and_its_axes(
    actions, window, monkeypatch, tmp_path
):
    window.workbench.set_workspace("update")
    answer(actions, monkeypatch, tmp_path / "push.svg")
    texts = svg_texts(actions.export_chart_svg())
    settings = window.workbench.update_settings
    assert any(t.startswith("Update step:") for t in texts)
    assert any("(solid)" in t for t in texts) and any("(hatched)" in t for t in texts)
    assert {"total push", "answer (✓ right, ✗ wrong)", "0", "#1 ✓", "#2 ✗"} <= set(texts)
    assert settings.preset.split("/")[0] in " ".join(texts)
    answer(actions, monkeypatch, tmp_path / "push.png")
    assert_png_is_a_slide_and_not_blank(actions.export_chart_png(), window.theme.surface)


def test_the_exported_training_charts_and_frontier_carry_legend_step_axis_and_numbers(
    actions, window, monkeypatch, tmp_path
):
    from grpo_desktop.core.training.run import ALGORITHM_INFO

    window.workbench.set_workspace("training")
    window.training_page.state.run.run(5)
    on_screen = window.training_page.charts.legend_texts()
    answer(actions, monkeypatch, tmp_path / "run.svg")
    texts = svg_texts(actions.export_chart_svg())
    config = window.workbench.training_config
    labels = [ALGORITHM_INFO[name].label for name in config.algorithms]
    assert len(labels) == 6 and set(labels) <= set(texts)  # six lines, six legend entries
    assert any(t.startswith("Training run:") for t in texts)
    joined = " ".join(texts)  # a wrapped title is one <text> per line
    assert "Pass rate (exact)" in joined
    assert "The learning frontier: groups that teach" in joined
    assert texts.count("step") == 2  # both charts over the steps say so under their axis
    assert {"pass rate", "pass rate p", "share of groups that teach"} <= set(texts)
    assert {"0", "0.5", "1.0", "50", str(config.steps)} <= set(texts)  # y and x tick numbers
    assert "G = 8" in texts or f"G = {config.group_size}" in texts
    assert window.training_page.charts.legend_texts() == on_screen  # the widgets untouched
    answer(actions, monkeypatch, tmp_path / "run.png")
    assert_png_is_a_slide_and_not_blank(actions.export_chart_png(), window.theme.surface)


@pytest.mark.parametrize("theme", ["dark", "projector"])
def test_every_theme_exports_charts_on_its_own_background(
    actions, window, monkeypatch, tmp_path, theme
):
    from grpo_desktop.core.common.theme import get_theme

    window.apply_theme(get_theme(theme))
    answer(actions, monkeypatch, tmp_path / "chart.png")
    assert_png_is_a_slide_and_not_blank(actions.export_chart_png(), get_theme(theme).surface)


def test_exporting_leaves_the_chart_on_screen_as_it_was(actions, window, monkeypatch, tmp_path):
    chart = window.lab.chart
    plot = chart.getPlotItem()
    before = (
        len(plot.items),
        plot.titleLabel.text,
        chart.width(),
        chart.height(),
        chart.label_texts(),
    )
    answer(actions, monkeypatch, tmp_path / "chart.svg")
    actions.export_chart_svg()
    answer(actions, monkeypatch, tmp_path / "chart.png")
    actions.export_chart_png()
    after = (
        len(plot.items),
        plot.titleLabel.text,
        chart.width(),
        chart.height(),
        chart.label_texts(),
    )
    assert after == before


def test_the_training_run_exports_as_csv_once_opened(
    actions, window, monkeypatch, tmp_path, warnings
):
    answer(actions, monkeypatch, tmp_path / "run.csv")
    assert actions.export_training_csv() is None  # never opened: says what to do instead
    assert "Training workspace" in warnings[-1][1]
    window.workbench.set_workspace("training")
    window.training_page.state.step_once()
    written = actions.export_training_csv()
    lines = written.read_text(encoding="utf-8-sig").splitlines()
    config = window.workbench.training_config
    assert lines[0].startswith("algorithm,seed,step,diverged,pass_rate")
    assert len(lines) == 1 + len(config.algorithms) * config.seeds * 2  # steps 0 and 1
