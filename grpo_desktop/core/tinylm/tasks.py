"""Tasks with verifiable answers, generated in code, each with a train / held-out split.

Pure Python. A prompt is held out when a CRC-32 of its *split key* falls in one tenth of the
range: for addition the key is the unordered pair, so ``23+45=`` and ``45+23=`` land on the same
side and a held-out sum is never seen in training in either order. Training prompts are drawn by
rejection (held-out ones redrawn), so the two sets never overlap; the held-out list is a fixed
sample, the same on every machine, so pass rates compare across runs.
"""

from __future__ import annotations

import functools
import re
import zlib

import numpy as np

from grpo_desktop.core.tinylm.vocab import END

__all__ = [
    "DEFAULT_TASK",
    "HELD_OUT_SIZE",
    "TASKS",
    "AdditionTask",
    "SortTask",
    "Task",
    "get_task",
    "task_names",
]

HELD_OUT_SIZE = 500
_HELD_OUT_SEED = 20_250_428
_HELD_OUT_BUCKETS = 10  # one key in ten is held out


class Task:
    """A family of prompts whose answers a rule checks. Subclasses say how to draw a prompt,
    read it back and answer it."""

    name = ""
    label = ""
    description = ""
    max_new = 1  # tokens an answer can need, the end token included
    _answer_pattern = re.compile(r"\d+")

    def draw(self, rng: np.random.Generator) -> str:
        raise NotImplementedError

    def answer(self, prompt: str) -> str:
        """The right answer to ``prompt`` (without the end token); ValueError if ``prompt`` is
        not one of this task's prompts."""
        raise NotImplementedError

    def split_key(self, prompt: str) -> str:
        return prompt

    def target(self, prompt: str) -> str:
        """The one completion that is right: the answer, then the end token."""
        return self.answer(prompt) + END

    def is_held_out(self, prompt: str) -> bool:
        key = self.split_key(prompt).encode()
        return zlib.crc32(key) % _HELD_OUT_BUCKETS == 0

    def follows_format(self, completion: str) -> bool:
        """The completion is an answer of the right shape (digits), then the end token."""
        return completion.endswith(END) and bool(self._answer_pattern.fullmatch(completion[:-1]))

    def train_prompts(self, rng: np.random.Generator, count: int) -> list[str]:
        """``count`` training prompts drawn at random (never a held-out one)."""
        prompts = []
        while len(prompts) < count:
            prompt = self.draw(rng)
            if not self.is_held_out(prompt):
                prompts.append(prompt)
        return prompts

    def held_out_prompts(self) -> tuple[str, ...]:
        """The fixed held-out evaluation prompts (HELD_OUT_SIZE, or all there are)."""
        return _held_out(self.name)


class AdditionTask(Task):
    """``a+b=`` for numbers of up to ``digits`` digits; the answer is the sum's digits."""

    def __init__(self, name: str, digits: int) -> None:
        self.name = name
        self.digits = digits
        self.label = f"Addition ({digits}-digit)"
        self.description = (
            f"Add two whole numbers of up to {digits} digits, e.g. '23+45=' → '68{END}'."
        )
        self.max_new = digits + 2  # a carry adds a digit; then the end token
        self._prompt = re.compile(rf"(\d{{1,{digits}}})\+(\d{{1,{digits}}})=")

    def draw(self, rng: np.random.Generator) -> str:
        a, b = rng.integers(10**self.digits, size=2)
        return f"{a}+{b}="

    def _operands(self, prompt: str) -> tuple[int, int]:
        match = self._prompt.fullmatch(prompt)
        if match is None or any(len(g) > 1 and g[0] == "0" for g in match.groups()):
            raise ValueError(
                f"{prompt[:40]!r} is not a {self.label.lower()} prompt such as '23+45='"
            )
        return int(match.group(1)), int(match.group(2))

    def answer(self, prompt: str) -> str:
        a, b = self._operands(prompt)
        return str(a + b)

    def split_key(self, prompt: str) -> str:
        a, b = sorted(self._operands(prompt))
        return f"{a}+{b}"


class SortTask(Task):
    """``sort 5203=`` → ``0235``: the digits in ascending order (a different skill: counting
    and ordering, not carrying)."""

    name = "sort"
    label = "Sort digits"

    def __init__(self, shortest: int = 3, longest: int = 5) -> None:
        self.shortest, self.longest = shortest, longest
        self.description = (
            f"Write {shortest} to {longest} digits in ascending order, "
            f"e.g. 'sort 5203=' → '0235{END}'."
        )
        self.max_new = longest + 1
        self._prompt = re.compile(rf"sort (\d{{{shortest},{longest}}})=")

    def draw(self, rng: np.random.Generator) -> str:
        length = int(rng.integers(self.shortest, self.longest + 1))
        return "sort " + "".join(str(d) for d in rng.integers(10, size=length)) + "="

    def answer(self, prompt: str) -> str:
        match = self._prompt.fullmatch(prompt)
        if match is None:
            raise ValueError(f"{prompt[:40]!r} is not a sort prompt such as 'sort 5203='")
        return "".join(sorted(match.group(1)))


TASKS: dict[str, Task] = {
    task.name: task for task in (AdditionTask("add", 2), AdditionTask("add3", 3), SortTask())
}
DEFAULT_TASK = "add"


def task_names() -> tuple[str, ...]:
    return tuple(TASKS)


def get_task(name: str | Task) -> Task:
    """The task called ``name``; a ValueError listing the valid names otherwise."""
    if isinstance(name, Task):
        return name
    try:
        return TASKS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown task {name!r}; choose one of: {', '.join(TASKS)}") from None


@functools.cache
def _held_out(name: str) -> tuple[str, ...]:
    task = TASKS[name]
    rng = np.random.default_rng(_HELD_OUT_SEED)
    found: dict[str, None] = {}
    for _ in range(200 * HELD_OUT_SIZE):  # ample: one draw in ten is held out
        prompt = task.draw(rng)
        if task.is_held_out(prompt):
            found[prompt] = None
            if len(found) == HELD_OUT_SIZE:
                break
    return tuple(found)
