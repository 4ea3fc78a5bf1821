"""View ▸ Policy and File ▸ Open model…: which policy the workspaces teach on.

The toy (each problem's written answers re-weighted) or the tiny language model: the shipped
checkpoint, or one a run saved (``grpo-desktop lm train --save PATH``) opened with File ▸ Open
model…. Either is one undo step on the workbench (``Workbench.set_policy``) and a scenario keeps
it. A file that is not a checkpoint is one message, and the policy in force stays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.training.policy_choice import (
    POLICIES,
    POLICY_LABELS,
    TINY_LM,
    TOY,
    PolicyChoice,
)

__all__ = ["POLICY_TIPS", "PolicyMenu"]

POLICY_TIPS = {
    TOY: "Each problem's written answers, re-weighted by a softmax: fast, exact, not a model",
    TINY_LM: "A 107,820-parameter character transformer, trained by GRPO live on this computer",
}
CHECKPOINT_FILTER = "Tiny-model checkpoints (*.npz)"

#: The window this hangs off: a ``MainWindow`` (not imported: it imports the window's actions).
MainWindow = Any


class PolicyMenu:
    """The policy's actions: one checkable action per policy, and Open model…."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.workbench = window.workbench
        self.group = QActionGroup(window)
        self.actions: dict[str, QAction] = {}
        self._checkpoint: str | None = None  # the model's last checkpoint: back to it from the toy
        for kind in POLICIES:
            made = QAction(POLICY_LABELS[kind], window, checkable=True, objectName=f"policy_{kind}")
            made.setStatusTip(POLICY_TIPS[kind])
            made.setToolTip(POLICY_TIPS[kind])
            self.group.addAction(made)
            self.actions[kind] = made
        self.group.triggered.connect(self._chosen)
        self.open_model_action = QAction("Open &model…", window, objectName="openModelAction")
        self.open_model_action.setStatusTip(
            "Teach on a checkpoint a run saved (grpo-desktop lm train --save PATH)"
        )
        self.open_model_action.triggered.connect(self.ask_checkpoint)
        self.workbench.policy_changed.connect(self.show_policy)
        self.show_policy(self.workbench.policy)

    def add_to_menu(self, view_menu: QMenu) -> None:
        """View ▸ Policy (File ▸ Open model… is added with the file actions)."""
        menu = view_menu.addMenu("Policy")
        menu.setObjectName("policyMenu")
        menu.setToolTipsVisible(True)
        for made in self.actions.values():
            menu.addAction(made)

    def show_policy(self, policy: PolicyChoice) -> None:
        """Tick the policy in force (after an undo, a scenario, a lesson)."""
        self.actions[policy.kind].setChecked(True)
        if policy.is_model:
            self._checkpoint = policy.checkpoint
        model = self.actions[TINY_LM]
        name = Path(policy.checkpoint).name if policy.checkpoint else ""
        model.setText(
            # a file's "&" is a letter, not a menu mnemonic
            f"{POLICY_LABELS[TINY_LM]} ({visible(name).replace('&', '&&')})"
            if name
            else POLICY_LABELS[TINY_LM]
        )

    def _chosen(self, chosen: QAction) -> None:
        kind = next(kind for kind, made in self.actions.items() if made is chosen)
        current = self.workbench.policy
        if kind == current.kind:
            return
        # Back to the model: the checkpoint chosen before, if any (kept by the undo history).
        checkpoint = self._checkpoint if kind == TINY_LM else None
        self.workbench.set_policy(PolicyChoice(kind, checkpoint), f"Policy: {POLICY_LABELS[kind]}")

    # --- File ▸ Open model… -----------------------------------------------------------------

    def ask_path(self) -> str | None:
        """The file the lecturer picks (replaced in tests)."""
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open a tiny-model checkpoint", "", CHECKPOINT_FILTER
        )
        return path or None

    def ask_checkpoint(self) -> bool:
        path = self.ask_path()
        return bool(path) and self.open_checkpoint(path)

    def open_checkpoint(self, path: str) -> bool:
        """Teach on the checkpoint at ``path`` (one undo step); a file that is not one is one
        message, and the policy in force stays."""
        from grpo_desktop.core.tinylm import CheckpointError, load_model

        QGuiApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        try:
            load_model(path)  # read and checked now: a broken file never becomes the policy
        except (CheckpointError, OSError, ValueError) as error:
            QGuiApplication.restoreOverrideCursor()
            self.report(f"The model was not opened: {visible(str(error))}")
            return False
        QGuiApplication.restoreOverrideCursor()
        self.workbench.set_policy(
            PolicyChoice(TINY_LM, path), f"Open model {visible(Path(path).name)}"
        )
        self.window.statusBar().showMessage(
            f"Teaching on the tiny model from {visible(Path(path).name)}. Ctrl+Z: back"
        )
        return True

    def report(self, text: str) -> None:
        """One message, as plain text (replaced in tests)."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Open model", text, QMessageBox.StandardButton.Ok, self.window
        )
        box.setObjectName("openModelMessage")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.open()
