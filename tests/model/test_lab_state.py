"""LabState: the checker stamps every reward, one snapshot per change, G keeps remaining cards."""

from __future__ import annotations

import pytest
from rollout_files import recorded

from grpo_desktop.core.lab.lab_limits import parse_reward_pattern
from grpo_desktop.core.lab.lab_snapshot import Push
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.lab.reward_patterns import REWARD_PATTERNS
from grpo_desktop.model.lab_state import LabState


@pytest.fixture
def state(qapp) -> LabState:
    return LabState()


def test_default_lab_is_the_seed_problem_with_rewards_1001(state):
    snapshot = state.snapshot
    assert snapshot.problem.id == "mult-23x47"
    assert snapshot.rewards == (1, 0, 0, 1)
    assert [card.advantage for card in snapshot.cards] == [1.0, -1.0, -1.0, 1.0]
    assert [card.push for card in snapshot.cards] == [Push.UP, Push.DOWN, Push.DOWN, Push.UP]


def test_every_reward_is_the_checkers_verdict_on_the_text_the_card_shows(state):
    state.set_group_size(16)
    state.toggle(3)
    key = state.problem.answer_key
    for card in state.snapshot.cards:
        assert card.final_answer is not None
        assert (card.reward == 1) == (card.final_answer.replace(",", "") in (key, key + ".0"))


def test_toggling_swaps_the_trace_between_its_right_and_wrong_version(state):
    before = state.snapshot.cards[1]
    state.toggle(1)
    after = state.snapshot.cards[1]
    trace = state.problem.trace_for(1)
    assert (before.text, after.text) == (trace.wrong, trace.correct)
    assert (before.reward, after.reward) == (0, 1)


def test_one_snapshot_is_emitted_per_change_and_none_when_nothing_changes(state, qtbot):
    seen = []
    state.snapshot_changed.connect(seen.append)
    state.toggle(0)
    state.set_correct(0, state.correct[0])
    assert len(seen) == 1 and seen[0] is state.snapshot


def test_changing_g_keeps_the_states_of_the_cards_that_remain(state):
    state.set_correct_flags([False, True, True, False])
    state.set_group_size(6)
    assert state.correct[:4] == (False, True, True, False)
    state.set_group_size(3)
    assert state.correct == (False, True, True)


@pytest.mark.parametrize("bad", [1, 65, 0])
def test_group_size_outside_2_to_64_is_refused_and_nothing_changes(state, bad):
    before = state.snapshot
    with pytest.raises(ValueError, match="between 2 and 64"):
        state.set_group_size(bad)
    assert state.snapshot is before


def test_reward_patterns_give_the_seeds_groups(state):
    state.apply_reward_pattern("easy")
    assert state.snapshot.rewards == (1, 1, 1, 1, 0)
    assert state.snapshot.problem.difficulty == "easy"
    assert state.snapshot.cards[4].advantage == pytest.approx(-2.0)
    state.apply_reward_pattern("hard")
    assert state.snapshot.rewards == (1, 0, 0, 0, 0)
    assert state.snapshot.problem.difficulty == "hard"
    assert state.snapshot.cards[0].advantage == pytest.approx(2.0)
    state.apply_reward_pattern("all-wrong")
    assert state.snapshot.stats.degenerate and set(state.snapshot.rewards) == {0}
    assert [p.key for p in REWARD_PATTERNS] == ["seed", "all-correct", "all-wrong", "easy", "hard"]


def test_sampling_is_reproducible_from_its_seed(state):
    state.set_group_size(32)
    state.sample(7)
    first = state.snapshot.rewards
    state.sample(8)
    state.sample(7)
    assert state.snapshot.rewards == first
    assert state.snapshot.sample_seed == 7


def test_switching_problem_emits_problem_changed_and_uses_its_preset(state, qtbot):
    with qtbot.waitSignal(state.problem_changed):
        state.set_problem("easy-add-17-25")
    assert state.snapshot.rewards == tuple(get_problem("easy-add-17-25").default_rewards)


def test_memento_restores_the_lab_exactly(state):
    memento = state.memento()
    state.set_problem("hard-sum-odd-to-99")
    state.sample(5)
    state.restore(memento)
    assert state.memento() == memento
    assert state.snapshot.problem.id == memento.problem.id


def test_unknown_convention_is_refused_with_the_valid_names(state):
    with pytest.raises(ValueError, match="textbook"):
        state.set_convention("ppo")
    assert state.convention == "textbook"


@pytest.mark.parametrize("text", ["1,0,2", "", "a,b", "1"])
def test_reward_pattern_must_be_zeros_and_ones(text):
    with pytest.raises(ValueError):
        parse_reward_pattern(text)


def test_reward_pattern_reads_commas_and_spaces():
    assert parse_reward_pattern("1, 0 0,1") == (True, False, False, True)


# --- where rewards come from: weighted reward functions, hand-set scores, a run's group ----------


def test_rewards_are_the_weighted_sum_of_accuracy_format_and_partial_credit(state):
    from grpo_desktop.core.lab.lab_rewards import RewardWeights

    # mult-23x47 as shipped: #1 right, no answer line; #2 wrong with partial credit 0.5 and an
    # "Answer:" line; #3 wrong, an "Answer:" line, no credit; #4 right and boxed.
    state.set_weights(RewardWeights(accuracy=1.0, format=0.5, partial=1.0))
    snapshot = state.snapshot
    assert snapshot.rewards == (1.0, 1.0, 0.5, 1.5)
    assert [card.correct for card in snapshot.cards] == [True, False, False, True]
    assert snapshot.cards[1].breakdown == "accuracy 0 · format 1 · partial 0.5"
    assert snapshot.cards[2].breakdown == "accuracy 0 · format 1 · partial —"
    assert snapshot.stats.mean == pytest.approx(1.0)
    assert [card.push for card in snapshot.cards][2:] == [Push.DOWN, Push.UP]


