"""LaTeX for the formulas and numbers the app shows, beside their plain text.

Pure Python (core layer): the views typeset these strings (views/common/math_render.py) and copy
them to the clipboard; the plain text stays what screen readers hear and Ctrl+C copies. Only
LaTeX every typesetter knows is used (``\\frac``, ``\\sqrt``, ``\\sum``, ``\\bar``, ``\\text``,
sub- and superscripts), so a lecturer can paste it into a slide as it is.
"""

from __future__ import annotations

import re

from grpo_desktop.core.common.formatting import MINUS
from grpo_desktop.core.formulas.advantages import Convention

__all__ = [
    "MEAN",
    "convention_latex",
    "eps_latex",
    "is_negative",
    "scale_symbol",
    "tex_number",
]

#: The group's mean reward, as the formulas write it.
MEAN = r"\bar{r}"

_SCIENTIFIC = re.compile(r"^([+-]?)(\d+(?:\.\d+)?)e([+-])0*(\d+)$")


def tex_number(text: str) -> str:
    """A number as the app prints it (``−0.5``, ``+1.0``, ``1.2e−07``, ``1e+200``) in LaTeX:
    an ASCII minus, scientific notation as ``1.2 \\times 10^{-7}`` and a sign in braces."""
    ascii_text = text.replace(MINUS, "-")
    found = _SCIENTIFIC.match(ascii_text)
    if found is None:
        latex = ascii_text
    else:
        sign, mantissa, exponent_sign, exponent = found.groups()
        power = f"10^{{{'-' if exponent_sign == '-' else ''}{exponent}}}"
        latex = (
            f"{sign}{power}" if mantissa in ("1", "1.0") else rf"{sign}{mantissa} \times {power}"
        )
    # A sign in braces is the number's own (+1.0), not an operator spaced as in "a + 1.0".
    return f"{{{latex}}}" if latex[:1] in ("+", "-") else latex


def is_negative(latex: str) -> bool:
    """Whether a ``tex_number`` is negative (it then needs brackets after a minus)."""
    return latex.startswith(("-", "{-"))


def eps_latex(eps: float) -> str:
    """A convention's epsilon as a power of ten (``10^{-4}``), or its digits when it is not."""
    return tex_number(f"{eps:.0e}")


def scale_symbol(convention: Convention) -> str:
    """What ``r − mean`` is divided by: σ (population std), s (sample std) plus ε, or 1."""
    if convention.ddof is None:
        return "1"
    std = (
        r"s_{\text{batch}}"
        if convention.name == "trl_batch"
        else "s"
        if convention.ddof
        else r"\sigma"
    )
    return rf"{std} + \varepsilon" if convention.eps else std


def convention_latex(convention: Convention) -> str:
    """The convention's formula in LaTeX: the plain ``Convention.formula`` typeset, with what its
    std is (population or Bessel's sample std) and its epsilon written out."""
    if convention.name == "rloo":
        return (
            rf"A_i = r_i - \frac{{1}}{{G-1}}\sum_{{j \ne i}} r_j"
            rf" = \frac{{G}}{{G-1}}\left(r_i - {MEAN}\right)"
        )
    if convention.ddof is None:
        return rf"A_i = r_i - {MEAN}"
    head = rf"A_i = \frac{{r_i - {MEAN}}}{{{scale_symbol(convention)}}}"
    squares = rf"\sum_{{j=1}}^{{G}} \left(r_j - {MEAN}\right)^2"
    if convention.ddof == 0:
        return rf"{head}, \quad \sigma = \sqrt{{\frac{{1}}{{G}}{squares}}}"
    if convention.name == "trl_batch":
        spread = r"s_{\text{batch}} = \text{sample std of the batch}"
    else:
        spread = rf"s = \sqrt{{\frac{{1}}{{G-1}}{squares}}}"
    return rf"{head}, \quad {spread}, \quad \varepsilon = {eps_latex(convention.eps)}"
