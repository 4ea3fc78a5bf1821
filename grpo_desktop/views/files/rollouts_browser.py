"""The rollouts browser: a real run's steps, each step's groups, and what the run logged.

A non-modal dialog over the window, big enough to read on a projector: the steps on the left;
for the chosen step its statistics (degenerate fraction, reward distribution, and for TRL files
the convention that reproduces the logged advantages) above a searchable table of its groups.
Choosing a group (double click, Enter or "Open in Lab") emits ``group_requested(step, index)``;
the browser never opens files and never computes a statistic, it shows the summaries it is given.

Everything works from the keyboard: Tab goes from the steps (↑ ↓ choose one) to the search, the
filter, the sort order (what a click on a column's heading does), the groups (↑ ↓ choose one,
Enter opens it; Tab leaves the table rather than walking its cells) and the buttons; Escape closes.

Every text from a file is shown as plain text: prompts are item text or ``Qt.PlainText`` labels,
and tooltips are escaped, so a prompt holding ``<b>`` shows the tag, never bold type. Names and
prompts also go through :func:`~grpo_desktop.core.common.unsafe_text.visible`: a bidi override or a
zero-width character shows as its escape, so "evil\u202eexe.txt" never reads as "evil.txt.exe".
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRectF,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.advantages import CONVENTIONS
from grpo_desktop.core.runs.rollout_checks import TRL_SETTINGS
from grpo_desktop.core.runs.rollout_text import MIN_SHARED_PREFIX, shared_prefix
from grpo_desktop.core.runs.rollouts import PROMPT_CHARS, GroupSummary, StepSummary
from grpo_desktop.views.common.fonts import scaled_font

TITLE = "Rollouts"
COLUMNS = ("#", "Prompt", "G", "Mean", "Rewards", "Degenerate")
COLUMN_TIPS = (
    "The group's place in the file",
    "The prompt the answers share (its start; hover for more)",
    "G: how many answers the group has",
    "The group's mean reward: the baseline its advantages are measured from",
    "Each answer's reward, as the run logged it",
    "Degenerate: every reward equal, so every advantage is 0 and the group teaches nothing",
)
PROMPT_COLUMN = 1
REWARDS_COLUMN = 4
NUMBER_COLUMNS = (0, 2, 3)  # right-aligned
SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # numbers sort as numbers, not as text
DEGENERATE_ROLE = Qt.ItemDataRole.UserRole + 2
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 3  # the prompt as summarised (its start and end)
SHARED_SHOWN_CHARS = 90  # of that beginning, above the table (all of it in the tooltip)
LIBRARIES = {"verl": "verl", "trl": "TRL"}
#: The sort order box's words for each column (the table's headings are short).
SORT_NAMES = ("file order", "prompt", "G", "mean reward", "rewards", "degenerate")
__all__ = ["MIN_SHARED_PREFIX", "RewardBars", "RolloutsBrowser", "one_line", "shared_prefix"]


def fraction_text(fraction: float | None) -> str:
    """A step's degenerate fraction as a percentage, or "unknown" where the file cannot tell."""
    return "unknown" if fraction is None else f"{fraction:.0%}"


def one_line(text: str) -> str:
    """The text on one line, safe to show: every run of whitespace (newlines too) becomes one
    space, and control, bidi and zero-width characters are written as escapes."""
    return visible(" ".join(text.split()))


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt guesses rich text for a bare tooltip)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