def test_plain_weights_keep_the_checkers_zero_and_one_without_a_breakdown(state):
    assert state.snapshot.binary
    assert all(card.breakdown == "" for card in state.snapshot.cards)


def test_continuous_mode_keeps_each_reward_and_lets_one_be_set(state):
    state.set_by_hand(True)
    assert state.by_hand and state.snapshot.rewards == (1, 0, 0, 1)
    state.set_score(2, 0.75)
    assert state.snapshot.rewards == (1, 0, 0.75, 1)
    assert state.snapshot.by_hand and not state.snapshot.binary
    state.toggle(0)  # the text changes, so card 1 takes its computed reward; card 3 keeps 0.75
    assert state.snapshot.rewards == (0, 0, 0.75, 1)
    state.set_by_hand(False)
    assert state.snapshot.rewards == (0, 0, 0, 1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 1e101, "0.5"])
def test_a_bad_hand_set_reward_is_refused_and_nothing_changes(state, bad):
    before = state.memento()
    with pytest.raises(ValueError, match="reward must be"):
        state.set_score(0, bad)
    assert state.memento() == before


def test_a_memento_restores_weights_scores_and_a_runs_group(state):
    from grpo_desktop.core.lab.lab_rewards import RewardWeights

    state.set_weights(RewardWeights(format=1.0))
    state.set_score(1, 0.3)
    saved = state.memento()
    state.set_by_hand(False)
    state.set_weights(RewardWeights())
    state.restore(saved)
    assert state.weights == RewardWeights(format=1.0)
    assert state.snapshot.rewards[1] == 0.3


def _recorded(rewards=(1.0, 0.25, 0.0)):
    acc = tuple(float(r > 0) for r in rewards)
    return recorded(
        rewards, group_index=2, group_count=5, components=(("score", rewards), ("acc", acc))
    )


def test_a_runs_group_shows_its_texts_and_logged_rewards_without_verdicts(state):
    group = _recorded()
    state.show_recorded(group)
    snapshot = state.snapshot
    assert snapshot.recorded == group and snapshot.problem.title == "Step 7 · group 3 of 5"
    assert [card.text for card in snapshot.cards] == list(group.texts)
    assert snapshot.rewards == (1.0, 0.25, 0.0)
    assert all(card.correct is None for card in snapshot.cards)
    assert snapshot.cards[1].breakdown == "score 0.25 · acc 1"
    with pytest.raises(ValueError, match="as the model wrote it"):
        state.toggle(0)
    with pytest.raises(ValueError, match="size the run sampled"):
        state.set_group_size(8)


def test_a_runs_group_can_be_dragged_and_reset_to_what_the_run_logged(state):
    state.show_recorded(_recorded())
    state.set_score(2, 1.0)
    assert state.snapshot.rewards == (1.0, 0.25, 1.0) and state.snapshot.by_hand
    state.reset()
    assert state.snapshot.rewards == (1.0, 0.25, 0.0) and not state.snapshot.by_hand


def test_a_preset_leaves_a_runs_group_for_the_library(state):
    state.show_recorded(_recorded())
    state.apply_reward_pattern(REWARD_PATTERNS[0].key)
    assert state.recorded is None
    assert state.problem.id == (REWARD_PATTERNS[0].problem_id or "mult-23x47")


def test_a_group_that_cannot_be_computed_leaves_the_lab_as_it_was(state, qtbot, monkeypatch):
    import grpo_desktop.model.lab_state as lab_state_module

    before = (state.problem, state.snapshot)

    def overflowing_snapshot(*args, **kwargs):
        raise OverflowError("(34, 'Numerical result out of range')")

    monkeypatch.setattr(lab_state_module, "build_snapshot", overflowing_snapshot)
    with qtbot.assertNotEmitted(state.snapshot_changed), pytest.raises(OverflowError):
        state.set_problem("hard-remainder-7-pow-100")
    assert (state.problem, state.snapshot) == before


def test_a_toggled_snapshot_is_the_toggles_snapshot_and_leaves_the_lab_as_it_was(state):
    state.set_group_size(8)
    before, flags = state.snapshot, state.correct
    ahead = state.toggled_snapshot(2)
    assert state.snapshot is before and state.correct == flags
    state.toggle(2)
    after = state.snapshot
    assert ahead.cards == after.cards and ahead.worked_math == after.worked_math
    assert (ahead.stats.mean, ahead.stats.std) == (after.stats.mean, after.stats.std)


def test_a_toggle_built_ahead_is_shown_as_is_and_a_sampled_groups_toggle_drops_its_seed(state):
    state.set_group_size(8)
    state.sample(7)
    assert state.snapshot.sample_seed == 7
    ahead = state.toggled_snapshot(5)
    assert ahead.sample_seed is None  # a toggled group is no longer the sampled one
    state.toggle(5)
    assert state.snapshot is ahead  # not built again
    other = state.toggled_snapshot(0)
    state.set_convention("trl")  # the lab changed: what was built ahead is dropped
    state.toggle(0)
    assert state.snapshot is not other and state.snapshot.convention.name == "trl"


def test_no_toggled_snapshot_where_a_toggle_does_not_flip_a_verdict(state):
    state.set_by_hand(True)
    assert state.toggled_snapshot(0) is None
