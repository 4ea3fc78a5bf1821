"""A real tiny language model for the lab: a character transformer in numpy, trained by GRPO.

``from grpo_desktop.core.tinylm import load_model`` gives the shipped starting checkpoint;
``LMTrainingRun`` trains a copy by GRPO one step at a time. Pure numpy, never Qt. The training
names load on first use (a module ``__getattr__``), so reading a model does not load the loss
and training code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from grpo_desktop.core.tinylm.checkpoint import CheckpointError
from grpo_desktop.core.tinylm.model import TinyLM, load_model
from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.tasks import DEFAULT_TASK, TASKS, Task, get_task, task_names
from grpo_desktop.core.tinylm.vocab import END, UnknownCharactersError

if TYPE_CHECKING:
    from grpo_desktop.core.tinylm.evaluation import Evaluation, evaluate, exact_pass_rates
    from grpo_desktop.core.tinylm.grpo import LMTrainingRun
    from grpo_desktop.core.tinylm.grpo_config import LM_ALGORITHMS, LMTrainingConfig
    from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics, StepUpdate

_LAZY = {
    "Evaluation": "grpo_desktop.core.tinylm.evaluation",
    "evaluate": "grpo_desktop.core.tinylm.evaluation",
    "exact_pass_rates": "grpo_desktop.core.tinylm.evaluation",
    "EvalMetrics": "grpo_desktop.core.tinylm.records",
    "LMGroup": "grpo_desktop.core.tinylm.records",
    "LMTrainingRun": "grpo_desktop.core.tinylm.grpo",
    "StepMetrics": "grpo_desktop.core.tinylm.records",
    "StepUpdate": "grpo_desktop.core.tinylm.records",
    "LM_ALGORITHMS": "grpo_desktop.core.tinylm.grpo_config",
    "LMTrainingConfig": "grpo_desktop.core.tinylm.grpo_config",
}

__all__ = [
    "DEFAULT_TASK",
    "END",
    "LM_ALGORITHMS",
    "TASKS",
    "CheckpointError",
    "EvalMetrics",
    "Evaluation",
    "LMGroup",
    "LMTrainingConfig",
    "LMTrainingRun",
    "NetworkConfig",
    "StepMetrics",
    "StepUpdate",
    "Task",
    "TinyLM",
    "UnknownCharactersError",
    "evaluate",
    "exact_pass_rates",
    "get_task",
    "load_model",
    "task_names",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
