"""LabState: the checker stamps every reward, one snapshot per change, G keeps remaining cards."""

from __future__ import annotations

import pytest

from grpo_desktop.core.lab_limits import parse_reward_pattern
from grpo_desktop.core.presets import PRESETS
from grpo_desktop.core.problems import get_problem
from grpo_desktop.core.snapshot import Push
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


def test_presets_give_the_seeds_groups(state):
    state.apply_preset("easy")
    assert state.snapshot.rewards == (1, 1, 1, 1, 0)
    assert state.snapshot.problem.difficulty == "easy"
    assert state.snapshot.cards[4].advantage == pytest.approx(-2.0)
    state.apply_preset("hard")
    assert state.snapshot.rewards == (1, 0, 0, 0, 0)
    assert state.snapshot.problem.difficulty == "hard"
    assert state.snapshot.cards[0].advantage == pytest.approx(2.0)
    state.apply_preset("all-wrong")
    assert state.snapshot.stats.degenerate and set(state.snapshot.rewards) == {0}
    assert [p.key for p in PRESETS] == ["seed", "all-correct", "all-wrong", "easy", "hard"]


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
    assert state.snapshot.rewards == tuple(get_problem("easy-add-17-25").preset_rewards)


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
