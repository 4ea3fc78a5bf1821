"""The LaTeX beside the plain text: each convention's formula and the seed's worked group."""

from __future__ import annotations

import pytest

from grpo_desktop.core.formulas import advantages as core
from grpo_desktop.core.formulas.latex import convention_latex, eps_latex, tex_number
from grpo_desktop.core.lab.explain import explain

SQUARES = r"\sum_{j=1}^{G} \left(r_j - \bar{r}\right)^2"


@pytest.mark.parametrize(
    ("name", "latex"),
    [
        (
            "textbook",
            r"A_i = \frac{r_i - \bar{r}}{\sigma}, \quad \sigma = \sqrt{\frac{1}{G}" + SQUARES + "}",
        ),
        (
            "trl",
            r"A_i = \frac{r_i - \bar{r}}{s + \varepsilon}, \quad s = \sqrt{\frac{1}{G-1}"
            + SQUARES
            + r"}, \quad \varepsilon = 10^{-4}",
        ),
        (
            "verl",
            r"A_i = \frac{r_i - \bar{r}}{s + \varepsilon}, \quad s = \sqrt{\frac{1}{G-1}"
            + SQUARES
            + r"}, \quad \varepsilon = 10^{-6}",
        ),
        ("dr_grpo", r"A_i = r_i - \bar{r}"),
        (
            "rloo",
            r"A_i = r_i - \frac{1}{G-1}\sum_{j \ne i} r_j"
            r" = \frac{G}{G-1}\left(r_i - \bar{r}\right)",
        ),
    ],
)
def test_each_convention_has_its_formula_in_latex(name, latex):
    assert convention_latex(core.get_convention(name)) == latex


def test_every_convention_has_latex():
    for convention in core.CONVENTIONS.values():
        assert convention_latex(convention).startswith("A_i = ")


def test_numbers_become_latex():
    assert tex_number("0.5") == "0.5"
    assert tex_number("+1.0") == "{+1.0}"
    assert tex_number("\u22121.0") == "{-1.0}"
    assert tex_number("1.2e\u221207") == r"1.2 \times 10^{-7}"
    assert tex_number("1e+200") == "10^{200}"
    assert eps_latex(1e-4) == "10^{-4}"


def test_the_seed_group_in_the_textbook_convention():
    worked = explain(core.group_stats([1.0, 0.0, 0.0, 1.0], "textbook"))
    assert [step.latex for step in worked.steps] == [
        (
            r"\bar{r} = \tfrac{1 + 0 + 0 + 1}{4} = \tfrac{2}{4} = 0.5",
            r"\sigma^2 = p(1 - p) = 0.5 \times 0.5 = 0.25",
            r"\sigma = \sqrt{0.25} = 0.5",
        ),
        (r"A = \tfrac{r - \bar{r}}{\sigma} = \tfrac{1 - 0.5}{0.5} = {+1.0}",),
        (r"A = \tfrac{r - \bar{r}}{\sigma} = \tfrac{0 - 0.5}{0.5} = {-1.0}",),
    ]
    assert worked.formula_latex == convention_latex(core.get_convention("textbook"))


def test_the_seed_group_in_trl_rloo_and_dr_grpo():
    trl = explain(core.group_stats([1.0, 0.0, 0.0, 1.0], "trl"))
    assert trl.steps[0].latex[1:] == (
        r"s^2 = \tfrac{\sum_j \left(r_j - \bar{r}\right)^2}{G - 1} = \tfrac{1}{3}"
        r" = 0.3333",
        r"s = \sqrt{0.3333} = 0.5774 \quad (\text{sample std}, n - 1)",
        r"s + \varepsilon = 0.5774 + 10^{-4} = 0.5775",
    )
    assert trl.steps[1].latex == (
        r"A = \tfrac{r - \bar{r}}{s + \varepsilon} = \tfrac{1 - 0.5}{0.5775} = {+0.8659}",
    )
    rloo = explain(core.group_stats([1.0, 0.0, 0.0, 1.0], "rloo"))
    assert rloo.steps[1].latex == (
        r"b = \tfrac{1}{3}\textstyle\sum_{j \ne i} r_j = 0.3333, \quad"
        r" A = r - b = 1 - 0.3333 = {+0.6667}",
    )
    dr_grpo = explain(core.group_stats([1.0, 0.0, 0.0, 1.0], "dr_grpo"))
    assert dr_grpo.steps[0].latex[-1] == ""  # "does not divide by the std" is a sentence
    assert dr_grpo.steps[2].latex == (r"A = r - \bar{r} = 0 - 0.5 = {-0.5}",)


def test_every_line_has_latex_or_is_a_sentence_and_negatives_are_bracketed():
    worked = explain(core.group_stats([1.0, -0.5, 0.0, 1.0], "textbook"))
    for step in worked.steps:
        assert len(step.latex) == len(step.lines)
    assert r"\tfrac{{-0.5} - 0.375}{0.6495}" in worked.steps[-1].latex[0]
