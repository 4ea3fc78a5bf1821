"""How the Training page is built: each part's work done once (the idle prebuild builds it a
step at a time, and every repeated piece of work is time the first Ctrl+T may find unfinished)."""

from __future__ import annotations

from collections import Counter, deque

from grpo_desktop.model.workbench import TRAINING
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.training.training_charts import TrainingCharts
from grpo_desktop.views.training.training_controls import TrainingControls
from grpo_desktop.window.training_page import TrainingPage


def test_building_the_page_themes_each_view_once(window, monkeypatch):
    """The views take the theme as the last step of their own build; the page themes only its
    own parts after (a second theming re-polished each view's style sheet: 20-30 ms)."""
    themed: Counter[str] = Counter()
    for view in (TrainingCharts, FrontierPlot, TrainingControls):
        real = view.set_theme

        def counted(self, theme, real=real, name=view.__name__):
            themed[name] += 1
            real(self, theme)

        monkeypatch.setattr(view, "set_theme", counted)
    window.prebuild.stop()
    deque(window.workspaces[TRAINING].build_steps(), maxlen=0)
    assert isinstance(window.built_pages[TRAINING], TrainingPage)
    assert themed == {"TrainingCharts": 1, "FrontierPlot": 1, "TrainingControls": 1}


def test_a_theme_set_later_reaches_every_view(window):
    window.prebuild.stop()
    page = window.training_page
    window.presentation.set_theme("dark", remember=False)
    theme = window.theme
    assert theme.text in page.controls.styleSheet()
    assert theme.surface in page.charts.styleSheet()
    assert theme.muted in page.note.styleSheet()


def test_the_side_column_is_put_together_a_part_per_step(window):
    """The controls restyled in their new parent, the frontier under them, the column's scroll
    area and the holder with Play, Step and Reset: four steps (10-17 ms as one)."""
    window.prebuild.stop()
    names = list(window.workspaces[TRAINING].build_steps())
    parts = [
        "layout: side column, the controls",
        "layout: side column, the frontier",
        "layout: side column's scroll area",
        "layout: side holder",
    ]
    assert [name for name in names if name in parts] == parts
    page = window.built_pages[TRAINING]
    assert page.side_column.widget().isAncestorOf(page.controls)
    assert page.side_column.widget().isAncestorOf(page.frontier)
    assert not page.side_column.widget().isAncestorOf(page.controls.play_button)
