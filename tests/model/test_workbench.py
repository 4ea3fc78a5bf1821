"""The workbench: every edit is one undo step, and every group on screen shares one convention."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rollout_files import recorded

from grpo_desktop.core import convention_names
from grpo_desktop.core.files.lessons import get_lesson
from grpo_desktop.core.files.scenario import Scenario
from grpo_desktop.model.workbench import COMPARE, LAB, UNDO_LIMIT, Workbench


def conventions_on_screen(workbench: Workbench) -> set[str]:
    names = {lab.convention for lab in workbench.labs}
    names |= {lab.snapshot.convention.name for lab in workbench.labs}
    return names | {workbench.convention}


def test_verl_then_comparison_then_undo_puts_every_group_back_on_textbook(workbench):
    # The bug the architecture issue replays: the lab went back, the easy/hard groups stayed.
    workbench.set_convention("verl")
    workbench.set_workspace(COMPARE)
    workbench.set_workspace(LAB)
    workbench.undo_stack.undo()
    assert conventions_on_screen(workbench) == {"textbook"}
    workbench.undo_stack.redo()
    assert conventions_on_screen(workbench) == {"verl"}


def test_a_comparison_made_later_starts_on_the_shared_convention(workbench):
    workbench.set_convention("openrlhf")
    easy, hard = workbench.comparison
    assert easy.convention == hard.convention == "openrlhf"


def test_a_card_click_is_one_named_undo_step_and_makes_its_lab_active(workbench):
    easy, _hard = workbench.comparison
    workbench.toggle(4, easy)
    assert workbench.active_lab is easy
    assert workbench.undo_stack.count() == 1
    assert workbench.undo_stack.undoText() == "Easy: Mark trace 5 right"
    assert easy.correct[4] is True
    workbench.undo_stack.undo()
    assert easy.correct[4] is False


def test_a_card_that_does_not_exist_changes_nothing(workbench):
    workbench.toggle(9)
    assert workbench.undo_stack.count() == 0


def test_group_size_preset_sample_and_reset_act_on_the_active_lab(workbench):
    workbench.set_workspace(COMPARE)
    easy, _hard = workbench.comparison
    workbench.set_group_size(8)
    assert easy.group_size == 8 and workbench.lab.group_size == 4
    seed = workbench.sample()
    assert easy.snapshot.sample_seed == seed and workbench.next_sample_seed == seed + 1
    workbench.apply_reward_pattern("all-wrong")
    assert easy.snapshot.rewards == (0,) * 8
    workbench.reset()
    assert easy.correct == easy.problem.default_group(easy.problem.group_size)


def test_an_unknown_convention_view_or_workspace_is_refused_and_changes_nothing(workbench):
    for call, bad in (
        (workbench.set_convention, "ppo"),
        (workbench.set_view, "logits"),
        (workbench.set_workspace, "garden"),
    ):
        with pytest.raises(ValueError, match="choose one of"):
            call(bad)
    assert (workbench.convention, workbench.view, workbench.workspace) == (
        "textbook",
        "advantage",
        LAB,
    )
    assert workbench.undo_stack.count() == 0


def test_view_changes_are_announced_once_and_are_not_edits(workbench, qtbot):
    with qtbot.waitSignal(workbench.view_changed) as signal:
        workbench.set_view("reward", animate=False)
    assert signal.args == ["reward", False]
    with qtbot.assertNotEmitted(workbench.view_changed):
        workbench.set_view("reward")
    assert not workbench.modified


def test_opening_a_scenario_sets_lab_convention_view_and_a_clean_history(workbench, tmp_path):
    workbench.set_convention("trl")
    workbench.toggle(0)
    scenario = Scenario.from_lab(workbench.lab.memento(), "rloo", "reward")
    workbench.set_workspace(COMPARE)
    workbench.open_scenario(scenario, tmp_path / "week3.grpo.json")
    assert workbench.workspace == LAB
    assert conventions_on_screen(workbench) == {"rloo"}
    assert workbench.view == "reward"
    assert workbench.lab.memento() == scenario.lab_memento()
    assert workbench.undo_stack.count() == 0 and not workbench.modified
    assert workbench.path == tmp_path / "week3.grpo.json"
    # The run's settings hold no convention: the run is given the one on screen.
    assert workbench.current_scenario() == scenario


def test_a_lesson_step_sets_its_groups_and_convention_with_a_fresh_history(workbench):
    lesson = get_lesson("same-formula-two-groups")
    compare_step = next(step for step in lesson.steps if step.compare is not None)
    trl_step = next(step for step in lesson.steps if step.lab and step.lab.convention == "trl")
    workbench.toggle(0)
    workbench.show_lesson_step(trl_step)
    assert conventions_on_screen(workbench) == {"trl"}
    workbench.show_lesson_step(compare_step)
    assert workbench.workspace == COMPARE
    easy, hard = workbench.comparison
    assert easy.correct == compare_step.compare[0].correct
    assert hard.correct == compare_step.compare[1].correct
    assert conventions_on_screen(workbench) == {compare_step.compare[0].convention}
    assert workbench.undo_stack.count() == 0


ACTIONS = st.one_of(
    st.tuples(st.just("convention"), st.sampled_from(convention_names())),
    st.tuples(st.just("workspace"), st.sampled_from((LAB, COMPARE))),
    st.tuples(st.just("toggle"), st.integers(0, 7)),
    st.tuples(st.just("size"), st.integers(2, 9)),
    st.tuples(st.just("preset"), st.sampled_from(("seed", "all-correct", "easy", "hard"))),
    st.tuples(st.just("sample"), st.none()),
    st.tuples(st.just("reset"), st.none()),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(st.just("redo"), st.none()),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(actions=st.lists(ACTIONS, max_size=30))
def test_no_sequence_of_edits_undos_and_redos_leaves_two_conventions_on_screen(qapp, actions):
    workbench = Workbench()
    for verb, value in actions:
        if verb == "convention":
            workbench.set_convention(value)
        elif verb == "workspace":
            workbench.set_workspace(value)
        elif verb == "toggle":
            workbench.toggle(value)
        elif verb == "size":
            workbench.set_group_size(value)
        elif verb == "preset":
            workbench.apply_reward_pattern(value)
        elif verb == "sample":
            workbench.sample()
        elif verb == "reset":
            workbench.reset()
        elif verb == "undo":
            workbench.undo_stack.undo()
        else:
            workbench.undo_stack.redo()
        assert len(conventions_on_screen(workbench)) == 1


def test_a_scenario_title_is_kept_and_saved_back(workbench, tmp_path):
    scenario = Scenario.from_lab(
        workbench.lab.memento(), "textbook", "advantage", title="Week 3: the lone right answer"
    )
    workbench.open_scenario(scenario, tmp_path / "week3.grpo.json")
    assert workbench.title == "Week 3: the lone right answer"
    workbench.toggle(1)
    assert workbench.current_scenario().title == "Week 3: the lone right answer"


def toggle_many(workbench: Workbench, count: int) -> list[tuple[bool, ...]]:
    """``count`` card clicks (cards 0, 1, 2, 0, ...); the lab's cards after each one."""
    states = []
    for click in range(count):
        workbench.toggle(click % 3)
        states.append(workbench.lab.correct)
    return states


