"""Which policy the workspaces teach on: the toy (written answers re-weighted) or the tiny model.

Pure Python, light to import (a scenario file reads it before any model code loads). The choice
is the workbench's, saved in scenarios: on ``tinylm`` the Training workspace trains the tiny
language model (the shipped checkpoint, or the file ``checkpoint`` names) by GRPO, and the Update
workspace steps the network on the Lab's group when the model wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["POLICIES", "POLICY_LABELS", "TINY_LM", "TOY", "PolicyChoice", "policy_from_dict"]

TOY, TINY_LM = "toy", "tinylm"
POLICIES = (TOY, TINY_LM)
POLICY_LABELS = {TOY: "Toy policy", TINY_LM: "Tiny language model"}
MAX_CHECKPOINT_PATH = 4096


@dataclass(frozen=True)
class PolicyChoice:
    """The policy, and for the tiny model the checkpoint it starts from (None: the shipped one)."""

    kind: str = TOY
    checkpoint: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}; got {self.kind!r}")
        if self.checkpoint is not None:
            if self.kind != TINY_LM:
                raise ValueError("only the tiny language model starts from a checkpoint")
            text = self.checkpoint
            if not isinstance(text, str) or not text or len(text) > MAX_CHECKPOINT_PATH:
                raise ValueError(
                    f"checkpoint must be a file path of 1 to {MAX_CHECKPOINT_PATH} characters"
                )
            if any(ord(ch) < 32 or ch == "\x7f" for ch in text):
                raise ValueError("checkpoint must not hold control characters")

    @property
    def is_model(self) -> bool:
        return self.kind == TINY_LM

    @property
    def label(self) -> str:
        return POLICY_LABELS[self.kind]

    def as_dict(self) -> dict[str, str | None]:
        """As a scenario writes it (the checkpoint only when there is one)."""
        values: dict[str, str | None] = {"kind": self.kind}
        if self.checkpoint is not None:
            values["checkpoint"] = self.checkpoint
        return values


def policy_from_dict(data: object) -> PolicyChoice:
    """A scenario's ``policy`` object, checked; a ValueError naming what is wrong."""
    if not isinstance(data, dict):
        raise ValueError('must be an object such as {"kind": "tinylm"}')
    unknown = sorted(set(data) - {"kind", "checkpoint"})
    if unknown:
        raise ValueError(f"unknown field(s): {', '.join(map(str, unknown))}")
    kind = data.get("kind", TOY)
    if not isinstance(kind, str):
        raise ValueError(f"kind must be one of {', '.join(POLICIES)}")
    checkpoint = data.get("checkpoint")
    if checkpoint is not None and not isinstance(checkpoint, str):
        raise ValueError("checkpoint must be a file path or null")
    return PolicyChoice(kind, checkpoint)
