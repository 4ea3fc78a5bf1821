"""Runs computed to a step, kept for the next time they are asked for.

A lesson's training step restarts the run and computes it to the step's ``training_steps`` so it
looks the same whichever way the lecturer pages: 150 steps are 190–420 ms on a 2-core laptop, paid
again on every visit. The last few runs asked for are kept; a visit again gets a copy (about 2 ms
for a 2.3 MB run), bit for bit the run computed afresh, which it may then play on alone.
"""

from __future__ import annotations

from collections import OrderedDict

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.training.training_config import TrainingConfig

__all__ = ["KEPT_COMPUTED_RUNS", "run_computed_to"]

#: Runs kept: a lesson has at most a handful of training steps (why-runs-stall has four).
KEPT_COMPUTED_RUNS = 4

_kept: OrderedDict[tuple[TrainingConfig, str, RewardWeights, int], TrainingRun] = OrderedDict()


def run_computed_to(
    config: TrainingConfig, convention: str, reward_weights: RewardWeights, steps: int
) -> TrainingRun:
    """``config``'s run (in ``convention``, under ``reward_weights``) computed to ``steps``, a
    run of the caller's own. A run at step 0 costs nothing to make again: not kept."""
    if steps <= 0:
        return TrainingRun(config, convention, reward_weights)
    key = (config, convention, reward_weights, steps)
    kept = _kept.get(key)
    if kept is None:
        kept = TrainingRun(config, convention, reward_weights)
        kept.run(steps)
        _kept[key] = kept
        while len(_kept) > KEPT_COMPUTED_RUNS:
            _kept.popitem(last=False)
    else:
        _kept.move_to_end(key)
    return kept.copy()
