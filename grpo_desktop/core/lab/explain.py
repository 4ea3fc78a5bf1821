"""The worked math, step by step with the group's own numbers, the way the seeds write it.

Pure Python (core layer): ``LabState`` calls it once per change and puts the result in the
snapshot, so the math panel only typesets text it is given. Every line comes twice: as plain text
(what a screen reader hears and Ctrl+C copies) and as LaTeX (what the panel typesets and Copy as
LaTeX gives), built from the same numbers so the two always agree.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from decimal import Decimal, localcontext

from grpo_desktop.core.common.formatting import FIXED_POINT_LIMIT, MINUS, number, signed
from grpo_desktop.core.formulas import advantages as core
from grpo_desktop.core.formulas.latex import (
    MEAN,
    convention_latex,
    eps_latex,
    is_negative,
    scale_symbol,
    tex_number,
)

MAX_TERMS_SHOWN = 10  # longer sums are written as "sum of G rewards"

_SMALLEST_NORMAL = sys.float_info.min  # a float result below this has lost digits
_EXACT_DIGITS = 40  # a Decimal sum of 64 rewards this precise is exact to far past 4 digits
#: Below this, ``signed(value, 4)`` rounds a non-zero r − mean to 0.
_FIXED_POINT_SMALLEST = 5e-5

#: A float, or the exact value as a Decimal where float64 cannot hold it (the square of 1e200).
Shown = float | Decimal


@dataclass(frozen=True)
class Step:
    title: str
    lines: tuple[str, ...]
    #: Each line in LaTeX, in step with ``lines``; "" for a line that is a sentence, not math
    #: (it is shown as text). Empty for a step that has no typeset form.
    latex: tuple[str, ...] = ()

    def line_latex(self, index: int) -> str:
        """The LaTeX of line ``index``, or "" when it has none."""
        return self.latex[index] if index < len(self.latex) else ""


@dataclass(frozen=True)
class WorkedMath:
    formula: str
    convention_label: str
    source: str
    steps: tuple[Step, ...]
    comparison: str  # how this convention's numbers differ from the textbook on this group
    phase_labels: tuple[str, str]  # the two phases from r to A, as the animation captions them
    loudest: tuple[int, ...]  # indices of the answers with the largest |A| when they are rare
    loudest_note: str  # one sentence on why those answers are loud ("" when nothing stands out)
    formula_latex: str = ""  # ``formula`` in LaTeX, with the convention's std and epsilon


def _num(value: Shown) -> str:
    return number(value, 4)


def _lost_digits(result: float, exact_is_zero: bool) -> bool:
    """Whether a float result overflowed, or underflowed into 0 or a subnormal."""
    if not math.isfinite(result):
        return True
    return not exact_is_zero and abs(result) < _SMALLEST_NORMAL


def _sum(values: list[float]) -> Shown:
    """Python's float sum, or the exact sum where that overflows (1e308 + 1e308): never inf."""
    total = sum(values)
    if math.isfinite(total):
        return total
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        return sum((Decimal(value) for value in values), Decimal(0))


def _square(value: float) -> Shown:
    """value², exactly where float64 overflows (std above ~1.3e154) or underflows: never an
    OverflowError, never a square shown as 0 beside a std that is not."""
    try:
        squared = value**2
    except OverflowError:
        squared = math.inf
    if _lost_digits(squared, value == 0):
        return Decimal(value) * Decimal(value)
    return squared


def _sum_of_squares(rewards: list[float], mean: float) -> Shown:
    """Σ (r − mean)², exactly where a float term or the sum overflows or underflows."""
    try:
        total = sum((r - mean) ** 2 for r in rewards)
    except OverflowError:
        total = math.inf
    if not _lost_digits(total, all(r == mean for r in rewards)):
        return total
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        exact_mean = Decimal(mean)
        return sum(((Decimal(r) - exact_mean) ** 2 for r in rewards), Decimal(0))


