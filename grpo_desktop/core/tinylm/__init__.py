"""A real tiny language model for the lab: a character transformer in numpy, trained by GRPO.

``from grpo_desktop.core.tinylm import load_model`` gives the shipped starting checkpoint.
Pure numpy, never Qt.
"""

from grpo_desktop.core.tinylm.checkpoint import CheckpointError
from grpo_desktop.core.tinylm.model import TinyLM, load_model
from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.vocab import END, UnknownCharactersError

__all__ = [
    "END",
    "CheckpointError",
    "NetworkConfig",
    "TinyLM",
    "UnknownCharactersError",
    "load_model",
]
