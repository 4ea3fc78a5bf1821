"""Runs computed to a step, kept for the next time they are asked for.

A lesson's training step restarts the run and computes it to the step's ``training_steps`` so it
looks the same whichever way the lecturer pages: 150 steps are 190–420 ms on a 2-core laptop, paid
again on every visit. The last few runs asked for are kept; a visit again gets a copy (about 2 ms
for a 2.3 MB run), bit for bit the run computed afresh, which it may then play on alone. A lesson
computes its training steps' runs ahead, a part at a time in idle time
(:func:`computing_ahead`), so even the first visit finds its run computed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.training.training_config import TrainingConfig

__all__ = ["KEPT_COMPUTED_RUNS", "computing_ahead", "run_computed_to"]

#: Runs kept: a lesson has at most a handful of training steps (why-runs-stall has four).
KEPT_COMPUTED_RUNS = 4

_Key = tuple[TrainingConfig, str, RewardWeights, int]
_kept: OrderedDict[_Key, TrainingRun] = OrderedDict()
_computing: dict[_Key, TrainingRun] = {}  # runs computed ahead, not whole yet


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
        kept = _computing.pop(key, None)  # begun ahead: finished here, not begun again
        if kept is None:
            kept = TrainingRun(config, convention, reward_weights)
        kept.finish_step()
        kept.run(steps - kept.step_count)
        _keep(key, kept)
    else:
        _kept.move_to_end(key)
    return kept.copy()


def computing_ahead(
    config: TrainingConfig, convention: str, reward_weights: RewardWeights, steps: int
) -> Iterator[None]:
    """The run :func:`run_computed_to` would give, computed a part at a time (one algorithm's
    share of a step per ``next``) and kept once whole; nothing when it is kept already. A call
    of :func:`run_computed_to` for it meanwhile finishes it there, and this stops."""
    key = (config, convention, reward_weights, steps)
    if steps <= 0 or key in _kept or key in _computing:
        return
    run = TrainingRun(config, convention, reward_weights)
    _computing[key] = run
    while run.step_count < steps and not run.finished:
        if _computing.get(key) is not run:
            return  # taken over and finished by run_computed_to
        run.step_part()
        yield
    if _computing.get(key) is run:
        del _computing[key]
        _keep(key, run)


def _keep(key: _Key, run: TrainingRun) -> None:
    _kept[key] = run
    while len(_kept) > KEPT_COMPUTED_RUNS:
        _kept.popitem(last=False)
