"""The tiny model's run as JSON lines: records survive the trip, and a line that is not a
message of the protocol (code, NaN, garbage) is refused, never run."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics
from grpo_desktop.core.tinylm.run_messages import (
    MessageError,
    config_from_message,
    config_message,
    eval_from_message,
    eval_message,
    group_from_message,
    group_message,
    line,
    metrics_from_message,
    read_line,
)


def test_a_config_and_checkpoint_survive_the_trip():
    config = replace(
        LMTrainingConfig(),
        algorithm="dapo",
        convention="verl",
        reward_weights=RewardWeights(1, 0.5),
    )
    message = read_line(line(config_message(config, "/runs/a.npz")))
    assert config_from_message(message) == (config, "/runs/a.npz")


def test_records_survive_the_trip():
    metrics = StepMetrics(3, 0.5, 0.25, 0.01, 0.4, -0.2, 3.2, 64, 60, 0.0, 1.5, 0.3)
    evaluation = EvalMetrics(3, 0.4, 0.6, np.array([0.1, 0.9]))
    group = LMGroup("23+45=", "68.", ("68.", "67."), (1.0, 0.0), (0.7, -0.7), True)
    assert metrics_from_message(read_line(line(metrics.as_dict()))) == metrics
    back = eval_from_message(read_line(line(eval_message(evaluation))))
    assert back.pass_rate == 0.4 and np.array_equal(back.pass_rates, evaluation.pass_rates)
    assert group_from_message(read_line(line(group_message(group)))) == group


def test_nan_travels_as_null_and_comes_back_as_nan():
    text = line({"stepped": {"kl": float("nan")}})
    assert "NaN" not in text and read_line(text)["stepped"]["kl"] is None


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"kl": NaN}',
        "x" * 4_000_001,
        '{"config": {"steps": "many"}, "checkpoint": null}',
        '{"config": {"lr": 1}, "checkpoint": null}',
        '{"config": {}, "checkpoint": 3}',
    ],
)
def test_a_line_that_is_not_a_message_is_refused(text):
    with pytest.raises(MessageError):
        config_from_message(read_line(text))
