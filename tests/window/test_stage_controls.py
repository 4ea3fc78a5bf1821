"""On stage: themes, zoom, full screen, shortcuts, scenario files, custom problems."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from grpo_desktop.core.common.theme import get_theme
from grpo_desktop.core.files.scenario import load_scenario, save_scenario
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common.shortcuts_dialog import ShortcutsDialog, shortcut_rows
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window.main_window import MainWindow


def click(qtbot, window, index):
    card = window.findChild(TraceCard, f"traceCard{index}")
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))


def test_theme_switch_recolours_the_window_and_the_palette(window):
    window.presentation.set_theme("dark")
    dark = get_theme("dark")
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == dark.window
    assert window.lab.chart.bar_colours()[0] == dark.up
    assert window.settings.theme == "dark"


def test_projector_theme_makes_the_numbers_larger(window):
    before = window.findChild(QLabel, "statPar").font().pointSizeF()
    window.presentation.set_theme("projector")
    assert window.findChild(QLabel, "statPar").font().pointSizeF() > before


def test_the_projector_theme_grows_the_chrome_too_and_the_content_only_once(window):
    def measure() -> dict[str, float]:
        QApplication.processEvents()
        toolbar_button = window.toolbar.widgetForAction(window.sample_action)
        menu_bar = window.menuBar()
        return {  # text widths as drawn: Fusion's fixed paddings would hide the font in heights
            "menu bar": menu_bar.actionGeometry(menu_bar.actions()[0]).width(),
            "toolbar button": toolbar_button.width(),
            "problem picker": window.lab.problem_panel.chooser.width(),
            "tab label": window.explain_tabs.tabBar().tabRect(0).width(),
            "status bar text": window.statusBar().fontMetrics().height(),
            "par": window.findChild(QLabel, "statPar").font().pointSizeF(),
        }

    light = measure()
    window.presentation.set_theme("projector", remember=False)
    projector = measure()
    for name in ("menu bar", "toolbar button", "problem picker", "tab label", "status bar text"):
        assert projector[name] >= 1.15 * light[name], (name, light[name], projector[name])
    # The content grows by the theme's content scale, not by chrome × type scale twice over.
    assert projector["par"] / light["par"] == pytest.approx(1.35, rel=0.02)


def test_zoom_scales_text_between_75_and_300_percent(qtbot, window):
    size = window.findChild(QLabel, "statPar").font().pointSizeF()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.presentation.zoom == 1.25
    assert window.findChild(QLabel, "statPar").font().pointSizeF() == pytest.approx(size * 1.25)
    for _ in range(20):
        window.presentation.zoom_in_action.trigger()
    assert window.presentation.zoom == 3.0 and not window.presentation.zoom_in_action.isEnabled()
    qtbot.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.presentation.zoom == 1.0
    for _ in range(5):
        window.presentation.zoom_out_action.trigger()
    assert window.presentation.zoom == 0.75


def test_f11_toggles_full_screen(qtbot, window):
    window.presentation.full_screen_action.trigger()
    assert window.isFullScreen()
    window.presentation.full_screen_action.trigger()
    assert not window.isFullScreen()


def test_shortcuts_overlay_lists_every_keyed_action(window):
    rows = shortcut_rows(window)
    texts = {text for _menu, _key, text in rows}
    for expected in ("Undo", "Reset all", "Show advantages", "Zoom in", "Full screen", "Quit"):
        assert any(expected in text for text in texts), expected
    dialog = ShortcutsDialog(window)
    assert "Mark card 1–9 right or wrong" in dialog.text.toPlainText()
    assert "Ctrl+R" in dialog.text.toPlainText()


def test_the_shortcuts_list_names_each_key_once(window):
    window.install_deferred_features()  # lessons and the clicker share Page Down / Page Up
    keys = [key for _menu, shown, _text in shortcut_rows(window) for key in shown.split(" or ")]
    assert len(keys) == len(set(keys)), sorted(key for key in keys if keys.count(key) > 1)
    rows = {key: text for _menu, key, text in shortcut_rows(window)}
    assert "Next step" in rows["PgDown"] and "clicker" in rows["PgDown"]


def test_a_key_bound_twice_is_listed_once(window):
    window.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Shift+Z")])
    (redo,) = [key for _menu, key, text in shortcut_rows(window) if text == "Redo"]
    assert redo == "Ctrl+Shift+Z"
    assert "Ctrl+Shift+Z or Ctrl+Shift+Z" not in ShortcutsDialog(window).text.toPlainText()


def test_menus_show_their_shortcuts(window):
    assert window.reset_action.shortcut().toString() == "Ctrl+R"
    assert window.view_toggle.shortcut().toString() == "V"


def test_reset_all_returns_to_the_problems_preset(qtbot, window):
    click(qtbot, window, 1)
    click(qtbot, window, 2)
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.state.snapshot.rewards == (1, 0, 0, 1)


def test_undo_names_what_it_will_undo(qtbot, window):
    click(qtbot, window, 2)
    assert window.undo_action.text() == "&Undo Mark trace 3 right"


def test_saving_and_opening_a_scenario_round_trips_the_lab(qtbot, window, tmp_path, monkeypatch):
    click(qtbot, window, 1)
    window.request_convention("trl")
    window.set_view("reward", animate=False)
    target = tmp_path / "week3"
    monkeypatch.setattr(window.document, "ask_save_path", lambda: str(target))
    assert window.document.save_action.isEnabled()
    window.document.save_action.trigger()
    saved = tmp_path / "week3.grpo.json"
    assert json.loads(saved.read_text(encoding="utf-8"))["convention"] == "trl"
    assert "week3.grpo.json" in window.windowTitle() and not window.isWindowModified()

    window.request_reset = None  # the next lines must not depend on reset
    window.state.set_problem("hard-sum-odd-to-99")
    window.document.open_path(saved)
    assert window.state.snapshot.rewards == (1, 1, 0, 1)
    assert window.state.convention == "trl" and window.view == "reward"
    assert str(saved.resolve()) in window.settings.recent_files


def test_unsaved_changes_mark_the_title(qtbot, window):
    assert not window.isWindowModified()
    click(qtbot, window, 0)
    assert window.isWindowModified() and "[*]" in window.windowTitle()


def test_a_broken_scenario_says_why_and_changes_nothing(qtbot, window, tmp_path, monkeypatch):
    broken = tmp_path / "broken.grpo.json"
    broken.write_text('{"format": "grpo-desktop-scenario", "schema": 1, "problem": ', "utf-8")
    shown = []
    monkeypatch.setattr(window.document, "show_error", lambda title, text: shown.append(text))
    before = window.state.memento()
    assert not window.document.open_path(broken)
    assert window.state.memento() == before
    assert shown and "broken.grpo.json" in shown[0]


def test_closing_with_unsaved_changes_asks_and_can_be_cancelled(qtbot, window, monkeypatch):
    click(qtbot, window, 0)
    monkeypatch.setattr(window.document, "ask_keep_changes", lambda: "cancel")
    assert not window.close()
    monkeypatch.setattr(window.document, "ask_keep_changes", lambda: "discard")
    assert window.close()


def test_a_custom_problem_becomes_the_lab_and_saves_inline(qtbot, window, tmp_path, monkeypatch):
    shipped = get_problem("mult-23x47")
    custom = type(shipped)(**{**shipped.__dict__, "id": "custom-my-23x47", "title": "My 23 × 47"})
    monkeypatch.setattr(
        "grpo_desktop.views.lab.problem_editor.edit_problem", lambda problem, parent: custom
    )
    window.edit_problem_action.trigger()
    assert window.state.problem.id == "custom-my-23x47"
    assert "My 23 × 47 (custom)" in window.lab.problem_panel.chooser.currentText()
    path = tmp_path / "custom.grpo.json"
    save_scenario(window.workbench.current_scenario(), path)
    assert load_scenario(path).custom_problem
    window.undo_action.trigger()
    assert window.state.problem.id == "mult-23x47"


def test_settings_remember_zoom_and_theme_for_the_next_window(qtbot, window):
    window.presentation.set_zoom(1.5)
    window.presentation.set_theme("projector")
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.presentation.zoom == 1.5 and again.presentation.theme_name == "projector"


@pytest.fixture
def app_look_restored():
    """The application's font and palette put back afterwards (windows zoom and theme them)."""
    from PySide6.QtGui import QGuiApplication

    font = QGuiApplication.font()
    yield
    QApplication.setFont(font)
    QApplication.setPalette(QPalette())