def _difference(value: float) -> str:
    """r − mean as the seeds write it (+0.5, −0.8); in scientific notation where fixed-point
    would show a non-zero difference as 0 or print hundreds of digits."""
    if value == 0:
        return "0"
    if not _FIXED_POINT_SMALLEST <= abs(value) < FIXED_POINT_LIMIT:
        return ("+" if value > 0 else MINUS) + number(abs(value), 4)
    return signed(value, 4).rstrip("0").rstrip(".")


def _adv(value: float) -> str:
    """An advantage as the seeds write it: explicit sign, at least one decimal (+1.0, −2.0)."""
    text = number(abs(value), 4)
    if "." not in text and "e" not in text:
        text += ".0"
    if value > 0:
        return "+" + text
    return MINUS + text if value < 0 else "0"


def _eps(value: float) -> str:
    return f"{value:.0e}".replace("e-0", "e-")


def _sum_line(rewards: list[float]) -> str:
    total = _sum(rewards)
    size = len(rewards)
    if size <= MAX_TERMS_SHOWN:
        terms = "+".join(_num(r) for r in rewards)
        return f"mean = ({terms})/{size} = {_num(total)}/{size}"
    return f"mean = (sum of {size} rewards)/{size} = {_num(total)}/{size}"


def _sum_latex(rewards: list[float], mean: float) -> str:
    total, size = tex_number(_num(_sum(rewards))), len(rewards)
    if size <= MAX_TERMS_SHOWN:
        terms = tex_number(_num(rewards[0]))
        for reward in rewards[1:]:
            term = tex_number(_num(abs(reward)))
            terms += f" - {term}" if reward < 0 else f" + {term}"
        fraction = rf"\tfrac{{{terms}}}{{{size}}}"
    else:
        fraction = rf"\tfrac{{1}}{{{size}}}\textstyle\sum_{{j=1}}^{{{size}}} r_j"
    return rf"{MEAN} = {fraction} = \tfrac{{{total}}}{{{size}}} = {tex_number(_num(mean))}"


def _lone_verl_answer(stats: core.GroupStats, convention: core.Convention) -> bool:
    """verl's rule for a group of one: mean 0 and std 1, so the reward itself is pushed."""
    return convention.name == "verl" and stats.group_size == 1


def _group_step(stats: core.GroupStats, convention: core.Convention) -> Step:
    rewards = [float(r) for r in stats.rewards]
    size = len(rewards)
    if _lone_verl_answer(stats, convention):
        return Step(
            "Group statistics",
            (
                "a lone answer: one sample has no mean or spread to compare with, so verl sets "
                "mean = 0 and std = 1",
                f"divide by std + {_eps(convention.eps)} = {_num(stats.scale)}",
            ),
            (
                "",
                rf"\sigma + \varepsilon = 1 + {eps_latex(convention.eps)}"
                f" = {tex_number(_num(stats.scale))}",
            ),
        )
    lines = [f"{_sum_line(rewards)} = {_num(stats.mean)}"]
    latex = [_sum_latex(rewards, stats.mean)]
    binary = set(rewards) <= {0.0, 1.0}
    population_var = stats.mean * (1 - stats.mean) if binary else None
    variance = _square(stats.std)
    if convention.ddof == 1:
        square_sum = _sum_of_squares(rewards, stats.mean)
        lines.append(
            f"sample variance = Σ(r {MINUS} mean)² / (G {MINUS} 1) = {_num(square_sum)}/{size - 1}"
            f" = {_num(variance)}"
        )
        lines.append(f"std = √{_num(variance)} = {_num(stats.std)}   (sample std, n {MINUS} 1)")
        lines.append(f"divide by std + {_eps(convention.eps)} = {_num(stats.scale)}")
        squares = rf"\sum_j \left(r_j - {MEAN}\right)^2"
        latex.append(
            rf"s^2 = \tfrac{{{squares}}}{{G - 1}} = \tfrac{{{tex_number(_num(square_sum))}}}"
            rf"{{{size - 1}}} = {tex_number(_num(variance))}"
        )
        latex.append(
            rf"s = \sqrt{{{tex_number(_num(variance))}}} = {tex_number(_num(stats.std))}"
            r" \quad (\text{sample std}, n - 1)"
        )
        latex.append(
            rf"{scale_symbol(convention)} = {tex_number(_num(stats.std))}"
            rf" + {eps_latex(convention.eps)} = {tex_number(_num(stats.scale))}"
        )
    else:
        if population_var is not None:
            p, q = stats.mean, 1 - stats.mean
            lines.append(
                f"a Bernoulli group, so variance = p(1 {MINUS} p) = {_num(p)} × {_num(q)}"
                f" = {_num(population_var)}"
            )
            latex.append(
                rf"\sigma^2 = p(1 - p) = {tex_number(_num(p))} \times {tex_number(_num(q))}"
                rf" = {tex_number(_num(population_var))}"
            )
        else:
            lines.append(f"variance = Σ(r {MINUS} mean)² / G = {_num(variance)}")
            latex.append(
                rf"\sigma^2 = \tfrac{{1}}{{G}}\textstyle\sum_j \left(r_j - {MEAN}\right)^2"
                rf" = {tex_number(_num(variance))}"
            )
        lines.append(f"std = √{_num(variance)} = {_num(stats.std)}")
        latex.append(
            rf"\sigma = \sqrt{{{tex_number(_num(variance))}}} = {tex_number(_num(stats.std))}"
        )
        if convention.ddof is None:
            lines.append("this convention does not divide by the std")
            latex.append("")
    return Step("Group statistics", tuple(lines), tuple(latex))


