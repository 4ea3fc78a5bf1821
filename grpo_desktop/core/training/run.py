"""A toy training run over the problem library: algorithms side by side, over seeds, exactly.

Pure numpy (never Qt). What the toy is, said plainly: for each shipped problem the "policy" is a
softmax over that problem's written answers (every trace's correct and wrong version); nothing
else can be said. Each step draws a batch of problems, samples G answers for each from the policy,
rewards them as the lab does (TRL's weighted sum of the reward functions: the real checker's
accuracy, the problem's format, a slip's partial credit), scores them with the algorithm, and
takes a gradient step of the chosen loss (:func:`policy_loss_runs`, the Update workspace's
loss) on the softmax's logits. Every token of an answer carries that answer's log-probability,
so an answer's gradient is the sum over its tokens, as in a language model where each token adds
its own term: aggregation by token-mean or per answer changes how hard long answers are pushed,
as it does in a real run.

What carries over to real runs: which groups carry signal (the learning frontier
``1 − p^G − (1 − p)^G``), how baselines and normalisation change the push, why runs stall when
problems become easy, what dynamic sampling buys. What does not: generalisation between
problems (each problem's logits are its own) and new answers (the policy only re-weights the
written ones).

Vectorised over seeds (one (S, …) array per algorithm); algorithms are separate loops over a few
array operations each, and random numbers come from one generator per seed, shared by every
algorithm ("same seeds, side by side"), so a seeded run is reproducible bit for bit. A step can
also be taken a part at a time (:meth:`TrainingRun.step_part`: its random numbers, then one
algorithm per part), so a player can give each part a turn of the event loop of its own; the
result is the same bit for bit, and a step is counted (and read) only once it is whole.
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from grpo_desktop.core.formulas.advantages import DEFAULT_CONVENTION, group_advantages
from grpo_desktop.core.formulas.clipped_loss import policy_loss_runs
from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.format_check import follows_format
from grpo_desktop.core.lab.lab_rewards import RewardWeights, combined_rewards
from grpo_desktop.core.lab.problems import Problem, get_problem, load_problems
from grpo_desktop.core.training.frontier import FRONTIER_GROUP_SIZES, informative_probability
from grpo_desktop.core.training.training_config import (
    ALGORITHM_INFO,
    ALGORITHMS,
    MAX_STORED_GROUP_BYTES,
    METRICS,
    AlgorithmInfo,
    TrainingConfig,
    check_convention,
    check_reward_weights,
    check_training_config,
    config_from_dict,
    convention_for,
    stored_group_bytes,
)
from grpo_desktop.core.update.pretokenize import pretokenize_pieces

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_INFO",
    "FRONTIER_GROUP_SIZES",
    "MAX_STORED_GROUP_BYTES",
    "METRICS",
    "AlgorithmInfo",
    "CandidateLibrary",
    "Divergence",
    "SampledGroup",
    "TrainingConfig",
    "TrainingRun",
    "build_library",
    "check_training_config",
    "config_from_dict",
    "convention_for",
    "grade_library",
    "informative_probability",
    "library_steps",
    "stored_group_bytes",
]

_P_FLOOR = 0.02  # a stated pass rate of 0 or 1 starts just inside (0, 1): the softmax needs both


# --- the candidate answers ---------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateLibrary:
    """Every problem's written answers, graded once by each reward function. C = 2 × traces.

    Candidate ``2 t`` is trace ``t``'s correct version, ``2 t + 1`` its wrong one. The reward
    functions are the lab's (:mod:`grpo_desktop.core.lab.lab_rewards`), with the same rules, so a
    group opened in the lab shows the rewards the run used.
    """

    problems: tuple[Problem, ...]
    accuracy: np.ndarray  # (P, C) the checker's 0/1 verdicts (0 past a problem's answers)
    format: np.ndarray  # (P, C) 1/0 follows the problem's format; NaN when it declares none
    partial: np.ndarray  # (P, C) a wrong version's partial credit; NaN where none applies
    valid: np.ndarray  # (P, C) bool: a written answer (problems have different trace counts)
    lengths: np.ndarray  # (P, C) GPT-2 pre-tokens
    initial_logits: np.ndarray  # (P, C): pass rate = each problem's stated rate; -inf if invalid

    @property
    def correct(self) -> np.ndarray:
        """(P, C) bool: the checker says right (what pass rates count, whatever the weights)."""
        return self.accuracy == 1

    def components(self) -> dict[str, np.ndarray]:
        """Each reward function's (P, C) values, in REWARD_COMPONENTS order."""
        return {"accuracy": self.accuracy, "format": self.format, "partial": self.partial}

    def rewards(self, weights: RewardWeights | None = None) -> np.ndarray:
        """(P, C) each candidate's reward under ``weights``: TRL's ``nansum(w × component)``.

        The default weights give the checker's 0/1 verdicts exactly (``1 × a + 0 × f`` is ``a``
        in floating point), so a default run is the plain-accuracy run bit for bit.
        """
        chosen = RewardWeights() if weights is None else weights
        combined = np.where(self.valid, combined_rewards(self.components(), chosen), 0.0)
        combined.flags.writeable = False
        return combined

    @property
    def problem_ids(self) -> tuple[str, ...]:
        return tuple(problem.id for problem in self.problems)

    @property
    def max_length(self) -> int:
        return int(self.lengths.max())

    def text(self, problem: int, candidate: int) -> str:
        trace = self.problems[problem].traces[candidate // 2]
        return trace.correct if candidate % 2 == 0 else trace.wrong


# The libraries graded so far, least recently used first: build_library's cache, which
# library_steps fills a part at a time (and skips when the library is in it already).
_LIBRARIES: OrderedDict[tuple[str, ...], CandidateLibrary] = OrderedDict()
LIBRARIES_KEPT = 8
LIBRARY_ROWS_PER_STEP = 3  # problems graded in one of library_steps' steps (2-3 ms each)


def grade_library(problem_ids: tuple[str, ...] = ()) -> CandidateLibrary:
    """The candidates of ``problem_ids`` (default: every shipped problem), graded and measured
    now (uncached: :func:`build_library` keeps what this returns)."""
    grading = _LibraryGrading(problem_ids)
    grading.grade(len(grading.problems))
    return grading.library()


def build_library(problem_ids: tuple[str, ...] = ()) -> CandidateLibrary:
    """:func:`grade_library`, kept: the same library object for the same ``problem_ids``."""
    library = _LIBRARIES.get(problem_ids)
    if library is None:
        library = grade_library(problem_ids)
        _keep_library(problem_ids, library)
    else:
        _LIBRARIES.move_to_end(problem_ids)
    return library


def library_steps(problem_ids: tuple[str, ...] = ()) -> Iterator[str]:
    """:func:`build_library`'s grading of ``problem_ids``, :data:`LIBRARY_ROWS_PER_STEP`
    problems a step (the whole library at once is 36 ms, longer than a frame); the next
    ``build_library(problem_ids)`` returns the result. No step when it is kept already."""
    if problem_ids in _LIBRARIES:
        return
    grading = _LibraryGrading(problem_ids)
    while grading.graded < len(grading.problems):
        grading.grade(LIBRARY_ROWS_PER_STEP)
        yield f"problem library: {grading.graded} of {len(grading.problems)} graded"
    if problem_ids not in _LIBRARIES:  # graded meanwhile by a build_library: that one stays
        _keep_library(problem_ids, grading.library())


def _keep_library(problem_ids: tuple[str, ...], library: CandidateLibrary) -> None:
    _LIBRARIES[problem_ids] = library
    while len(_LIBRARIES) > LIBRARIES_KEPT:
        _LIBRARIES.popitem(last=False)


class _LibraryGrading:
    """A library being graded, a problem (row) at a time."""

    def __init__(self, problem_ids: tuple[str, ...]) -> None:
        problems = (
            tuple(get_problem(pid) for pid in problem_ids) if problem_ids else load_problems()
        )
        self.problems = problems
        self.graded = 0
        width = 2 * max(len(problem.traces) for problem in problems)
        shape = (len(problems), width)
        self.accuracy = np.zeros(shape)
        self.formats = np.full(shape, np.nan)
        self.partial = np.full(shape, np.nan)
        self.valid = np.zeros(shape, dtype=bool)
        self.lengths = np.zeros(shape, dtype=np.int64)
        self.logits = np.full(shape, -np.inf)

    def grade(self, rows: int) -> None:
        """Grade the next ``rows`` problems' candidates."""
        end = min(len(self.problems), self.graded + rows)
        for row in range(self.graded, end):
            problem = self.problems[row]
            p = min(max(problem.pass_rate, _P_FLOOR), 1 - _P_FLOOR)
            for index, trace in enumerate(problem.traces):
                for offset, text in enumerate((trace.correct, trace.wrong)):
                    column = 2 * index + offset
                    self.accuracy[row, column] = grade(text, problem.answer_key).reward
                    if problem.answer_format is not None:  # as lab_rewards.component_rewards
                        self.formats[row, column] = float(
                            follows_format(text, problem.answer_format)
                        )
                    if offset == 1 and trace.partial is not None:  # the wrong version's credit
                        self.partial[row, column] = trace.partial
                    self.valid[row, column] = True
                    self.lengths[row, column] = len(pretokenize_pieces(text))
                    self.logits[row, column] = math.log(p if offset == 0 else 1 - p)
        self.graded = end

    def library(self) -> CandidateLibrary:
        """The library, read-only, once every problem is graded."""
        arrays = (self.accuracy, self.formats, self.partial, self.valid, self.lengths)
        for array in (*arrays, self.logits):
            array.flags.writeable = False
        return CandidateLibrary(self.problems, *arrays, self.logits)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


# --- one sampled group, for the Lab ------------------------------------------------------------


@dataclass(frozen=True)
class SampledGroup:
    """A group a run drew at one step: the problem, its G answers, rewards and advantages."""

    problem_id: str
    trace_indices: tuple[int, ...]  # which trace each answer is
    correct_versions: tuple[bool, ...]  # its correct (True) or wrong version
    rewards: tuple[float, ...]  # under the run's reward weights, as the lab computes them
    advantages: tuple[float, ...]
    used: bool  # entered the update (DAPO drops all-equal groups)


# --- divergence --------------------------------------------------------------------------------

#: Metrics of the policy after a step: none once a seed's logits have left the float range.
_POLICY_METRICS = ("pass_rate", "entropy", "kl", "critic_error")


@dataclass(frozen=True)
class Divergence:
    """Which of an algorithm's seeds diverged and from which step, so no one reads NaN as a
    result: a seed diverges when its logits overflow (a large β or learning rate with several
    epochs can do it), and from that step on it has no numbers."""

    algorithm: str
    steps: tuple[int | None, ...]  # per seed: the step it diverged at, None if it never did

    @property
    def diverged(self) -> bool:
        return any(step is not None for step in self.steps)

    @property
    def first_step(self) -> int | None:
        """The earliest step at which any seed diverged."""
        return min((step for step in self.steps if step is not None), default=None)

    @property
    def seed_count(self) -> int:
        """How many seeds diverged."""
        return sum(step is not None for step in self.steps)

    @property
    def all_seeds(self) -> bool:
        return self.seed_count == len(self.steps)

    @property
    def last_step(self) -> int | None:
        """The latest step at which a seed diverged."""
        return max((step for step in self.steps if step is not None), default=None)

    def sentence(self, subject: str | None = None) -> str:
        """One plain sentence: which algorithm, from which step, in how many seeds ("" if none).
        ``subject`` names the algorithm instead of its label ("It" after a sentence about it)."""
        if not self.diverged:
            return ""
        label = ALGORITHM_INFO[self.algorithm].label if subject is None else subject
        total = len(self.steps)
        first, last = self.first_step, self.last_step
        if self.all_seeds and first == last:
            where = f"at step {first} in {'every seed' if total > 1 else 'its seed'}"
            after = f"so it has no numbers from step {first} on"
        elif self.all_seeds:
            where = f"in every seed, the first at step {first} and the last at step {last}"
            after = (
                f"so from step {first} on its numbers come from the seeds still running, "
                f"and from step {last} on it has none"
            )
        else:
            at = f"at step {first}" if self.seed_count == 1 else f"the first at step {first}"
            where = f"in {self.seed_count} of {total} seeds, {at}"
            others = total - self.seed_count
            whose = "the other seed's" if others == 1 else f"the other {others} seeds'"
            after = f"so from step {first} on its numbers are {whose} only"
        return (
            f"{label} diverged {where}: its logits overflowed, {after}. "
            "A smaller learning rate or β, or fewer epochs, may keep it finite."
        )


# --- the run -----------------------------------------------------------------------------------


@dataclass
class _AlgorithmState:
    logits: np.ndarray  # (S, P, C)
    values: np.ndarray  # (S, P): the critic (PPO only)
    history: dict[str, np.ndarray]  # metric → (steps + 1, S), filled as the run goes
    pass_rates: np.ndarray  # (steps + 1, S, P)
    diverged_at: np.ndarray  # (S,) the step each seed's logits overflowed at; 0 = never
    groups: list[tuple[np.ndarray, ...]] = field(default_factory=list)  # per step, for the Lab


class TrainingRun:
    """Every chosen algorithm over every seed, advanced one step at a time."""

    def __init__(
        self,
        config: TrainingConfig,
        convention: str = DEFAULT_CONVENTION,
        reward_weights: RewardWeights | None = None,
    ) -> None:
        """``config``'s run, GRPO's and DAPO's advantages in ``convention`` (the workbench's
        one convention) and each answer's reward TRL's weighted nansum of the lab's reward
        functions under ``reward_weights`` (default: accuracy only, the checker's 0/1; pass
        rates always count the checker's verdict)."""
        self.config = check_training_config(config)
        self.convention = check_convention(convention)
        self.reward_weights = check_reward_weights(
            RewardWeights() if reward_weights is None else reward_weights
        )
        self.library = build_library(tuple(config.problem_ids))
        #: (P, C) each candidate's reward under the run's weights: what the algorithms use.
        self.rewards = self.library.rewards(self.reward_weights)
        #: (P, C) 0/1 the checker's verdict as float: what pass rates count.
        self._right = self.library.correct.astype(np.float64)
        # Per seed, one stream every algorithm shares and one for DAPO's extra draws only, so
        # no algorithm's groups depend on which others run beside it; made at the first draw
        # (step 0 draws nothing, and numpy.random's first import is 13 ms of a step-0 run).
        self._streams: tuple[list[np.random.Generator], list[np.random.Generator]] | None = None
        self._initial_log_policy = _log_softmax(self.library.initial_logits)
        self.step_count = 0
        # A step begun part by part: its random numbers and the algorithms still to take it.
        self._pending: tuple[tuple[np.ndarray, np.ndarray], list[str]] | None = None
        shape = (config.seeds, *self.library.initial_logits.shape)
        self._states: dict[str, _AlgorithmState] = {}
        for name in config.algorithms:
            rows = config.steps + 1
            state = _AlgorithmState(
                logits=np.broadcast_to(self.library.initial_logits, shape).copy(),
                values=np.full((config.seeds, len(self.library.problems)), 0.5),
                history={metric: np.full((rows, config.seeds), np.nan) for metric in METRICS},
                pass_rates=np.full((rows, config.seeds, len(self.library.problems)), np.nan),
                diverged_at=np.zeros(config.seeds, dtype=np.int64),
            )
            self._record(name, state, None, 0)
            self._states[name] = state

    @property
    def _generators(self) -> list[np.random.Generator]:
        return self._random_streams()[0]

    @property
    def _extra_generators(self) -> list[np.random.Generator]:
        return self._random_streams()[1]

    def _random_streams(self) -> tuple[list[np.random.Generator], list[np.random.Generator]]:
        """The seeds' shared streams and DAPO's extra ones, made the first time they are read."""
        if self._streams is None:
            seed, seeds = self.config.seed, self.config.seeds
            self._streams = (
                [np.random.default_rng([seed, index]) for index in range(seeds)],
                [np.random.default_rng([seed, index, 1]) for index in range(seeds)],
            )
        return self._streams

    # --- reading ----------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.step_count >= self.config.steps

    def history(self, algorithm: str) -> dict[str, np.ndarray]:
        """Each metric as a (steps recorded, S) array; step 0 is the starting policy.

        Read-only views of the run's own arrays: no copy, however long the run.
        """
        state = self._states[algorithm]
        return {
            name: _read_only(values[: self.step_count + 1])
            for name, values in state.history.items()
        }

    def pass_rates(self, algorithm: str) -> np.ndarray:
        """(steps recorded, S, P): each problem's exact pass rate after every step."""
        return _read_only(self._states[algorithm].pass_rates[: self.step_count + 1])

    def divergence(self, algorithm: str) -> Divergence:
        """Which of ``algorithm``'s seeds diverged so far, and at which step (a step begun but
        not whole yet does not count)."""
        steps = self._states[algorithm].diverged_at
        done = self.step_count
        return Divergence(
            algorithm, tuple(int(step) if 0 < step <= done else None for step in steps)
        )

    def groups(self, algorithm: str, step: int, seed: int = 0) -> tuple[SampledGroup, ...]:
        """The groups ``algorithm``'s run ``seed`` drew at ``step`` (1 = the first update); none
        after that seed diverged (they were drawn from a policy that is not a number)."""
        if not 1 <= step <= self.step_count:
            raise ValueError(f"step must be from 1 to {self.step_count}; got {step}")
        state = self._states[algorithm]
        if 0 < state.diverged_at[seed] < step:
            return ()
        problems, candidates, advantages, used = state.groups[step - 1]
        library = self.library
        result = []
        for group in range(problems.shape[1]):
            row = int(problems[seed, group])
            chosen = candidates[seed, group]
            result.append(
                SampledGroup(
                    problem_id=library.problems[row].id,
                    trace_indices=tuple(int(c) // 2 for c in chosen),
                    correct_versions=tuple(int(c) % 2 == 0 for c in chosen),
                    rewards=tuple(float(self.rewards[row, c]) for c in chosen),
                    advantages=tuple(float(a) for a in advantages[seed, group]),
                    used=bool(used[seed, group]),
                )
            )
        return tuple(result)

    @property
    def nbytes(self) -> int:
        """What this run holds in memory: its preallocated arrays and the groups kept so far."""
        total = sum(g.nbytes for state in self._states.values() for g in _state_arrays(state))
        for state in self._states.values():
            total += sum(a.nbytes for step in state.groups for a in step)
        return total

    def copy(self) -> TrainingRun:
        """This run, at the same step, as a run of its own: stepping either leaves the other as
        it is (a step begun part by part is finished first)."""
        return self.with_algorithms(self.config.algorithms)

    def with_algorithms(self, algorithms: tuple[str, ...]) -> TrainingRun:
        """This run with ``algorithms`` instead, at the same step: a kept algorithm keeps its
        numbers (a copy: this run is left as it is), an added one is computed from step 1 to
        here. Each algorithm draws its groups from streams no other algorithm touches, so the
        result is bit for bit the run started afresh with ``algorithms`` and played as far. A
        step begun part by part is finished first."""
        self.finish_step()
        config = check_training_config(replace(self.config, algorithms=tuple(algorithms)))
        added = tuple(name for name in config.algorithms if name not in self._states)
        run = copy.copy(self)
        run.config = config
        run._streams = copy.deepcopy(self._streams)  # None: neither has drawn yet
        caught_up = None
        if added:
            caught_up = TrainingRun(
                replace(config, algorithms=added), self.convention, self.reward_weights
            )
            caught_up.run(self.step_count)
            if "dapo" in added:  # its extra stream as far as DAPO has drawn from it
                run._streams = (run._generators, caught_up._extra_generators)
        run._states = {
            name: caught_up._states[name]
            if caught_up is not None and name in added
            else _copied_state(self._states[name])
            for name in config.algorithms
        }
        return run

    # --- advancing --------------------------------------------------------------------------

    def step(self) -> None:
        """One update of every algorithm on every seed (a no-op once the run is finished); a
        step begun part by part is the one finished.

        Numpy's warnings stay here: an overflow is either harmless (a clamped KL term) or a
        divergence, which the run records per seed (:meth:`divergence`) rather than printing.
        """
        if self.finished:
            return
        while not self.step_part():
            pass

    @property
    def stepping(self) -> bool:
        """Whether a step is begun and not whole yet (:meth:`step_part`)."""
        return self._pending is not None

    def step_part(self) -> bool:
        """A part of the next step: the first draws the step's random numbers and takes it for
        the first algorithm, each later one for the next algorithm. Returns whether the step is
        whole now (it is then counted in :attr:`step_count`; until then nothing read from the
        run shows it). A no-op returning False once the run is finished."""
        if self.finished:
            return False
        with np.errstate(all="ignore"):
            if self._pending is None:
                self._pending = (self._draw_randoms(), list(self._states))
            draws, names = self._pending
            name = names.pop(0)
            self._step_algorithm(name, self._states[name], draws, self.step_count + 1)
        if names:
            return False
        self._pending = None
        self.step_count += 1
        return True

    def finish_step(self) -> None:
        """Finish a step begun part by part (nothing when none is)."""
        if self._pending is not None:
            self.step()

    def run(self, steps: int | None = None) -> None:
        for _ in range(self.config.steps if steps is None else steps):
            if self.finished:
                break
            self.step()

    def _draw_randoms(self) -> tuple[np.ndarray, np.ndarray]:
        """This step's random numbers per seed: the batch every algorithm draws, then (only
        when DAPO runs, from its own stream) the extra groups DAPO may draw."""
        config = self.config
        count = len(self.library.problems)

        def draw(generators, groups: int) -> tuple[np.ndarray, np.ndarray]:
            problems = np.stack([rng.integers(count, size=groups) for rng in generators])
            uniforms = np.stack([rng.random((groups, config.group_size)) for rng in generators])
            return problems, uniforms

        problems, uniforms = draw(self._generators, config.batch)
        extra = config.batch * (config.dapo_max_draws - 1)
        if "dapo" in self._states and extra > 0:
            more_problems, more_uniforms = draw(self._extra_generators, extra)
            problems = np.concatenate([problems, more_problems], axis=1)
            uniforms = np.concatenate([uniforms, more_uniforms], axis=1)
        return problems, uniforms

    def _step_algorithm(self, name: str, state: _AlgorithmState, draws, row: int) -> None:
        """Step ``row`` (1 = the first update) of algorithm ``name`` on every seed."""
        config, library = self.config, self.library
        batch = config.batch
        all_problems, all_uniforms = draws
        seeds = config.seeds
        drawn = all_problems.shape[1] if name == "dapo" else batch
        problems = all_problems[:, :drawn]  # (S, n)
        policy = _softmax(state.logits)  # (S, P, C)
        seed_index = np.arange(seeds)[:, None]
        chosen_policy = policy[seed_index, problems]  # (S, n, C)
        cdf = np.cumsum(chosen_policy, axis=-1)
        uniforms = all_uniforms[:, :drawn]  # (S, n, G)
        candidates = (cdf[:, :, None, :] < uniforms[..., None]).sum(axis=-1)
        candidates = np.minimum(candidates, self.rewards.shape[1] - 1)
        rewards = self.rewards[problems[..., None], candidates]  # (S, n, G)
        # No signal: every reward in the group equal (all right or all wrong under 0/1 rewards).
        degenerate = np.all(rewards == rewards[..., :1], axis=-1)  # (S, n)

        if name == "dapo":
            # Keep the first `batch` groups that carry signal; count what had to be drawn.
            informative = ~degenerate
            order = np.argsort(~informative, axis=1, kind="stable")[:, :batch]
            problems = np.take_along_axis(problems, order, axis=1)
            candidates = np.take_along_axis(candidates, order[..., None], axis=1)
            rewards = np.take_along_axis(rewards, order[..., None], axis=1)
            used = np.take_along_axis(informative, order, axis=1)
            running = np.cumsum(informative, axis=1)
            reached = running >= batch
            sampled = np.where(reached.any(axis=1), reached.argmax(axis=1) + 1, drawn)
            sampled_degenerate = np.array(
                [degenerate[s, : sampled[s]].mean() for s in range(seeds)]
            )
        else:
            used = np.ones((seeds, batch), dtype=bool)
            sampled = np.full(seeds, batch)
            sampled_degenerate = degenerate.mean(axis=1)

        advantages = self._advantages(name, state, problems, rewards, used)  # (S, B, G)
        advantages = np.where(used[..., None], advantages, 0.0)
        lengths = library.lengths[problems[..., None], candidates]  # (S, B, G)

        grad_norm = self._update(name, state, problems, candidates, advantages, lengths, used)
        if name == "ppo_critic":
            self._update_critic(state, problems, rewards)
        finite = np.where(library.valid, np.isfinite(state.logits), True).all(axis=(1, 2))
        state.diverged_at[~finite & (state.diverged_at == 0)] = row

        right = library.correct[problems[..., None], candidates]  # the checker's, not the sum
        record = {
            "degenerate_fraction": sampled_degenerate,
            "groups_sampled": sampled.astype(np.float64),
            "groups_used": used.sum(axis=1).astype(np.float64),
            "grad_norm": grad_norm,
            "correct_length": _masked_mean(lengths, right),
            "wrong_length": _masked_mean(lengths, ~right),
        }
        self._record(name, state, record, row)
        state.groups.append(
            (
                problems.astype(np.int32),
                candidates.astype(np.int16),
                advantages,
                used,
            )
        )

    def _advantages(self, name, state, problems, rewards, used) -> np.ndarray:
        config = self.config
        if name == "reinforce":
            return rewards.astype(np.float64)
        if name == "ppo_critic":
            seed_index = np.arange(config.seeds)[:, None]
            return rewards - state.values[seed_index, problems][..., None]
        convention = convention_for(name, self.convention)
        if convention == "trl_batch":  # a batch std over the groups each seed really uses
            advantages = np.zeros(rewards.shape)
            for seed, (seed_rewards, seed_used) in enumerate(zip(rewards, used)):
                if seed_used.any():
                    advantages[seed, seed_used] = group_advantages(
                        seed_rewards[seed_used], convention
                    )
            return advantages
        flat = rewards.reshape(-1, config.group_size)
        return group_advantages(flat, convention).reshape(rewards.shape)

    def _update(self, name, state, problems, candidates, advantages, lengths, used) -> np.ndarray:
        """Gradient steps of the loss on the logits; returns the first step's gradient norm."""
        config, library = self.config, self.library
        seeds, batch, size = advantages.shape
        width = library.max_length
        answers = batch * size
        flat_problems = np.repeat(problems, size, axis=1)  # (S, B·G)
        flat_candidates = candidates.reshape(seeds, answers)
        flat_lengths = np.where(np.repeat(used, size, axis=1), lengths.reshape(seeds, answers), 0)
        # Each answer is one column of its token count: every token carries the answer's logp.
        counts = flat_lengths[..., None].astype(np.float64)  # (S, B·G, 1)
        anything = counts.sum(axis=(1, 2)) > 0
        counts[~anything, 0, 0] = 1.0  # a run with no group to learn from: a token, then no step
        seed_index = np.arange(seeds)[:, None]
        reference = self._initial_log_policy[flat_problems, flat_candidates][..., None]
        eps_low, eps_high = config.clip_range(name)
        old = None
        first_norm = np.zeros(seeds)
        for epoch in range(config.epochs):
            log_policy = _log_softmax(state.logits)
            answer_logp = log_policy[seed_index, flat_problems, flat_candidates][..., None]
            if old is None:
                old = answer_logp
            loss = policy_loss_runs(
                answer_logp,
                old,
                advantages.reshape(seeds, answers),
                counts,
                preset=config.loss_preset(name),
                ref_logp=reference,
                eps_low=eps_low,
                eps_high=eps_high,
                beta=config.beta,
                max_completion_length=width,
                token_counts=True,
                width=width,
            )
            answer_grad = loss.grad_logp[..., 0] * anything[:, None]  # (S, B·G): Σ over tokens
            # ∂logp(c)/∂θ = onehot(c) − π: the softmax's gradient, gathered per problem.
            grad = np.zeros_like(state.logits)
            np.add.at(
                grad,
                (np.broadcast_to(seed_index, flat_problems.shape), flat_problems, flat_candidates),
                answer_grad,
            )
            per_problem = np.zeros(state.values.shape)
            np.add.at(
                per_problem,
                (np.broadcast_to(seed_index, flat_problems.shape), flat_problems),
                answer_grad,
            )
            grad -= per_problem[..., None] * np.exp(log_policy)
            grad = np.where(library.valid, grad, 0.0)
            if epoch == 0:
                first_norm = np.sqrt((grad**2).sum(axis=(1, 2)))
            state.logits = state.logits - config.learning_rate * grad
        return first_norm

    def _update_critic(self, state, problems, rewards) -> None:
        """V(problem) moves toward the mean reward its groups scored, at the critic's rate."""
        seeds = self.config.seeds
        seed_index = np.broadcast_to(np.arange(seeds)[:, None], problems.shape)
        totals = np.zeros(state.values.shape)
        counts = np.zeros(state.values.shape)
        np.add.at(totals, (seed_index, problems), rewards.mean(axis=-1))
        np.add.at(counts, (seed_index, problems), 1.0)
        seen = counts > 0
        target = np.where(seen, totals / np.maximum(counts, 1), state.values)
        state.values = state.values + self.config.critic_lr * (target - state.values) * seen

    def _record(self, name: str, state: _AlgorithmState, sampled: dict | None, row: int) -> None:
        """The metrics of ``name``'s policy after step ``row`` (0: the starting policy)."""
        library = self.library
        log_policy = np.where(library.valid, _log_softmax(state.logits), 0.0)
        policy = np.where(library.valid, np.exp(log_policy), 0.0)
        pass_rates = (policy * self._right).sum(axis=-1)  # (S, P): the checker's, always
        # What the critic learns: the expected reward (the pass rate under 0/1 rewards).
        mean_rewards = (policy * self.rewards).sum(axis=-1)
        initial = np.where(library.valid, self._initial_log_policy, 0.0)
        metrics = {
            "pass_rate": pass_rates.mean(axis=1),
            "entropy": -(policy * log_policy).sum(axis=-1).mean(axis=1),
            "kl": (policy * (log_policy - initial)).sum(axis=-1).mean(axis=1),
            "critic_error": (
                np.sqrt(((state.values - mean_rewards) ** 2).mean(axis=1))
                if name == "ppo_critic"
                else np.full(self.config.seeds, np.nan)
            ),
        }
        for metric in METRICS:
            value = metrics.get(metric, None if sampled is None else sampled.get(metric))
            if value is not None:
                state.history[metric][row] = value
        state.pass_rates[row] = pass_rates
        diverged = state.diverged_at > 0
        if diverged.any():
            # From its divergence on a seed's policy is not a number; the groups of that step
            # were still drawn from a real one, the groups after it were not.
            for metric in _POLICY_METRICS:
                state.history[metric][row, diverged] = np.nan
            state.pass_rates[row, diverged] = np.nan
            earlier = diverged & (state.diverged_at < row)
            for metric in METRICS:
                if metric not in _POLICY_METRICS:
                    state.history[metric][row, earlier] = np.nan


def _state_arrays(state: _AlgorithmState) -> tuple[np.ndarray, ...]:
    return (
        state.logits,
        state.values,
        state.pass_rates,
        state.diverged_at,
        *state.history.values(),
    )


def _copied_state(state: _AlgorithmState) -> _AlgorithmState:
    """A copy that can step on alone (the kept groups are never written to: shared)."""
    return _AlgorithmState(
        logits=state.logits.copy(),
        values=state.values.copy(),
        history={name: values.copy() for name, values in state.history.items()},
        pass_rates=state.pass_rates.copy(),
        diverged_at=state.diverged_at.copy(),
        groups=list(state.groups),
    )


def _masked_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per seed, the mean of ``values`` where ``mask`` (NaN where there is none)."""
    counts = mask.sum(axis=(1, 2))
    totals = np.where(mask, values, 0).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view