def test_a_new_window_styles_its_views_again_only_for_another_look(
    qtbot, monkeypatch, app_look_restored
):
    """The views are built in the window's theme at the application's font: the first apply
    skips restyling them for that same look (5 ms of start-up), never for a remembered one."""
    styled = []
    original = MainWindow.apply_theme
    monkeypatch.setattr(
        MainWindow, "apply_theme", lambda self, theme: (styled.append(theme), original(self, theme))
    )
    plain = MainWindow()
    qtbot.addWidget(plain)
    assert styled == []
    assert plain.lab.chart.bar_colours()[0] == get_theme("light").up
    plain.presentation.set_theme("light", remember=False)  # asked for again: styled again
    assert [theme.name for theme in styled] == ["light"]
    plain.presentation.set_zoom(1.5, remember=False)
    plain.presentation.set_theme("projector")  # remembered for the next window
    plain.close()
    styled.clear()
    remembered = MainWindow()
    qtbot.addWidget(remembered)
    assert [theme.name for theme in styled][:1] == ["projector"]
    assert remembered.lab.chart.bar_colours()[0] == get_theme("projector").up


def test_the_layout_fits_1024x768_and_1920x1080_at_200_percent(window):
    """Text is clipped when the window is smaller than its layout's minimum size."""
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 768, hint
    window.presentation.set_zoom(2.0, remember=False)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1920 and hint.height() <= 1080, hint