def test_the_undo_history_is_bounded_and_drops_the_oldest_steps(workbench):
    assert workbench.undo_stack.undoLimit() == UNDO_LIMIT == 1000
    start = workbench.lab.correct
    states = toggle_many(workbench, 1200)
    assert workbench.undo_stack.count() == UNDO_LIMIT
    workbench.undo_stack.undo()
    assert workbench.lab.correct == states[1198]  # undo still works at the limit
    workbench.undo_stack.redo()
    assert workbench.lab.correct == states[1199]
    for _ in range(UNDO_LIMIT):
        workbench.undo_stack.undo()
    assert not workbench.undo_stack.canUndo()
    assert states[199] != start  # so reaching it proves the newest steps were kept
    assert workbench.lab.correct == states[199]  # the first 200 clicks can no longer be undone
    for _ in range(UNDO_LIMIT):
        workbench.undo_stack.redo()
    assert workbench.lab.correct == states[1199] and not workbench.undo_stack.canRedo()


def test_a_fresh_history_keeps_the_undo_limit(workbench):
    workbench.toggle(0)
    workbench.start_fresh_history()
    toggle_many(workbench, UNDO_LIMIT + 5)
    assert workbench.undo_stack.count() == UNDO_LIMIT


def test_the_document_stays_modified_when_the_limit_drops_the_saved_step(workbench, tmp_path):
    workbench.mark_saved(tmp_path / "week3.grpo.json")
    assert not workbench.modified
    toggle_many(workbench, UNDO_LIMIT + 200)  # the saved state is no longer in the history
    assert workbench.modified
    for _ in range(UNDO_LIMIT):
        workbench.undo_stack.undo()  # as far back as undo goes: still not the saved file
    assert workbench.modified
    workbench.mark_saved(tmp_path / "week3.grpo.json")
    assert not workbench.modified


