"""Make the shipped starting checkpoint of the tiny model: supervised pretraining, seeded.

    nice -n 10 python scripts/pretrain_tinylm.py [--steps N] [--seed S] [--out PATH]

Trains on training prompts of 2-digit addition (60 %), 3-digit addition (20 %) and digit
sorting (20 %), batch 128, Adam lr 2e-3 after a 50-step warm-up, then stops on purpose while the
model is mediocre, so GRPO has room to lift it; prints the time taken and the held-out exact pass
rate and greedy accuracy of every task. The same arguments give the same weights.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from grpo_desktop.core.tinylm.evaluation import evaluate
from grpo_desktop.core.tinylm.model import load_model
from grpo_desktop.core.tinylm.pretrain import PretrainConfig, pretrain
from grpo_desktop.core.tinylm.tasks import get_task, task_names

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "resources" / "tinylm" / "add.npz"


def main() -> None:
    defaults = PretrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    config = replace(defaults, steps=args.steps, seed=args.seed)
    began = time.perf_counter()

    def progress(step: int, loss: float, _model) -> None:
        if step % 50 == 0 or step == config.steps:
            print(f"step {step:5d}  loss {loss:.4f}  {time.perf_counter() - began:6.1f} s")

    model = pretrain(config, progress)
    seconds = time.perf_counter() - began
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    saved = load_model(args.out)
    print(
        f"{model.n_params:,} parameters, {seconds:.1f} s, saved {args.out} "
        f"({args.out.stat().st_size / 1024:.0f} KB)"
    )
    for name in task_names():
        result = evaluate(saved, get_task(name))
        print(
            f"held-out {name:5s}: exact pass rate {result.pass_rate:.3f}, "
            f"greedy accuracy {result.greedy_accuracy:.3f} ({result.pass_rates.size} prompts)"
        )


if __name__ == "__main__":
    main()
