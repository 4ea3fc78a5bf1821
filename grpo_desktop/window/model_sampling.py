"""Presets ▸ Sample from the tiny model…: G real completions of a prompt, as a group in the Lab.

The lecturer types or picks a prompt (``23+45=``, ``sort 5203=``, anything the model can read),
chooses G, a seed and a temperature, and the tiny language model (the shipped checkpoint, or one
a run saved with ``grpo-desktop lm train --save``, opened with "Open model…") writes the answers
(:func:`grpo_desktop.core.tinylm.lab_group.sample_lab_group`). The group opens in the Lab like a
real run's group, read-only, as one undo step (``Workbench.open_recorded_group``); its rewards are
the lab's accuracy and format reward functions under the lab's weights.

Measured in the running app on the shared 2-core machine: the first use costs about 175 ms
(importing the model's code 85 ms, reading the checkpoint 35 ms, the first sample's numpy warm-up
55 ms), so the dialog does that on a worker thread the moment it opens, while the lecturer types;
after it, a group of 8 takes about 3 ms and of 64 about 30 ms, which the GUI thread does under a
busy cursor (opening the group in the Lab, 70–250 ms, is the Lab's own repaint, as for a run's
group). A prompt the model cannot read leaves a message in the dialog and changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.lab.lab_limits import MAX_GROUP_SIZE, MIN_GROUP_SIZE
from grpo_desktop.core.lab.reward_fields import MAX_NAME_CHARS
from grpo_desktop.views.common import gui_collector
from grpo_desktop.views.common.form_label import FormLabel

if TYPE_CHECKING:
    from grpo_desktop.core.lab.recorded_group import RecordedGroup
    from grpo_desktop.core.tinylm import TinyLM

__all__ = ["WHAT_THE_MODEL_IS", "ModelSamplingDialog", "open_model_sampling"]

#: What the model is, in the dialog's own words (the README says more).
WHAT_THE_MODEL_IS = (
    "107,820-parameter character transformer pretrained 400 steps on addition and digit "
    "sorting (see README)"
)
MAX_SEED = 2**31 - 1
SHIPPED_LABEL = "the shipped checkpoint (tinylm/add.npz)"

#: The window this hangs off: a ``MainWindow`` (not imported: it imports the window's actions).
MainWindow = Any


class ModelSamplingDialog(QDialog):
    """The prompt, G, seed and temperature; Sample draws the group and opens it in the Lab."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window, objectName="modelSamplingDialog")
        from grpo_desktop.core.tinylm.lab_group import EXAMPLE_PROMPTS

        self.window_ = window
        self.workbench = window.workbench
        self._model: TinyLM | None = None
        self._loaded: list[object] = []  # the worker's model, or the error it met
        # Import, read and warm up while the lecturer types (about 175 ms, once).
        self._loader = gui_collector.start_worker(self._load, "tinylm-load")
        self.setWindowTitle("Sample from the tiny model")

        about = QLabel(
            f"A real neural network writes the answers: a {WHAT_THE_MODEL_IS}. It reads digits, "
            "+ - = *, space, a–z and “.”; an answer ends with “.”. Each answer is graded by the "
            "lab's reward functions (accuracy against the task's right answer, format) with the "
            "lab's weights, and the group opens in the Lab as the model wrote it.",
            objectName="modelSamplingAbout",
        )
        about.setWordWrap(True)
        about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.prompt_box = QComboBox(objectName="modelPromptCombo")
        self.prompt_box.setEditable(True)
        self.prompt_box.addItems(EXAMPLE_PROMPTS)
        self.prompt_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.prompt_box.setAccessibleName("Prompt")
        self.prompt_box.setToolTip(
            "Type a prompt or pick one: a sum such as 23+45= or a sort such as sort 5203="
        )
        self.prompt_box.lineEdit().setMaxLength(60)

        self.group_size_spin = QSpinBox(objectName="modelGroupSizeSpin")
        self.group_size_spin.setRange(MIN_GROUP_SIZE, MAX_GROUP_SIZE)
        self.group_size_spin.setValue(window.group_size_spin.value())
        self.group_size_spin.setAccessibleName("Group size G")
        self.seed_spin = QSpinBox(objectName="modelSeedSpin")
        self.seed_spin.setRange(0, MAX_SEED)
        self.seed_spin.setAccessibleName("Seed")
        self.seed_spin.setToolTip("The same seed gives the same answers; each sample moves it on")
        self.temperature_spin = QDoubleSpinBox(objectName="modelTemperatureSpin")
        self.temperature_spin.setRange(0.1, 3.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        self.temperature_spin.setValue(1.0)
        self.temperature_spin.setAccessibleName("Temperature")
        self.temperature_spin.setToolTip(
            "1 samples the model as trained; lower is surer, higher more varied"
        )

        # The weights the answers come from: the shipped checkpoint, or one a run saved
        # (grpo-desktop lm train --save PATH); a file that is not a checkpoint changes nothing.
        self._checkpoint: str | None = None  # None: the shipped one
        self.model_label = QLabel(SHIPPED_LABEL, objectName="modelCheckpointLabel")
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)  # a file name is plain text
        self.open_model_button = QPushButton("&Open model…", objectName="openModelButton")
        self.open_model_button.setToolTip(
            "Sample from a checkpoint a run saved (grpo-desktop lm train --save PATH)"
        )
        self.open_model_button.clicked.connect(self.ask_checkpoint)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_label, 1)
        model_row.addWidget(self.open_model_button)

        form = QFormLayout()
        form.addRow("Model", model_row)
        form.addRow(FormLabel("&Prompt", self.prompt_box), self.prompt_box)
        form.addRow(FormLabel("&G (answers)", self.group_size_spin), self.group_size_spin)
        form.addRow(FormLabel("&Seed", self.seed_spin), self.seed_spin)
        form.addRow(FormLabel("&Temperature", self.temperature_spin), self.temperature_spin)

        self.message = QLabel(objectName="modelSamplingMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # a file's name or a prompt: as typed
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Cancel, objectName="modelSamplingButtons"
        )
        self.sample_button = self.buttons.addButton(
            "Sa&mple", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.sample_button.setObjectName("modelSampleButton")
        self.sample_button.setDefault(True)
        self.buttons.accepted.connect(self.sample)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 80)

    def prompt(self) -> str:
        return self.prompt_box.currentText()

    def set_prompt(self, prompt: str) -> None:
        self.prompt_box.setEditText(prompt)

    def _load(self) -> None:  # runs on the worker thread; touches no widget
        try:
            from grpo_desktop.core.tinylm import load_model
            from grpo_desktop.core.tinylm.lab_group import sample_lab_group

            model = load_model()
            sample_lab_group(model, "23+45=", 8, 0)  # numpy's first-call warm-up
            self._loaded.append(model)
        except Exception as error:  # reported when a group is drawn
            self._loaded.append(error)

    def ask_checkpoint(self) -> bool:
        """File ▸ Open model…, in the dialog: the lecturer picks a saved checkpoint."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a tiny-model checkpoint", "", "Tiny-model checkpoints (*.npz)"
        )
        return bool(path) and self.open_checkpoint(path)

    def open_checkpoint(self, path: str) -> bool:
        """Sample from the checkpoint at ``path`` from now on; a file that is not one (broken,
        foreign, pickled) leaves one line in the dialog and the model in use as it was."""
        from grpo_desktop.core.tinylm import CheckpointError, load_model

        try:
            model = load_model(path)
        except (CheckpointError, OSError, ValueError) as error:
            self.show_message(visible(str(error)))
            return False
        self._loader.join()  # the shipped model's loading must not land after this one
        self._model, self._checkpoint = model, path
        self.model_label.setText(visible(Path(path).name))
        self.model_label.setToolTip(visible(path))
        self.show_message("")
        return True

    @property
    def checkpoint(self) -> str | None:
        """The checkpoint the answers come from (None: the shipped one)."""
        return self._checkpoint

    def model(self) -> TinyLM:
        """The shipped model (waits for the worker if it is still loading)."""
        if self._model is None:
            self._loader.join()
            loaded = self._loaded[0] if self._loaded else None
            if not isinstance(loaded, Exception) and loaded is not None:
                self._model = loaded  # type: ignore[assignment]
            else:
                from grpo_desktop.core.tinylm import load_model

                self._model = load_model()  # raises the worker's error again, with its message
        return self._model

    def draw(self) -> RecordedGroup:
        """The group for the dialog's settings; ValueError (one line) if it cannot be drawn."""
        from grpo_desktop.core.tinylm.lab_group import sample_lab_group

        prompt = self.prompt()
        if not prompt:
            raise ValueError("Type a prompt for the model to continue, such as 23+45=")
        return sample_lab_group(
            self.model(),
            prompt,
            self.group_size_spin.value(),
            self.seed_spin.value(),
            self.temperature_spin.value(),
            self.workbench.active_lab.weights,
            checkpoint=_recorded_checkpoint(self._checkpoint),
        )

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        self.adjustSize()  # room for the message: nothing above it is cut

    def sample(self) -> bool:
        """Draw the group and open it in the Lab (one undo step); on a bad prompt say why in the
        dialog and change nothing."""
        from grpo_desktop.core.tinylm import CheckpointError

        QGuiApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        try:
            group = self.draw()
        except (ValueError, CheckpointError) as error:
            self.show_message(visible(str(error)))  # control characters escaped
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.show_message("")
        self.workbench.open_recorded_group(group)
        self.seed_spin.setValue((self.seed_spin.value() + 1) % (MAX_SEED + 1))  # next: new answers
        right = sum(value == 1.0 for value in dict(group.components).get("accuracy", ()))
        key = f", {right} of {group.group_size} right" if group.answer_key is not None else ""
        self.window_.statusBar().showMessage(
            f"{group.title} (seed {group.seed}{key}) · {group.origin}. Ctrl+Z: back"
        )
        self.accept()
        return True


def _recorded_checkpoint(path: str | None) -> str | None:
    """The checkpoint as the group records it: its path (the Update workspace steps those
    weights), or its name when the path is longer than a recorded name may be."""
    if path is None:
        return None
    return path if len(path) <= MAX_NAME_CHARS else Path(path).name


def open_model_sampling(window: MainWindow) -> ModelSamplingDialog:
    """Show the window's one sampling dialog (made on first use; it keeps the model loaded and
    the seed moving on)."""
    dialog: ModelSamplingDialog | None = getattr(window, "model_sampling_dialog", None)
    if dialog is None:
        dialog = ModelSamplingDialog(window)
        window.model_sampling_dialog = dialog
    else:
        dialog.group_size_spin.setValue(window.group_size_spin.value())
    dialog.show_message("")
    policy = window.workbench.policy
    if policy.checkpoint is not None and policy.checkpoint != dialog.checkpoint:
        dialog.open_checkpoint(policy.checkpoint)  # the model the workspaces teach on
    dialog.open()
    dialog.prompt_box.setFocus()
    dialog.prompt_box.lineEdit().selectAll()
    return dialog
