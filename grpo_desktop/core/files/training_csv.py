"""A training run as a table: one row per algorithm, seed and step, for a spreadsheet.

Pure Python + numpy. Follows :mod:`grpo_desktop.core.files.group_csv`'s choices: numbers with full
precision and the ASCII minus sign (empty where a step measured nothing, e.g. step 0's sampling),
UTF-8 with a byte order mark so spreadsheets read it as UTF-8. Per-problem pass rates follow the
metrics, one column per problem, named ``pass_rate:<problem id>`` (ids are a-z, 0-9 and '-').
A seed that diverged has ``diverged`` 1 from that step on and no numbers there, so an empty cell
is never mistaken for a gap in the log.
"""

from __future__ import annotations

import csv
import io
import math

from grpo_desktop.core.files.group_csv import UTF8_BOM
from grpo_desktop.core.training.run import METRICS, TrainingRun

__all__ = ["training_csv", "training_csv_bytes"]


def _number(value: float) -> str:
    return "" if not math.isfinite(value) else repr(float(value))


def training_csv(run: TrainingRun) -> str:
    """Every recorded step of every algorithm and seed as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    ids = run.library.problem_ids
    writer.writerow(
        ["algorithm", "seed", "step", "diverged", *METRICS, *(f"pass_rate:{pid}" for pid in ids)]
    )
    for name in run.config.algorithms:
        history = run.history(name)
        diverged_at = run.divergence(name).steps
        per_problem = run.pass_rates(name)  # (steps + 1, S, P)
        for seed in range(run.config.seeds):
            for step in range(run.step_count + 1):
                writer.writerow(
                    [
                        name,
                        seed + 1,
                        step,
                        int(diverged_at[seed] is not None and step >= diverged_at[seed]),
                        *(_number(history[metric][step, seed]) for metric in METRICS),
                        *(_number(value) for value in per_problem[step, seed]),
                    ]
                )
    return out.getvalue()


def training_csv_bytes(run: TrainingRun) -> bytes:
    return (UTF8_BOM + training_csv(run)).encode("utf-8")