def _advantage_line(reward: float, stats: core.GroupStats, convention: core.Convention) -> str:
    centered = reward - stats.mean
    raw = _difference(centered)
    head = f"r {MINUS} mean = {_num(reward)} {MINUS} {_num(stats.mean)} = {raw}"
    if convention.name == "rloo":
        size = stats.group_size
        others = (stats.mean * size - reward) / (size - 1)
        if not math.isfinite(others):  # mean × G overflowed: the same baseline, another way
            others = stats.mean + (stats.mean - reward) / (size - 1)
        advantage = reward - others
        return (
            f"baseline = mean of the other {size - 1} = {_num(others)}; "
            f"A = {_num(reward)} {MINUS} {_num(others)} = {_adv(advantage)}"
        )
    if convention.ddof is None:
        return f"{head}; A = {_adv(centered)}"
    if stats.scale == 0:
        return f"{head}; std is 0, so A = 0 (no signal)"
    return f"{head}; A = {raw}/{_num(stats.scale)} = {_adv(centered / stats.scale)}"


def _minus(left: str, right: str) -> str:
    """``left − right`` in LaTeX, a negative right-hand side in brackets: 1 − (−0.5)."""
    return f"{left} - ({right})" if is_negative(right) else f"{left} - {right}"


def _advantage_latex(reward: float, stats: core.GroupStats, convention: core.Convention) -> str:
    """The advantage line in LaTeX: the formula, then this answer's numbers, then A."""
    centered = reward - stats.mean
    shown_reward, shown_mean = tex_number(_num(reward)), tex_number(_num(stats.mean))
    if convention.name == "rloo":
        size = stats.group_size
        others = (stats.mean * size - reward) / (size - 1)
        if not math.isfinite(others):
            others = stats.mean + (stats.mean - reward) / (size - 1)
        baseline = tex_number(_num(others))
        return (
            rf"b = \tfrac{{1}}{{{size - 1}}}\textstyle\sum_{{j \ne i}} r_j = {baseline}, \quad"
            rf" A = r - b = {_minus(shown_reward, baseline)} = {tex_number(_adv(reward - others))}"
        )
    if convention.ddof is None:
        return (
            rf"A = r - {MEAN} = {_minus(shown_reward, shown_mean)} = {tex_number(_adv(centered))}"
        )
    if stats.scale == 0:
        return (
            rf"r - {MEAN} = {_minus(shown_reward, shown_mean)}"
            rf" = {tex_number(_difference(centered))},"
            r" \quad \sigma = 0 \;\Rightarrow\; A = 0"
        )
    return (
        rf"A = \tfrac{{r - {MEAN}}}{{{scale_symbol(convention)}}}"
        rf" = \tfrac{{{_minus(shown_reward, shown_mean)}}}{{{tex_number(_num(stats.scale))}}}"
        rf" = {tex_number(_adv(centered / stats.scale))}"
    )