class RewardBars(QWidget):
    """The step's reward histogram as plain bars, the range written under them."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rewardBars")
        self.setAccessibleName("Reward distribution")
        self.counts: tuple[int, ...] = ()
        self.low = self.high = 0.0
        self.theme = theme

    def set_distribution(self, counts: Sequence[int], low: float, high: float) -> None:
        self.counts = tuple(counts)
        self.low, self.high = low, high
        total = sum(self.counts)
        self.setToolTip(
            f"{total} rewards in {len(self.counts)} equal bins from {number(low, 4)} to "
            f"{number(high, 4)}; bars: " + ", ".join(str(c) for c in self.counts)
        )
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setFont(scaled_font(theme.type_scale * 0.9))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:  # Qt override
        line = self.fontMetrics().lineSpacing()
        return QSize(line * 13, line * 5)

    def minimumSizeHint(self) -> QSize:  # Qt override
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        if not self.counts:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = self.fontMetrics()
        line = metrics.lineSpacing()
        area = QRectF(self.rect()).adjusted(2, line, -2, -line - 2)  # count above, range below
        top = max(self.counts) or 1
        width = area.width() / len(self.counts)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(self.theme.up))
        for i, count in enumerate(self.counts):
            height = area.height() * count / top
            bar = QRectF(area.left() + i * width + 1, area.bottom() - height, width - 2, height)
            painter.drawRect(bar)
        painter.setPen(QColor(self.theme.border))
        painter.drawLine(area.bottomLeft(), area.bottomRight())
        painter.setPen(QColor(self.theme.muted))
        for i, count in enumerate(self.counts):  # each bar's count above it, where it fits
            text = str(count)
            room = width  # a narrow bar's count may spread over its empty neighbours
            if 0 < i < len(self.counts) - 1 and not self.counts[i - 1] and not self.counts[i + 1]:
                room = width * 3
            elif i in (0, len(self.counts) - 1) and len(self.counts) > 1:
                neighbour = self.counts[1] if i == 0 else self.counts[-2]
                room = width * (2 if not neighbour else 1)
            if count and metrics.horizontalAdvance(text) <= room:
                top_edge = area.bottom() - area.height() * count / top - line
                centre = area.left() + (i + 0.5) * width
                left = min(max(centre - room / 2, 0), self.width() - room)
                label = QRectF(left, top_edge, room, line)
                painter.drawText(label, Qt.AlignmentFlag.AlignCenter, text)
        below = QRectF(0, area.bottom() + 2, self.width(), line)
        painter.setPen(QColor(self.theme.text))
        painter.drawText(below, Qt.AlignmentFlag.AlignLeft, number(self.low, 4))
        if self.high != self.low:
            painter.drawText(below, Qt.AlignmentFlag.AlignRight, number(self.high, 4))
        painter.end()


class _GroupFilter(QSortFilterProxyModel):
    """Rows whose prompt holds the search text; optionally only informative groups."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.informative_only = False
        self.setSortRole(SORT_ROLE)

    def set_filter(self, text: str, informative_only: bool) -> None:
        if not hasattr(self, "beginFilterChange"):  # Qt before 6.9 (invalidate* deprecated after)
            self.text, self.informative_only = text.casefold().strip(), informative_only
            self.invalidateFilter()
            return
        self.beginFilterChange()
        self.text, self.informative_only = text.casefold().strip(), informative_only
        self.endFilterChange()

    def filterAcceptsRow(
        self, row: int, parent: QModelIndex | QPersistentModelIndex
    ) -> bool:  # Qt override
        if not self.text and not self.informative_only:
            return True
        model = self.sourceModel()
        index = model.index(row, PROMPT_COLUMN, parent)
        if self.informative_only and model.data(index, DEGENERATE_ROLE):
            return False
        return not self.text or self.text in str(model.data(index, SEARCH_ROLE)).casefold()


class _GroupTable(QTableView):
    """The groups; when a search leaves none, it says so in its middle rather than a blank box."""

    def __init__(self) -> None:
        super().__init__(objectName="rolloutGroups")
        self.placeholder = ""
        self.placeholder_colour = QColor(LIGHT.muted)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        super().paintEvent(event)
        model = self.model()
        if self.placeholder and model is not None and model.rowCount() == 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.placeholder_colour)
            painter.setFont(self.font())
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(
                self.viewport().rect().adjusted(12, 4, -12, -4), flags, self.placeholder
            )
            painter.end()


