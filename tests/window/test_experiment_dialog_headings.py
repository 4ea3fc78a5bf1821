"""View ▸ Experiment…: every heading of the results table reads whole, in every theme."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QStyle


def test_every_heading_fits_its_column_when_the_dialog_opens_in_every_theme(window):
    for theme in ("light", "dark", "projector"):  # one window: the dialog reopens per theme
        window.presentation.set_theme(theme, remember=False)
        window.experiment_action.trigger()
        QApplication.processEvents()
        dialog = window.experiment_dialog
        header = dialog.table.horizontalHeader()
        metrics = QFontMetrics(header.font())
        margin = 2 * header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        for column in range(dialog.table.columnCount()):
            heading = dialog.table.horizontalHeaderItem(column).text()
            widest = max(metrics.horizontalAdvance(line) for line in heading.splitlines())
            assert widest + margin <= header.sectionSize(column), (theme, heading)
            lines = len(heading.splitlines())
            assert lines * metrics.height() <= header.height(), (theme, heading)
        dialog.close()
