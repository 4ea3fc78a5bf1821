"""The lab's snapshot of a group: every number a view shows, computed once, never an error for
a group the core scores."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rollout_files import recorded

from grpo_desktop import core
from grpo_desktop.core.lab.lab_snapshot import CardState, build_snapshot
from grpo_desktop.core.lab.problems import get_problem


@pytest.mark.parametrize(
    "rewards", [(1e200, -1e200, 1e200, -1e200), (1e308, 0.0, 0.0), (1e308, 1e308, -1e308, 0.0)]
)
@pytest.mark.parametrize("convention", core.convention_names())
def test_a_group_of_huge_rewards_gets_a_snapshot_with_its_worked_math(rewards, convention):
    # explain() raised OverflowError (std**2) for a std above ~1.3e154: a crash dialog on open.
    group = recorded(rewards)
    try:
        core.group_stats(list(rewards), convention)
    except ValueError:
        return  # this convention refuses the spread: the lab's own limit keeps such groups out
    snapshot = build_snapshot(group.problem(), [True] * len(rewards), convention, recorded=group)
    lines = [line for step in snapshot.worked_math.steps for line in step.lines]
    assert lines and not any(re.search(r"inf|nan|\d{7}", line) for line in lines)
    assert snapshot.cards[0].push.value == "up"


@pytest.mark.parametrize("group_size", [1, 4, 64])
def test_each_card_state_is_the_one_its_constructor_makes(group_size):
    # The snapshot makes its 64 card states without the frozen dataclass's slow constructor:
    # they must be the same objects in every way a view or a cache can tell.
    problem = get_problem("mult-23x47")
    snapshot = build_snapshot(problem, [i % 3 == 0 for i in range(group_size)])
    for card in snapshot.cards:
        made = CardState(**{f.name: getattr(card, f.name) for f in dataclasses.fields(CardState)})
        assert card == made and hash(card) == hash(made) and repr(card) == repr(made)
        assert vars(card) == vars(made) and type(card.advantage) is float
        with pytest.raises(dataclasses.FrozenInstanceError):
            card.advantage = 0.0  # type: ignore[misc]