def _advantage_steps(stats: core.GroupStats, convention: core.Convention) -> list[Step]:
    values = sorted({float(r) for r in stats.rewards}, reverse=True)
    steps = []
    for value in values:
        count = int((stats.rewards == value).sum())
        if set(values) <= {0.0, 1.0}:
            kind = "a correct answer" if value == 1.0 else "a wrong answer"
            title = f"Advantage of {kind} ({count} of {stats.group_size})"
        else:
            title = f"Advantage of reward {_num(value)} ({count} of {stats.group_size})"
        steps.append(
            Step(
                title,
                (_advantage_line(value, stats, convention),),
                (_advantage_latex(value, stats, convention),),
            )
        )
    return steps


def _comparison(stats: core.GroupStats, convention: core.Convention) -> str:
    if stats.degenerate:
        return (
            "All rewards are equal, so r − mean is 0 for every answer: every convention gives "
            "exactly 0 and nothing is learned from this group."
        )
    if convention.name == core.DEFAULT_CONVENTION:
        return (
            "Textbook (the seeds): divide by the population std. Libraries divide by the sample "
            "std (n − 1) and add a small epsilon, so their numbers are a little smaller."
        )
    if _lone_verl_answer(stats, convention):
        return (
            f"verl gives a lone answer mean 0 and std 1, so it is pushed by its own reward "
            f"({_adv(float(stats.advantages[0]))}); the textbook's mean of one answer is that "
            "answer's reward, so it gives 0 and learns nothing from it."
        )
    textbook = core.group_stats(stats.rewards, core.DEFAULT_CONVENTION)
    top = int(stats.advantages.argmax())
    low = int(stats.advantages.argmin())
    ours = f"{signed(stats.advantages[top], 3)} / {signed(stats.advantages[low], 3)}"
    theirs = f"{signed(textbook.advantages[top], 3)} / {signed(textbook.advantages[low], 3)}"
    reason = {
        1: "because it divides by the sample std (n − 1)"
        + (f" plus {_eps(convention.eps)}" if convention.eps else ""),
        None: "because it does not divide by the std at all",
    }[convention.ddof]
    if convention.name == "rloo":
        reason = "because each answer is compared with the mean of the other G − 1"
    if convention.name == "trl_batch":
        reason += "; with one group the batch std is this group's std"
    return (
        f"{convention.label} gives {ours} on this group where the textbook gives {theirs}, "
        f"{reason}. Signs, and so push-up vs push-down, agree."
    )


def _phase_labels(stats: core.GroupStats, convention: core.Convention) -> tuple[str, str]:
    first = f"Step 1 of 2: subtract par (mean = {_num(stats.mean)}): r {MINUS} mean"
    if convention.name == "rloo":
        size = stats.group_size
        second = f"Step 2 of 2: scale by G/(G {MINUS} 1) = {size}/{size - 1} (leave-one-out)"
    elif convention.ddof is None:
        second = "Step 2 of 2: no division by the std (Dr. GRPO): A = r − mean"
    elif stats.scale == 0:
        second = "Step 2 of 2: std is 0, so every advantage is 0"
    elif convention.eps:
        second = f"Step 2 of 2: divide by std + {_eps(convention.eps)} = {_num(stats.scale)}"
    else:
        second = f"Step 2 of 2: divide by std = {_num(stats.scale)}"
    return first, second


#: An outcome is *rare* when at most this share of the group has it: its advantage then outweighs
#: every other answer's at least (1 − share)/share = 3 times (DESIGN §4: 1 of 5 is +2.0 vs −0.5).
RARE_SHARE = 0.25
#: The same rule for any rewards: the loudest answers are rare when their |A| is at least this many
#: times every other answer's. For two outcomes, k of G are rare exactly when k ≤ G/4.
RARE_RATIO = (1 - RARE_SHARE) / RARE_SHARE