class _GroupModel(QAbstractTableModel):
    """The step's groups as table cells, made only for the rows on screen: a step of many
    thousand groups opens at once (one item object per cell took seconds)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: tuple[GroupSummary, ...] = ()
        self.shown: list[str] = []  # each prompt on one line, the shared beginning left out
        self.muted = QColor(LIGHT.muted)

    def set_groups(self, groups: Sequence[GroupSummary], shown: list[str]) -> None:
        self.beginResetModel()
        self.groups, self.shown = tuple(groups), shown
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.groups)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMN_TIPS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        group = self.groups[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == SORT_ROLE:  # asked n·log n times by a sort: kept cheap
            if column == 0:
                return row
            if column == PROMPT_COLUMN:
                return self.shown[row].casefold()
            if column == 2:
                return group.size
            if column == 3:
                return group.mean
            if column == REWARDS_COLUMN:
                return group.rewards[0] if len(set(group.rewards)) == 1 else group.mean
            return group.degenerate
        if role == SEARCH_ROLE:
            return group.prompt
        if role == DEGENERATE_ROLE:
            return group.degenerate
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == PROMPT_COLUMN:
                return plain_tooltip(visible(group.prompt, multiline=True))
            return self._text(row, column) if column == REWARDS_COLUMN else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.muted if group.degenerate else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, row: int, column: int) -> str:
        group = self.groups[row]
        if column == 0:
            return str(row + 1)
        if column == PROMPT_COLUMN:
            return self.shown[row]
        if column == 2:
            return str(group.size)
        if column == 3:
            return number(group.mean, 3)
        if column == REWARDS_COLUMN:
            return ", ".join(number(r, 3) for r in group.rewards)
        return "yes" if group.degenerate else "no"


def _plain_label(name: str, wrap: bool = True) -> QLabel:
    label = QLabel(objectName=name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # it may quote a file's text
    label.setWordWrap(wrap)
    return label


class RolloutsBrowser(QDialog):
    """A run's steps and groups (objectName ``rolloutsBrowser``); asks for a group to open."""

    group_requested = Signal(int, int)  # step, group index (0-based, file order)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rolloutsBrowser")
        self.setWindowTitle(TITLE)
        self.setModal(False)
        self.theme = theme
        self.steps: tuple[StepSummary, ...] = ()
        self.current_step: StepSummary | None = None

        self.source_label = _plain_label("rolloutsSource")
        self.steps_heading = QLabel("Steps", objectName="stepsHeading")
        self.steps_list = QListWidget(objectName="rolloutSteps")
        self.steps_list.setAccessibleName("Steps in the file")
        self.steps_list.currentRowChanged.connect(self._show_step_at)
        self.steps_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.steps_list.setTextElideMode(Qt.TextElideMode.ElideRight)

        self.step_title = _plain_label("stepTitle")
        self.step_stats = _plain_label("stepStats")
        self.bars = RewardBars(theme)
        self.quantiles = _plain_label("rewardQuantiles")
        self.convention = _plain_label("conventionMatch")
        self.problems = _plain_label("stepProblems")
        self.notes = _plain_label("stepNotes")
        self.shared = _plain_label("sharedPrefix")

        self.search = QLineEdit(objectName="rolloutSearch")
        self.search.setPlaceholderText("Search the prompts")
        self.search.setAccessibleName("Search the prompts")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.informative = QCheckBox(
            "Only groups with a learning signal", objectName="informativeOnly"
        )
        self.informative.setToolTip(
            "Hide the degenerate groups: all rewards equal, every advantage 0"
        )
        self.informative.toggled.connect(self._filter)
        self.shown_count = _plain_label("shownCount", wrap=False)
        # The order a click on a heading sets, from the keyboard too (a heading takes no focus).
        self.sort_combo = QComboBox(objectName="rolloutSort")
        self.sort_combo.setAccessibleName("Sort the groups by")
        self.sort_combo.setToolTip("The groups' order (a click on a column's heading sets it too)")
        for column, name in enumerate(SORT_NAMES):
            for order, words in (
                (Qt.SortOrder.AscendingOrder, "ascending"),
                (Qt.SortOrder.DescendingOrder, "descending"),
            ):
                self.sort_combo.addItem(f"{name[:1].upper()}{name[1:]}, {words}", (column, order))
        self.sort_combo.activated.connect(self._sort_chosen)
        self.sort_label = QLabel("S&ort", objectName="rolloutSortLabel")
        self.sort_label.setBuddy(self.sort_combo)

        self.model = _GroupModel(self)
        self.proxy = _GroupFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = _GroupTable()
        self.table.setAccessibleName("Groups of the selected step")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.verticalHeader().setVisible(False)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(PROMPT_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.sortIndicatorChanged.connect(self._show_sort)
        self._show_sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self.table.doubleClicked.connect(self._request)
        self.table.selectionModel().currentRowChanged.connect(self._enable_open)

        self.open_button = QPushButton("Open in Lab", objectName="openGroupButton")
        self.open_button.setToolTip("Show the selected group as cards in the Lab (Enter)")
        self.open_button.setDefault(True)  # Enter, in the table or the search box, opens
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self._request_current)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(False)
        self._build_layout(buttons)
        self.set_theme(theme)

    def _build_layout(self, buttons: QDialogButtonBox) -> None:
        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.addWidget(self.steps_heading)
        left_column.addWidget(self.steps_list, 1)

        stats = QWidget(objectName="stepStatsBox")
        stats_row = QHBoxLayout(stats)
        stats_row.setContentsMargins(0, 0, 0, 0)
        words = QVBoxLayout()
        words.addWidget(self.step_title)
        words.addWidget(self.step_stats)
        words.addWidget(self.quantiles)
        words.addWidget(self.convention)
        words.addWidget(self.problems)
        words.addWidget(self.notes)
        words.addStretch(1)
        stats_row.addLayout(words, 1)
        stats_row.addWidget(self.bars)

        search_row = QHBoxLayout()
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.informative)
        search_row.addWidget(self.sort_label)
        search_row.addWidget(self.sort_combo)
        search_row.addWidget(self.shown_count)

        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(stats)
        right_column.addLayout(search_row)
        right_column.addWidget(self.shared)
        right_column.addWidget(self.table, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="rolloutsSplitter")
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 4)
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter

        column = QVBoxLayout(self)
        column.addWidget(self.source_label)
        column.addWidget(splitter, 1)
        column.addWidget(buttons)
        # Reading order: the steps, then the search row left to right, the groups, the buttons.
        order = (
            self.steps_list,
            self.search,
            self.informative,
            self.sort_combo,
            self.table,
            self.open_button,
            buttons.button(QDialogButtonBox.StandardButton.Close),
        )
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

    # --- data in ------------------------------------------------------------------------------

    def show_source(self, name: str, run_format: str, steps: Sequence[StepSummary]) -> None:
        """A newly read run: ``name`` is its file or folder, ``run_format`` "verl" or "trl"."""
        name = visible(name)
        self.steps = tuple(steps)
        library = LIBRARIES.get(run_format, run_format)
        answers = sum(step.answers for step in self.steps)
        groups = sum(len(step.groups) for step in self.steps)
        count = len(self.steps)
        self.setWindowTitle(f"{TITLE} — {name}")
        self.source_label.setText(
            f"{library} rollouts: {name} · {count} step{'s' if count != 1 else ''}, "
            f"{groups:,} groups, {answers:,} answers. Double-click a group (or select it and "
            "press Enter) to show it in the Lab."
        )
        self.steps_list.blockSignals(True)
        self.steps_list.clear()
        for step in self.steps:
            item = QListWidgetItem(
                f"Step {step.step} · {fraction_text(step.degenerate_fraction)} degenerate"
            )
            item.setToolTip(plain_tooltip(visible(step.source)))
            item.setData(Qt.ItemDataRole.UserRole, step.step)
            self.steps_list.addItem(item)
        self.steps_list.blockSignals(False)
        self._fit_steps_list()
        self.steps_list.setCurrentRow(0 if self.steps else -1)
        if self.steps:
            self._show_step_at(0)
        self.table.setFocus()  # arrow keys move through the groups, Enter opens one

    def select_step(self, step: int) -> None:
        """Show step ``step`` (its number, as logged)."""
        for row, summary in enumerate(self.steps):
            if summary.step == step:
                self.steps_list.setCurrentRow(row)
                return
        raise ValueError(f"no step {step}")

    def _show_step_at(self, row: int) -> None:
        if not 0 <= row < len(self.steps):
            return
        step = self.steps[row]
        if step is self.current_step:
            return
        self.current_step = step
        groups = len(step.groups)
        degenerate = sum(group.degenerate for group in step.groups)
        sizes = sorted({group.size for group in step.groups})
        size_text = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
        self.step_title.setText(f"Step {step.step} · {visible(step.source)}")
        if step.degenerate_fraction is None:
            share = (
                "Degenerate: unknown — the file cannot tell which groups have a learning "
                "signal (see below)."
            )
        else:
            share = (
                f"Degenerate: {degenerate:,} of {groups:,} ({step.degenerate_fraction:.0%}): "
                "all rewards equal, every advantage 0, nothing learned from them."
            )
        self.step_stats.setText(f"{groups:,} groups of {size_text} answers.\n{share}")
        q = step.reward_quantiles
        self.quantiles.setText(
            f"Rewards: min {number(q[0], 3)} · 25 % {number(q[1], 3)} · median "
            f"{number(q[2], 3)} · 75 % {number(q[3], 3)} · max {number(q[4], 3)}"
        )
        self.bars.set_distribution(step.reward_histogram, q[0], q[4])
        self.convention.setText(self._convention_text(step))
        self.convention.setVisible(bool(self.convention.text()))
        self.problems.setText("\n".join(f"⚠ {visible(problem)}" for problem in step.problems))
        self.problems.setVisible(bool(step.problems))
        self.notes.setText("\n".join(f"Note: {visible(note)}" for note in step.notes))
        self.notes.setVisible(bool(step.notes))
        self._fill_table(step.groups)

    @staticmethod
    def _convention_text(step: StepSummary) -> str:
        if step.convention_match is not None:
            convention = CONVENTIONS.get(step.convention_match)
            label = convention.label if convention else step.convention_match
            setting = TRL_SETTINGS.get(step.convention_match)
            label = f"{label} convention, {setting}" if setting else f"{label} convention"
            diff = "" if step.max_abs_diff is None else f" (max |diff| {step.max_abs_diff:.2g})"
            return f"Logged advantages: reproduced by the {label}{diff}."
        if step.max_abs_diff is not None:
            return (
                "Logged advantages: no convention reproduces them (closest max |diff| "
                f"{step.max_abs_diff:.3g})."
            )
        return ""

    def _fill_table(self, groups: Sequence[GroupSummary]) -> None:
        prompts = [one_line(group.prompt) for group in groups]
        prefix = shared_prefix(prompts)
        self.shared.setVisible(bool(prefix))
        start = prefix.strip()
        if len(start) > SHARED_SHOWN_CHARS:  # a whole system prompt: its start, the rest on hover
            start = start[:SHARED_SHOWN_CHARS].rstrip()
        self.shared.setText(f"Every prompt starts with: {start} …  (left out below)")
        self.shared.setToolTip(plain_tooltip(prefix))
        shown = [("… " + p[len(prefix) :]) if prefix else p for p in prompts]
        # File order is the model's own: sort only for another order (a sort of many thousand
        # rows asks the model for n·log n keys).
        header = self.table.horizontalHeader()
        column, order = header.sortIndicatorSection(), header.sortIndicatorOrder()
        self.proxy.sort(-1)
        self.model.set_groups(groups, shown)
        if (column, order) != (0, Qt.SortOrder.AscendingOrder) and column >= 0:
            self.proxy.sort(column, order)
        self._size_columns()
        self._filter()

    def _size_columns(self) -> None:
        """Widths from the font, not from every row's contents (which would visit them all)."""
        metrics = self.table.fontMetrics()
        header = self.table.horizontalHeader()
        pad = 3 * metrics.horizontalAdvance("0")
        largest = max(len(self.model.groups), 1)
        samples = {
            0: str(largest),
            2: "64",
            3: "−0.875",
            REWARDS_COLUMN: "0, " * 8,
            len(COLUMNS) - 1: "yes",
        }
        for column, sample in samples.items():
            heading = header.fontMetrics().horizontalAdvance(COLUMNS[column]) + pad * 2
            header.resizeSection(column, max(metrics.horizontalAdvance(sample) + pad, heading))

    def _fit_steps_list(self) -> None:
        """The steps list as wide as its longest line: no step's numbers hide behind an edge."""
        metrics = self.steps_list.fontMetrics()
        texts = [self.steps_list.item(row).text() for row in range(self.steps_list.count())]
        widest = max((metrics.horizontalAdvance(text) for text in texts), default=0)
        widest = max(widest, metrics.horizontalAdvance("Step 1000 · 100% degenerate"))
        scrollbar = self.steps_list.verticalScrollBar().sizeHint().width()
        self.steps_list.setMinimumWidth(widest + scrollbar + 4 * self.steps_list.frameWidth() + 16)

    # --- searching and choosing ----------------------------------------------------------------

    def _filter(self, *_args: object) -> None:
        self.proxy.set_filter(self.search.text(), self.informative.isChecked())
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.shown_count.setText(f"{shown:,} of {total:,} groups")
        self.table.placeholder = self._empty_text() if total and not shown else ""
        self.table.viewport().update()
        current = self.table.currentIndex()
        if (not current.isValid() or not self.table.selectionModel().isSelected(current)) and shown:
            self.table.selectRow(0)
        self._enable_open()

    def _empty_text(self) -> str:
        """Why the table is empty: what was searched for, and where."""
        text = self.search.text().strip()
        which = "informative group's" if self.informative.isChecked() else "group's"
        if text:
            return (
                f"No {which} prompt contains “{text}”. The search looks at the first and "
                f"the last {PROMPT_CHARS} characters of each prompt."
            )
        return "Every group of this step is degenerate: no group has a learning signal."

    def _enable_open(self, *_args: object) -> None:
        self.open_button.setEnabled(self.selected_group() is not None)

    def visible_prompts(self) -> list[str]:
        """The prompt column's text, row by row as shown (for tests and screen readers)."""
        return [
            str(self.proxy.index(row, PROMPT_COLUMN).data()) for row in range(self.proxy.rowCount())
        ]

    def selected_group(self) -> int | None:
        """The selected row's group index (file order), or None."""
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.current_step is None:
            return None
        return int(self.proxy.mapToSource(rows[0]).row())

    def select_group(self, group_index: int) -> None:
        """Select the row of group ``group_index`` (0-based, file order) if it is shown."""
        source = self.model.index(group_index, 0)
        row = self.proxy.mapFromSource(source).row()
        if row >= 0:
            self.table.selectRow(row)

    def _sort_chosen(self, index: int) -> None:
        column, order = self.sort_combo.itemData(index)
        self.table.sortByColumn(int(column), Qt.SortOrder(order))

    def _show_sort(self, column: int, order: Qt.SortOrder) -> None:
        """The sort box follows the table's order (set by a heading's click, or by the box)."""
        for index in range(self.sort_combo.count()):
            if self.sort_combo.itemData(index) == (column, order):
                if self.sort_combo.currentIndex() != index:
                    self.sort_combo.setCurrentIndex(index)
                return

    def _request(self, index: QModelIndex) -> None:
        if self.current_step is not None and index.isValid():
            group = self.proxy.mapToSource(index).row()
            self.group_requested.emit(self.current_step.step, group)

    def _request_current(self) -> None:
        group = self.selected_group()
        if group is not None and self.current_step is not None:
            self.group_requested.emit(self.current_step.step, group)

    # --- look ---------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        font = scaled_font(theme.type_scale)
        for widget in (
            self.source_label,
            self.steps_list,
            self.step_stats,
            self.quantiles,
            self.convention,
            self.problems,
            self.notes,
            self.shared,
            self.search,
            self.informative,
            self.shown_count,
            self.sort_label,
            self.sort_combo,
            self.table,
            self.open_button,
        ):
            widget.setFont(font)
        self.steps_heading.setFont(scaled_font(theme.type_scale, bold=True))
        self.step_title.setFont(scaled_font(theme.type_scale * 1.15, bold=True))
        self.shared.setStyleSheet(f"color: {theme.muted};")
        self.notes.setStyleSheet(f"color: {theme.muted};")
        self.table.placeholder_colour = QColor(theme.muted)
        self.model.muted = QColor(theme.muted)
        self.problems.setStyleSheet(f"color: {theme.down};")
        self.bars.set_theme(theme)
        self.table.verticalHeader().setDefaultSectionSize(
            round(self.table.fontMetrics().lineSpacing() * 1.5)
        )
        self._fit_steps_list()
        self._size_columns()
        self.table.viewport().update()  # the degenerate rows' muted colour