def test_a_save_at_the_limit_keeps_its_clean_state_as_old_steps_drop(workbench, tmp_path):
    toggle_many(workbench, UNDO_LIMIT)
    workbench.mark_saved(tmp_path / "week3.grpo.json")
    toggle_many(workbench, 10)  # the oldest steps drop; the saved one moves down the stack
    assert workbench.modified
    for _ in range(10):
        workbench.undo_stack.undo()
    assert not workbench.modified


@pytest.mark.slow  # a whole window through UNDO_LIMIT + 200 edits: about 6 s
def test_the_window_title_shows_modified_after_the_limit_drops_the_saved_step(window, tmp_path):
    workbench = window.workbench
    workbench.mark_saved(tmp_path / "week3.grpo.json")
    assert not window.isWindowModified()
    toggle_many(workbench, UNDO_LIMIT + 200)
    for _ in range(UNDO_LIMIT):
        workbench.undo_stack.undo()
    assert window.isWindowModified()


def test_one_drag_of_a_reward_is_one_undo_step_and_the_next_drag_another(workbench):
    lab = workbench.lab
    workbench.set_by_hand(True)
    for value in (0.1, 0.2, 0.3):
        workbench.set_score(1, value, gesture=1)
    workbench.set_score(1, 0.8, gesture=2)
    assert lab.snapshot.rewards[1] == 0.8
    assert workbench.undo_stack.count() == 3  # continuous on, drag 1, drag 2
    assert workbench.undo_stack.undoText() == "Reward of trace 2: 0.8"
    workbench.undo_stack.undo()
    assert lab.snapshot.rewards[1] == 0.3
    workbench.undo_stack.undo()
    assert lab.snapshot.rewards[1] == 0
    workbench.undo_stack.undo()
    assert not lab.by_hand


def test_spinning_one_weight_is_one_undo_step(workbench):
    for value in (0.25, 0.5, 0.75):
        workbench.set_reward_weight("format", value)
    workbench.set_reward_weight("partial", 1.0)
    assert workbench.undo_stack.count() == 2
    workbench.undo_stack.undo()
    assert workbench.lab.weights.format == 0.75 and workbench.lab.weights.partial == 0
    with pytest.raises(ValueError, match="between"):
        workbench.set_reward_weight("format", 11)


def test_a_runs_group_opens_in_the_lab_as_one_step_and_its_cards_do_not_toggle(workbench):
    group = recorded(
        (0.5, 1.5),
        run_format="trl",
        components=(("accuracy_reward", (0.0, 1.0)), ("format_reward", (0.5, 0.5))),
        logged_advantages=(-0.7, 0.7),
    )
    workbench.set_workspace(COMPARE)
    workbench.open_recorded_group(group)
    assert workbench.workspace == LAB and workbench.lab.recorded == group
    workbench.toggle(0)
    workbench.set_group_size(8)
    assert workbench.undo_stack.count() == 1 and workbench.lab.snapshot.rewards == (0.5, 1.5)
    workbench.undo_stack.undo()
    assert workbench.lab.recorded is None