@pytest.mark.parametrize(("theme", "fitting"), [("light", 1.25), ("projector", 1.0)])
def test_a_zoom_too_large_for_the_screen_steps_down_and_the_status_bar_stays_on_it(
    window, theme, fitting
):
    window.presentation.set_theme(theme, remember=False)
    window.presentation.fit_to(QSize(1280, 800))
    window.resize(1280, 800)
    window.presentation.set_zoom(3.0, remember=False)
    QApplication.processEvents()
    assert window.presentation.zoom == 3.0  # what was asked stays the setting
    assert window.presentation.shown_zoom < 3.0
    hint = window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 800, hint
    assert window.width() <= 1280 and window.height() <= 800
    bar = window.statusBar()
    bottom = bar.mapTo(window, bar.rect().bottomLeft()).y()
    assert bar.isVisible() and bottom < 800
    assert "does not fit" in bar.currentMessage()
    window.presentation.set_zoom(fitting, remember=False)
    assert window.presentation.shown_zoom == fitting  # a zoom that fits is shown as asked


def test_a_fitted_zoom_counts_wrapped_text_so_nothing_is_squeezed(window):
    """A long prompt wraps to more lines at a larger zoom: the fit must count them, or the
    layout squeezes the stat tiles onto each other (seen at 1280x800, projector, 200 %)."""
    window.request_problem("percent-increase-40-50")
    window.presentation.set_theme("projector", remember=False)
    window.presentation.fit_to(QSize(1280, 800))
    window.resize(1280, 800)
    window.presentation.set_zoom(2.0, remember=False)
    QApplication.processEvents()
    assert window.height() <= 800
    prompt = window.lab.problem_panel.prompt
    assert prompt.heightForWidth(prompt.width()) <= prompt.height()
    tiles = window.lab.stats_panel.tiles
    for upper, lower in ((tiles[0], tiles[2]), (tiles[1], tiles[3])):
        upper_bottom = upper.mapTo(window, upper.rect().bottomLeft()).y()
        lower_top = lower.mapTo(window, lower.rect().topLeft()).y()
        if lower_top > upper.mapTo(window, upper.rect().topLeft()).y():  # two rows
            assert upper_bottom < lower_top
    for tile in tiles:
        note = tile.note
        assert note.heightForWidth(note.width()) <= note.height()
        assert note.mapTo(tile, note.rect().bottomLeft()).y() <= tile.contentsRect().bottom()


def test_about_names_version_license_and_sources(window, monkeypatch):
    shown = []
    monkeypatch.setattr(
        "grpo_desktop.window.window_actions.QMessageBox.about",
        lambda parent, title, text: shown.append(text),
    )
    window.about_action.trigger()
    assert "0.1.0" in shown[0] and "MIT" in shown[0] and "TRL" in shown[0]


def test_selected_and_progress_text_reads_on_the_highlight_in_every_theme():
    from PySide6.QtGui import QPalette

    from grpo_desktop.core.common.theme import THEMES, contrast_ratio
    from grpo_desktop.views.common.theme_palette import palette_for

    for theme in THEMES.values():
        palette = palette_for(theme)
        fill = palette.color(QPalette.ColorRole.Highlight).name()
        text = palette.color(QPalette.ColorRole.HighlightedText).name()
        assert contrast_ratio(text, fill) >= 4.5, theme.name