def _loudest(stats: core.GroupStats) -> tuple[tuple[int, ...], str]:
    """The answers whose outcome is rare, and one sentence on why their advantage is loud.

    *Rare* is precise: the answers furthest from par (all on one side of it) are rare when every
    other answer's |A| is at most a third of theirs. With two outcomes (right and wrong) that is
    "at most a quarter of the group": 1 of 5 (the seed: +2.0 against −0.5) or 16 of 64 are rare;
    2 of 5, 7 of 16 or 31 of 64 are not. The ratio does not depend on the convention (every one
    scales r − mean by one number per group), so the star means the same under all of them.
    """
    size = stats.group_size
    if stats.degenerate or size < 2:
        return (), ""
    advantages = stats.advantages.tolist()
    magnitudes = [abs(a) for a in advantages]
    largest = max(magnitudes)
    threshold = largest * (1 - 1e-9)
    loud = tuple(i for i, m in enumerate(magnitudes) if m >= threshold)
    if len(loud) == size or len({advantages[i] > 0 for i in loud}) != 1:
        return (), ""
    # The others are the answers below the threshold (a membership test in ``loud`` per answer
    # made this quadratic: a tenth of a click's snapshot at G = 64).
    others = [m for m in magnitudes if m < threshold]
    if max(others) * RARE_RATIO > largest * (1 + 1e-9):
        return (), ""
    count = len(loud)
    one = count == 1
    rewards = {float(stats.rewards[i]) for i in loud}
    binary = {float(r) for r in stats.rewards} <= {0.0, 1.0}
    numbers = ", ".join(f"#{i + 1}" for i in loud)
    advantage = _adv(advantages[loud[0]])
    pronoun, sits, learns = ("it", "sits", "it") if one else ("they", "sit", "them")
    share = f"{count} of {size}"
    if binary and rewards == {1.0}:
        what = "right answer" if one else "right answers"
        why = (
            f"being right was rare here ({share}), so {pronoun} {sits} far above par and the "
            f"model learns most from {learns}"
        )
    elif binary and rewards == {0.0}:
        what = "wrong answer" if one else "wrong answers"
        pushed = "is" if one else "are"
        why = (
            f"being wrong was rare here ({share}), so {pronoun} {sits} far below par and "
            f"{pushed} pushed down hard"
        )
    else:
        what = "answer" if one else "answers"
        side = "above" if advantages[loud[0]] > 0 else "below"
        why = (
            f"{'its' if one else 'their'} reward was rare here ({share}), so {pronoun} {sits} "
            f"far {side} par, at least three times as far as any other answer"
        )
    lone = "The lone " if one else f"The {count} "
    majority = size - count
    rest = [a for a, m in zip(advantages, magnitudes, strict=True) if m < threshold]
    if len({round(a, 12) for a in rest}) == 1:
        verb_rest = "gets" if majority == 1 else "get"
        tail = f"while the other {'one' if majority == 1 else majority} {verb_rest} {_adv(rest[0])}"
    else:
        tail = f"while the other {'one' if majority == 1 else majority} stay closer to par"
    verb = "gets" if one else "get"
    return loud, f"{lone}{what} ({numbers}) {verb} {advantage} {tail}: {why}."


def explain(
    stats: core.GroupStats,
    convention: core.Convention | None = None,
    rewards_step: Step | None = None,
) -> WorkedMath:
    """The worked computation of this group's advantages under its own convention.

    ``convention``, when the caller already resolved it, must be the one ``stats`` was scored with.
    ``rewards_step`` says where the rewards came from when they are more than the checker's 0/1.
    """
    convention = convention or core.get_convention(stats.convention)
    steps = [_group_step(stats, convention), *_advantage_steps(stats, convention)]
    if rewards_step is not None:
        steps.insert(0, rewards_step)
    if stats.degenerate:
        steps.append(
            Step(
                "Degenerate group",
                (
                    "every reward equals the mean, so every r − mean is 0 and every advantage is "
                    "exactly 0: no token moves",
                ),
            )
        )
    loud, note = _loudest(stats)
    return WorkedMath(
        formula=convention.formula,
        convention_label=convention.label,
        source=convention.source,
        steps=tuple(steps),
        comparison=_comparison(stats, convention),
        phase_labels=_phase_labels(stats, convention),
        loudest=loud,
        loudest_note=note,
        formula_latex=convention_latex(convention),
    )