def test_a_lesson_step_starts_from_the_checkers_plain_rewards(workbench):
    from grpo_desktop.core.lab.lab_rewards import RewardWeights

    workbench.set_reward_weight("format", 1.0)
    workbench.set_score(0, 0.25)
    lesson = get_lesson("group-is-baseline")
    workbench.show_lesson_step(lesson.steps[0])
    assert workbench.lab.weights == RewardWeights() and not workbench.lab.by_hand
    assert workbench.lab.snapshot.binary


def test_a_runs_group_and_hand_set_rewards_survive_save_and_open(workbench, tmp_path):
    from grpo_desktop.core.files.scenario import load_scenario, save_scenario

    group = recorded((1.0, 0.0, 1.0), texts=("42", "41", "It is 42"), prompt="What is 6 × 7?")
    workbench.open_recorded_group(group)
    workbench.set_score(1, 0.4)
    path = tmp_path / "run.grpo.json"
    save_scenario(workbench.current_scenario(), path)
    fresh = Workbench()
    fresh.open_scenario(load_scenario(path), path)
    assert fresh.lab.recorded == group
    assert fresh.lab.snapshot.rewards == (1.0, 0.4, 1.0)
    assert [card.text for card in fresh.lab.snapshot.cards] == list(group.texts)
    assert not fresh.modified


@pytest.mark.parametrize("score", [1e101, -1.7e308, float("nan"), float("inf")])
def test_a_hand_set_reward_the_lab_cannot_take_is_refused_before_the_undo_stack(qtbot, score):
    """Found by the soak (issue 24): a refusal raised inside redo left a freed command on the
    stack, which crashed the process at the next garbage collection."""
    import gc

    workbench = Workbench()
    workbench.set_by_hand(True)
    count, snapshot = workbench.undo_stack.count(), workbench.lab.snapshot
    with pytest.raises(ValueError, match="a reward must be a finite number between"):
        workbench.set_score(0, score)
    gc.collect()
    assert workbench.undo_stack.count() == count
    assert workbench.lab.snapshot == snapshot


def test_a_runs_large_reward_can_be_set_by_hand_saved_and_read_back(qtbot):
    from grpo_desktop.core.files.scenario import parse_scenario, scenario_to_json

    workbench = Workbench()
    workbench.open_recorded_group(recorded(rewards=(500.0, 0.0, 250.0)))
    workbench.set_by_hand(True)
    workbench.set_score(0, 475.0)
    assert workbench.lab.snapshot.rewards[0] == 475.0
    text = scenario_to_json(workbench.current_scenario())
    assert parse_scenario(text, "run.grpo.json").scores == (475.0, 0.0, 250.0)


@pytest.mark.parametrize("kind", ["custom", "recorded"])
def test_choosing_the_labs_own_custom_or_run_problem_again_changes_nothing(qtbot, kind):
    from grpo_desktop.core.lab.problems import get_problem

    workbench = Workbench()
    if kind == "custom":
        custom = replace(get_problem("mult-23x47"), id="custom-my-23x47", title="My 23 × 47")
        workbench.set_problem(custom)
    else:
        workbench.open_recorded_group(recorded())
    count = workbench.undo_stack.count()
    workbench.set_problem(workbench.lab.problem.id)
    assert workbench.undo_stack.count() == count


def test_choosing_the_tiny_model_is_one_undo_step_and_a_scenario_keeps_it(workbench):
    from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
    from grpo_desktop.core.training.policy_choice import PolicyChoice

    seen = []
    workbench.policy_changed.connect(seen.append)
    workbench.set_policy(PolicyChoice("tinylm"))
    workbench.set_lm_training_config(replace(LMTrainingConfig(), steps=40))
    assert workbench.current_scenario().policy == PolicyChoice("tinylm")
    assert workbench.current_scenario().lm_training.steps == 40
    workbench.undo_stack.undo()
    workbench.undo_stack.undo()
    assert workbench.policy == PolicyChoice() and workbench.lm_training_config.steps == 200
    assert seen == [PolicyChoice("tinylm"), PolicyChoice()]
    with pytest.raises(ValueError):
        workbench.set_lm_training_config(replace(LMTrainingConfig(), group_size=1))
    assert workbench.undo_stack.count() == 2
