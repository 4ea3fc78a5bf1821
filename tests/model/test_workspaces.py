"""The model owns every workspace's state, and one gate decides when it computes."""

from __future__ import annotations

from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE, Workbench
from grpo_desktop.model.workspaces import WorkspaceStates


def test_a_gate_runs_work_now_while_shown_and_the_latest_of_each_kind_once_on_show(qtbot):
    gate = ShownGate(False)
    done = []
    gate.call("a", lambda: done.append("a1"))
    gate.call("b", lambda: done.append("b"))
    gate.call("a", lambda: done.append("a2"))  # replaces a1, keeps a's place
    assert done == []
    gate.set_shown(True)
    assert done == ["a2", "b"]
    gate.set_shown(True)  # nothing waited: nothing runs again
    gate.call("a", lambda: done.append("now"))
    assert done == ["a2", "b", "now"]


def test_each_workspace_gate_is_open_exactly_while_the_workbench_shows_it(qtbot):
    workbench = Workbench()
    states = WorkspaceStates(workbench)
    for shown in (UPDATE, TRAINING, COMPARE, LAB):
        workbench.set_workspace(shown)
        assert [name for name in (LAB, UPDATE, TRAINING, COMPARE) if states.gate(name).shown] == [
            shown
        ]
        assert states.lab_gate.shown == (shown in (LAB, COMPARE))


def test_the_states_are_made_on_first_use_and_compute_only_while_shown(qtbot):
    workbench = Workbench()
    states = WorkspaceStates(workbench)
    assert states.training_run() is None
    update = states.update
    assert update is states.update  # made once
    emitted = []
    update.snapshot_changed.connect(emitted.append)
    workbench.toggle(0)
    assert emitted == []  # hidden: nothing computed
    workbench.set_workspace(UPDATE)
    assert len(emitted) == 1  # shown: brought up to date once
    workbench.toggle(1)
    assert len(emitted) == 2


def test_a_hidden_training_run_pauses_and_a_lesson_step_is_one_model_call(qtbot):
    workbench = Workbench()
    states = WorkspaceStates(workbench)
    workbench.set_workspace(TRAINING)
    training = states.training
    training.show_step(3, "grpo", "pass_rate")
    assert training.run.step_count == 3
    assert training.snapshot.metric == "pass_rate" and training.snapshot.focus == "grpo"
    assert states.training_run() is training.run
    training.set_playing(True)
    workbench.set_workspace(LAB)
    assert not training.playing
    states.stop()
